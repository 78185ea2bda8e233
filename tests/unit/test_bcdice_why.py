"""A ココフォリア line's reason (campaign.bridges.bcdice_why): the English line, a code and
values for --json, and words in the reader's language where it is shown."""

from __future__ import annotations

import copy
import pickle

import pytest

from campaign import i18n
from campaign.bridges.bcdice_lines import classify
from campaign.bridges.bcdice_why import Why, json_fields
from campaign.refusal_words import words_text
from campaign.seeds import load_tables

NESTED = Why(
    "repeat_answer",
    "#{number}: {why}",
    number=2,
    why=Why("face_count", "{faces} faces for {dice} dice", faces=4, dice=3),
)


def test_the_english_line_the_code_and_the_values():
    assert NESTED == "#2: 4 faces for 3 dice"
    assert json_fields(NESTED) == {
        "why_code": "repeat_answer",
        "why_params": {"number": 2, "why": {"code": "face_count", "params": {"faces": 4, "dice": 3}}},
    }
    assert json_fields(None) == {"why_code": None, "why_params": {}}
    assert Why("no_expression", "no bracketed expression").to_json() == "no_expression"  # no values: the code


@pytest.mark.parametrize("copied", [copy.copy, copy.deepcopy, lambda why: pickle.loads(pickle.dumps(why))])
def test_a_copy_keeps_its_code_and_values(copied):
    again = copied(NESTED)
    assert again == NESTED and again.code == "repeat_answer" and again.to_json() == NESTED.to_json()


@pytest.mark.parametrize(
    ("line", "ja", "en"),
    [
        (
            "x2 3d6 #1 (3D6) ＞ 10[1,4,5] ＞ 10 #2 (3D6) ＞ 7[1,1,1,4] ＞ 7",
            "#2: ダイス 3 個に出目が 4 個あります",
            "#2: 4 faces for 3 dice",
        ),
        ("1d20 (1D20) ＞ 3[3] ＞ 3 ＞ 成功", "比較がないのに判定結果があります", "an outcome without a comparison"),
        (
            "3d6<=12 (3D6<=12) ＞ 11[1,4,6] ＞ 11",
            "比較があるのに判定結果がありません",
            "a comparison without an outcome",
        ),
        ("x0 3d6 #1 (3D6) ＞ 10[1,4,5] ＞ 10", "繰り返し 0 回は扱えません", "a repeat of 0"),
    ],
)
def test_a_reason_in_each_language(line, ja, en):
    why = classify(line, load_tables(), gurps=True).why
    assert why == en
    try:
        i18n.use("ja")
        assert words_text(why) == ja
        i18n.use("en")
        assert words_text(why) == en
    finally:
        i18n.use(None)

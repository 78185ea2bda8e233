"""Every code of every family has words in both languages, and they come from the catalog.

campaign.effect_words holds one table per code family (code -> English msgid); the
Japanese is in the catalog only. A code the rules core knows (core.effects_vocabulary)
without a line in its table, or a msgid without a Japanese translation, fails here.
"""

from __future__ import annotations

import pytest

from campaign import i18n
from campaign.core import effects_vocabulary as vocabulary
from campaign.effect_words import (
    CONDITION_WORDS,
    FAMILIES,
    RECOVERY_WORDS,
    TRAIT_CATEGORY_WORDS,
    UNIT_COUNT_WORDS,
    UNIT_EVERY_N_WORDS,
    UNIT_EVERY_WORDS,
    UNIT_SAME_WORDS,
    count_label,
    duration_label,
    recovery_label,
)

JAPANESE = i18n.translations("ja")


def _japanese(msgid: str | tuple[str, str]) -> str:
    if isinstance(msgid, tuple):
        return JAPANESE.ngettext(msgid[0], msgid[1], 2)
    return JAPANESE.gettext(msgid)


@pytest.mark.parametrize(
    ("codes", "table"),
    [
        (vocabulary.TRAIT_CATEGORIES, TRAIT_CATEGORY_WORDS),
        (vocabulary.CONDITIONS, CONDITION_WORDS),
        (vocabulary.RECOVERIES, RECOVERY_WORDS),
        (vocabulary.UNITS, UNIT_COUNT_WORDS),
        (vocabulary.UNITS, UNIT_EVERY_WORDS),
        (vocabulary.UNITS, UNIT_EVERY_N_WORDS),
        (vocabulary.UNITS, UNIT_SAME_WORDS),
    ],
    ids=["trait category", "condition", "recovery", "unit", "unit interval", "unit intervals", "unit as long"],
)
def test_every_code_the_core_knows_has_a_line_in_its_family(codes, table):
    assert set(codes) - set(table) == set()


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_code_of_a_family_has_words_in_both_languages(family):
    for code, msgid in FAMILIES[family].items():
        english = msgid if isinstance(msgid, str) else msgid[1]
        japanese = _japanese(msgid)
        assert english.strip(), (family, code)
        assert japanese != english and not japanese.isascii(), (family, code, japanese)


def test_a_code_missing_from_the_catalog_is_caught(monkeypatch):
    """The check above fails for a code whose msgid the catalog does not translate."""
    monkeypatch.setitem(TRAIT_CATEGORY_WORDS, "cursed", "cursed disadvantage")
    with pytest.raises(AssertionError):
        test_every_code_of_a_family_has_words_in_both_languages("trait category")


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("ja", ("4ターン", "1分", "毎ターンの意思判定", "30分ごとの生命力判定", "回復するまで (GMの裁定)")),
        (
            "en",
            (
                "4 turns",
                "1 minute",
                "Will roll every turn",
                "HT roll every 30 minutes",
                "until recovered (as the GM rules)",
            ),
        ),
    ],
)
def test_lengths_and_recoveries_read_from_their_codes(lang, expected):
    with i18n.speaking(lang):
        shown = (
            count_label(4, "turn"),
            count_label(1, "minute"),
            recovery_label("will", 1, "turn"),
            recovery_label("ht", 30, "minute"),
            duration_label({"duration": None, "recovery": "gm"}),
        )
    assert shown == expected

"""The endpoint against BCDice's recorded answers (tests.bcdice_compat): every difference
is of a kind docs/bcdice-compat.md lists, the table there is the run's, and the kinds stay
few. The oracle is not needed here: its answers are the fixture."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from tests.bcdice_compat import DOC, difference_kind, listed_kinds, load, replay

CASES = load()


@pytest.fixture(scope="module")
def found():
    return replay(CASES)


def test_every_difference_is_one_the_page_lists(found):
    listed = listed_kinds()
    unlisted = [
        (kind, case["command"], case["rands"], ours.get("text")) for kind, case, _, ours in found if kind not in listed
    ]
    assert unlisted == []
    assert len(listed) < 40


def test_the_page_s_table_is_this_run_s(found):
    counts = Counter(kind for kind, *_ in found)
    rows = re.findall(r"^\| `([a-z-]+)` \| (\d+) \|", DOC.read_text("utf-8"), re.MULTILINE)
    assert {kind: int(count) for kind, count in rows} == dict(counts)  # each listed kind still occurs


def test_the_cases_hold_every_kind_of_command():
    commands = [case["command"] for case in CASES]
    assert len(CASES) >= 1000 and {case["system"] for case in CASES} == {"GURPS", "DiceBot"}
    for shape in (r"^\d+-3D$", r"^\d+-\d-3D6$", r"^\d+\+\d-3D6$", r"^\d+-3D6[+-]\d$", r"<=\(\d+\+2\)$"):
        assert any(re.search(shape, command) for command in commands), shape
    for prefix in ("x", "rep", "repeat", "S3D6"):
        assert any(command.startswith(prefix) for command in commands), prefix
    assert any("frames" in case for case in CASES) and any("answer" in case for case in CASES)
    assert any(case.get("text", "").count("成功度") == 0 and "成功" in case.get("text", "") for case in CASES)


CASE = {
    "system": "GURPS",
    "command": "3D6<=12",
    "rands": [[3, 6], [4, 6], [5, 6]],
    "text": "(3D6<=12) ＞ 12[3,4,5] ＞ 12 ＞ 成功(成功度：0)",
    **dict.fromkeys(("secret", "failure", "critical", "fumble"), False),
    "success": True,
}
OURS = {
    "ok": True,
    "text": CASE["text"],
    **{flag: CASE[flag] for flag in ("secret", "success", "failure", "critical", "fumble")},
    "rands": [{"kind": "normal", "sides": 6, "value": face} for face in (3, 4, 5)],
}


@pytest.mark.parametrize(
    ("case", "status", "ours", "kind"),
    [
        (CASE, 200, OURS, None),
        (CASE, 200, {**OURS, "text": OURS["text"].replace("成功(", "成功 (")}, "text"),
        (CASE, 200, {**OURS, "critical": True}, "flags"),
        (CASE, 200, {**OURS, "rands": OURS["rands"][::-1]}, "dice"),
        (CASE, 400, {"ok": False, "reason": "unsupported command"}, "refused"),
        ({**CASE, "command": "SCRT"}, 400, {"ok": False}, "secret-table"),
        ({"system": "GURPS", "command": "FEAR-2", "rands": [], "answer": None}, 200, OURS, "fear-minus"),
        ({"system": "GURPS", "command": "3 3D6", "rands": [], "answer": None}, 200, OURS, "accepted-not-bcdice"),
        ({"system": "GURPS", "command": "3 3D6", "rands": [], "answer": None}, 400, {"ok": False}, None),
        (
            {**CASE, "command": "CRT", "frames": ["クリティカル表(12) ＞ "], "text": None},
            200,
            {**OURS, "text": "クリティカル表(13) ＞ 通常ダメージ。"},
            "table-frame",
        ),
    ],
)
def test_difference_kinds_are_told_apart(case, status, ours, kind):
    if case.get("text") is None:
        case = {key: value for key, value in case.items() if key != "text"}
    assert difference_kind(case, status, ours) == kind

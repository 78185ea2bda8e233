"""Repeats in `campaign roll` and the shell: `x3 3D6<=12`, `rep3`, `repeat3` and the dice
bots' `3 3D6<=12`, each roll its own ledger entry, printed as BCDice prints a repeat
(the texts are those tests/web/test_bcdice_repeats.py holds to BCDice's own answers).
SQLite and PostgreSQL (the `gurps` fixture), the shell on SQLite.
"""

from __future__ import annotations

import pytest

from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.cli.test_shell import PARTY, _documents, _shell

THREE = (
    "#1\n(3D6<=12) ＞ 12[3,4,5] ＞ 12 ＞ 成功(成功度：0)\n\n"
    "#2\n(3D6<=12) ＞ 3[1,1,1] ＞ 3 ＞ クリティカル(成功度：9)\n\n"
    "#3\n(3D6<=12) ＞ 18[6,6,6] ＞ 18 ＞ ファンブル(失敗度：-6)"
)


def head(cli: Cli) -> int:
    return cli.json("history", "--limit", "1")[0]["seq"]


@pytest.mark.parametrize(
    "command", ["x3 3D6<=12", "rep3 3D6<=12", "REPEAT3 3D6<=12", "3 3D6<=12", "x3　３Ｄ６＜＝１２"]
)
def test_each_roll_of_a_repeat_is_its_own_entry_and_the_text_is_bcdice_s(gurps: Cli, command: str):
    before = head(gurps)
    shown = gurps.run("--lang", "ja", "roll", command, "--dice", "3,4,5,1,1,1,6,6,6").stdout
    assert shown == THREE + f"\n記録: #{before + 1}〜#{before + 3}\n"
    entries = [gurps.json("history", "show", str(before + n)) for n in (1, 2, 3)]
    assert [(e["kind"], e["expression"], e["dice"], e["total"], e["outcome"], e["margin"]) for e in entries] == [
        ("roll", "3D6<=12", [3, 4, 5], 12, "success", 0),
        ("roll", "3D6<=12", [1, 1, 1], 3, "critical_success", 9),
        ("roll", "3D6<=12", [6, 6, 6], 18, "critical_failure", -6),
    ]
    assert all(e["detail"]["repeats"] == [] and e["parent_seq"] is None for e in entries)
    assert head(gurps) == before + 3 and gurps.json("history", "verify")["ok"] is True


def test_an_english_session_gets_each_entry_in_its_own_words(gurps: Cli):
    before = head(gurps)
    shown = gurps.run("--lang", "en", "roll", "x2 3D6<=12", "--dice", "3,4,5,1,1,1").stdout
    assert shown == (
        f"#{before + 1} 3D6<=12 → [3,4,5] = 12 → success (margin +0)\n"
        f"#{before + 2} 3D6<=12 → [1,1,1] = 3 → critical success (margin +9)\n"
    )
    made = gurps.json("--lang", "en", "roll", "x2 2D6", "--dice", "1,2,3,4")
    assert made["text"] == "#1\n(2D6) ＞ 3[1,2] ＞ 3\n\n#2\n(2D6) ＞ 7[3,4] ＞ 7"  # BCDice's, in both languages


def test_a_repeat_in_json_a_comment_a_character_and_a_table(gurps: Cli):
    before = head(gurps)
    made = gurps.json("roll", "x2 2D6 回避", "--char", "鈴音", "--dice", "1,2,3,4")
    assert (made["kind"], made["count"], made["secret"], made["seq"]) == ("repeat", 2, False, before + 1)
    assert made["text"] == "#1\n(2D6) ＞ 3[1,2] ＞ 3\n\n#2\n(2D6) ＞ 7[3,4] ＞ 7"
    assert [(e["seq"], e["character"], e["reason"], e["total"]) for e in made["entries"]] == [
        (before + 1, "鈴音", "回避", 3),
        (before + 2, "鈴音", "回避", 7),
    ]
    tables = gurps.json("roll", "rep2 CRT", "--dice", "1,2,3,4,5,6")
    assert tables["text"] == (
        "#1\nクリティカル表(6) ＞ ダメージ2倍。\n\n#2\nクリティカル表(15) ＞ 相手は武器を落とす。ダメージは通常。"
    )
    assert [e["kind"] for e in tables["entries"]] == ["table", "table"]


def test_a_secret_repeat_is_secret_entries_one_commitment_each(gurps: Cli):
    before = head(gurps)
    for command in ("Sx2 3D6<=12", "x2 S3D6<=12"):
        lines = gurps.run("roll", command, "--dice", "1,2,3,4,5,6").stdout.splitlines()
        assert [line.split(" ", 1)[0] for line in lines] == [f"#{before + 1}", f"#{before + 2}"]
        assert all("secret roll by GM" in line for line in lines)
        before += 2
    peeked = gurps.json("history", "peek", str(before))
    assert (peeked["expression"], peeked["dice"]) == ("3D6<=12", [4, 5, 6])


@pytest.mark.parametrize(
    ("command", "dice", "message"),
    [
        ("x101 2D6", [], "repeat count must be 1..100, not 101"),
        ("x0 2D6", [], "repeat count must be 1..100, not 0"),
        ("101 3D6<=12", [], "repeat count must be 1..100, not 101"),
        ("x2 rep2 2D6", [], "a repeat cannot repeat another repeat: rep2 2D6"),
        ("x2 2D6", [1, 2, 3, 4, 5], "--dice: 5 faces given but only 4 used; remove the extra ones"),
        ("x2 3D6<=ほげ", [], None),
    ],
)
def test_a_refused_repeat_is_one_line_and_writes_nothing(gurps: Cli, command, dice, message):
    before = head(gurps)
    args = ("roll", command, *(("--dice", ",".join(map(str, dice))) if dice else ()))
    said = gurps.error(*args, code=2)
    assert len(said.splitlines()) == 1
    if message is not None:
        assert said == f"error: {message}"
    assert head(gurps) == before


def test_japanese_refusal_of_a_count_over_the_limit(gurps: Cli):
    said = gurps.error("--lang", "ja", "roll", "x101 2D6", code=2)
    assert said == "エラー: 繰り返し回数は 1〜100 にしてください (101 ではなく)"
    said = gurps.error("--lang", "ja", "roll", "x2 x2 2D6", code=2)
    assert said == "エラー: 繰り返しの中で繰り返すことはできません: x2 2D6"
    before = head(gurps)
    shown = gurps.run("--lang", "ja", "roll", "x2 1D6", "--dice", "1,2").stdout
    assert shown == f"#1\n(1D6) ＞ 1\n\n#2\n(1D6) ＞ 2\n記録: #{before + 1}〜#{before + 2}\n"


def test_the_shell_rolls_a_repeat_as_the_command_line_does(tmp_path):
    db = tmp_path / "shell.db"
    lines = [*PARTY, "roll x2 3D6<=12 --dice 3,4,5,1,1,1", "roll 2 1D6 --dice 2,5 --json", "roll x101 2D6"]
    done = _shell(db, [*lines, "history --json"], "--lang", "ja")
    assert "#1\n(3D6<=12) ＞ 12[3,4,5] ＞ 12 ＞ 成功(成功度：0)\n\n#2\n(3D6<=12) ＞ 3[1,1,1] ＞ 3 ＞ " in done.stdout
    assert "記録: #4〜#5\n" in done.stdout
    assert done.stderr == "エラー: 繰り返し回数は 1〜100 にしてください (101 ではなく)\n"
    documents = _documents(done.stdout[done.stdout.index("{") :])
    made, listed = documents[0], documents[1]
    assert made["text"] == "#1\n(1D6) ＞ 2\n\n#2\n(1D6) ＞ 5"
    rolls = [entry for entry in listed if entry["kind"] == "roll"]
    assert [(entry["expression"], entry["dice"]) for entry in sorted(rolls, key=lambda e: e["seq"])] == [
        ("3D6<=12", [3, 4, 5]),
        ("3D6<=12", [1, 1, 1]),
        ("1D6", [2]),
        ("1D6", [5]),
    ]


@pytest.mark.parametrize("language", ["--lang ja", "CAMPAIGN_LANG=ja"])
def test_the_japanese_shell_refuses_every_repeat_over_the_limit_in_japanese(tmp_path, language, monkeypatch):
    """Each way a repeat is written, over the limit, and a repeat where a verb goes
    (`table x101`): one Japanese line each, nothing written."""
    options: tuple[str, ...] = ("--lang", "ja") if language == "--lang ja" else ()
    monkeypatch.setenv("CAMPAIGN_LANG", "ja" if not options else "en")
    lines = ["roll x101 3D6", "roll rep101 3D6<=12", "roll repeat101 2D6", "roll 101 3D6", "roll x0 3D6"]
    done = _shell(tmp_path / "shell.db", [*PARTY, *lines, "table x101 FEAR", "history --json"], *options)
    assert done.stderr.splitlines() == [
        *(f"エラー: 繰り返し回数は 1〜100 にしてください ({n} ではなく)" for n in (101, 101, 101, 101, 0)),
        "エラー: コマンド 'x101' はありません。",
    ]
    assert [e["kind"] for e in _documents(done.stdout[done.stdout.index("[") :])[0]] == [
        "character",
        "player",
        "campaign",
    ]


def test_each_roll_of_a_repeat_takes_the_penalty_after_waking_as_one_roll_would(gurps: Cli):
    """docs/rules.md "Penalty after waking": a repeat is that many rolls, each lowered."""
    gurps.run("condition", "add", "鈴音", "unconscious", "--for", "1h", "--then-penalty", "-2", "--then-for", "6h")
    gurps.run("time", "advance", "1h")
    made = gurps.json("roll", "x2 3D6<=12", "--char", "鈴音", "--dice", "5,4,2,4,3,3")
    assert [(e["target"], e["total"], e["outcome"], e["margin"]) for e in made["entries"]] == [
        (10, 11, "failure", -1),
        (10, 10, "success", 0),
    ]
    assert [e["detail"]["written_target"] for e in made["entries"]] == [12, 12]
    # the expression stays as written; the words follow the judgement against 10, as for one roll
    assert made["text"] == (
        "#1\n(3D6<=12) ＞ 11[5,4,2] ＞ 11 ＞ 失敗(失敗度：-1)\n\n#2\n(3D6<=12) ＞ 10[4,3,3] ＞ 10 ＞ 成功(成功度：0)"
    )

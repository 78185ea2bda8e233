"""Calls fit the campaign's ruleset (docs/rules.md "Calls"): a GURPS campaign calls success
rolls against the sheet (one PC, several, or everyone taking part), fright checks and the
reunion; a 2d6 campaign its own checks; any other call is refused with nothing made."""

from __future__ import annotations

import pytest

from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)


def pending(cli: Cli) -> list[tuple[str, dict]]:
    return [(c["character"], c["params"]) for c in cli.json("call", "list")["calls"]]


def test_a_gurps_campaign_calls_success_rolls_for_everyone_taking_part(gurps):
    gurps.run("skill", "add", "鈴音", "聞き耳", "13")
    gurps.run("skill", "add", "刀矢", "聞き耳", "10")
    gurps.run("scenario", "start", "第一話", "--with", "鈴音", "--with", "刀矢", "--with", "管狐")
    made = gurps.json("call", "success", "聞き耳", "--mod", "-2")["calls"]  # no names: the PCs taking part
    assert [(c["character"], c["player"]) for c in made] == [("鈴音", "Aki"), ("刀矢", "Ren")]
    rolled = [
        gurps.json("call", "roll", str(made[0]["call_id"]), "--dice", "5,5,1")["entry"],
        gurps.json("call", "roll", str(made[1]["call_id"]), "--dice", "5,5,1")["entry"],
    ]
    assert [(e["character"], e["expression"], e["total"], e["outcome"]) for e in rolled] == [
        ("鈴音", "3D6<=11", 11, "success"),
        ("刀矢", "3D6<=8", 11, "failure"),
    ]
    stat = gurps.json("call", "success", "HT", "鈴音", "刀矢")["calls"]  # a stat, named PCs
    assert [c["params"] for c in stat] == [{"check": "success", "roll": "HT", "modifier": 0}] * 2
    gurps.run("history", "verify")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("call", "check", "ability", "鈴音", "HT", "--target", "10"), "has no ability check call"),
        (("call", "check", "danger", "鈴音", "--difficulty", "10"), "has no danger sense call"),
        (("call", "success", "HT", "鈴音", "誰か"), "no character named '誰か'"),  # 鈴音 first: none made
        (("call", "success", "ない技能", "鈴音"), "has no skill or stat 'ない技能'"),
        (("call", "success", "HT"), "nobody to call"),  # no scenario open, and no active PC left
    ],
)
def test_a_call_the_campaign_cannot_make_makes_none(gurps, args, words):
    if args == ("call", "success", "HT"):
        gurps.run("char", "retire", "鈴音", "--reason", "引退")
        gurps.run("char", "retire", "刀矢", "--reason", "引退")
    message = gurps.error(*args, code=1)
    assert words in message and len(message.splitlines()) == 1
    assert pending(gurps) == []


def test_a_2d6_campaign_calls_its_checks_not_success_rolls(cli):
    cli.run("init", "夜桜", "--ruleset", "2d6-ja")
    cli.run("player", "add", "Aki")
    cli.run("char", "add", "鈴音", "--player", "Aki", "--stat", "技=3", "--new-stat")
    made = cli.json("call", "check", "ability", "鈴音", "技", "--target", "12")
    assert made["params"] == {"check": "ability", "stat": "技", "target": 12, "modifier": 0}
    assert "has no success roll call" in cli.error("call", "success", "技", "鈴音", code=1)
    assert "has no fright check call" in cli.error("call", "fright", "鈴音", code=1)
    rolled = cli.json("call", "roll", str(made["call_id"]), "--dice", "4,5")["entry"]
    assert (rolled["kind"], rolled["total"], rolled["outcome"]) == ("check", 12, "success")
    assert pending(cli) == []

"""A roll or check for a character out of play.

Policy (services.characters.presence, README's tour): fright and 2d6 checks refuse the dead and the
retired, and the missing unless --anyway; searchers are warned about; rolls and table
lookups only warn. A warning is one line on stderr and "warnings" in the JSON.

The `gurps` party (conftest): PCs 鈴音 (Aki, Will 11) and 刀矢 (Ren), NPC 管狐.
"""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import Cli


def count(cli: Cli) -> int:
    return len(cli.json("history", "--all"))


@pytest.mark.parametrize(
    "how", [("char", "kill", "刀矢", "--reason", "崩落"), ("char", "retire", "刀矢", "--reason", "引退")]
)
def test_checks_refuse_the_dead_and_retired_rolls_warn(sqlite_gurps, how):
    cli = sqlite_gurps
    cli.run(*how)
    status = "dead" if how[1] == "kill" else "retired"
    before = count(cli)
    for command in (
        ("fright", "刀矢", "--dice", "1,1,1"),
        ("fright", "刀矢", "--anyway", "--dice", "1,1,1"),  # --anyway is for the missing only
        ("check", "ability", "刀矢", "IQ", "--target", "10", "--dice", "3,4"),
        ("check", "coop", "IQ", "--with", "鈴音", "--with", "刀矢", "--target", "10", "--dice", "1,2,3"),
        ("check", "oppose", "--active", "鈴音:IQ", "--passive", "刀矢:IQ", "--dice", "1,2,3,4"),
    ):
        message = cli.error(*command, code=1)
        assert (
            message.startswith(f"error: 刀矢 is {status}: ")
            and message.endswith(" is not for a character out of the game")
            and "\n" not in message
        )
    assert count(cli) == before
    for command in (
        ("roll", "2D6", "--char", "刀矢", "--dice", "3,4"),
        ("table", "roll", "CRT", "--char", "刀矢", "--dice", "3,4,5"),
        ("ref", "show", "命中部位", "--roll", "--char", "刀矢", "--dice", "3,3,4"),
    ):
        result = cli.run(*command)
        assert result.stderr == f"warning: 刀矢 is {status} and not in play\n"
        assert cli.json(*command)["warnings"] == [f"刀矢 is {status} and not in play"]
    assert count(cli) == before + 6  # all logged


def test_a_missing_character_is_checked_only_with_anyway(gurps):
    gurps.run("missing", "mark", "鈴音")
    before = count(gurps)
    message = gurps.error("fright", "鈴音", "--dice", "1,1,1", code=1)
    assert message == (
        "error: 鈴音 is missing and not in play: a fright check needs the character present "
        "(--anyway if the story brings them on stage)"
    )
    assert "an ability check needs" in gurps.error(
        "check", "ability", "鈴音", "IQ", "--target", "10", "--dice", "3,4", code=1
    )
    assert count(gurps) == before

    # the story brings her on stage: --anyway checks her, logged with the warning
    result = gurps.run("fright", "鈴音", "--anyway", "--pick", "暗所恐怖症", "--dice", "6,5,5,6,6,6", "--json")
    assert result.stderr == "warning: 鈴音 is missing and not in play\n"
    fright = json.loads(result.stdout)
    assert fright["warnings"] == ["鈴音 is missing and not in play"] and fright["traits_added"]
    checked = gurps.json("check", "ability", "鈴音", "IQ", "--target", "10", "--anyway", "--dice", "3,4")
    assert checked["warnings"] == ["鈴音 is missing and not in play"] and checked["total"] == 19
    # the fright's changes void back, and history verifies throughout
    gurps.run("history", "void", "--yes", str(fright["seq"]), "--reason", "she was not there after all")
    assert gurps.json("history", "verify")["ok"]


def test_a_searcher_is_checked_with_a_warning(gurps):
    gurps.run("char", "relate", "鈴音", "刀矢")
    gurps.run("missing", "mark", "鈴音")
    gurps.run("scenario", "start", "一話", "--with", "管狐", "--search", "刀矢=鈴音")
    result = gurps.run("check", "ability", "刀矢", "IQ", "--target", "10", "--dice", "3,4")
    assert result.stderr == "warning: 刀矢 is searching for 鈴音 and not in play\n"
    view = gurps.json("fright", "刀矢", "--dice", "1,1,1")
    assert view["warnings"] == ["刀矢 is searching for 鈴音 and not in play"] and view["check"]["outcome"]
    # an active character: no warning, no "warnings" key
    quiet = gurps.run("check", "ability", "管狐", "Will", "--target", "10", "--dice", "3,4")
    assert quiet.stderr == ""
    assert "warnings" not in gurps.json("roll", "2D6", "--char", "管狐", "--dice", "1,2")
    assert gurps.json("history", "verify")["ok"]

"""Physical dice at the table.

--dice that runs short says how many more faces this request needs and what for;
--dice takes spaces as well as commas; --physical asks for each die on a terminal (one
test drives the real console script through a pseudo-terminal) and is refused off one;
a table's conditional reroll follows --grenade / --weapon / --reroll, or is asked.
"""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from campaign.cli.physical import Aborted, PromptDice
from campaign.core.dice_source import ManualDice
from campaign.errors import DiceError
from tests.cli.conftest import Cli


def entries(cli: Cli) -> int:
    return len(cli.json("history", "--all"))


# --- --dice: short, spaced, refused ---------------------------------------------------


def test_short_dice_say_how_many_more_and_for_what(gurps):
    before = entries(gurps)
    # Will 11: 6+5+5 = 16 fails by 5, so the fright table's 3d6 is needed next
    assert gurps.error("fright", "鈴音", "--dice", "6 5 5", code=2) == (
        "error: --dice: not enough faces, need 3 more: 3d6 for the fright table of 鈴音"
    )
    assert gurps.error("fright", "鈴音", "--dice", "6,5,5,6", code=2).endswith(
        "need 2 more: 3d6 for the fright table of 鈴音"
    )
    assert gurps.error("fright", "鈴音", "--dice", "6", code=2).endswith("need 2 more: 3d6 for the Will roll of 鈴音")
    assert gurps.error("roll", "3D6+1D8", "--dice", "1 2 3", code=2).endswith("need 1 more: 1d8 for the roll 3D6+1D8")
    assert gurps.error("check", "ability", "鈴音", "IQ", "--target", "15", "--dice", "3", code=2).endswith(
        "need 1 more: 2d6 for the ability check of 鈴音"
    )
    assert gurps.error("table", "roll", "CRT", "--dice", "", code=2) == (
        "error: --dice: face 1 ('') is not a whole number"
    )
    assert entries(gurps) == before  # every refusal changed nothing


def test_dice_with_spaces_reads_like_commas(gurps):
    spaced = gurps.json("fright", "鈴音", "--pick", "暗所恐怖症", "--dice", " 6 5  5 6, 6 6 ")
    assert spaced["check"]["dice"] == [6, 5, 5] and spaced["sub_rolls"][0]["dice"] == [6, 6, 6]
    assert spaced["source"] == "manual"
    assert gurps.json("roll", "2D6", "--dice", "3, 4")["dice"] == [3, 4]
    assert gurps.json("history", "verify")["ok"]


def test_manual_dice_parse_and_counts():
    assert ManualDice.parse("1 2\t3,4 ,5").faces == [1, 2, 3, 4, 5]
    source = ManualDice([2, 3])
    with pytest.raises(DiceError, match=r"need 1 more: 3d6 for the fright table of 鈴音$"):
        source.subject = "鈴音"
        source.take(3, 6, "the fright table")
    assert source.used == 0  # a short request takes nothing


def test_physical_is_refused_off_a_terminal(gurps):
    before = entries(gurps)
    message = gurps.error("fright", "鈴音", "--physical", code=2)
    assert message.startswith("error: --physical needs a terminal") and "--dice" in message
    assert "\n" not in message
    assert "use one of them" in gurps.error("roll", "3D6", "--physical", "--dice", "1,2,3", code=2)
    assert entries(gurps) == before


# --- conditional rerolls ------------------------------------------------------------------


def test_grenade_flag_decides_the_firearm_jam_reroll(gurps):
    # 3+3+3 = 9: a jam, "a grenade ignores it and rerolls"
    declined = gurps.json("table", "roll", "GFMB", "--no-grenade", "--dice", "3 3 3")
    assert declined["detail"]["declined"][0]["condition"] == "grenade" and declined["sub_entries"] == []
    rerolled = gurps.json("table", "roll", "GFMB", "--grenade", "--dice", "3 3 3 1 2 2")
    assert [(s["expression"], s["dice"], s["total"]) for s in rerolled["sub_entries"]] == [("GFMB", [1, 2, 2], 5)]
    assert rerolled["detail"]["declined"] == []
    # unstated: rolled and shown as conditional, as before (scripts keep working)
    assert gurps.error("table", "roll", "GFMB", "--dice", "3 3 3", code=2).endswith(
        "need 3 more: 3d6 for the firearm fumble table (reroll)"
    )
    human = gurps.run("table", "roll", "GFMB", "--no-grenade", "--dice", "3,3,3").stdout
    assert "declined" in human and "grenade" in human
    assert gurps.json("history", "verify")["ok"]


def test_weapon_flag_decides_the_fumble_rerolls(sqlite_gurps):
    # FMB 5 (1+1+3): hits your own limb; an impaling or missile weapon rerolls
    kept = sqlite_gurps.json("table", "roll", "FMB", "--weapon", "crushing", "--dice", "1 1 3")
    assert kept["total"] == 5 and kept["sub_entries"] == [] and kept["detail"]["declined"][0]["condition"] == "impaling"
    rerolled = sqlite_gurps.json("table", "roll", "FMB", "--weapon", "impaling", "--dice", "1 1 3 3 3 1")
    assert [s["total"] for s in rerolled["sub_entries"]] == [7]
    assert sqlite_gurps.error("table", "roll", "FMB", "--weapon", "mace", code=2) == (
        "error: --weapon 'mace': say crushing, impaling or other"
    )


def test_prompt_dice_validates_and_aborts():
    out = io.StringIO()
    dice = PromptDice(read=io.StringIO("7\nx\n４\n2\n"), write=out)
    dice.subject = "鈴音"
    assert dice.take(2, 6, "the fright table") == [4, 2]
    prompts = out.getvalue()
    assert prompts.count("3d6") == 0 and prompts.count("2d6 for the fright table of 鈴音, die 1 of 2: ") == 3
    assert "'7': a d6 shows a whole number 1..6; again" in prompts
    assert "die 2 of 2: " in prompts
    for answers in ("", "\n", "3\n"):  # Ctrl-D, an empty answer, or running out midway
        with pytest.raises(Aborted, match="nothing was recorded"):
            PromptDice(read=io.StringIO(answers), write=io.StringIO()).take(2, 6, "the Will roll")


# --- a real terminal -------------------------------------------------------------------


class Terminal:
    """The console script on a pseudo-terminal (stdin and stderr), JSON on a pipe."""

    def __init__(self, *args: str) -> None:
        self.master, slave = pty.openpty()
        script = Path(sys.executable).with_name("campaign")
        self.process = subprocess.Popen(
            [str(script), *args],
            stdin=slave,
            stderr=slave,
            stdout=subprocess.PIPE,
            env={**os.environ, "COLUMNS": "200"},
        )
        os.close(slave)
        self.seen = ""

    def expect(self, text: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            ready, _, _ = select.select([self.master], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise AssertionError(f"no {text!r} on the terminal; saw {self.seen!r}")
            self.seen += os.read(self.master, 4096).decode("utf-8", "replace")
        self.seen = self.seen[self.seen.index(text) + len(text) :]

    def answer(self, prompt: str, text: str) -> None:
        self.expect(prompt)
        os.write(self.master, (text + "\n").encode())

    def finish(self) -> tuple[int, str]:
        stdout, _ = self.process.communicate(timeout=60)
        os.close(self.master)
        return self.process.returncode, stdout.decode()


def test_physical_asks_each_die_on_a_terminal(tmp_path, monkeypatch):
    db = str(tmp_path / "table.db")
    for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(variable, str(tmp_path / variable))
    from tests.cli.conftest import gurps_setup

    cli = gurps_setup(Cli(db))
    before = entries(cli)

    # an empty answer aborts: nothing is recorded
    aborted = Terminal("--db", db, "fright", "鈴音", "--physical")
    aborted.answer("3d6 for the Will roll of 鈴音, die 1 of 3: ", "")
    aborted.expect("error: aborted: no answer given, nothing was recorded")
    code, _ = aborted.finish()
    assert code == 1
    assert entries(cli) == before

    term = Terminal("--db", db, "fright", "鈴音", "--physical", "--pick", "暗所恐怖症", "--json")
    term.answer("3d6 for the Will roll of 鈴音, die 1 of 3: ", "7")  # a d6 cannot show 7: asked again
    term.answer("a d6 shows a whole number 1..6; again", "6")
    term.answer("die 2 of 3: ", "5")
    term.answer("die 3 of 3: ", "5")
    # 16 against Will 11 fails: only now is the table's 3d6 asked for
    for number in (1, 2, 3):
        term.answer(f"3d6 for the fright table of 鈴音, die {number} of 3: ", "6")
    code, stdout = term.finish()
    assert code == 0, term.seen
    result = json.loads(stdout)
    assert (result["check"]["dice"], result["sub_rolls"][0]["dice"], result["source"]) == (
        [6, 5, 5],
        [6, 6, 6],
        "prompted",
    )
    assert entries(cli) > before and cli.json("history", "verify")["ok"]


def test_the_reunion_die_is_asked_for_by_name(sqlite_gurps):
    """`scenario end --physical` hands the service a PromptDice: each missing character's
    die is asked for by name (driven here without a terminal, through the service)."""
    from campaign.db.database import Database
    from campaign.services.scenarios.runs import end_scenario

    sqlite_gurps.run("missing", "mark", "鈴音", "--faces", "8")
    sqlite_gurps.run("scenario", "start", "一話", "--with", "刀矢")
    asked = io.StringIO()
    database = Database(sqlite_gurps.db)
    try:
        ended = end_scenario(database, None, "GM", [], PromptDice(read=io.StringIO("9\n1\n"), write=asked))
    finally:
        database.close()
    assert asked.getvalue().startswith("1d8 for the reunion check of 鈴音, die 1 of 1: ")
    assert "a d8 shows a whole number 1..8" in asked.getvalue()
    assert [(r.character, r.roll, r.success) for r in ended.reunions] == [("鈴音", 1, True)]
    assert sqlite_gurps.json("history", "--kind", "reunion")[0]["source"] == "prompted"  # not typed

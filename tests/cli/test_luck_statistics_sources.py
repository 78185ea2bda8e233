"""Luck statistics: voided entries left out unless --include-voided,
and every source named in words; `--physical` dice are recorded as `prompted`."""

from __future__ import annotations

import io

from tests.cli.test_gm_lifecycle import void


def d6(report: dict, source: str) -> int:
    found = [s for s in report["sources"] if s["source"] == source]
    return sum(row["dice"] for row in found[0]["die_sizes"] if row["sides"] == 6) if found else 0


def test_voided_entries_are_left_out_unless_asked(gurps):
    gurps.run("--seed", "7", "roll", "10D6")
    mistake = gurps.json("--seed", "8", "roll", "100D6")["seq"]
    fright = gurps.json("--seed", "9", "fright", "鈴音", "--mod", "-10")["seq"]  # a table sub-roll goes with it
    void(gurps, mistake)
    void(gurps, fright)
    report = gurps.json("stats")
    assert d6(report, "seeded") == 10 and report["voided_left_out"] >= 2 and not report["include_voided"]
    everything = gurps.json("stats", "--include-voided")
    voided_dice = sum(
        len(e["dice"] or [])
        for e in gurps.json("history", "--all")
        if mistake in (e["seq"], e["parent_seq"]) or fright in (e["seq"], e["parent_seq"])
    )
    assert voided_dice >= 100 + 3 + 3  # the 100D6, the Will roll, the table's 3d6 (and its sub-rolls)
    assert d6(everything, "seeded") == 10 + voided_dice and everything["voided_left_out"] == 0
    text = gurps.run("stats").stdout
    assert "voided left out; --include-voided counts them" in text
    assert "dice from a fixed seed (demos and tests): 10 dice in 1 entry" in text


def test_sources_in_words_and_prompted_dice_recorded_apart(sqlite_gurps):
    from campaign.cli.physical import PromptDice
    from campaign.db.database import Database
    from campaign.services.checks.rolls import roll

    sqlite_gurps.run("roll", "3D6", "--dice", "1,2,3")
    database = Database(sqlite_gurps.db)
    try:
        roll(database, None, "GM", "3D6", PromptDice(read=io.StringIO("4\n5\n6\n"), write=io.StringIO()))
    finally:
        database.close()
    assert [e["source"] for e in sqlite_gurps.json("history", "--kind", "roll")] == ["prompted", "manual"]
    report = sqlite_gurps.json("stats")
    assert [(s["source"], s["words"]) for s in report["sources"]] == [
        ("manual", "typed (--dice)"),
        ("prompted", "prompted (--physical)"),
    ]
    text = sqlite_gurps.run("stats").stdout
    assert "dice typed by the GM: 3 dice in 1 entry" in text
    assert "physical dice, typed when asked: 3 dice in 1 entry" in text

"""History queries a group asks (--actor, --player with NPC rolls, --kind typos, the void
list, stat changes), seal heads pasted as people paste them, and BCDice parity in `roll`."""

from __future__ import annotations

import csv
import io


def test_actor_and_player_filters(gurps):
    mine = gurps.json("--as", "Aki", "roll", "2D6", "--char", "鈴音", "--dice", "1,2")
    for_npc = gurps.json("--as", "Aki", "roll", "2D6", "--char", "管狐", "--dice", "3,4")
    gm_for_aki = gurps.json("roll", "2D6", "--char", "鈴音", "--dice", "5,6")
    ren = gurps.json("--as", "Ren", "roll", "2D6", "--char", "刀矢", "--dice", "6,6")
    by_aki = [e["seq"] for e in gurps.json("history", "--actor", "Aki")]
    assert by_aki == [for_npc["seq"], mine["seq"]]
    aki = [e["seq"] for e in gurps.json("history", "--player", "Aki", "--kind", "roll")]
    assert aki == [gm_for_aki["seq"], for_npc["seq"], mine["seq"]]  # the NPC roll Aki made, too
    assert ren["seq"] not in aki
    assert gurps.json("history", "--actor", "Nobody") == []


def test_kind_is_checked_with_a_suggestion(gurps):
    assert "did you mean 'fright'?" in gurps.error("history", "--kind", "frigth", code=2)
    assert "kinds: " in gurps.error("history", "--kind", "zzzzzz", code=2)
    assert [e["kind"] for e in gurps.json("history", "--kind", "Player")] == ["player", "player"]


def test_void_list_names_the_voided_entry_and_stat_changes_show(gurps, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # one table row per line
    changed = gurps.json("char", "set", "鈴音", "--stat", "IQ=11", "--cp", "90")
    void = gurps.json("history", "void", str(changed["seq"]), "--reason", "typo", "--yes")
    table = gurps.run("history", "--limit", "2").stdout
    assert f"voids #{changed['seq']} (character)" in table
    assert "IQ=11 CP=90" in table
    rows = list(csv.DictReader(io.StringIO(gurps.run("history", "--kind", "void", "--csv").stdout)))
    assert [(r["seq"], r["voids_seq"]) for r in rows] == [(str(void["seq"]), str(changed["seq"]))]


# `history verify --head` (prefixes, typos, rewrites): tests/cli/test_verify_head.py


def test_roll_repeats_are_separate_results(gurps, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    rolled = gurps.json("roll", "x3", "2D6", "--dice", "1,2,3,4,5,6")
    assert [r["total"] for r in rolled["entries"]] == [3, 7, 11]  # each its own entry, never summed
    human = gurps.run("--lang", "en", "roll", "x3", "2D6", "--dice", "1,2,3,4,5,6").stdout
    assert "2D6 → [1,2] = 3" in human and "2D6 → [5,6] = 11" in human and "21" not in human
    listed = gurps.json("history", "--limit", "3")
    assert [(entry["expression"], entry["total"]) for entry in listed] == [("2D6", 11), ("2D6", 7), ("2D6", 3)]


def test_roll_refuses_a_spaced_comparison_and_names_a_bad_target(gurps):
    before = gurps.json("history", "verify")["entries"]
    message = gurps.error("roll", "3D6", "<=", "12", "--dice", "1,2,3", code=2)
    assert "write it without spaces: 3D6<=12" in message and "roll just 3D6" in message
    assert "3D6<=12" in gurps.error("roll", "3D6<= 12 回避", "--dice", "1,2,3", code=2)
    assert "3D6+2" in gurps.error("roll", "3D6 +2", "--dice", "1,2,3", code=2)
    message = gurps.error("roll", "3D6<=abc", "--dice", "1,2,3", code=2)
    assert "the target must be a number" in message and "'abc'" in message and "barabara" not in message
    assert gurps.json("history", "verify")["entries"] == before  # nothing was written
    assert gurps.json("roll", "3D6<=12", "回避", "--dice", "1,2,3")["reason"] == "回避"

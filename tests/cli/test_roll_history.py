"""`roll` and `history` end to end, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

ENTRY_FIELDS = {
    "seq",
    "at",
    "actor",
    "kind",
    "character",
    "scenario",
    "parent_seq",
    "expression",
    "dice",
    "total",
    "target",
    "outcome",
    "margin",
    "source",
    "reason",
    "voided_by",
    "detail",
    "prev_hash",
    "hash",
}


def test_roll_json_is_the_history_entry(gurps):
    rolled = gurps.json("roll", "3D6<=12", "回避", "--char", "鈴音", "--dice", "1,2,2")
    assert set(rolled) >= ENTRY_FIELDS
    assert (rolled["expression"], rolled["dice"], rolled["total"], rolled["target"]) == ("3D6<=12", [1, 2, 2], 5, 12)
    assert (rolled["outcome"], rolled["margin"], rolled["source"]) == ("success", 7, "manual")
    assert (rolled["character"], rolled["reason"], rolled["actor"]) == ("鈴音", "回避", "GM")
    [listed] = gurps.json("history", "--limit", "1")
    assert listed == rolled


@pytest.mark.parametrize(
    "faces,target,outcome,margin",
    [
        ("1,1,1", 3, "critical_success", 0),
        ("1,1,2", 3, "critical_success", -1),  # 4 is always critical
        ("1,2,2", 14, "success", 9),  # 5 critical only from target 15
        ("1,2,2", 15, "critical_success", 10),
        ("2,2,2", 15, "success", 9),
        ("2,2,2", 16, "critical_success", 10),
        ("6,6,5", 15, "critical_failure", -2),  # 17 critical up to 15
        ("6,6,5", 16, "failure", -1),  # 17 an ordinary failure from 16
        ("6,6,6", 20, "critical_failure", 2),
        ("6,4,3", 3, "critical_failure", -10),  # 13 >= target + 10
        ("6,4,2", 3, "failure", -9),
    ],
)
def test_gurps_success_roll_boundaries(gurps, faces, target, outcome, margin):
    rolled = gurps.json("roll", f"3D6<={target}", "--dice", faces)
    assert (rolled["outcome"], rolled["margin"]) == (outcome, margin)


def test_dice_modifier_keeps_criticals_on_raw_dice(gurps):
    rolled = gurps.json("roll", "3D6+1<=12", "--dice", "1,1,2")
    assert (rolled["total"], rolled["outcome"]) == (5, "critical_success")


def test_bad_expressions_and_faces_write_nothing(gurps):
    before = gurps.json("history", "--all")
    assert "column 7" in gurps.error("roll", "3D6<=1x", code=2)
    assert "not enough faces" in gurps.error("roll", "3D6", "--dice", "1,2", code=2)
    assert "outside 1..6" in gurps.error("roll", "2D6", "--dice", "1,7", code=2)
    assert "only 2 used" in gurps.error("roll", "2D6", "--dice", "1,2,3", code=2)
    assert "1000" in gurps.error("roll", "1001D6", code=2)
    assert "no character" in gurps.error("roll", "2D6", "--char", "誰", code=1)
    assert gurps.json("history", "--all") == before


def test_history_filters(gurps):
    gurps.run("roll", "2D6", "--char", "鈴音", "--dice", "1,2")
    gurps.run("roll", "3D6<=10", "--char", "刀矢", "--dice", "6,6,6")
    gurps.run("roll", "3D6<=10", "--char", "鈴音", "--dice", "1,1,1")
    assert [e["dice"] for e in gurps.json("history", "--char", "鈴音", "--kind", "roll")] == [[1, 1, 1], [1, 2]]
    assert [e["character"] for e in gurps.json("history", "--player", "Ren", "--kind", "roll")] == ["刀矢"]
    assert [e["dice"] for e in gurps.json("history", "--outcome", "critical_failure")] == [[6, 6, 6]]
    assert len(gurps.json("history", "--limit", "2")) == 2
    everything = gurps.json("history", "--all")
    assert [e["seq"] for e in everything] == list(range(len(everything), 0, -1))
    today = everything[0]["at"][:10]
    assert len(gurps.json("history", "--since", today, "--all")) == len(everything)
    assert gurps.json("history", "--until", "2000-01-01") == []
    assert "not a date" in gurps.error("history", "--since", "yesterday", code=2)
    assert "--outcome" in gurps.error("history", "--outcome", "meh", code=2)


def test_history_csv(gurps):
    gurps.run("roll", "2D6", "--dice", "3,4")
    lines = gurps.run("history", "--limit", "1", "--csv").stdout.splitlines()
    assert lines[0].startswith("seq,at,actor,kind")
    assert ",roll,,," in lines[1] and ",3 4,7," in lines[1]


def test_show_verify_seal_void(gurps):
    rolled = gurps.json("roll", "2D6", "--dice", "3,4")
    shown = gurps.json("history", "show", str(rolled["seq"]))
    assert shown["dice"] == [3, 4] and shown["sub_entries"] == []
    ok = gurps.json("history", "verify")
    assert ok["ok"] and ok["entries"] == rolled["seq"] and ok["head"] == rolled["hash"]
    sealed = gurps.json("history", "seal", "--reason", "session 1")
    assert len(sealed["head"]) == 64
    assert gurps.json("history", "verify", "--head", sealed["head"])["ok"]
    voided = gurps.json("history", "void", "--yes", str(rolled["seq"]), "--reason", "dropped die")
    assert voided["voided"] == rolled["seq"]
    assert gurps.json("history", "show", str(rolled["seq"]))["voided_by"] == voided["seq"]
    assert "already voided" in gurps.error("history", "void", "--yes", str(rolled["seq"]), "--reason", "again", code=1)
    assert "cannot be voided" in gurps.error("history", "void", "--yes", str(sealed["seq"]), "--reason", "x", code=1)
    assert "no ledger entry" in gurps.error("history", "void", "--yes", "9999", "--reason", "x", code=1)
    assert "16 or more" in gurps.error("history", "verify", "--head", "abc", code=2)
    assert gurps.json("history", "verify")["ok"]


def test_void_reverses_stat_change(gurps):
    changed = gurps.json("char", "set", "鈴音", "--stat", "HT=9", "--cp", "90")
    gurps.run("history", "void", "--yes", str(changed["seq"]), "--reason", "typo")
    shown = gurps.json("char", "show", "鈴音")
    assert shown["stats"]["HT"] == 11 and shown["cp_total"] == 100


def test_actor_is_recorded(gurps):
    gurps.run("--as", "Aki", "roll", "1D6", "--dice", "4")
    assert gurps.json("history", "--limit", "1")[0]["actor"] == "Aki"


def test_seeded_rolls_are_recorded_as_seeded_and_reproducible(gurps):
    first = gurps.json("--seed", "7", "roll", "3D6")
    second = gurps.json("--seed", "7", "roll", "3D6")
    assert first["source"] == "seeded" and first["dice"] == second["dice"]
    assert gurps.json("roll", "3D6")["source"] == "rng"


def test_entries_during_a_scenario_are_tagged_with_it(gurps):
    gurps.run("roll", "2D6", "--dice", "1,1")
    gurps.run("scenario", "start", "第1話", "--with", "鈴音")
    gurps.run("roll", "2D6", "--char", "鈴音", "--dice", "2,2")
    gurps.run("scenario", "end")
    gurps.run("roll", "2D6", "--dice", "3,3")
    assert [e["dice"] for e in gurps.json("history", "--scenario", "1", "--kind", "roll")] == [[2, 2]]

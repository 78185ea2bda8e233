"""Seed tables (docs/rules.md "Tables") end to end: `table list`, `table roll`, and BCDice commands through `roll`.

A table roll is a logged lookup: one parent entry (kind "table") and one sub-entry per
extra roll its entry asked for (roll twice, reroll, roll on another table), in the
order the dice were rolled; no character changes.
"""

from __future__ import annotations

import pytest

from campaign.core.table_roll import MAX_DEPTH
from campaign.seeds import load_tables

TABLES = load_tables()
COMMANDS = ["CRT", "FEAR", "FMB", "GFMB", "HCRT", "MFMB", "REACT", "YFMB", "YSCRT", "YSFMB"]
SEVEN = "2,2,3"  # 7: a plain entry (no directive) on every table


def test_table_list(sqlite_gurps):
    rows = sqlite_gurps.json("table", "list")
    assert [r["command"] for r in rows] == COMMANDS
    fear = rows[COMMANDS.index("FEAR")]
    assert (fear["name"], fear["name_en"], fear["dice"], fear["range"], fear["entries"], fear["modifiable"]) == (
        "恐怖判定表",
        "Fright Check Table",
        "3D6",
        [4, 40],
        33,
        True,
    )
    for row in rows:
        table = TABLES[row["command"]]
        assert (row["name"], row["range"], row["entries"]) == (table.name, [table.lo, table.hi], len(table.entries))
    out = sqlite_gurps.run("table", "list").stdout
    assert "FEAR+n" in out and "CRT" in out


@pytest.mark.parametrize("command", COMMANDS)
def test_table_roll_each_table_by_command_and_by_name(sqlite_gurps, command):
    table = TABLES[command]
    entry = table.entry_for(7)
    text_dice = ",4" * sum(spec.count for spec in entry.rolls)  # YSFMB 7 names 1d damage
    for name in (command, command.lower(), table.name):
        rolled = sqlite_gurps.json("table", "roll", name, "--dice", SEVEN + text_dice)
        assert (rolled["kind"], rolled["expression"], rolled["dice"], rolled["total"]) == (
            "table",
            command,
            [2, 2, 3],
            7,
        )
        detail, words = rolled["detail"], rolled["detail_shown"]
        assert (detail["table"], detail["raw"], detail["result"]) == (command, 7, 7)
        assert detail["entry"] == [entry.lo, entry.hi]  # the record names the entry; the words are made
        assert (words["entry"]["ja"], words["entry"]["en"]) == (entry.ja, entry.en)
        assert [sub["total"] for sub in rolled["sub_entries"]] == [4] * len(entry.rolls)
        assert rolled["source"] == "manual"


@pytest.mark.parametrize(
    "text,command,modifier,total",
    [
        ("CRT", "CRT", 0, 7),
        ("FMB", "FMB", 0, 7),
        ("HCRT", "HCRT", 0, 7),
        ("GFMB", "GFMB", 0, 7),
        ("YSCRT", "YSCRT", 0, 7),
        ("YSFMB", "YSFMB", 0, 7),
        ("YFMB", "YFMB", 0, 7),
        ("fmb", "FMB", 0, 7),
        ("FEAR", "FEAR", 0, 7),
        ("FEAR+5", "FEAR", 5, 12),
        ("fear-2", "FEAR", -2, 5),
    ],
)
def test_bcdice_table_commands_through_roll(sqlite_gurps, text, command, modifier, total):
    text_dice = ",4" * sum(spec.count for spec in TABLES[command].entry_for(total).rolls)
    rolled = sqlite_gurps.json("roll", text, "急所", "--char", "刀矢", "--dice", SEVEN + text_dice)
    expression = command if not modifier else f"{command}{modifier:+d}"
    assert (rolled["kind"], rolled["expression"], rolled["total"], rolled["character"], rolled["reason"]) == (
        "table",
        expression,
        total,
        "刀矢",
        "急所",
    )
    assert rolled["detail_shown"]["entry"]["ja"] == TABLES[command].entry_for(total).ja
    listed = sqlite_gurps.json("history", "--limit", str(1 + len(rolled["sub_entries"])))[-1]  # newest first
    assert listed == {k: v for k, v in rolled.items() if k not in ("sub_entries", "detail_shown")}


def test_human_output_of_a_table_roll(sqlite_gurps):
    out = sqlite_gurps.run("--lang", "ja", "roll", "FEAR+5", "--dice", "1,2,3").stdout
    entry = TABLES["FEAR"].entry_for(11)
    assert "FEAR+5 → [1,2,3] = 11" in out and entry.ja[:10] in out and entry.en[:10] not in out
    out = sqlite_gurps.run("roll", "FEAR+5", "--dice", "1,2,3").stdout
    assert "FEAR+5 → [1,2,3] = 11" in out and entry.en[:10] in out and entry.ja[:10] not in out


def test_roll_twice_nested_sub_entries(gurps):
    # YSFMB 3: roll twice (6, then 18: roll twice and choose: 6 and 15)
    rolled = gurps.json("table", "roll", "YSFMB", "--dice", "1,1,1,2,2,2,6,6,6,1,2,3,4,5,6")
    seq = rolled["seq"]
    subs = rolled["sub_entries"]
    assert [(s["seq"], s["total"], s["dice"]) for s in subs] == [
        (seq + 1, 6, [2, 2, 2]),
        (seq + 2, 18, [6, 6, 6]),
        (seq + 3, 6, [1, 2, 3]),
        (seq + 4, 15, [4, 5, 6]),
    ]
    # the directive by its codes and its place among the effects of the entry that asked
    both, choose = (
        {"kind": "roll_twice", "apply": "both", "index": 0},
        {"kind": "roll_twice", "apply": "choose", "index": 0},
    )
    assert [
        (s["detail"]["directive"], s["detail"]["requested_in"], s["detail"]["requested_by"], s["detail"]["depth"])
        for s in subs
    ] == [
        (both, {"table": "YSFMB", "entry": [3, 3]}, seq, 1),
        (both, {"table": "YSFMB", "entry": [3, 3]}, seq, 1),
        (choose, {"table": "YSFMB", "entry": [18, 18]}, seq + 2, 2),
        (choose, {"table": "YSFMB", "entry": [18, 18]}, seq + 2, 2),
    ]
    assert [s["reason"] for s in subs] == ["roll twice, apply both"] * 2 + [
        "roll twice, choose one"
    ] * 2  # --json: English
    assert all(s["kind"] == "table" and s["parent_seq"] == seq for s in subs)
    assert rolled["detail"]["directives"] == [both]
    assert rolled["detail_shown"]["directives"] == [{"kind": "roll_twice", "apply": "both"}]
    shown = gurps.json("history", "show", str(seq))
    assert [s["seq"] for s in shown["sub_entries"]] == [seq + 1, seq + 2, seq + 3, seq + 4]
    assert shown["sub_entries"] == subs
    assert {k: v for k, v in shown.items() if k != "sub_entries"} == {
        k: v for k, v in rolled.items() if k != "sub_entries"
    }


def test_reroll_is_made_once_and_a_repeated_reroll_result_stands(sqlite_gurps):
    rolled = sqlite_gurps.json("roll", "FMB", "--dice", "1,1,1,2,2,3")
    [sub] = rolled["sub_entries"]
    assert (sub["total"], sub["detail"]["directive"]["kind"]) == (7, "reroll")
    assert "only if" in sub["reason"]  # the seed's condition for the reroll
    rolled = sqlite_gurps.json("roll", "FMB", "--dice", "1,1,1,1,1,2")  # 3 -> 4, itself a reroll result
    assert [s["total"] for s in rolled["sub_entries"]] == [4]


def test_roll_on_another_table(sqlite_gurps):
    rolled = sqlite_gurps.json("roll", "YSFMB", "--dice", "6,6,5,2,2,3")  # 17: head blow table
    [sub] = rolled["sub_entries"]
    assert (sub["expression"], sub["total"], sub["detail"]["table"]) == ("HCRT", 7, "HCRT")
    assert sub["detail_shown"]["entry"]["ja"] == TABLES["HCRT"].entry_for(7).ja
    assert sub["reason"] == "roll on Critical Head Blow Table"  # --json: English
    out = sqlite_gurps.run("--lang", "ja", "roll", "YSFMB", "--dice", "6,6,5,2,2,3").stdout
    assert f"↳ #{sub['seq'] + 2} 頭部打撃クリティカル表を引く: HCRT" in out  # the second YSFMB roll


def test_self_referencing_table_stops_at_the_nesting_limit(sqlite_gurps):
    faces = ",".join(["6,6,1"] * (MAX_DEPTH + 1))  # YFMB 13 asks for YFMB again, every time
    rolled = sqlite_gurps.json("roll", "YFMB", "--dice", faces)
    subs = rolled["sub_entries"]
    assert len(subs) == MAX_DEPTH
    assert [s["detail"]["depth"] for s in subs] == list(range(1, MAX_DEPTH + 1))
    assert subs[-1]["detail"]["truncated"] is True
    assert "nesting limit" in rolled["detail_shown"]["lines"][-1] and "lines" not in rolled["detail"]


def test_fright_table_clamps_and_keeps_raw(sqlite_gurps):
    rolled = sqlite_gurps.json("roll", "FEAR+30", "--dice", "6,6,6")
    assert (rolled["total"], rolled["detail"]["raw"]) == (40, 48)
    rolled = sqlite_gurps.json("table", "roll", "FEAR", "--mod", "-5", "--dice", "1,1,1")
    assert (rolled["expression"], rolled["total"], rolled["detail"]["raw"]) == ("FEAR-5", 4, -2)
    rolled = sqlite_gurps.json("table", "roll", "FEAR+2", "--mod", "3", "--dice", "1,1,1")
    assert (rolled["expression"], rolled["total"]) == ("FEAR+5", 8)


def test_a_table_roll_changes_no_character_and_is_voidable(gurps):
    before = gurps.json("char", "show", "鈴音")
    rolled = gurps.json("table", "roll", "恐怖判定表", "--mod", "20", "--char", "鈴音", "--dice", "6,6,6")
    assert (rolled["character"], rolled["total"]) == ("鈴音", 38)
    assert gurps.json("char", "show", "鈴音") == before
    assert [e["seq"] for e in gurps.json("history", "--kind", "table")] == [rolled["seq"]]
    gurps.run("history", "void", "--yes", str(rolled["seq"]), "--reason", "wrong table")
    assert gurps.json("history", "show", str(rolled["seq"]))["voided_by"] == rolled["seq"] + 1
    twice = gurps.json("table", "roll", "YSFMB", "--dice", "1,1,1,2,2,2,2,2,3,4")  # 7 names 1d: the 4
    assert "void #" in gurps.error("history", "void", "--yes", str(twice["seq"] + 1), "--reason", "x", code=1)


def test_refusals_write_nothing(sqlite_gurps):
    before = sqlite_gurps.json("history", "--all")
    assert "no modifier" in sqlite_gurps.error("table", "roll", "CRT", "--mod", "1", "--dice", SEVEN, code=2)
    assert "no modifier" in sqlite_gurps.error("table", "roll", "CRT+1", "--dice", SEVEN, code=2)
    message = sqlite_gurps.error("table", "roll", "XYZ", code=1)
    assert "no table 'XYZ'" in message and "YSFMB" in message
    assert "only 3 used" in sqlite_gurps.error("table", "roll", "CRT", "--dice", "2,2,3,4", code=2)
    assert "not enough faces" in sqlite_gurps.error("roll", "FMB", "--dice", "1,1,1", code=2)  # the reroll
    assert "no character" in sqlite_gurps.error("table", "roll", "CRT", "--char", "誰", code=1)
    sqlite_gurps.error("roll", "CRT+1", "--dice", SEVEN, code=2)  # not a table command, not dice either
    assert sqlite_gurps.json("history", "--all") == before

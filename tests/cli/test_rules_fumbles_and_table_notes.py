"""Fumble tables, fright entries that roll dice and the notes of the tables, through the CLI with exact
--dice on SQLite and PostgreSQL (the `gurps` fixture: 鈴音 Will 11, a gurps3-ja campaign).

Each test states the dice and what the old code did with them.
"""

from __future__ import annotations

from tests.cli.conftest import Cli


def _subs(rolled: dict) -> list[tuple]:
    return [(s["parent_seq"], s["expression"], s["dice"], s["total"]) for s in rolled["sub_entries"]]


# --------------------------------------------------------------------- item 5: rerolls


def test_only_the_basic_fumble_table_lets_a_repeated_reroll_stand(gurps: Cli):
    # FMB 3 (reroll) -> 18 (reroll again): the 18 stands, nothing more is rolled
    fmb = gurps.json("table", "roll", "FMB", "--dice", "1,1,1,6,6,6")
    assert [s["total"] for s in fmb["sub_entries"]] == [18]
    assert fmb["sub_entries"][0]["detail"]["reroll_stands"] is True
    # GFMB 10 (jam: a grenade rerolls) -> 10 again -> rerolled again -> 6. The old code let
    # the second 10 stand and refused the last three faces as unused.
    gfmb = gurps.json("table", "roll", "GFMB", "--dice", "3,3,4,3,3,4,2,2,2")
    seq = gfmb["seq"]
    assert _subs(gfmb) == [(seq, "GFMB", [3, 3, 4], 10), (seq, "GFMB", [2, 2, 2], 6)]
    assert gfmb["sub_entries"][1]["detail"]["requested_by"] == seq + 1
    assert gfmb["sub_entries"][0]["detail"]["reroll_stands"] is False


def test_sorcery_fumble_14_reroll_is_the_gms_choice(gurps: Cli):
    # default (docs/rules.md "Tables": the tool makes the reroll): 14 -> 7
    made = gurps.json("table", "roll", "YFMB", "--dice", "4,5,5,2,2,3")
    assert [(s["total"], s["detail"]["directive"].get("gm_choice")) for s in made["sub_entries"]] == [(7, True)]
    # 14 -> 14 again is rerolled again on this table (the FMB rule does not apply): -> 7
    again = gurps.json("table", "roll", "YFMB", "--dice", "4,5,5,4,5,5,2,2,3")
    assert [s["total"] for s in again["sub_entries"]] == [14, 7]
    # the GM declines: nothing more is rolled, the record says so
    declined = gurps.json("table", "roll", "YFMB", "--no-reroll", "--dice", "4,5,5")
    assert declined["sub_entries"] == []
    assert declined["detail"]["declined"] == [{"kind": "reroll", "gm_choice": True, "index": 0}]  # codes
    assert declined["detail_shown"]["declined"] == [
        {
            "kind": "reroll",
            "gm_choice": True,
            "only_if_ja": "正反対の効果を思いつかない",
            "only_if_en": "no opposite effect comes to mind",
        }
    ]
    out = gurps.run("table", "roll", "YFMB", "--no-reroll", "--dice", "4,5,5").stdout
    assert "(the GM declined: reroll (only if no opposite effect comes to mind) [the GM's choice])" in out
    out = gurps.run("--lang", "ja", "table", "roll", "YFMB", "--no-reroll", "--dice", "4,5,5").stdout
    assert "(GMは振らない: 振り直し (「正反対の効果を思いつかない」の場合のみ) [GMの判断])" in out
    assert "only 3 used" in gurps.error("table", "roll", "YFMB", "--no-reroll", "--dice", "4,5,5,2,2,3", code=2)


# --------------------------------------------------------------------- item 6: sorcery


def test_sorcery_rolls_fumble_on_17_and_18_whatever_the_target(gurps: Cli):
    plain = gurps.json("roll", "3D6<=17", "--dice", "6,6,5")
    assert plain["outcome"] == "failure" and "sorcery" not in plain["detail"]["gurps"]
    sorcery = gurps.json("roll", "3D6<=17", "--sorcery", "--dice", "6,6,5")
    assert (sorcery["total"], sorcery["outcome"], sorcery["margin"]) == (17, "critical_failure", 0)
    assert sorcery["detail"]["gurps"]["sorcery"] is True and sorcery["detail"]["gurps"]["sorcery_fumble"] is True
    assert gurps.json("history", "show", str(sorcery["seq"]))["outcome"] == "critical_failure"
    eighteen = gurps.json("roll", "3D6<=20", "--sorcery", "--dice", "6,6,6")
    assert eighteen["outcome"] == "critical_failure"
    # nothing else changes: 16 against 17 still succeeds, 4 is still a critical success
    assert gurps.json("roll", "3D6<=17", "--sorcery", "--dice", "6,5,5")["outcome"] == "success"
    assert gurps.json("roll", "3D6<=17", "--sorcery", "--dice", "1,1,2")["outcome"] == "critical_success"
    out = gurps.run("roll", "3D6<=17", "--sorcery", "--dice", "6,6,5").stdout
    assert "critical failure" in out and "[sorcery]" in out
    assert "sorcery: 17 and 18 always critically fail" in out
    out = gurps.run("--lang", "ja", "roll", "3D6<=17", "--sorcery", "--dice", "6,6,5").stdout
    assert "ファンブル" in out and "[妖術]" in out and "妖術では17・18は目標値に関係なくファンブル" in out
    before = gurps.json("history", "--all")
    assert "GURPS success roll" in gurps.error("roll", "2D6>=7", "--sorcery", "--dice", "1,1", code=2)
    assert "not to a table" in gurps.error("roll", "YFMB", "--sorcery", "--dice", "1,1,1", code=2)
    assert gurps.json("history", "--all") == before


# --------------------------------------------------------------------- item 8: entry 21


def test_fright_entry_21_recovers_on_an_unmodified_iq_roll(gurps: Cli):
    # Will 11: 6,6,6 fails by 7; 5,5,4 + 7 = 21 (panic); 1D minutes = 3
    result = gurps.json("fright", "鈴音", "--dice", "6,6,6,5,5,4,3")
    assert result["table"]["entry"] == 21
    [panic] = result["effects"]
    assert (panic["condition"], panic["recovery"], panic["duration"]) == ("panic", "iq_ignoring_penalties", 3)
    listed = gurps.json("condition", "list", "鈴音")["conditions"]
    assert [(c["name"], c["detail"]["recovery_ja"]) for c in listed] == [("panic", "修正無視の知力判定")]


# --------------------------------------------------------------------- item 9: dice in texts


def test_dice_named_in_an_entry_are_rolled_and_logged(gurps: Cli):
    # YSCRT 15: blind for 1d-3 turns (at least 1); the 2 makes -1, raised to 1
    blind = gurps.json("table", "roll", "YSCRT", "--char", "刀矢", "--dice", "5,5,5,2")
    seq = blind["seq"]
    assert _subs(blind) == [(seq, "1D-3", [2], 1)]
    sub = blind["sub_entries"][0]
    assert (sub["kind"], sub["character"], sub["detail_shown"]["text_roll"]["min"]) == ("table", "刀矢", 1)
    assert blind["detail"]["text_rolls"] == [{"index": 0, "dice": "1D-3", "faces": [2], "value": 1, "min": 1}]  # codes
    assert blind["detail_shown"]["text_rolls"] == [
        {"dice": "1D-3", "faces": [2], "value": 1, "min": 1, "ja": "1D-3ターン(最低1)", "en": "1d-3 turns (at least 1)"}
    ]
    assert "1D-3ターン(最低1)[=1]" in blind["detail_shown"]["text_ja"] and "text_ja" not in blind["detail"]
    assert gurps.json("history", "show", str(seq))["sub_entries"][0]["total"] == 1
    # YFMB 3: the caster's 3d and the blast's 1d, in the order the text names them
    blast = gurps.json("table", "roll", "YFMB", "--dice", "1,1,1,6,5,4,3")
    assert _subs(blast) == [(blast["seq"], "3D", [6, 5, 4], 15), (blast["seq"], "1D", [3], 3)]
    # inside a roll-twice: YSFMB 3 -> 9 (1d-2 damage: 5 -> 3) and 16 (1d-3 turns: 6 -> 3)
    twice = gurps.json("table", "roll", "YSFMB", "--dice", "1,1,1,3,3,3,5,5,5,6,6")
    s = twice["seq"]
    assert _subs(twice) == [
        (s, "YSFMB", [3, 3, 3], 9),
        (s, "1D-2", [5], 3),
        (s, "YSFMB", [5, 5, 6], 16),
        (s, "1D-3", [6], 3),
    ]
    assert [e["detail"]["requested_by"] for e in twice["sub_entries"]] == [s, s + 1, s, s + 3]
    out = gurps.run("table", "roll", "GFMB", "--dice", "1,1,2,4").stdout
    assert "1d hours[=4]" in out and "1D [4]=4" in out
    out = gurps.run("--lang", "ja", "table", "roll", "GFMB", "--dice", "1,1,2,4").stdout
    assert "1D時間[=4]" in out and "1D [4]=4" in out


# --------------------------------------------------------------------- item 12: wording


def test_gurps_outcomes_read_as_the_seed_tables_do(gurps: Cli, monkeypatch):
    out = gurps.run("--lang", "ja", "roll", "3D6<=12", "--dice", "1,1,2").stdout
    assert "クリティカル" in out and "決定的" not in out
    out = gurps.run("--lang", "ja", "roll", "3D6<=12", "--dice", "6,6,6").stdout
    assert "ファンブル" in out and "致命的" not in out
    monkeypatch.setenv("COLUMNS", "200")  # wide enough that no word of the table folds
    listing = gurps.run("--lang", "ja", "history").stdout
    assert "ファンブル" in listing and "クリティカル" in listing
    out = gurps.run("--lang", "ja", "fright", "鈴音", "--dice", "1,1,1").stdout
    assert "クリティカル" in out
    assert "critical success" in gurps.run("roll", "3D6<=12", "--dice", "1,1,2").stdout  # lang=en


def test_roll_explains_that_tables_take_no_modifier(gurps: Cli):
    before = gurps.json("history", "--all")
    message = gurps.error("roll", "CRT+1", "--dice", "2,2,3", code=2)
    assert message == "error: table CRT takes no modifier (only FEAR+n and REACT±n do)"
    assert gurps.error("table", "roll", "CRT+1", "--dice", "2,2,3", code=2) == message
    assert gurps.json("history", "--all") == before


def test_stun_records_active_defense_minus_4(gurps: Cli):
    # Will 11 + 5 = 16: 6,6,5 is an automatic failure by 1; 1,1,1 + 1 = 4: stunned 1 turn
    result = gurps.json("fright", "鈴音", "--mod", "5", "--dice", "6,6,5,1,1,1")
    [stun] = result["effects"]
    assert (stun["condition"], stun["defense_penalty"]) == ("stun", -4)
    [listed] = gurps.json("condition", "list", "鈴音")["conditions"]
    assert listed["detail"]["defense_penalty"] == -4
    out = gurps.run("--lang", "ja", "fright", "鈴音", "--mod", "5", "--dice", "6,6,5,1,1,1").stdout
    assert "朦朧 1ターン、能動防御-4" in out
    out = gurps.run("fright", "鈴音", "--mod", "5", "--dice", "6,6,5,1,1,1").stdout
    assert "stunned for 1 turn, active defense -4" in out


def test_table_list_shows_the_notes_written_out(gurps: Cli):
    fmb = {row["command"]: row for row in gurps.json("table", "list")}["FMB"]
    assert "a dodge falls down" in fmb["note_en"] and "See the source" not in fmb["note_en"]
    assert "よけなら転倒" in fmb["note_ja"] and "原典参照" not in fmb["note_ja"]

"""The GM's job between sessions : renames, death and retirement, awards,
canonical stat names, plot overrides, the scenario record, did-you-mean, CSV for Excel.

Each state change is an op: it is applied, voided (alone, and refused under a later
entry that depends on it until --cascade), and `history verify` holds throughout. The
`gurps` party (conftest): players Aki and Ren, PCs 鈴音 (Aki) and 刀矢 (Ren), NPC 管狐.
"""

from __future__ import annotations

from tests.cli.conftest import Cli


def verified(cli: Cli) -> None:
    report = cli.json("history", "verify")
    assert report["ok"] and report["state"]["ok"], report


def void(cli: Cli, seq: int, *more: str) -> dict:
    return cli.json("history", "void", "--yes", str(seq), "--reason", "mistake", *more)


def test_character_rename_rekeys_everything_and_voids_back(gurps):
    gurps.run("char", "relate", "鈴音", "刀矢")
    before = gurps.json("char", "set", "鈴音", "--stat", "IQ=13")["seq"]
    gurps.run("missing", "mark", "刀矢")
    renamed = gurps.json("char", "rename", "鈴音", "すずね")
    assert (renamed["from"], renamed["to"]) == ("鈴音", "すずね")
    verified(gurps)  # relations, summoner, stats all follow the new name
    shown = gurps.json("char", "show", "すずね")
    assert shown["stats"]["IQ"] == 13 and shown["relations"] == [{"name": "刀矢", "note": None}]
    assert gurps.json("char", "show", "管狐")["summoner"] == "すずね"
    # searching under the new name for someone missing works, and the search is keyed by it
    gurps.run("scenario", "start", "一話", "--with", "管狐", "--search", "すずね=刀矢")
    after = gurps.json("char", "set", "すずね", "--stat", "IQ=14")["seq"]

    # history keeps the old name in old entries; --char NEW finds entries under both names
    entries = gurps.json("history", "--char", "すずね", "--all")
    assert {e["character"] for e in entries} == {"鈴音", "すずね"}
    assert before in [e["seq"] for e in entries] and after in [e["seq"] for e in entries]
    # an entry made under the old name is still voidable after the rename
    void(gurps, before)
    assert gurps.json("char", "show", "すずね")["stats"]["IQ"] == 14
    verified(gurps)

    # voiding the rename: later entries use the new name, so it is refused, then cascaded
    message = gurps.error("history", "void", "--yes", str(renamed["seq"]), "--reason", "x", code=1)
    assert "later entries depend on it" in message and f"#{after}" in message
    done = void(gurps, renamed["seq"], "--cascade")
    assert "character すずね renamed back to 鈴音" in done["reversed"]
    assert gurps.json("char", "show", "鈴音")["stats"]["IQ"] == 12
    assert gurps.json("char", "show", "管狐")["summoner"] == "鈴音"
    verified(gurps)


def test_rename_refusals_and_suggestions(gurps):
    assert "already exists" in gurps.error("char", "rename", "鈴音", "刀矢", code=1)
    assert gurps.error("char", "rename", "鈴", "x", code=1) == (
        "error: no character named '鈴' in campaign 'テスト卓' (did you mean '鈴音'?)"
    )
    # full-width and half-width forms of a name find it as a suggestion
    assert gurps.error("player", "rename", "ＡＫＩ", "Akiko", code=1).endswith("(did you mean 'Aki'?)")
    assert gurps.error("char", "show", "zzzz", code=1).endswith("in campaign 'テスト卓'")


def test_player_rename_and_void(gurps):
    gurps.run("missing", "mark", "鈴音")
    gurps.run("char", "relate", "刀矢", "鈴音")
    gurps.run("scenario", "start", "一話", "--with", "管狐", "--search", "刀矢=鈴音")
    renamed = gurps.json("player", "rename", "Ren", "Renji")
    assert [p["name"] for p in gurps.json("player", "list")] == ["Aki", "Renji"]
    assert gurps.json("char", "show", "刀矢")["player"] == "Renji"
    verified(gurps)  # the search's player follows the rename too
    assert gurps.json("history", "--player", "Renji", "--kind", "search")[0]["character"] == "刀矢"
    done = void(gurps, renamed["seq"])
    assert done["reversed"] == ["player Renji renamed back to Ren"]
    assert gurps.json("char", "show", "刀矢")["player"] == "Ren"
    verified(gurps)


def test_kill_and_retire_take_characters_out_of_play(gurps):
    killed = gurps.json("char", "kill", "刀矢", "--reason", "館の崩落")
    assert killed["status"] == "dead"
    gurps.run("char", "retire", "管狐")
    assert [c["name"] for c in gurps.json("char", "list")] == ["鈴音"]
    listed = {c["name"]: c["status"] for c in gurps.json("char", "list", "--all")}
    assert listed == {"鈴音": "active", "刀矢": "dead", "管狐": "retired"}
    assert [c["name"] for c in gurps.json("char", "list", "--status", "dead")] == ["刀矢"]
    assert "刀矢 is dead and cannot take part in a scenario" in gurps.error(
        "scenario", "start", "一話", "--with", "刀矢", code=1
    )
    assert "is dead and cannot go missing" in gurps.error("missing", "mark", "刀矢", code=1)
    assert "is dead and cannot receive CP" in gurps.error("award", "1", "--to", "刀矢", code=1)
    assert "already dead" in gurps.error("char", "kill", "刀矢", "--reason", "again", code=1)
    assert gurps.json("history", "--kind", "status", "--char", "刀矢")[0]["reason"] == "館の崩落"
    verified(gurps)
    void(gurps, killed["seq"])
    assert gurps.json("char", "show", "刀矢")["status"] == "active"
    gurps.run("scenario", "start", "一話", "--with", "刀矢")
    verified(gurps)


def test_a_missing_character_must_be_found_before_it_dies(gurps):
    gurps.run("missing", "mark", "鈴音")
    assert "missing found" in gurps.error("char", "kill", "鈴音", "--reason", "x", code=1)


def test_missing_found_ends_the_status_and_returns_searchers(gurps):
    gurps.run("char", "relate", "刀矢", "鈴音")
    gurps.run("missing", "mark", "鈴音")
    gurps.run("scenario", "start", "一話", "--with", "管狐", "--search", "刀矢=鈴音")
    found = gurps.json("missing", "found", "鈴音", "--reason", "祠で眠っていた")
    assert found["searchers"] == ["刀矢"]
    assert gurps.json("missing", "list") == []
    assert gurps.json("char", "show", "刀矢")["status"] == "active"
    assert gurps.json("scenario", "end")["reunions"] == []  # nobody to roll for
    verified(gurps)
    assert "not missing" in gurps.error("missing", "found", "鈴音", "--reason", "x", code=1)
    assert "--reason" in gurps.error("missing", "found", "鈴音", code=2)

    # going missing again depends on having been found: refused, then cascaded
    again = gurps.json("missing", "mark", "鈴音")
    message = gurps.error("history", "void", "--yes", str(found["seq"]), "--reason", "x", code=1)
    assert f"#{again['seq']}" in message
    void(gurps, found["seq"], "--cascade")
    missing = gurps.json("missing", "list")
    assert [(m["character"], [s["name"] for s in m["searchers"]]) for m in missing] == [("鈴音", ["刀矢"])]
    verified(gurps)


def test_awards_at_scenario_end_and_by_hand(gurps):
    gurps.run("scenario", "start", "一話", "--with", "鈴音", "--with", "刀矢")
    ended = gurps.json("scenario", "end", "--award", "3")
    assert [(a["character"], a["cp"], a["cp_total"]) for a in ended["awards"]] == [("鈴音", 3, 103), ("刀矢", 3, 103)]
    given = gurps.json("award", "2", "--to", "鈴音,管狐", "--reason", "good roleplay")
    assert [a["character"] for a in given["awards"]] == ["鈴音", "管狐"]
    shown = gurps.json("char", "show", "鈴音")
    assert (shown["cp_total"], shown["cp_awarded"]) == (105, 5)
    history = gurps.json("history", "--kind", "award", "--char", "鈴音")
    assert [(e["total"], e["reason"], e["scenario"]) for e in history] == [
        (2, "good roleplay", None),
        (3, "scenario #1", 1),
    ]
    assert "CP awarded" in gurps.run("char", "show", "鈴音").stdout
    verified(gurps)
    done = void(gurps, ended["awards"][0]["seq"])  # one award of the scenario's, alone
    assert "鈴音: awarded CP 5 → 2" in done["reversed"]
    assert gurps.json("char", "show", "鈴音")["cp_total"] == 102
    assert gurps.json("char", "show", "刀矢")["cp_total"] == 103
    verified(gurps)
    assert gurps.error("award", "0", "--to", "鈴音", code=2).startswith("error: an award is 1..")
    assert "named twice" in gurps.error("award", "1", "--to", "鈴音,鈴音", code=2)


def test_stat_names_are_canonical(gurps):
    gurps.run("char", "add", "白露", "--player", "Aki", "--stat", "will=10", "--stat", "意思=9", expect=2)
    added = gurps.json("char", "add", "白露", "--player", "Aki", "--stat", "ｗｉｌｌ=10", "--stat", "知力=11")
    assert added["stats"] == {"Will": 10, "IQ": 11}
    # the sheet's own key wins: 鈴音 was stored as Will; WILL and 意思 write it
    assert gurps.json("char", "set", "鈴音", "--stat", "WILL=12")["stats"]["Will"] == 12
    assert gurps.json("char", "set", "鈴音", "--stat", "意思=13")["stats"]["Will"] == 13
    message = gurps.error("char", "set", "鈴音", "--stat", "Wil=5", code=1)
    assert message == "error: 鈴音 has no stat 'Wil': did you mean 'Will'? add --new-stat to create it"
    assert "Luck" not in gurps.json("char", "show", "鈴音")["stats"]
    assert gurps.json("char", "set", "鈴音", "--stat", "Luck=3", "--new-stat")["stats"]["Luck"] == 3
    # a ruleset stat the sheet lacks needs no --new-stat
    assert gurps.json("char", "set", "刀矢", "--stat", "Per=10")["stats"]["Per"] == 10
    unset = gurps.json("char", "set", "鈴音", "--unset", "luck", "--unset", "hp")
    assert "Luck" not in unset["stats"] and "HP" not in unset["stats"]
    assert (
        unset["pools"]["HP"]["max"] == unset["stats"]["HT"]
    )  # without its own HP stat, HP is HT (docs/rules.md "Derived stats")
    assert gurps.error("char", "set", "鈴音", "--unset", "Lck", code=1) == "error: 鈴音 has no stat 'Lck' to unset"
    assert gurps.error("char", "set", "鈴音", "--unset", "Lukc", code=1).endswith("(did you mean 'Luck'?)") is False
    verified(gurps)
    void(gurps, unset["seq"])
    assert gurps.json("char", "show", "鈴音")["stats"]["Luck"] == 3
    verified(gurps)


def test_scenario_record_lists_carried_over_searchers_voided_reunions_and_notes(gurps):
    gurps.run("char", "relate", "刀矢", "鈴音")
    gurps.run("missing", "mark", "鈴音")
    gurps.run("scenario", "start", "一話", "--with", "管狐", "--search", "刀矢=鈴音")
    first_end = gurps.json("scenario", "end", "--dice", "鈴音=6")
    gurps.run("scenario", "start", "二話", "--with", "管狐")
    note = gurps.json("scenario", "note", "刀矢が祠の鍵を持ち帰った")
    wrong = gurps.json("scenario", "note", "typo")
    void(gurps, wrong["seq"])
    ended = gurps.json("scenario", "end", "--dice", "鈴音=5")
    void(gurps, ended["reunions"][0]["seq"])
    gurps.run("missing", "reunion", "鈴音", "--dice", "2")
    shown = gurps.json("scenario", "show", "2")
    assert [(s["searcher"], s["carried_over"]) for s in shown["searches"]] == [("刀矢", True)]
    assert [(r["roll"], r["voided_by"] is not None) for r in shown["reunions"]] == [(5, True), (2, False)]
    assert [(n["note"], n["voided_by"] is not None) for n in shown["notes"]] == [
        ("刀矢が祠の鍵を持ち帰った", False),
        ("typo", True),
    ]
    assert note["scenario"] == 2 and first_end["reunions"][0]["success"] is False
    text = gurps.run("scenario", "show", "2").stdout
    assert "carried over" in text and "voided by" in text and "祠の鍵" in text
    verified(gurps)


def test_char_list_csv_has_a_column_per_stat_and_takes_bom(gurps, monkeypatch):
    out = gurps.run("char", "list", "--csv").stdout
    lines = out.splitlines()
    assert lines[0] == "name,kind,player,status,CP,CP awarded,Will,IQ,HT,FP,HP"  # first seen first
    assert "鈴音,PC,Aki,active,100,0,11,12,11,11,11" in lines
    assert not out.startswith("\ufeff")
    assert gurps.run("char", "list", "--csv", "--bom").stdout.startswith("\ufeffname,")
    monkeypatch.setenv("CAMPAIGN_CSV_BOM", "1")
    assert gurps.run("player", "list", "--csv").stdout.startswith("\ufeffname,characters")


def test_a_roll_for_a_character_out_of_play_warns_on_stderr(sqlite_gurps):
    quiet = sqlite_gurps.run("roll", "3D6", "--char", "鈴音", "--dice", "1,2,3")
    assert "warning" not in quiet.stderr
    sqlite_gurps.run("missing", "mark", "鈴音")
    sqlite_gurps.run("char", "kill", "刀矢", "--reason", "x")
    for name, status in (("鈴音", "missing"), ("刀矢", "dead")):
        result = sqlite_gurps.run("roll", "3D6", "--char", name, "--dice", "1,2,3")
        assert result.stderr.strip() == f"warning: {name} is {status} and not in play"
        assert result.stdout.strip()  # still rolled and logged

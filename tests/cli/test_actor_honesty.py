"""Actor honesty: an entry's actor is who typed the command (`--as`,
default GM); for whom it was done is `detail.on_behalf_of` (the missing character's
player for a reunion roll, the searcher's player for a search), on new records only.

The `gurps` party (conftest): players Aki and Ren, PCs 鈴音 (Aki) and 刀矢 (Ren), NPC
管狐 summoned by 鈴音 (so Aki plays it).
"""

from __future__ import annotations

from tests.cli.conftest import Cli


def verified(cli: Cli) -> None:
    report = cli.json("history", "verify")
    assert report["ok"] and report["state"]["ok"], report


def test_scenario_end_and_searches_record_who_typed_them(gurps):
    gurps.run("char", "relate", "鈴音", "刀矢")
    gurps.run("missing", "mark", "鈴音")
    started = gurps.json("scenario", "start", "一話", "--with", "管狐", "--search", "刀矢=鈴音")
    ended = gurps.json("scenario", "end", "--dice", "鈴音=1")
    (reunion,) = ended["reunions"]
    assert (reunion["actor"], reunion["on_behalf_of"], reunion["success"]) == ("GM", "Aki", True)

    search = gurps.json("history", "--kind", "search")[0]
    assert (search["actor"], search["detail"]["on_behalf_of"], search["character"]) == ("GM", "Ren", "刀矢")
    recorded = gurps.json("history", "show", str(reunion["seq"]))
    assert (recorded["actor"], recorded["detail"]["on_behalf_of"]) == ("GM", "Aki")
    end_entry = gurps.json("history", "show", str(ended["seq"]))
    assert (end_entry["actor"], "on_behalf_of" in end_entry["detail"]) == ("GM", False)
    assert started["seq"] < search["seq"] < ended["seq"]

    # --player still finds what was done on the player's behalf; --actor only what they typed
    assert [e["seq"] for e in gurps.json("history", "--player", "Aki", "--kind", "reunion")] == [reunion["seq"]]
    assert [e["seq"] for e in gurps.json("history", "--player", "Ren", "--kind", "search")] == [search["seq"]]
    assert gurps.json("history", "--actor", "Aki") == []
    assert gurps.json("history", "--player", "Ren", "--kind", "reunion") == []

    # the human listing says both
    listing = gurps.run("history", "--kind", "reunion").stdout
    assert "GM (for Aki)" in listing

    # the reunion entry voids back like any other, and the chain and state verify
    gurps.run("history", "void", "--yes", str(reunion["seq"]), "--reason", "die fell off the table")
    assert gurps.json("missing", "list")[0]["character"] == "鈴音"
    verified(gurps)


def test_as_names_the_typist_and_npc_reunions_are_on_the_summoners_players_behalf(gurps):
    gurps.run("player", "add", "Mio")
    gurps.run("missing", "mark", "管狐")
    gurps.run("scenario", "start", "二話", "--with", "刀矢")
    # Mio keeps the log tonight: she typed it, the roll is made for Aki (who plays 管狐)
    ended = gurps.json("--as", "Mio", "scenario", "end", "--dice", "管狐=6")
    (reunion,) = ended["reunions"]
    assert (reunion["actor"], reunion["on_behalf_of"], reunion["success"]) == ("Mio", "Aki", False)
    assert gurps.json("history", "show", str(ended["seq"]))["actor"] == "Mio"
    assert [e["seq"] for e in gurps.json("history", "--player", "Aki", "--kind", "reunion")] == [reunion["seq"]]
    assert [e["seq"] for e in gurps.json("history", "--actor", "Mio", "--kind", "reunion")] == [reunion["seq"]]

    # rolled again after a void: recorded as whoever types `missing reunion`
    gurps.run("history", "void", "--yes", str(reunion["seq"]), "--reason", "wrong die")
    again = gurps.json("--as", "Ren", "missing", "reunion", "管狐", "--dice", "2")
    assert (again["actor"], again["on_behalf_of"]) == ("Ren", "Aki")
    shown = gurps.json("history", "show", str(again["seq"]))
    assert (shown["actor"], shown["detail"]["on_behalf_of"]) == ("Ren", "Aki")
    verified(gurps)


def test_a_gm_run_npcs_reunion_names_no_one(gurps):
    gurps.run("char", "add", "白露", "--npc")
    gurps.run("missing", "mark", "白露")
    gurps.run("scenario", "start", "三話", "--with", "鈴音")
    (reunion,) = gurps.json("scenario", "end", "--dice", "白露=3")["reunions"]
    assert (reunion["actor"], reunion["on_behalf_of"]) == ("GM", None)
    assert "on_behalf_of" not in gurps.json("history", "show", str(reunion["seq"]))["detail"]
    for player in ("Aki", "Ren"):
        assert gurps.json("history", "--player", player, "--kind", "reunion") == []

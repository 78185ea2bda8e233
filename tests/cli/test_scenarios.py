"""docs/rules.md "Missing and reunion check" end to end: missing characters, search parties
and reunion checks, on SQLite and PostgreSQL.

Setting: Aki plays 鈴音 and 千早, Ren plays 刀矢 and 蓮二, Mio plays 美緒; 管狐 is the NPC
鈴音 summoned (no player of its own); 白露 is a GM-run NPC.
Relationships: 鈴音–刀矢, 鈴音–千早, 鈴音–蓮二, 鈴音–美緒, 管狐–千早, 管狐–刀矢.
"""

from __future__ import annotations

import pytest

from tests.conftest import party_copy


def _build_party(target: str) -> None:
    """`init` and the setting above on a new database (through the CLI and the services)."""
    from campaign.db.database import Database
    from campaign.services.characters.roster import add_character, add_player, relate
    from tests.cli.conftest import Cli

    Cli(target).run("init", "テスト卓")
    db = Database(target)
    try:
        for player in ("Aki", "Ren", "Mio"):
            add_player(db, None, player, "GM")
        for name, player in [("鈴音", "Aki"), ("刀矢", "Ren"), ("千早", "Aki"), ("蓮二", "Ren"), ("美緒", "Mio")]:
            add_character(db, None, name, "GM", player=player)
        add_character(db, None, "管狐", "GM", npc=True, summoner="鈴音")
        add_character(db, None, "白露", "GM", npc=True)
        for a, b in [
            ("鈴音", "刀矢"),
            ("鈴音", "千早"),
            ("鈴音", "蓮二"),
            ("鈴音", "美緒"),
            ("管狐", "千早"),
            ("管狐", "刀矢"),
        ]:
            relate(db, None, a, b, "GM", None)
    finally:
        db.close()  # no pooled connection may stay open on a PostgreSQL template


@pytest.fixture
def db(cli, request):
    """The same database, opened once in-process: setting up and comparing state through the
    services is much faster than one CLI process-equivalent per step. A test that asks for
    `party` gets the setting already there: built once per session and backend, copied
    (tests/conftest.party_copy); any other gets just the campaign (`init`)."""
    from campaign.db.database import Database

    if "party" in request.fixturenames:
        party_copy(request, "scenarios", cli.db, _build_party, campaign="テスト卓")
    else:
        cli.run("init", "テスト卓")
    database = Database(cli.db)
    yield database
    database.close()


@pytest.fixture
def party(cli, db):
    """The setting of the module docstring (made by the `db` fixture); the test's Cli."""
    return cli


def snapshot(db):
    """What `list`, `char list`, `missing list` and `scenario list` --json print: everything a
    refused command must leave as it was (the ledger head included)."""
    from campaign.services.campaigns.setup import list_campaigns
    from campaign.services.characters.roster import list_characters
    from campaign.services.scenarios.missing import list_missing
    from campaign.services.scenarios.runs import list_scenarios

    return (list_campaigns(db), list_characters(db, None), list_missing(db, None), list_scenarios(db, None))


def statuses(cli) -> dict[str, tuple[str, str | None]]:
    return {c["name"]: (c["status"], c["searching_for"]) for c in cli.json("char", "list")}


def names(rows, key="name"):
    return sorted(r[key] for r in rows)


def refused(cli, args, code, text):
    message = cli.error(*args, code=code)
    assert text in message, (args, message)
    assert len(message.splitlines()) == 1, message
    return message


# --------------------------------------------------------------------------- marking


def test_mark_missing_list_and_status(party):
    party.run("scenario", "start", "霧の館", "--with", "鈴音", "--with", "刀矢")
    marked = party.json("missing", "mark", "鈴音", "--reason", "霧の中へ")
    assert marked == {
        "character": "鈴音",
        "kind": "pc",
        "player": "Aki",
        "summoner": None,
        "faces": 6,
        "reason": "霧の中へ",
        "since_seq": marked["seq"],
        "since_at": marked["since_at"],
        "since_scenario": 1,
        "searchers": [],
        "threshold": 1,
        "chance": 0.1667,
        "odds": "needs <= 1 on 1d6 (17%)",
        "seq": marked["seq"],
    }
    listed = party.json("missing", "list")
    assert listed == [{k: v for k, v in marked.items() if k != "seq"}]
    shown = party.json("char", "show", "鈴音")
    assert (shown["status"], shown["searching_for"]) == ("missing", None)
    assert names(party.json("char", "list", "--status", "missing")) == ["鈴音"]
    assert "鈴音" not in names(party.json("char", "list", "--status", "active"))
    entry = party.json("history", "--kind", "missing", "--char", "鈴音")[0]
    assert (entry["seq"], entry["scenario"], entry["reason"], entry["actor"]) == (marked["seq"], 1, "霧の中へ", "GM")
    assert entry["ops"] == [
        {"op": "missing_started", "character": "鈴音", "faces": 6, "reason": "霧の中へ", "scenario": 1}
    ]
    human = party.run("missing", "list")
    assert "needs <= 1 on 1d6 (17%)" in human.stdout


def test_faces_default_and_change(party):
    party.run("missing", "mark", "鈴音")
    changed = party.json("missing", "faces", "鈴音", "10")
    assert (changed["faces"], changed["odds"]) == (10, "needs <= 1 on 1d10 (10%)")
    assert party.json("missing", "list")[0]["faces"] == 10
    entry = party.json("history", "--kind", "missing", "--char", "鈴音")[0]
    assert entry["ops"] == [{"op": "faces", "since_seq": changed["since_seq"], "faces": 10}]
    party.run("missing", "mark", "白露", "--faces", "4")
    assert [(m["character"], m["faces"]) for m in party.json("missing", "list")] == [("鈴音", 10), ("白露", 4)]


# --------------------------------------------------------------------------- reunion maths through the CLI


def _one_searcher(party):
    party.run("missing", "mark", "鈴音")
    party.run("scenario", "start", "一話", "--with", "千早", "--search", "刀矢=鈴音")
    assert statuses(party)["刀矢"] == ("searching", "鈴音")
    assert party.json("missing", "list")[0]["threshold"] == 2


def test_roll_equal_to_threshold_succeeds(party):
    _one_searcher(party)
    ended = party.json("scenario", "end", "--dice", "鈴音=2")
    assert [
        {k: r[k] for k in ("character", "faces", "roll", "threshold", "searchers", "success")}
        for r in ended["reunions"]
    ] == [{"character": "鈴音", "faces": 6, "roll": 2, "threshold": 2, "searchers": ["刀矢"], "success": True}]
    assert ended["scenario"]["status"] == "ended"
    assert party.json("missing", "list") == []
    now = statuses(party)
    assert now["鈴音"] == ("active", None) and now["刀矢"] == ("active", None)


def test_threshold_plus_one_fails_and_searchers_keep_searching(party):
    _one_searcher(party)
    ended = party.json("scenario", "end", "--dice", "鈴音=3")
    assert [(r["roll"], r["threshold"], r["success"]) for r in ended["reunions"]] == [(3, 2, False)]
    now = statuses(party)
    assert (now["鈴音"], now["刀矢"]) == (("missing", None), ("searching", "鈴音"))
    assert names(party.json("char", "list", "--status", "searching")) == ["刀矢"]


def test_five_searchers_on_d6_always_succeed(party):
    for player in ("P1", "P2", "P3", "P4", "P5"):
        party.run("player", "add", player)
        party.run("char", "add", f"{player}の子", "--player", player)
        party.run("char", "relate", f"{player}の子", "白露")
    party.run("missing", "mark", "白露")
    party.run(
        "scenario",
        "start",
        "捜索",
        "--with",
        "鈴音",
        *[arg for p in ("P1", "P2", "P3", "P4", "P5") for arg in ("--search", f"{p}の子=白露")],
    )
    missing = party.json("missing", "list")[0]
    assert (len(missing["searchers"]), missing["threshold"], missing["odds"]) == (5, 6, "needs <= 6 on 1d6 (100%)")
    human = party.run("scenario", "end", "--dice", "白露=6")
    assert "白露: needs <= 6 on 1d6 (100%) → rolled 6: reunited" in human.stdout
    assert party.json("missing", "list") == []
    assert names(party.json("char", "list", "--status", "searching")) == []
    # the GM-run NPC's roll is the GM's
    assert party.json("history", "--kind", "reunion", "--char", "白露")[0]["actor"] == "GM"


def test_non_default_faces(party):
    party.run("missing", "mark", "鈴音", "--faces", "10")
    party.run("scenario", "start", "一話", "--with", "千早", "--search", "刀矢=鈴音")
    assert party.json("missing", "list")[0]["odds"] == "needs <= 2 on 1d10 (20%)"
    refused(party, ("scenario", "end", "--dice", "鈴音=11"), 2, "outside 1..10")
    ended = party.json("scenario", "end", "--dice", "鈴音=10")
    assert [(r["faces"], r["roll"], r["success"]) for r in ended["reunions"]] == [(10, 10, False)]
    party.run("scenario", "start", "二話", "--with", "千早")
    ended = party.json("scenario", "end", "--dice", "鈴音=2")
    assert [(r["faces"], r["roll"], r["threshold"], r["success"]) for r in ended["reunions"]] == [(10, 2, 2, True)]


# --------------------------------------------------------------------------- NPCs and summoners


def test_npc_summoner_may_search_whoever_plays_it(party, db):
    party.run("missing", "mark", "管狐")
    before = snapshot(db)
    # Aki plays 管狐 (through its summoner 鈴音): a missing NPC bars no player,
    # so Aki may send the summoner or the related 千早, but only one of them
    refused(
        party,
        ("scenario", "start", "x", "--with", "美緒", "--search", "千早=管狐", "--search", "鈴音=管狐"),
        1,
        "Aki already has 千早 searching for 管狐",
    )
    # an NPC never searches
    refused(party, ("scenario", "start", "x", "--with", "美緒", "--search", "白露=管狐"), 1, "only PCs can search")
    # Mio's 美緒 has no relationship with 管狐
    refused(party, ("scenario", "start", "x", "--with", "刀矢", "--search", "美緒=管狐"), 1, "no recorded relationship")
    assert snapshot(db) == before
    # the summoner is always related, and Ren's related 刀矢 may go too
    started = party.json(
        "scenario", "start", "狐探し", "--with", "美緒", "--search", "鈴音=管狐", "--search", "刀矢=管狐"
    )
    assert [(s["searcher"], s["player"], s["target"]) for s in started["searches"]] == [
        ("鈴音", "Aki", "管狐"),
        ("刀矢", "Ren", "管狐"),
    ]
    ended = party.json("scenario", "end", "--dice", "管狐=3")
    assert [
        (r["character"], r["threshold"], r["success"], r["actor"], r["on_behalf_of"]) for r in ended["reunions"]
    ] == [("管狐", 3, True, "GM", "Aki")]
    assert set(statuses(party).values()) == {("active", None)}


# --------------------------------------------------------------------------- refusals


def test_refusals_without_an_open_scenario(party, db):
    party.run("missing", "mark", "鈴音")
    party.run("missing", "mark", "白露")
    party.run("scenario", "start", "一話", "--with", "千早", "--search", "刀矢=鈴音")
    party.run("scenario", "end", "--dice", "鈴音=6", "--dice", "白露=6")
    before = snapshot(db)
    cases = [
        # who may join
        (("scenario", "start", "x", "--with", "鈴音"), 1, "鈴音 is missing and cannot join a scenario"),
        (
            ("scenario", "start", "x", "--with", "美緒", "--with", "刀矢"),
            1,
            "刀矢 is searching for 鈴音 and cannot join a scenario",
        ),
        (("scenario", "start", "x"), 2, "at least one participant"),
        (("scenario", "start", "x", "--with", "誰か"), 1, "no character named '誰か'"),
        # who may search
        (
            ("scenario", "start", "x", "--with", "美緒", "--search", "千早=鈴音"),
            1,
            "Aki plays the missing 鈴音 and cannot send their own characters",
        ),
        (
            ("scenario", "start", "x", "--with", "美緒", "--search", "蓮二=鈴音"),
            1,
            "Ren already has 刀矢 searching for 鈴音",
        ),
        (
            ("scenario", "start", "x", "--with", "美緒", "--search", "刀矢=白露"),
            1,
            "刀矢 is already searching for 鈴音; a searcher looks for one missing character at a time",
        ),
        (
            ("scenario", "start", "x", "--with", "美緒", "--search", "刀矢=鈴音"),
            1,
            "刀矢 is already searching for 鈴音",
        ),
        (
            ("scenario", "start", "x", "--with", "美緒", "--search", "鈴音=白露"),
            1,
            "鈴音 is missing and cannot search for anyone",
        ),
        (("scenario", "start", "x", "--with", "千早", "--search", "管狐=白露"), 1, "only PCs can search"),
        (("scenario", "start", "x", "--with", "千早", "--search", "美緒=白露"), 1, "no recorded relationship"),
        (("scenario", "start", "x", "--with", "千早", "--search", "美緒=千早"), 1, "千早 is not missing"),
        (
            ("scenario", "start", "x", "--with", "美緒", "--search", "美緒=鈴音"),
            1,
            "美緒 takes part in this scenario and cannot also search for 鈴音",
        ),
        (("scenario", "start", "x", "--with", "千早", "--search", "美緒"), 2, "expected SEARCHER=TARGET"),
        # a refusal late in the command undoes the earlier, valid search in the same command
        (
            ("scenario", "start", "x", "--with", "千早", "--search", "美緒=鈴音", "--search", "蓮二=鈴音"),
            1,
            "Ren already has 刀矢 searching",
        ),
        # marking
        (("missing", "mark", "鈴音"), 1, "鈴音 is already missing"),
        (("missing", "mark", "刀矢"), 1, "刀矢 is out searching for 鈴音"),
        (("missing", "mark", "美緒", "--faces", "0"), 2, "1..1000 faces"),
        (("missing", "faces", "美緒", "8"), 1, "美緒 is not missing"),
        (("missing", "faces", "鈴音", "6"), 1, "already 1d6"),
        (("missing", "faces", "鈴音", "1001"), 2, "1..1000 faces"),
        # ending
        (("scenario", "end"), 1, "no scenario is open"),
    ]
    for args, code, text in cases:
        refused(party, args, code, text)
        assert snapshot(db) == before, args


def test_refusals_during_an_open_scenario(party, db):
    party.run("missing", "mark", "鈴音")
    party.run("scenario", "start", "一話", "--with", "千早")
    before = snapshot(db)
    cases = [
        (("scenario", "start", "二話", "--with", "美緒"), 1, "scenario #1 '一話' is still open"),
        (("scenario", "end", "--dice", "美緒=1"), 1, "美緒 is not missing, so there is no reunion check"),
        (("scenario", "end", "--dice", "鈴音=1", "--dice", "鈴音=2"), 2, "鈴音 is given twice"),
        (("scenario", "end", "--dice", "鈴音=x"), 2, "not a whole number"),
        (("scenario", "end", "--dice", "鈴音=7"), 2, "outside 1..6"),
        (("scenario", "end", "--dice", "鈴音=1,2"), 2, "only 1 used"),
        (("scenario", "end", "--dice", "2"), 2, "expected CHAR=FACE"),
        (("scenario", "end", "--dice", "誰か=2"), 1, "no character named '誰か'"),
    ]
    for args, code, text in cases:
        refused(party, args, code, text)
        assert snapshot(db) == before, args


# --------------------------------------------------------------------------- a campaign over time


def test_state_after_several_scenarios(party):
    # 1: 鈴音 goes missing during the scenario, and its end already rolls for her
    party.run("scenario", "start", "一話", "--with", "鈴音", "--with", "刀矢", "--with", "美緒")
    party.run("missing", "mark", "鈴音", "--reason", "鏡の向こう")
    first = party.json("scenario", "end", "--dice", "鈴音=2")
    assert [(r["character"], r["threshold"], r["success"]) for r in first["reunions"]] == [("鈴音", 1, False)]
    assert first["scenario"]["went_missing"][0]["character"] == "鈴音"

    # 2: Ren sends 刀矢; a fail keeps him out
    second = party.json("scenario", "start", "二話", "--with", "美緒", "--search", "刀矢=鈴音")
    assert second["participants"] == ["美緒"] and second["sent"][0]["odds"] == "needs <= 2 on 1d6 (33%)"
    ended = party.json("scenario", "end", "--dice", "鈴音=3")
    assert [(r["threshold"], r["searchers"], r["success"]) for r in ended["reunions"]] == [(2, ["刀矢"], False)]
    assert statuses(party)["刀矢"] == ("searching", "鈴音")

    # 3: Mio has nobody out for 鈴音 yet, so 美緒 may join the search; Ren may not send a second
    refused(party, ("scenario", "start", "三話", "--with", "千早", "--search", "蓮二=鈴音"), 1, "Ren already has")
    party.run("scenario", "start", "三話", "--with", "千早", "--search", "美緒=鈴音")
    assert names(party.json("missing", "list")[0]["searchers"]) == ["刀矢", "美緒"]
    assert names(party.json("char", "list", "--status", "searching")) == ["刀矢", "美緒"]
    shown = party.json("char", "show", "美緒")
    assert (shown["status"], shown["searching_for"]) == ("searching", "鈴音")
    ended = party.json("scenario", "end", "--dice", "鈴音=3")
    assert [(r["threshold"], r["searchers"], r["success"]) for r in ended["reunions"]] == [(3, ["刀矢", "美緒"], True)]
    assert set(statuses(party).values()) == {("active", None)}

    # everyone may play again (a name given twice joins once); nobody is missing, nothing to roll
    party.run("scenario", "start", "四話", "--with", "美緒", "--with", "鈴音", "--with", "鈴音", "--with", "管狐")
    assert party.json("scenario", "show")["participants"] == ["鈴音", "美緒", "管狐"]  # creation order
    assert party.json("scenario", "end")["reunions"] == []
    party.run("scenario", "start", "五話", "--with", "鈴音", "--with", "刀矢", "--with", "美緒")
    listed = party.json("scenario", "list")
    assert [(s["number"], s["title"], s["status"]) for s in listed] == [
        (1, "一話", "ended"),
        (2, "二話", "ended"),
        (3, "三話", "ended"),
        (4, "四話", "ended"),
        (5, "五話", "open"),
    ]
    third = party.json("scenario", "show", "三話")
    # every searcher out during it: 刀矢 carried over from #2, 美緒 sent at its start
    assert [(s["searcher"], s["target"], s["carried_over"]) for s in third["searches"]] == [
        ("刀矢", "鈴音", True),
        ("美緒", "鈴音", False),
    ]
    assert [(r["character"], r["roll"], r["success"]) for r in third["reunions"]] == [("鈴音", 3, True)]
    assert party.json("scenario", "show")["title"] == "五話"
    assert party.json("scenario", "show", "#2")["searches"][0]["searcher"] == "刀矢"
    refused(party, ("scenario", "show", "六話"), 1, "no scenario titled '六話'")

    # the ledger answers "when did we roll for 鈴音 and what came up"
    rolls = party.json("history", "--kind", "reunion", "--char", "鈴音")
    assert [(e["scenario"], e["dice"], e["target"], e["outcome"]) for e in rolls] == [
        (3, [3], 3, "success"),
        (2, [3], 2, "failure"),
        (1, [2], 1, "failure"),
    ]
    for entry in rolls:
        assert (
            entry["actor"],
            entry["detail"]["on_behalf_of"],
            entry["expression"],
            entry["source"],
            entry["character"],
        ) == ("GM", "Aki", "1d6", "manual", "鈴音")
        parent = party.json("history", "show", str(entry["parent_seq"]))
        assert (parent["kind"], parent["scenario"], parent["reason"]) == ("scenario", entry["scenario"], "end")
    assert rolls[0]["detail"]["searchers"] == ["刀矢", "美緒"] and rolls[0]["detail"]["faces"] == 6
    searches = party.json("history", "--kind", "search")
    assert [(e["character"], e["actor"], e["detail"]["on_behalf_of"], e["detail"]["target"]) for e in searches] == [
        ("美緒", "GM", "Mio", "鈴音"),
        ("刀矢", "GM", "Ren", "鈴音"),
    ]


def test_scenario_end_json_and_human_output(party):
    party.run("missing", "mark", "鈴音")
    party.run("missing", "mark", "白露", "--faces", "8")
    party.run("scenario", "start", "一話", "--with", "千早", "--search", "刀矢=鈴音")
    ended = party.json("scenario", "end", "--dice", "鈴音=1", "--dice", "白露=5")
    end_seq = ended["seq"]
    assert ended["reunions"] == [
        {
            "character": "鈴音",
            "faces": 6,
            "roll": 1,
            "threshold": 2,
            "searchers": ["刀矢"],
            "success": True,
            "odds": "needs <= 2 on 1d6 (33%)",
            "actor": "GM",
            "on_behalf_of": "Aki",
            "seq": end_seq + 1,
        },
        {
            "character": "白露",
            "faces": 8,
            "roll": 5,
            "threshold": 1,
            "searchers": [],
            "success": False,
            "odds": "needs <= 1 on 1d8 (13%)",
            "actor": "GM",
            "on_behalf_of": None,
            "seq": end_seq + 2,
        },
    ]
    scenario = ended["scenario"]
    assert {k: scenario[k] for k in ("number", "title", "status", "ended_seq", "participants")} == {
        "number": 1,
        "title": "一話",
        "status": "ended",
        "ended_seq": end_seq,
        "participants": ["千早"],
    }
    assert [(r["character"], r["roll"], r["seq"]) for r in scenario["reunions"]] == [
        ("鈴音", 1, end_seq + 1),
        ("白露", 5, end_seq + 2),
    ]
    # human output, with the seeded source for the one roll not typed in
    party.run("scenario", "start", "二話", "--with", "千早")
    human = party.run("--seed", "7", "scenario", "end")
    line = [ln for ln in human.stdout.splitlines() if ln.startswith("白露")][0]
    assert line.startswith("白露: needs <= 1 on 1d8 (13%) → rolled ")
    assert party.json("history", "--kind", "reunion", "--char", "白露")[0]["source"] == "seeded"


# --------------------------------------------------------------------------- void


def test_voided_reunion_roll_restores_missing_status_and_searchers(party):
    party.run("missing", "mark", "鈴音")
    party.run("missing", "mark", "白露")
    party.run("scenario", "start", "一話", "--with", "千早", "--search", "刀矢=鈴音", "--search", "美緒=鈴音")
    ended = party.json("scenario", "end", "--dice", "鈴音=3", "--dice", "白露=1")
    assert [r["success"] for r in ended["reunions"]] == [True, True]
    assert party.json("missing", "list") == []
    reunion_seq = ended["reunions"][0]["seq"]

    voided = party.json("history", "void", "--yes", str(reunion_seq), "--reason", "die fell off the table")
    assert voided["voided"] == reunion_seq
    # only 鈴音's roll is undone: she is missing again with both searchers; 白露 stays back
    missing = party.json("missing", "list")
    assert [(m["character"], names(m["searchers"]), m["threshold"]) for m in missing] == [("鈴音", ["刀矢", "美緒"], 3)]
    now = statuses(party)
    assert (now["刀矢"], now["美緒"], now["白露"]) == (("searching", "鈴音"), ("searching", "鈴音"), ("active", None))
    # the voided roll stays on the scenario's record, marked
    assert [(r["character"], r["voided_by"] is not None) for r in party.json("scenario", "show", "1")["reunions"]] == [
        ("鈴音", True),
        ("白露", False),
    ]
    entry = party.json("history", "--kind", "reunion", "--char", "鈴音")[0]
    assert entry["voided_by"] == voided["seq"]

    # the next scenario end rolls for her again, with her searchers still counting
    party.run("scenario", "start", "二話", "--with", "千早")
    again = party.json("scenario", "end", "--dice", "鈴音=4")
    assert [(r["character"], r["threshold"], r["success"]) for r in again["reunions"]] == [("鈴音", 3, False)]


def test_voided_search_recalls_the_searcher(party):
    party.run("missing", "mark", "鈴音")
    started = party.json("scenario", "start", "一話", "--with", "千早", "--search", "刀矢=鈴音")
    party.run("history", "void", "--yes", str(started["sent"][0]["seq"]), "--reason", "wrong PC")
    assert statuses(party)["刀矢"] == ("active", None)
    assert party.json("missing", "list")[0]["searchers"] == []


def test_voided_disappearance_calls_its_searchers_back(party):
    marked = party.json("missing", "mark", "鈴音")
    started = party.json("scenario", "start", "一話", "--with", "千早", "--search", "刀矢=鈴音")
    search_seq = started["sent"][0]["seq"]
    message = party.error("history", "void", "--yes", str(marked["seq"]), "--reason", "x", code=1)
    assert f"#{search_seq}" in message and "depend on it" in message
    voided = party.json("history", "void", "--yes", "--cascade", str(marked["seq"]), "--reason", "she was never lost")
    assert voided["cascade"] == [search_seq]
    now = statuses(party)
    assert (now["鈴音"], now["刀矢"]) == (("active", None), ("active", None))
    assert party.json("missing", "list") == []


def test_void_refuses_to_give_a_character_two_statuses(party):
    party.run("missing", "mark", "鈴音")
    party.run("scenario", "start", "一話", "--with", "千早", "--search", "刀矢=鈴音")
    ended = party.json("scenario", "end", "--dice", "鈴音=1")
    party.run("missing", "mark", "鈴音")  # lost again
    before = snapshot_json(party)
    message = party.error("history", "void", "--yes", str(ended["reunions"][0]["seq"]), "--reason", "x", code=1)
    assert "depend on it" in message and "鈴音 is missing" in message
    assert snapshot_json(party) == before


def snapshot_json(cli):
    return cli.json("char", "list"), cli.json("missing", "list"), cli.json("history", "--limit", "1")


def test_a_missing_npc_bars_no_player_S5(cli, db):
    """The setup a GM reported: Ren owns the NPC N1 (summoned by Ren's R1), Ren's R2
    is related to N1; `scenario start S5 --with A1 --search R2=N1` sends R2."""
    from campaign.services.characters.roster import add_character, add_player, relate

    for player in ("Aki", "Ren"):
        add_player(db, None, player, "GM")
    add_character(db, None, "A1", "GM", player="Aki")
    add_character(db, None, "R1", "GM", player="Ren")
    add_character(db, None, "R2", "GM", player="Ren")
    add_character(db, None, "N1", "GM", npc=True, summoner="R1")
    relate(db, None, "R2", "N1", "GM", None)
    cli.run("missing", "mark", "N1")
    assert (cli.json("missing", "list")[0]["player"], cli.json("missing", "list")[0]["summoner"]) == ("Ren", "R1")
    started = cli.json("scenario", "start", "S5", "--with", "A1", "--search", "R2=N1")
    assert [(s["searcher"], s["player"], s["target"]) for s in started["searches"]] == [("R2", "Ren", "N1")]
    assert statuses(cli)["R2"] == ("searching", "N1")
    assert cli.json("missing", "list")[0]["threshold"] == 2
    # the searcher counts at the reunion check: 2 <= 1 + 1, and Ren (N1's player) rolls
    ended = cli.json("scenario", "end", "--dice", "N1=2")
    assert [
        (r["character"], r["roll"], r["threshold"], r["success"], r["actor"], r["on_behalf_of"])
        for r in ended["reunions"]
    ] == [("N1", 2, 2, True, "GM", "Ren")]
    # a missing PC still bars its own player: Ren may not send R2 for R1
    relate(db, None, "R2", "R1", "GM", None)
    cli.run("missing", "mark", "R1")
    refused(
        cli,
        ("scenario", "start", "S6", "--with", "A1", "--search", "R2=R1"),
        1,
        "Ren plays the missing R1 and cannot send their own characters",
    )


# --------------------------------------------------------------------------- ending by a call


def _end_with_searchers(cli, *, call: bool) -> list[tuple[str, int]]:
    """鈴音 missing, 刀矢 searching, 千早 taking part; the end awards 3 CP to the searchers
    too; 鈴音's reunion die is 1. Returns every PC's CP total afterwards."""
    cli.run("missing", "mark", "鈴音")
    cli.run("scenario", "start", "一話", "--with", "千早", "--search", "刀矢=鈴音")
    if call:
        made = cli.json("scenario", "end", "--call", "--award", "3", "--searchers")
        assert made["params"]["searchers"] is True and made["params"]["npcs"] is False
        out = cli.run("call", "roll", str(made["call_id"]), "--dice", "1").stdout.splitlines()
        assert out[0].startswith(f"call #{made['call_id']} → scenario #1 一話 ended (ledger #")
        assert out[1].startswith("鈴音: needs <= 2 on 1d6 (33%) → rolled 1: reunited; 刀矢 returns (ledger #")
        assert sorted(line.split(" (ledger")[0] for line in out[2:]) == ["刀矢: +3 CP → 3", "千早: +3 CP → 3"]
        assert "None" not in "\n".join(out)
    else:
        cli.run("scenario", "end", "--award", "3", "--searchers", "--dice", "鈴音=1")
    cli.run("history", "verify")
    return sorted((c["name"], c["cp_total"]) for c in cli.json("char", "list") if c["kind"] == "pc")


def test_a_called_end_awards_the_same_cp_as_an_end_without_call(party):
    called = _end_with_searchers(party, call=True)
    awards = [(e["character"], e["detail"]["cp"]) for e in party.json("history", "--kind", "award")]
    assert sorted(awards) == [("刀矢", 3), ("千早", 3)]
    assert dict(called) == {"千早": 3, "刀矢": 3, "美緒": 0, "蓮二": 0, "鈴音": 0}


def test_an_end_without_call_gives_the_reference_totals(party):
    assert dict(_end_with_searchers(party, call=False)) == {"千早": 3, "刀矢": 3, "美緒": 0, "蓮二": 0, "鈴音": 0}


@pytest.mark.parametrize("flag", ["--searchers", "--npcs"])
def test_a_called_end_refuses_searchers_without_an_award(party, db, flag):
    party.run("scenario", "start", "一話", "--with", "千早")
    party.run("missing", "mark", "鈴音")
    before = snapshot(db)
    refused(party, ("scenario", "end", "--call", flag), 2, "give it with --award N")
    assert snapshot(db) == before and party.json("call", "list") == {"calls": []}

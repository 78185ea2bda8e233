"""`campaign check ...` (docs/rules.md "2d6 checks") end to end on SQLite and PostgreSQL, with exact --dice."""

from __future__ import annotations

import pytest

from tests.cli.conftest import Cli
from tests.conftest import party_copy

# 体 for the cooperative checks: 鈴音 2, 刀矢 4, 管狐 1, 灯 5, 陸 3
CHARACTERS = {
    "鈴音": {"心": 3, "技": 3, "体": 2, "感": 2},
    "刀矢": {"心": 1, "技": 2, "体": 4, "感": 3},
    "管狐": {"技": 1, "体": 1, "感": 4},
    "灯": {"技": 0, "体": 5, "感": 1},
    "陸": {"技": 2, "体": 3},
}


def _seed(url: str) -> None:
    """The campaign every test starts from, written once per backend through the services."""
    from campaign.db.database import Database
    from campaign.services.campaigns.setup import create_campaign
    from campaign.services.characters.roster import add_character, add_player

    db = Database(url)
    try:
        create_campaign(db, "夜桜", "2d6-ja", "GM")
        add_player(db, None, "Aki", "GM")
        for name, stats in CHARACTERS.items():
            owner = {"player": "Aki"} if name == "鈴音" else {"npc": True}
            add_character(db, None, name, "GM", stats=stats, **owner)
    finally:
        db.close()  # no pooled connection may stay open on a PostgreSQL template


@pytest.fixture(autouse=True)
def japanese(monkeypatch):
    """The 2d6 homebrew rules are read in Japanese here (one English test below)."""
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")


def test_a_check_reads_in_english_with_lang_en(table):
    out = table.run("--lang", "en", "check", "ability", "鈴音", "技", "--target", "12", "--dice", "4,5").stdout
    assert out == "鈴音 ability check #8: 【技】3 + 2D6[4,5] = 12 ≥ 12 → success\n"
    out = table.run(
        "--lang", "en", "check", "oppose", "--active", "鈴音:技", "--passive", "刀矢:体-1", "--dice", "4,5,5,4"
    ).stdout
    assert "winner: 刀矢 (a tie goes to the passive side)" in out and "勝" not in out


@pytest.fixture
def table(db_url, request) -> Cli:
    """A fresh copy of a 2d6-ja campaign with five characters whose stats have Japanese
    names, seeded once per session and backend (tests/conftest.party_copy), on the test's
    backend: SQLite and PostgreSQL in `make test`, SQLite in `make test-fast`."""
    return Cli(party_copy(request, "checks", db_url, _seed))


def entries(cli) -> int:
    """The ledger head (max seq) of the only campaign."""
    return cli.json("list")[0]["entries"]


def check(cli, *args: str) -> dict:
    return cli.json("check", *args)


# --------------------------------------------------------------------- ability / skill


def test_an_ability_check_asks_where_everyone_is_once(table, monkeypatch):
    """The presence check (services.characters.presence) runs once per check, not once per caller's
    habit: `ability_check` used to ask twice and keep the second answer."""
    from campaign.services.checks import action_checks as checks

    asked = []
    real = checks.check_presence
    monkeypatch.setattr(checks, "check_presence", lambda *a, **k: asked.append(a[2]) or real(*a, **k))
    check(table, "ability", "鈴音", "技", "--target", "12", "--dice", "4,5")
    check(table, "skill", "鈴音", "技", "運転", "--target", "10", "--skill", "1", "--dice", "4,5")
    assert asked == ["ability", "skill"]  # codes of services.characters.presence.CHECK_NAMES


def test_ability_reaching_the_target_succeeds_one_short_fails(table):
    before = entries(table)
    hit = check(table, "ability", "鈴音", "技", "--target", "12", "--dice", "4,5")
    assert hit["seq"] == before + 1
    assert (hit["total"], hit["target"], hit["outcome"], hit["margin"]) == (12, 12, "success", 0)
    assert hit["dice"] == [4, 5] and hit["expression"] == "2D6+3>=12" and hit["source"] == "manual"
    miss = check(table, "ability", "鈴音", "技", "--target", "13", "--dice", "4,5")
    assert (miss["total"], miss["outcome"], miss["margin"]) == (12, "failure", -1)
    assert entries(table) == before + 2

    out = table.run("check", "ability", "鈴音", "技", "--target", "12", "--dice", "4,5").stdout
    assert "【技】3 + 2D6[4,5] = 12 ≥ 12 → 成功" in out


def test_skill_check_adds_level_and_labelled_modifiers(table):
    result = check(
        table,
        "ability",
        "鈴音",
        "技",
        "--target",
        "12",
        "--skill",
        "2",
        "--mod",
        "1",
        "--mod",
        "道具=-2",
        "--occasion",
        "標準",
        "--reason",
        "錠前",
        "--dice",
        "4,5",
    )
    assert result["check"] == "skill" and result["total"] == 3 + 9 + 2 + 1 - 2 == 13
    assert result["outcome"] == "success" and result["occasion"] == "標準"
    assert result["terms"] == [
        {"label": "技", "value": 3},
        {"label": "skill", "value": 2},
        {"label": "mod", "value": 1},
        {"label": "道具", "value": -2},
    ]
    shown = table.json("history", "show", str(result["seq"]))
    assert shown["kind"] == "check" and shown["character"] == "鈴音" and shown["reason"] == "錠前"
    assert shown["detail"]["check"] == "skill" and shown["detail"]["occasion"] == "標準"
    assert shown["detail"]["stat"] == "技" and shown["detail"]["modifiers"] == [["mod", 1], ["道具", -2]]
    out = table.run(
        "check",
        "ability",
        "鈴音",
        "技",
        "--target",
        "12",
        "--skill",
        "2",
        "--mod",
        "1",
        "--dice",
        "4,5",
        "--occasion",
        "instant",
    ).stdout
    assert "【技】3 + 2D6[4,5] + 技能Lv2 + 1 = 15 ≥ 12 → 成功" in out and "[瞬間]" in out


def test_criticals_follow_the_campaign_setting(table):
    crit = check(table, "ability", "鈴音", "技", "--target", "99", "--dice", "6,6")
    assert (crit["total"], crit["outcome"], crit["critical"]) == (15, "critical_success", "critical_success")
    fumble = check(table, "ability", "鈴音", "技", "--target", "0", "--dice", "1,1")
    assert (fumble["total"], fumble["outcome"]) == (5, "critical_failure")
    assert table.json("history", "--outcome", "critical_failure")[0]["seq"] == fumble["seq"]

    from sqlalchemy import select

    from campaign.db.database import Database
    from campaign.db.models import Campaign

    db = Database(table.db)
    with db.write() as session:
        campaign = session.scalar(select(Campaign))
        campaign.settings = {**campaign.settings, "criticals": False}
    db.close()
    assert check(table, "ability", "鈴音", "技", "--target", "99", "--dice", "6,6")["outcome"] == "failure"
    plain = check(table, "ability", "鈴音", "技", "--target", "0", "--dice", "1,1")
    assert plain["outcome"] == "success" and plain["critical"] is None


def test_zero_dice_fails_without_rolling_and_refuses_faces(table):
    before = entries(table)
    result = check(table, "ability", "鈴音", "技", "--target", "2", "--dice-mod", "-2")
    assert (result["outcome"], result["dice"], result["skipped"], result["total"]) == ("failure", [], "zero_dice", 3)
    assert result["expression"] == "0D6+3>=2" and entries(table) == before + 1
    assert "0D6(振らない)" in table.run("check", "ability", "鈴音", "技", "--target", "2", "--dice-mod", "-3").stdout
    message = table.error(
        "check", "ability", "鈴音", "技", "--target", "2", "--dice-mod", "-2", "--dice", "1,2", code=2
    )
    assert "出目が 2 個ありますが、使ったのは 0 個です" in message  # the core refusal, in the Japanese the table reads
    assert entries(table) == before + 2
    one_die = check(table, "ability", "鈴音", "技", "--target", "9", "--dice-mod", "-1", "--dice", "6")
    assert (one_die["dice"], one_die["total"], one_die["outcome"]) == ([6], 9, "success")
    coop = check(table, "coop", "体", "--with", "鈴音", "--with", "刀矢", "--target", "1", "--dice-mod", "-3")
    assert (coop["outcome"], coop["dice"], coop["skipped"]) == ("failure", [], "zero_dice")
    danger = check(table, "danger", "管狐", "--difficulty", "0", "--dice-mod", "-2")
    assert (danger["outcome"], danger["dice"], danger["band"]) == ("failure", [], "-2..0")


# --------------------------------------------------------------------- cooperative


COOPERATIVE_CASES = [  # n participants, n+1 faces, the best two in roll order, total, whose 体 counts
    (2, "1,5,3", [5, 3], 4 + 1 + 8, "刀矢"),
    (3, "2,6,1,5", [6, 5], 4 + 2 + 11, "刀矢"),
    (4, "3,3,3,2,1", [3, 3], 5 + 3 + 6, "灯"),
    (5, "1,2,3,4,5,4", [4, 5], 5 + 4 + 9, "灯"),
]


def test_cooperative_keeps_best_two_of_n_plus_one(table):
    for n, faces, kept, total, stat_from in COOPERATIVE_CASES:
        names = list(CHARACTERS)[:n]
        before = entries(table)
        args = [arg for name in names for arg in ("--with", name)]
        result = check(table, "coop", "体", *args, "--target", str(total), "--dice", faces)
        assert result["dice"] == [int(f) for f in faces.split(",")] and result["dice_count"] == n + 1
        assert result["kept"] == kept and result["total"] == total and result["outcome"] == "success"
        assert result["stat_from"] == stat_from and {"label": "cooperation", "value": n - 1} in result["terms"]
        assert [p["character"] for p in result["participants"]] == names
        # one entry for the check, one sub-entry per other participant
        assert entries(table) == before + n
        shown = table.json("history", "show", str(result["seq"]))
        assert [sub["character"] for sub in shown["sub_entries"]] == names[1:]
        failed = check(table, "coop", "体", *args, "--target", str(total + 1), "--dice", faces)
        assert failed["outcome"] == "failure", n


def test_cooperative_skill_counts_once_and_criticals_use_kept_dice(table):
    result = check(
        table, "coop", "技", "--with", "鈴音", "--with", "刀矢", "--skill", "2", "--target", "99", "--dice", "6,1,6"
    )
    assert result["kept"] == [6, 6] and result["outcome"] == "critical_success"
    assert result["total"] == 3 + 2 + 1 + 12
    ones = check(table, "coop", "技", "--with", "鈴音", "--with", "刀矢", "--target", "0", "--dice", "1,1,2")
    assert ones["kept"] == [1, 2] and ones["outcome"] == "success"
    out = table.run(
        "check", "coop", "体", "--with", "鈴音", "--with", "刀矢", "--target", "12", "--dice", "2,5,6"
    ).stdout
    assert "【体】4 + 3D6[2,5,6]→[5,6] + 協力1 = 16 ≥ 12 → 成功" in out


# --------------------------------------------------------------------- opposed


def test_opposed_tie_goes_to_the_passive_side(table):
    # 鈴音 技3 + 4 + 5 = 12; 刀矢 体4 + 5 + 4 - 1 = 12
    before = entries(table)
    result = check(table, "oppose", "--active", "鈴音:技", "--passive", "刀矢:体-1", "--dice", "4,5,5,4")
    assert result["winner"] == "刀矢" and result["winner_role"] == "passive"
    assert (result["total"], result["target"], result["outcome"]) == (12, 12, "failure")
    assert result["dice"] == [4, 5, 5, 4]
    active, passive = result["sides"]
    assert (active["character"], active["dice"], active["total"], active["outcome"]) == ("鈴音", [4, 5], 12, "failure")
    assert (passive["character"], passive["dice"], passive["total"], passive["outcome"]) == (
        "刀矢",
        [5, 4],
        12,
        "success",
    )
    assert passive["target"] == 12 and passive["seq"] == result["seq"] + 1
    assert entries(table) == before + 2
    sub = table.json("history", "--char", "刀矢", "--kind", "check")[0]
    assert sub["seq"] == passive["seq"] and sub["parent_seq"] == result["seq"] and sub["dice"] == [5, 4]
    out = table.run("check", "oppose", "--active", "鈴音:技", "--passive", "刀矢:体-1", "--dice", "4,5,5,4").stdout
    assert "勝者: 刀矢 (同値は受動側の勝ち)" in out


def test_opposed_active_wins_by_one_and_modifier_syntax(table):
    result = check(table, "oppose", "--active", "鈴音:【技】+2", "--passive", "刀矢：体＋１-1D", "--dice", "4,5,6")
    # 鈴音 3 + 2 + 9 = 14; 刀矢 4 + 1 + one die (6) = 11
    assert [s["total"] for s in result["sides"]] == [14, 11]
    assert result["sides"][1]["dice"] == [6] and result["sides"][1]["dice_count"] == 1
    assert result["winner"] == "鈴音" and result["outcome"] == "success" and result["margin"] == 3


def test_opposed_sides_that_do_not_roll_have_zero(table):
    result = check(
        table, "oppose", "--active", "鈴音:技", "--passive", "刀矢:-", "--passive", "管狐:感", "--dice", "1,1,2,3"
    )
    totals = {s["character"]: (s["total"], s["dice"], s["rolls"]) for s in result["sides"]}
    assert totals == {"鈴音": (5, [1, 1], True), "刀矢": (0, [], False), "管狐": (9, [2, 3], True)}
    assert result["winner"] == "管狐" and result["target"] == 9
    # an active side that does not roll loses a 0-0 tie too
    nobody = check(table, "oppose", "--active", "鈴音:-", "--passive", "刀矢:-")
    assert nobody["winner"] == "刀矢" and nobody["dice"] == []
    # a side whose dice drop to 0 also counts as 0
    dropped = check(table, "oppose", "--active", "鈴音:技-2d6", "--passive", "陸:技-3", "--dice", "1,2")
    assert [s["total"] for s in dropped["sides"]] == [0, 2] and dropped["winner"] == "陸"
    # ... and a critical failure (1-1, total 1) loses even to that 0 (docs/rules.md "Opposed checks")
    fumbled = check(table, "oppose", "--active", "鈴音:技-2d6", "--passive", "陸:技-3", "--dice", "1,1")
    assert [s["total"] for s in fumbled["sides"]] == [0, 1] and fumbled["winner"] == "鈴音"
    assert fumbled["decided_by"] == "critical"


def test_opposed_effect_halves_rounding_down_or_vanishes(table):
    won = check(
        table,
        "oppose",
        "--active",
        "鈴音:技",
        "--passive",
        "刀矢:体",
        "--effect",
        "7",
        "--if-resisted",
        "halve",
        "--dice",
        "6,5,1,1",
    )
    assert won["effect"] == {"base": 7, "if_resisted": "halve", "resisted": False, "applied": 7}
    for base, halved in ((7, 3), (1, 0), (-3, -2)):
        lost = check(
            table,
            "oppose",
            "--active",
            "鈴音:技",
            "--passive",
            "刀矢:体",
            "--effect",
            str(base),
            "--if-resisted",
            "半減",
            "--dice",
            "1,1,6,6",
        )
        assert lost["effect"]["applied"] == halved and lost["effect"]["resisted"]
    vanished = check(
        table, "oppose", "--active", "鈴音:技", "--passive", "刀矢:体", "--effect", "7", "--dice", "1,1,6,6"
    )
    assert vanished["effect"]["applied"] == 0 and vanished["effect"]["if_resisted"] == "vanish"
    out = table.run(
        "check",
        "oppose",
        "--active",
        "鈴音:技",
        "--passive",
        "刀矢:体",
        "--effect",
        "7",
        "--if-resisted",
        "halve",
        "--dice",
        "1,1,6,6",
    ).stdout
    assert "効果: 7 → 3 (半減)" in out


# --------------------------------------------------------------------- danger sense


def test_danger_sense_must_exceed_and_band_edges(table):
    # 鈴音 感2 + 3 + 4 = 9 against difficulty 9 - margin
    same = check(table, "danger", "鈴音", "--difficulty", "9", "--dice", "3,4")
    assert (same["total"], same["target"], same["outcome"], same["band"]) == (9, 9, "failure", "-2..0")
    assert same["expression"] == "2D6+2>9" and same["difficulty"] == 9
    for margin, band in (
        (-3, "<=-3"),
        (-2, "-2..0"),
        (0, "-2..0"),
        (1, "1..3"),
        (3, "1..3"),
        (4, "4..6"),
        (6, "4..6"),
        (7, ">=7"),
    ):
        result = check(table, "danger", "鈴音", "--difficulty", str(9 - margin), "--dice", "3,4")
        assert (result["margin"], result["band"]) == (margin, band)
        assert result["outcome"] == ("success" if margin > 0 else "failure")
    out = table.run("check", "danger", "鈴音", "--difficulty", "8", "--dice", "3,4").stdout
    assert "【感】2 + 2D6[3,4] = 9 > 8 → 成功" in out and "1..3" in out and "辛うじて" in out


def test_danger_sense_criticals_and_other_stat(table):
    crit = check(table, "danger", "鈴音", "--difficulty", "30", "--dice", "6,6")
    assert crit["outcome"] == "critical_success" and crit["band"] == "1..3"
    other = check(table, "danger", "陸", "--stat", "技", "--mod", "1", "--difficulty", "5", "--dice", "1,2")
    assert other["stat"] == "技" and other["total"] == 6 and other["outcome"] == "success"


# --------------------------------------------------------------------- hiding


def test_hide_observers_must_exceed_the_hider(table):
    # 鈴音 技3 + 4 + 4 = 11; 刀矢 感3 + 4 + 4 = 11 (tie: misses); 管狐 感4 + 1 + 4 + 3 = 12 (notices)
    before = entries(table)
    result = check(table, "hide", "鈴音", "--observer", "刀矢", "--observer", "管狐:感+1", "--dice", "4,4,4,4,4,3")
    assert (result["total"], result["outcome"], result["hidden"]) == (11, "failure", False)
    assert result["noticed_by"] == ["管狐"] and result["target"] == 12
    assert result["dice"] == [4, 4, 4, 4, 4, 3] and result["hider"]["dice"] == [4, 4]
    assert [(o["character"], o["total"], o["noticed"]) for o in result["observers"]] == [
        ("刀矢", 11, False),
        ("管狐", 12, True),
    ]
    assert entries(table) == before + 3
    assert table.json("history", "--char", "管狐")[0]["parent_seq"] == result["seq"]
    out = table.run("check", "hide", "鈴音", "--observer", "刀矢", "--dice", "4,4,4,4").stdout
    assert "隠れている" in out


def test_hide_hidden_non_rolling_observer_and_zero_dice(table):
    hidden = check(table, "hide", "鈴音", "--observer", "刀矢", "--observer", "管狐:-", "--dice", "6,5,4,4")
    assert hidden["hidden"] is True and hidden["noticed_by"] == [] and hidden["outcome"] == "success"
    assert [o["rolls"] for o in hidden["observers"]] == [True, False]
    # an observer's 6-6 notices a hider without a critical, whatever the totals
    crit = check(
        table,
        "hide",
        "鈴音",
        "--stat",
        "体",
        "--observer",
        "灯",
        "--observer-stat",
        "技",
        "--mod",
        "10",
        "--dice",
        "5,4,6,6",
    )
    assert crit["total"] == 21 and crit["noticed_by"] == ["灯"]
    before = entries(table)
    exposed = check(table, "hide", "鈴音", "--observer", "刀矢", "--observer", "管狐", "--dice-mod", "-2")
    assert exposed["noticed_by"] == ["刀矢", "管狐"] and exposed["dice"] == []
    assert entries(table) == before + 3


# --------------------------------------------------------------------- names and refusals


def test_japanese_stat_names_round_trip(table):
    assert table.json("char", "show", "鈴音")["stats"] == CHARACTERS["鈴音"]
    for stat in ("心", "技", "体", "感", "【心】", "『感』"):
        result = check(table, "ability", "鈴音", stat, "--target", "0", "--dice", "2,3")
        bare = stat.strip("【】『』")
        assert result["stat"] == bare and result["terms"][0] == {"label": bare, "value": CHARACTERS["鈴音"][bare]}
        stored = table.json("history", "show", str(result["seq"]))
        assert stored["detail"]["stat"] == bare and stored["detail"]["terms"][0]["label"] == bare
    assert table.run("history", "verify").exit_code == 0


def test_refusals_are_one_line_and_write_nothing(table):
    before = entries(table)
    cases = [
        (("ability", "誰か", "技", "--target", "5"), 1, "no character named '誰か'"),
        (("ability", "管狐", "心", "--target", "5"), 1, "管狐 has no stat '心' (stats: 技=1, 体=1, 感=4)"),
        (("coop", "心", "--with", "鈴音", "--with", "管狐", "--target", "5"), 1, "has no stat '心'"),
        (("coop", "体", "--with", "鈴音", "--target", "5"), 1, "at least 2 participants"),
        (("coop", "体", "--with", "鈴音", "--with", "鈴音", "--target", "5"), 2, "listed twice"),
        (("oppose", "--active", "鈴音技", "--passive", "刀矢:体"), 2, "expected CHAR:STAT[+MOD]"),
        (("oppose", "--active", "鈴音:技+", "--passive", "刀矢:体"), 2, "expected CHAR:STAT[+MOD]"),
        (("oppose", "--active", "鈴音:", "--passive", "刀矢:体"), 2, "expected CHAR:STAT[+MOD]"),
        (("oppose", "--active", ":技", "--passive", "刀矢:体"), 2, "no character name"),
        (("oppose", "--active", "鈴音:技"), 2, "at least one --passive"),
        (("oppose", "--active", "鈴音:技", "--passive", "刀矢:霊"), 1, "刀矢 has no stat '霊'"),
        (("oppose", "--active", "鈴音:技", "--passive", "刀矢:体", "--if-resisted", "double"), 2, "--if-resisted"),
        (("danger", "鈴音", "--difficulty", "5", "--stat", "霊"), 1, "has no stat '霊'"),
        (("hide", "鈴音"), 2, "at least one --observer"),
        (("hide", "鈴音", "--observer", "鈴音"), 2, "listed twice"),
        (("hide", "鈴音", "--observer", "陸"), 1, "陸 has no stat '感'"),
        (("ability", "鈴音", "技", "--target", "5", "--occasion", "戦闘"), 2, "--occasion"),
        (("ability", "鈴音", "技", "--target", "5", "--mod", "x"), 2, "not a whole number"),
        (("ability", "鈴音", "技", "--target", "5", "--dice", "3"), 2, "not enough faces"),
        (("ability", "鈴音", "技", "--target", "5", "--dice", "3,7"), 2, "outside 1..6"),
        (("ability", "鈴音", "技", "--target", "5", "--dice", "3,4,5"), 2, "3 faces given but only 2 used"),
        (("oppose", "--active", "鈴音:技", "--passive", "刀矢:-", "--dice", "3,4,5"), 2, "only 2 used"),
    ]
    for args, code, expected in cases:
        message = table.error("--lang", "en", "check", *args, code=code)  # the English messages
        assert expected in message, (args, message)
        assert message.count("\n") == 0 and message.startswith("error: ")
    assert entries(table) == before


def test_checks_during_a_scenario_record_its_number(table):
    from campaign.db.database import Database
    from campaign.db.models import Campaign, Scenario

    db = Database(table.db)
    with db.write() as session:
        from sqlalchemy import select

        campaign = session.scalar(select(Campaign))
        session.add(
            Scenario(campaign_id=campaign.id, number=12, title="夜桜", started_seq=1, started_at="2026-11-29T00:00:00Z")
        )
    db.close()
    result = check(table, "ability", "鈴音", "心", "--target", "5", "--dice", "1,2")
    assert result["scenario"] == 12
    assert [e["seq"] for e in table.json("history", "--scenario", "12")] == [result["seq"]]


# ------------------------------------------------ criticals in contests (docs/rules.md "Opposed checks")


def test_opposed_double_six_wins_and_double_one_loses_whatever_the_totals(table):
    # 鈴音 心3 + 6,6 = 15 against 刀矢 体4 + 10 + 3,3 = 20: the 6-6 wins
    won = check(table, "oppose", "-a", "鈴音:心", "-p", "刀矢:体+10", "--dice", "6,6,3,3")
    assert [s["total"] for s in won["sides"]] == [15, 20]
    assert won["winner"] == "鈴音" and won["winner_role"] == "active" and won["decided_by"] == "critical"
    assert won["sides"][0]["critical"] == "critical_success" and won["outcome"] == "success"
    # 鈴音 技3 + 10 + 1,1 = 15 against 刀矢 体4 + 2,2 = 8: the 1-1 loses
    lost = check(table, "oppose", "-a", "鈴音:技+10", "-p", "刀矢:体", "--dice", "1,1,2,2")
    assert [s["total"] for s in lost["sides"]] == [15, 8]
    assert lost["winner"] == "刀矢" and lost["decided_by"] == "critical" and lost["outcome"] == "failure"
    # the passive side's entry records the same winner
    sub = table.json("history", "show", str(lost["sides"][1]["seq"]))
    assert sub["detail"]["winner"] == "刀矢" and sub["outcome"] == "success"
    out = table.run("check", "oppose", "-a", "鈴音:心", "-p", "刀矢:体+10", "--dice", "6,6,3,3").stdout
    assert "勝ち (大成功)" in out and "勝者: 鈴音 (クリティカルが達成値に優先" in out


def test_opposed_criticals_follow_the_campaign_setting(table):
    table.run("settings", "criticals=false")
    off = check(table, "oppose", "-a", "鈴音:心", "-p", "刀矢:体+10", "--dice", "6,6,3,3")
    assert off["winner"] == "刀矢" and off["decided_by"] == "total"


def test_hide_criticals_decide_before_totals(table):
    # hider 鈴音 体2 + 10 + 1,1 = 14 against 刀矢 感3 + 1,2 = 6 and 管狐 感4 + 2,1 = 7: both notice
    fumbled = check(
        table,
        "hide",
        "鈴音",
        "--stat",
        "体",
        "--mod",
        "10",
        "--observer",
        "刀矢",
        "--observer",
        "管狐",
        "--dice",
        "1,1,1,2,2,1",
    )
    assert fumbled["total"] == 14 and [o["total"] for o in fumbled["observers"]] == [6, 7]
    assert not fumbled["hidden"] and fumbled["noticed_by"] == ["刀矢", "管狐"]
    assert fumbled["hider"]["critical"] == "critical_failure"
    # hider 6-6 (2 + 12 = 14) against 管狐 感4 + 10 + 6,5 = 25: still hidden
    crit = check(table, "hide", "鈴音", "--stat", "体", "--observer", "管狐:感+10", "--dice", "6,6,6,5")
    assert crit["hidden"] and crit["observers"][0]["total"] == 25 and not crit["observers"][0]["noticed"]
    # an observer's own 6-6 compares totals: 管狐 4 + 12 = 16 beats 14
    both = check(table, "hide", "鈴音", "--stat", "体", "--observer", "管狐", "--dice", "6,6,6,6")
    assert not both["hidden"] and both["noticed_by"] == ["管狐"]
    out = table.run("check", "hide", "鈴音", "--stat", "体", "--observer", "管狐:感+10", "--dice", "6,6,6,5").stdout
    assert "(大成功)" in out and "見逃し" in out and "→ 隠れている" in out


# --------------------------------------------------------------------- x2 / x1/2 (docs/rules.md "2d6 checks")


def test_double_and_halve_never_stack(table):
    before = entries(table)
    # 鈴音 技3 + 3,4 = 10; x2 once however many are named: 20 >= 20
    doubled = check(table, "ability", "鈴音", "技", "--target", "20", "--double", "--double", "--dice", "3,4")
    assert (doubled["total"], doubled["outcome"]) == (20, "success")
    assert doubled["scaling"] == {"doubles": 2, "halves": 0, "doubled": True, "halved": False, "unscaled": 10}
    assert doubled["expression"] == "(2D6+3)*2>=20"
    halved = check(table, "ability", "鈴音", "技", "--target", "5", "--halve", "--halve", "--dice", "3,4")
    assert (halved["total"], halved["outcome"]) == (5, "success")
    both = check(table, "ability", "鈴音", "技", "--target", "11", "--double", "--halve", "--halve", "--dice", "3,4")
    assert (both["total"], both["outcome"]) == (10, "failure")
    recorded = table.json("history", "show", str(doubled["seq"]))
    assert recorded["total"] == 20 and recorded["detail"]["scaling"]["unscaled"] == 10
    assert entries(table) == before + 3
    danger = check(table, "danger", "鈴音", "--difficulty", "4", "--halve", "--dice", "3,4")
    assert (danger["total"], danger["outcome"]) == (4, "failure")
    coop = check(
        table, "coop", "体", "--with", "鈴音", "--with", "刀矢", "--target", "32", "--double", "--dice", "2,5,6"
    )
    assert (coop["total"], coop["outcome"]) == (32, "success")
    out = table.run(
        "check", "ability", "鈴音", "技", "--target", "11", "--double", "--double", "--halve", "--dice", "3,4"
    ).stdout
    assert "【技】3 + 2D6[3,4] = 10 ×2 ×½ (重複しない: 1件は無効) = 10 < 11 → 失敗" in out


# --------------------------------------------------------------------- wording


def test_failed_checks_print_a_true_inequality(table):
    out = table.run("check", "ability", "鈴音", "技", "--target", "13", "--dice", "4,5").stdout
    assert "= 12 < 13 → 失敗" in out and "≥ 13" not in out
    out = table.run("check", "danger", "鈴音", "--difficulty", "9", "--dice", "3,4").stdout
    assert "= 9 ≤ 9 → 失敗" in out
    out = table.run("check", "ability", "鈴音", "技", "--target", "20", "--dice", "6,6").stdout
    assert "= 15 < 20 → 大成功" in out

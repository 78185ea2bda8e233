"""The GM page's actions over real HTTP (SQLite and PostgreSQL): each one the CLI
command's service with the GM's seat as actor; refused as the CLI refuses, with nothing
written; GM seats only; a retried tap writes once."""

from __future__ import annotations

import pytest

from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.web.test_table_server import head, table  # noqa: F401 (fixtures)


def act(browser, action: str, body: dict, key: str | None = "new"):
    return browser.post(f"/api/gm/{action}", body, key=key)


def created(answer) -> dict:
    assert answer.status_code == 201, answer.text
    return answer.json()["result"]


def refused_with_nothing_written(cli: Cli, answer, status: int, words: str) -> None:
    assert answer.status_code == status, answer.text
    assert words in answer.json()["error"] and "\n" not in answer.json()["error"]


def test_the_gm_runs_a_scenario_with_a_missing_character_and_a_searcher(table):
    cli, _, faces, browser = table
    gm = browser("GM", "--gm")
    cli.run("char", "relate", "刀矢", "鈴音")
    started = created(act(gm, "scenario-start", {"title": "第一話", "with": ["鈴音", "刀矢"]}))
    assert started["participants"] == ["鈴音", "刀矢"] and started["status"] == "open"
    marked = created(act(gm, "missing-mark", {"character": "鈴音", "reason": "霧の中に消えた"}))
    assert marked["character"] == "鈴音"
    faces[:] = [6]  # 1d6 <= 1: still missing
    ended = created(act(gm, "scenario-end", {"award": 2}))
    assert [(r["character"], r["roll"], r["success"]) for r in ended["reunions"]] == [("鈴音", 6, False)]
    created(act(gm, "scenario-start", {"title": "第二話", "with": ["管狐"], "search": [["刀矢", "鈴音"]]}))
    faces[:] = [2]  # 1d6 <= 2 with one searcher: found
    ended = created(act(gm, "scenario-end", {"award": 3, "searchers": True}))
    assert [(r["character"], r["roll"], r["searchers"]) for r in ended["reunions"]] == [("鈴音", 2, ["刀矢"])]
    assert [(a["character"], a["cp"]) for a in ended["awards"]] == [("刀矢", 3)]
    totals = {c["name"]: c["cp_total"] for c in cli.json("char", "list")}
    assert (totals["鈴音"], totals["刀矢"]) == (102, 105)  # as `scenario end` gives: both took part in 第一話
    assert cli.json("missing", "list") == []
    cli.run("history", "verify")


def test_hp_fp_conditions_trait_names_awards_voids_and_settings(table):
    cli, _, faces, browser = table
    gm = browser("GM", "--gm")
    assert created(act(gm, "damage", {"character": "鈴音", "pool": "HP", "amount": 3}))["after"] == 8
    assert created(act(gm, "heal", {"character": "鈴音", "pool": "HP", "amount": "1"}))["after"] == 9
    added = created(act(gm, "condition-add", {"character": "刀矢", "condition": "stun", "lasts": "1h"}))
    assert (added["character"], added["condition"]["name"], added["condition"]["timed"]) == ("刀矢", "stun", True)
    assert [c["name"] for c in cli.json("condition", "list")["conditions"]] == ["stun"]
    created(act(gm, "condition-clear", {"character": "刀矢", "condition": "stun"}))
    assert cli.json("condition", "list")["conditions"] == []
    cli.run("fright", "鈴音", "--mod", "-2", "--dice", "6,5,5,6,5,5")  # 16 vs 9: 16 + 7 = 23, a phobia to name
    trait = cli.json("char", "show", "鈴音")["traits"][0]["name"]
    assert trait.startswith("未命名の")
    created(act(gm, "trait-rename", {"character": "鈴音", "trait": trait, "name": "暗所恐怖症"}))
    assert [t["name"] for t in cli.json("char", "show", "鈴音")["traits"]] == ["暗所恐怖症"]
    given = created(act(gm, "award", {"cp": 2, "to": ["鈴音", "刀矢"], "reason": "第一話"}))
    # 鈴音 took a -10 CP phobia above
    assert [(a["character"], a["cp_total"]) for a in given["awards"]] == [("鈴音", 92), ("刀矢", 102)]
    last = head(cli)
    voided = created(act(gm, "void", {"seq": last, "reason": "二重付与"}))
    assert voided["targets"] == [last]
    assert cli.json("char", "show", "刀矢")["cp_total"] == 100
    created(act(gm, "settings", {"changes": {"timezone": "Asia/Tokyo"}}))
    assert cli.json("settings")["settings"]["timezone"] == "Asia/Tokyo"
    created(act(gm, "settings", {"changes": {"fair_dice": "オフ"}}))  # as the Japanese form's hint says
    assert cli.json("settings")["settings"]["fair_dice"] is False
    assert [e["actor"] for e in cli.json("history", "--limit", "4")] == ["GM", "GM", "GM", "GM"]
    cli.run("history", "verify")


def test_a_retried_tap_writes_once_and_answers_with_the_first(table):
    cli, _, _, browser = table
    gm = browser("GM", "--gm")
    before = head(cli)
    first = act(gm, "damage", {"character": "鈴音", "pool": "HP", "amount": 1}, key="gm-tap-0001")
    again = act(gm, "damage", {"character": "鈴音", "pool": "HP", "amount": 1}, key="gm-tap-0001")
    assert first.status_code == 201 and again.status_code == 200
    assert again.json()["replayed"] is True and again.json()["seq"] == first.json()["result"]["seq"]
    assert head(cli) == before + 1 and cli.json("char", "show", "鈴音")["pools"]["HP"]["current"] == 10


@pytest.mark.parametrize(
    ("action", "body", "status", "words"),
    [
        ("damage", {"character": "誰か", "pool": "HP", "amount": 1}, 404, "誰か"),
        ("damage", {"character": "鈴音", "pool": "HP", "amount": "three"}, 400, "amount: a whole number"),
        ("damage", {"character": "鈴音", "pool": "HP"}, 400, "amount: required"),
        ("damage", {"character": "", "pool": "HP", "amount": 1}, 400, "character: "),
        ("damage", {"character": "鈴" * 201, "pool": "HP", "amount": 1}, 400, "character: text of 1 to 200"),
        ("heal", {"character": "鈴音", "pool": "HP", "amount": 1}, 409, ""),  # a full pool
        ("award", {"cp": 2, "to": "鈴音"}, 400, "to: a list of names"),
        ("award", {"cp": 2, "to": ["鈴音"], "extra": 1}, 400, "extra"),
        ("scenario-start", {"title": "第一話", "with": []}, 400, "participant"),
        ("scenario-end", {}, 409, "no scenario is open"),
        ("scenario-end", {"searchers": True}, 400, "--award N"),
        ("missing-mark", {"character": "死者"}, 409, "死者"),
        ("trait-rename", {"character": "鈴音", "trait": "ない特徴", "name": "x"}, 404, "ない特徴"),
        ("void", {"seq": 9999, "reason": "x"}, 404, "9999"),
        ("settings", {"changes": {"nonsense": "1"}}, 400, "nonsense"),
        ("settings", {"changes": []}, 400, "changes:"),
        ("nonsense", {}, 404, "nonsense"),
    ],
)
def test_bad_input_is_refused_in_one_line_with_nothing_written(table, action, body, status, words):
    cli, _, _, browser = table
    cli.run("char", "add", "死者", "--npc")
    cli.run("char", "kill", "死者", "--reason", "倒れた")
    gm = browser("GM", "--gm")
    before, shown = head(cli), cli.json("char", "list", "--all")
    answer = act(gm, action, body)
    refused_with_nothing_written(cli, answer, status, words)
    assert head(cli) == before and cli.json("char", "list", "--all") == shown


def test_only_the_gm_seat_may_act_and_only_from_this_site(table):
    cli, base, _, browser = table
    aki, gm = browser("Aki"), browser("GM", "--gm")
    before = head(cli)
    for action, body in [
        ("damage", {"character": "鈴音", "pool": "HP", "amount": 1}),  # even on her own character
        ("award", {"cp": 5, "to": ["鈴音"]}),
        ("settings", {"changes": {"lang": "en"}}),
    ]:
        denied = act(aki, action, body)
        assert denied.status_code == 403 and denied.json()["code"] == "gm_only"
    assert browser().post("/api/gm/award", {"cp": 1, "to": ["鈴音"]}).status_code == 401
    cross = gm.post("/api/gm/award", {"cp": 1, "to": ["鈴音"]}, origin="https://evil.example")
    assert cross.status_code == 403 and cross.json()["code"] == "origin"
    forged = gm.post("/api/gm/award", {"cp": 1, "to": ["鈴音"]}, csrf="0" * 64)
    assert forged.status_code == 403 and forged.json()["code"] == "csrf"
    assert head(cli) == before


def test_a_key_spent_on_one_action_is_refused_on_another(table):
    cli, _, _, browser = table
    gm = browser("GM", "--gm")
    assert act(gm, "damage", {"character": "鈴音", "pool": "HP", "amount": 1}, key="gm-key-0001").status_code == 201
    before = head(cli)
    reused = act(gm, "heal", {"character": "鈴音", "pool": "HP", "amount": 1}, key="gm-key-0001")
    assert reused.status_code == 409 and "used for another request" in reused.json()["error"]
    assert head(cli) == before

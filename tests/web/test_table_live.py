"""The feed's `table` state, over real HTTP on SQLite and PostgreSQL: after ANY write
(the GM's CLI in another process: HP damage, a condition, a skill, `missing found`, a
void request), one `state` event carries what every table page shows alike, so open
pages update without a reload or a fetch; and a reconnect with `Last-Event-ID` catches
up on what it missed. A GM call for a fright check is prompted with the Will it rolls
against, and a fright check's consequences read as sentences with the CP before/after."""

from __future__ import annotations

import json
import time

from campaign import i18n
from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.web.test_table_server import table  # noqa: F401 (fixture)


def _next_state(lines, started: float) -> dict:
    for line in lines:
        if line == "event: state":
            return json.loads(next(lines).removeprefix("data: "))
        assert time.monotonic() - started < 10, "no state event"
    raise AssertionError("the feed ended")


def _sheet(state: dict, name: str) -> dict:
    return next(c for c in state["table"]["characters"] if c["name"] == name)


def test_every_write_reaches_open_pages_as_table_state(table):
    cli, _, _, browser = table
    aki = browser("Aki")
    cli.run("scenario", "start", "第一話", "--with", "鈴音", "--with", "刀矢")
    cli.run("missing", "mark", "刀矢", "--reason", "霧の中に消えた")
    with aki.http.stream("GET", "/api/feed", timeout=30) as stream:
        lines = stream.iter_lines()
        assert next(lines).startswith("retry:")
        started = time.monotonic()
        cli.run("char", "damage", "鈴音", "HP", "4", "--reason", "爪")
        state = _next_state(lines, started)
        assert _sheet(state, "鈴音")["hp"] == {"current": 7, "max": 11}
        assert [m["character"] for m in state["table"]["missing"]] == ["刀矢"]
        assert state["table"]["missing"][0]["chance"] == "16.7%"  # 1d6 <= 1, nobody searching
        cli.run("condition", "add", "鈴音", "stun", "--reason", "閃光")
        state = _next_state(lines, time.monotonic())
        assert [(c["name"], c["label"]) for c in _sheet(state, "鈴音")["conditions"]] == [("stun", "stunned")]
        cli.run("skill", "add", "鈴音", "回避", "12")
        state = _next_state(lines, time.monotonic())
        assert _sheet(state, "鈴音")["skills"] == [{"name": "回避", "level": 12, "attr": None, "difficulty": None}]
        assert "3D6<=12 回避" not in _sheet(state, "鈴音")["palette"]  # its own button instead
        cli.run("missing", "found", "刀矢", "--reason", "祠で眠っていた")
        state = _next_state(lines, time.monotonic())
        assert state["table"]["missing"] == []
        assert state["seq"] == state["table"]["head"] == state["table"]["latest"][0]["seq"]
        assert "calls" not in state["table"] and "me" not in state["table"]  # nothing of one seat
    cli.run("history", "verify")


def test_a_reconnect_catches_up_from_last_event_id(table):
    cli, _, _, browser = table
    aki = browser("Aki")
    cli.run("char", "damage", "鈴音", "HP", "1")
    seen = cli.json("history", "--limit", "1")[0]["seq"]
    cli.run("char", "damage", "鈴音", "HP", "2")  # while the page was away
    cli.run("char", "heal", "鈴音", "HP", "1")
    with aki.http.stream("GET", "/api/feed", headers={"last-event-id": str(seen)}, timeout=30) as stream:
        lines = stream.iter_lines()
        ids = []
        for line in lines:
            if line.startswith("id: "):
                ids.append(int(line[4:]))
            if line == "event: state":
                state = json.loads(next(lines).removeprefix("data: "))
                break
    assert ids == [seen + 1, seen + 2]
    assert _sheet(state, "鈴音")["hp"] == {"current": 9, "max": 11}


def test_a_fright_call_names_the_will_and_its_consequences_name_the_cp(table):
    cli, _, faces, browser = table
    aki = browser("Aki")
    call = cli.json("call", "fright", "鈴音", "--mod", "-2")
    shown = aki.http.get("/api/table").json()["calls"]
    assert [c["prompt"] for c in shown] == ["roll your fright check: 鈴音 Will 11 −2"]  # CAMPAIGN_LANG=en
    faces[:] = [6, 5, 5, 6, 5, 5]  # Will 11 - 2 = 9; 16 fails by 7; 16 + 7 = 23: a mild phobia
    rolled = aki.post(f"/api/calls/{call['call_id']}/roll", {})
    assert rolled.status_code == 201, rolled.text
    state = aki.http.get("/api/table").json()
    fright = next(e for e in state["latest"] if e["seq"] == rolled.json()["seq"])
    trait = state["characters"][0]["traits"][0]["name"]
    assert fright["consequences"] == [f"gained {trait} (−10 CP); CP 100 → 90"]
    assert fright["record"]["detail"]["check"]["modifier"] == -2  # the raw record, for the fold
    assert state["calls"] == []


def test_the_gm_page_calls_the_reunion_and_lists_void_requests(table):
    cli, _, faces, browser = table
    aki, gm = browser("Aki"), browser("GM", "--gm")
    refused = gm.post("/api/calls", {"kind": "reunion", "character": "", "params": {"award": 2}}, key=None)
    assert refused.status_code == 409 and refused.json()["code"] == "refused"  # no scenario is open
    cli.run("scenario", "start", "第一話", "--with", "鈴音", "--with", "刀矢")
    cli.run("missing", "mark", "鈴音", "--reason", "霧の中に消えた")
    denied = aki.post("/api/calls", {"kind": "reunion", "character": "", "params": {}}, key=None)
    assert denied.status_code == 403 and denied.json()["code"] == "gm_only"
    made = gm.post("/api/calls", {"kind": "reunion", "character": "", "params": {"award": 2}}, key=None)
    assert made.status_code == 201, made.text
    call = made.json()
    assert call["kind"] == "reunion" and call["player"] == "Aki" and call["params"]["characters"] == ["鈴音"]
    faces[:] = [1]
    assert aki.post(f"/api/calls/{call['call_id']}/roll", {}).status_code == 201
    assert cli.json("missing", "list") == [] and cli.json("char", "show", "鈴音")["cp_total"] == 102
    cli.run("history", "verify")


def test_a_reunion_call_from_the_gm_page_awards_the_searchers_too(table):
    """The page's reunion call carries --searchers: the searcher gets the award as the
    same end without a call gives it."""
    cli, _, faces, browser = table
    aki, gm = browser("Aki"), browser("GM", "--gm")
    cli.run("char", "relate", "刀矢", "鈴音")
    cli.run("missing", "mark", "鈴音")
    cli.run("scenario", "start", "第一話", "--with", "管狐", "--search", "刀矢=鈴音")
    params = {"award": 3, "searchers": True}
    made = gm.post("/api/calls", {"kind": "reunion", "character": "", "params": params}, key=None)
    assert made.status_code == 201, made.text
    faces[:] = [1]
    assert aki.post(f"/api/calls/{made.json()['call_id']}/roll", {}).status_code == 201
    assert [(e["character"], e["detail"]["cp"]) for e in cli.json("history", "--kind", "award")] == [("刀矢", 3)]
    assert cli.json("char", "show", "刀矢")["cp_total"] == 103
    cli.run("history", "verify")


def test_a_skill_button_rolls_3d6_against_the_sheets_level(table):
    """Issue 27 on the page: the skill's button sends its name; the server reads the level."""
    cli, _, faces, browser = table
    aki = browser("Aki")
    cli.run("skill", "add", "鈴音", "回避", "12")
    assert aki.http.get("/api/table").json()["characters"][0]["skills"][0] == {
        "name": "回避",
        "level": 12,
        "attr": None,
        "difficulty": None,
    }
    faces[:] = [4, 4, 5]
    rolled = aki.post("/api/rolls", {"command": "回避", "character": "鈴音"})
    assert rolled.status_code == 201, rolled.text
    entry = rolled.json()
    assert (entry["dice"], entry["total"], entry["target"], entry["outcome"]) == ([4, 4, 5], 13, 12, "failure")
    assert entry["actor"] == "Aki" and entry["source"] == "server"


def test_a_past_frights_cp_line_is_the_cp_at_that_entry_after_awards(table):
    """An award after the fright (cp_awarded, not cp_delta) must not shift the fright's
    line: the page says what `char timeline` says for that entry."""
    cli, _, faces, browser = table
    aki = browser("Aki")
    call = cli.json("call", "fright", "鈴音")
    faces[:] = [6, 5, 5, 6, 6, 5]  # 16 against Will 11 fails by 5; 17 + 5 = 22 on the table
    rolled = aki.post(f"/api/calls/{call['call_id']}/roll", {})
    assert rolled.status_code == 201, rolled.text
    cli.run("award", "2", "--to", "鈴音,刀矢")
    cli.run("char", "set", "刀矢", "--cp", "150")
    state = aki.http.get("/api/table").json()
    fright = next(e for e in state["latest"] if e["seq"] == rolled.json()["seq"])
    timeline = cli.json("char", "timeline", "鈴音")
    row = next(r for r in timeline if r["seq"] == fright["seq"])
    cp = next(c for c in row["changes"] if c["what"] == "cp")
    assert fright["consequences"][-1].endswith(f"; CP {cp['before']} → {cp['after']}")
    assert (cp["before"], cp["after"]) == (100, 90)
    award = next(e for e in state["latest"] if e["kind"] == "award" and e["character"] == "鈴音")
    assert award["consequences"] == []


def test_the_cp_line_walks_back_from_todays_totals_and_stops_at_a_void():
    from campaign.web.table_state import _cp_spans, consequences

    fright = {
        "seq": 5,
        "kind": "fright",
        "ops": [{"op": "cp_delta", "character": "鈴音", "delta": -10}],
        "detail": {"effects": [{"kind": "trait", "name": "暗所恐怖症", "cp": -10}]},
    }
    award = {"seq": 6, "kind": "award", "ops": [{"op": "cp_delta", "character": "鈴音", "delta": 3}]}
    spans = _cp_spans([fright, award], {"鈴音": 93})
    assert spans == {6: ("鈴音", 90, 93), 5: ("鈴音", 100, 90)}
    assert consequences(fright, spans[5][1:]) == ["gained 暗所恐怖症 (−10 CP); CP 100 → 90"]
    void = {"seq": 7, "kind": "void", "ops": []}
    assert _cp_spans([fright, award, void], {"鈴音": 90}) == {}  # a void's undoing is not in its ops
    assert consequences(fright) == ["gained 暗所恐怖症 (−10 CP)"]
    i18n.use("ja")  # the page's language: the same sentence in Japanese
    try:
        assert consequences(fright, (100, 90)) == ["暗所恐怖症 (−10 CP) を得た; CP 100 → 90"]
    finally:
        i18n.use(None)


def test_the_character_page_lists_the_skills(table):
    cli, _, _, browser = table
    cli.run("skill", "add", "鈴音", "回避", "12")
    cli.run("skill", "add", "鈴音", "刀", "13", "--attr", "DX", "--difficulty", "A")
    page = browser().http.get("/characters/鈴音").text
    assert "<h2>Skills</h2>" in page
    assert "<dt>刀 <small>(DX/A)</small></dt><dd>13</dd>" in page and "<dt>回避</dt><dd>12</dd>" in page


def test_the_gm_page_calls_a_success_roll_for_everyone_taking_part(table):
    """A GURPS campaign's call form: a success roll against the sheet, for everyone."""
    cli, _, faces, browser = table
    aki, gm = browser("Aki"), browser("GM", "--gm")
    cli.run("scenario", "start", "第一話", "--with", "鈴音", "--with", "刀矢")
    params = {"check": "success", "roll": "HT", "modifier": -1}
    made = gm.post("/api/calls", {"kind": "check", "characters": [], "params": params}, key=None)
    assert made.status_code == 201, made.text
    calls = made.json()["calls"]
    assert [(c["character"], c["prompt"]) for c in calls] == [
        ("鈴音", "roll your success roll: 鈴音 HT −1"),
        ("刀矢", "roll your success roll: 刀矢 HT −1"),
    ]
    faces[:] = [4, 3, 3]  # 10 against HT 11 - 1
    rolled = aki.post(f"/api/calls/{calls[0]['call_id']}/roll", {})
    assert rolled.status_code == 201, rolled.text
    entry = cli.json("history", "show", str(rolled.json()["seq"]))
    assert (entry["expression"], entry["total"], entry["outcome"]) == ("3D6<=10", 10, "success")
    two_d6 = {"check": "ability", "stat": "HT", "target": 10}
    refused = gm.post("/api/calls", {"kind": "check", "character": "鈴音", "params": two_d6}, key=None)
    assert refused.status_code == 409 and "has no ability check call" in refused.json()["error"]
    assert [c["character"] for c in cli.json("call", "list")["calls"]] == ["刀矢"]

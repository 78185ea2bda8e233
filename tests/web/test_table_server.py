"""The table server over real HTTP (uvicorn on 127.0.0.1), SQLite and PostgreSQL:
invite -> join -> session; players' rolls with the server's dice, attributed to the
session's player; refusals that change nothing; GM calls answered once; revocation.

Every die the server rolls here comes from faces the test fixes (tests.web.table_server
.Faces, recorded as `server` like the real ServerDice), so every result is exact.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import httpx
import pytest

from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import Browser, served


def head(cli: Cli) -> int:
    entries = cli.json("history", "--limit", "1")
    return entries[0]["seq"] if entries else 0


def invite(cli: Cli, player: str, *extra: str) -> str:
    made = cli.json("invite", player, *extra)
    assert set(made) >= {"player", "join_path", "expires"} and made["join_path"].startswith("/join/")
    assert len(made["join_path"]) - len("/join/") >= 43  # 256 bits, url-safe base64
    return made["join_path"]


@pytest.fixture
def table(gurps):
    """The gurps party served with fixed dice; yields (cli, base url, faces, browsers)."""
    faces: list[int] = []
    opened: list[Browser] = []
    with served(gurps.db, faces) as base:

        def browser(player: str | None = None, *extra: str) -> Browser:
            opened.append(Browser(base))
            if player is not None:
                assert opened[-1].join(invite(gurps, player, *extra)).status_code == 303
            return opened[-1]

        yield gurps, base, faces, browser
        for each in opened:
            each.close()


def test_invite_join_sets_a_lax_httponly_session_and_is_good_once(table):
    cli, base, _, browser = table
    path = invite(cli, "Aki")
    aki = browser()
    # opened from a chat page of another origin: a plain GET, and nothing is consumed by it
    confirm = aki.http.get(path, headers={"referer": "https://discord.example/", "sec-fetch-site": "cross-site"})
    assert confirm.status_code == 200 and "Aki" in confirm.text and 'name="confirm"' in confirm.text
    assert aki.http.get(path).status_code == 200  # a link preview fetching it twice uses nothing
    assert aki.http.get("/api/session").status_code == 401
    joined = aki.http.post(path, data={"confirm": "1"}, headers={"origin": base})
    assert joined.status_code == 303 and joined.headers["location"] == "/"
    cookie = joined.headers["set-cookie"]
    assert cookie.startswith("campaign_session=") and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert "Secure" not in cookie  # plain HTTP here; --tls-cert adds it
    me = aki.http.get("/api/session")
    assert me.status_code == 200 and me.json()["player"] == "Aki" and me.json()["gm"] is False
    assert len(me.json()["csrf"]) == 64
    # good once: a second confirmation (another browser) is refused and opens nothing
    other = browser()
    used = other.http.get(path)
    assert used.status_code == 410 and "This invite has been used already" in used.text
    again = other.http.post(path, data={"confirm": "1"}, headers={"origin": base})
    assert again.status_code == 410 and "set-cookie" not in again.headers
    # a confirmation without confirm=1, or from another origin, consumes nothing
    second = invite(cli, "Ren")
    assert other.http.post(second, data={}, headers={"origin": base}).status_code == 400
    assert other.http.post(second, data={"confirm": "1"}, headers={"origin": "https://evil.example"}).status_code == 403
    assert other.http.post(second, data={"confirm": "1"}, headers={"origin": base}).status_code == 303
    listed = cli.json("invite", "list")
    assert [row["state"] for row in listed["invites"]] == ["used", "used"]
    assert [s["player"] for s in listed["sessions"]] == ["Aki", "Ren"]


@pytest.mark.parametrize(
    "glued",
    ["。よろしく", ")", "）", "、", " ", "%E3%80%82", "!", ".", "please", "?utm=chat"],
    ids=["maru-words", "paren", "fullwidth-paren", "comma", "space", "encoded-maru", "bang", "dot", "letters", "query"],
)
def test_a_link_pasted_with_text_glued_after_the_code_still_joins(table, glued):
    cli, base, _, browser = table
    aki = browser()
    path = invite(cli, "Aki") + glued
    page = aki.http.get(path)
    assert page.status_code == 200 and 'name="confirm"' in page.text, page.text
    joined = aki.http.post(path, data={"confirm": "1"}, headers={"origin": base})
    assert joined.status_code == 303
    assert aki.http.get("/api/session").json()["player"] == "Aki"


def test_a_fullwidth_code_joins_and_the_page_tells_unknown_used_expired_revoked(table, monkeypatch):
    cli, base, _, browser = table
    aki = browser()
    path = invite(cli, "Aki")
    code = path.removeprefix("/join/")
    wide = "".join(chr(ord(ch) + 0xFEE0) if ch.isalnum() else ch for ch in code)  # ＡＢＣ１２３
    assert aki.http.get("/join/" + wide).status_code == 200
    unknown = aki.http.get("/join/" + code[:-5] + "zzzzz")
    assert unknown.status_code == 404 and "No such invite" in unknown.text
    assert aki.http.get("/join/").status_code == 404
    revoked_path = invite(cli, "Ren")
    cli.run("invite", "revoke", "Ren")
    revoked = aki.http.get(revoked_path)
    assert revoked.status_code == 410 and "This invite was revoked" in revoked.text
    late = invite(cli, "Ren", "--expires", "30min")
    import campaign.services.table.invites as invites

    real_now = invites._now
    monkeypatch.setattr(invites, "_now", lambda: real_now() + timedelta(hours=1))
    expired = aki.http.get(late)
    assert expired.status_code == 410 and "This invite has expired" in expired.text
    refused = aki.http.post(late, data={"confirm": "1"}, headers={"origin": base})
    assert refused.status_code == 410 and "This invite has expired" in refused.text
    assert "set-cookie" not in refused.headers


def test_a_player_rolls_with_the_servers_dice_as_themselves(table):
    cli, _, faces, browser = table
    aki = browser("Aki")
    before = head(cli)
    faces[:] = [1, 2, 3]
    rolled = aki.post("/api/rolls", {"command": "3D6<=12 回避", "character": "鈴音"})
    assert rolled.status_code == 201, rolled.text
    entry = rolled.json()
    assert {k: entry[k] for k in ("seq", "actor", "character", "dice", "total", "outcome", "source")} == {
        "seq": before + 1,
        "actor": "Aki",
        "character": "鈴音",
        "dice": [1, 2, 3],
        "total": 6,
        "outcome": "success",
        "source": "server",
    }
    shown = cli.json("history", "show", str(before + 1))
    assert shown["actor"] == "Aki" and shown["source"] == "server" and shown["reason"] == "回避"
    session_id = aki.http.get("/api/session").json()["session"]
    assert shown["detail"]["via"] == {"session": session_id}
    # luck statistics keep the server's dice apart from the GM's own rng and typed dice
    cli.run("roll", "3D6", "--dice", "6,6,6")
    assert [s["source"] for s in cli.json("stats")["sources"]] == ["server", "manual"]
    cli.run("history", "verify")


@pytest.mark.dialect  # one transaction with the append lock on each backend
def test_a_double_tap_gives_one_entry(table):
    cli, _, faces, browser = table
    aki = browser("Aki")
    before = head(cli)
    faces[:] = [4, 4, 4, 6, 6, 6]
    first = aki.post("/api/rolls", {"command": "3D6", "character": "鈴音"}, key="tap-12345")
    again = aki.post("/api/rolls", {"command": "3D6", "character": "鈴音"}, key="tap-12345")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["seq"] == first.json()["seq"] == before + 1 and again.json()["dice"] == [4, 4, 4]
    assert again.json()["replayed"] is True
    # the same key sent twice at the same moment (two connections): still one entry
    results: list[httpx.Response] = []
    racers = [
        threading.Thread(
            target=lambda: results.append(
                aki.post("/api/rolls", {"command": "1D6", "character": "鈴音"}, key="race-12345")
            )
        )
        for _ in range(2)
    ]
    faces[:] = [2, 5]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    assert sorted(r.status_code for r in results) == [200, 201]
    assert len({r.json()["seq"] for r in results}) == 1
    assert head(cli) == before + 2
    cli.run("history", "verify")


@pytest.mark.dialect  # the answer read back inside the write transaction, on each backend
@pytest.mark.parametrize(
    ("command", "faces", "entries"),
    [
        ("3D6<=12 回避", [1, 2, 3], 1),
        # Will 11: 6+5+5 = 16 fails by 5; the fright table's 6+5+5 + 5 = 21: its row and its sub-entry
        ("FEAR", [6, 5, 5, 6, 5, 5], 2),
    ],
)
def test_a_rolls_answer_is_the_ledgers_as_its_replay_reads_it(table, command, faces, entries):
    """A fresh roll's answer is built from the entries as its own write read them back; a
    replay (the same key again) reads them from the ledger afterwards. Both say the same."""
    cli, _, dice, browser = table
    aki = browser("Aki")
    before = head(cli)
    dice[:] = faces
    fresh = aki.post("/api/rolls", {"command": command, "character": "鈴音"}, key="answer-12345")
    replay = aki.post("/api/rolls", {"command": command, "character": "鈴音"}, key="answer-12345")
    assert (fresh.status_code, replay.status_code) == (201, 200), fresh.text
    assert {**fresh.json(), "replayed": True} == replay.json()
    assert fresh.json()["seq"] == before + 1 and fresh.json()["dice"] == faces[:3]
    assert [e["seq"] for e in fresh.json()["entries"]] == list(range(before + 1, before + 1 + entries))
    assert head(cli) == before + entries
    shown = cli.json("history", "show", str(before + 1))
    assert (fresh.json()["total"], fresh.json()["outcome"]) == (shown["total"], shown["outcome"])


def test_refusals_are_japanese_json_and_change_nothing(table, monkeypatch):
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")  # the server's pages and refusals in Japanese
    cli, base, faces, browser = table
    aki = browser("Aki")
    stranger = browser()
    before = head(cli)
    faces[:] = [1] * 30

    def refused(response: httpx.Response, status: int, code: str) -> None:
        assert response.status_code == status, response.text
        body = response.json()
        assert body["code"] == code and any("\u3040" <= ch <= "\u9fff" for ch in body["error"]), body

    roll = {"command": "3D6", "character": "鈴音"}
    refused(aki.post("/api/rolls", {"command": "3D6", "character": "刀矢"}), 403, "not_yours")
    refused(aki.post("/api/rolls", roll, csrf=None), 403, "csrf")
    refused(aki.post("/api/rolls", roll, csrf="0" * 64), 403, "csrf")
    refused(aki.post("/api/rolls", roll, origin="https://evil.example"), 403, "origin")
    refused(aki.post("/api/rolls", roll, origin=None), 403, "origin")
    refused(stranger.post("/api/rolls", roll), 401, "no_session")
    refused(aki.post("/api/rolls", {**roll, "actor": "GM"}), 400, "unknown_field")
    refused(aki.post("/api/rolls", {**roll, "kind": "fright"}), 400, "unknown_field")
    refused(aki.post("/api/rolls", {"command": "1D6" * 100, "character": "鈴音"}), 400, "bad_input")
    refused(aki.post("/api/rolls", {"command": "3D6", "character": "鈴音", "pad": "x" * 9000}), 413, "too_large")
    refused(aki.post("/api/rolls", roll, key=None), 400, "bad_input")
    refused(aki.post("/api/calls", {"kind": "fright", "character": "鈴音"}, key=None), 403, "gm_only")
    sent = aki.http.post(
        "/api/rolls",
        content=b"command=3D6",
        headers={"origin": base, "x-csrf-token": aki.csrf, "content-type": "application/x-www-form-urlencoded"},
    )
    refused(sent, 415, "content_type")
    rebound = httpx.get(base + "/api/session", headers={"host": "evil.example"})
    refused(rebound, 421, "host")
    assert head(cli) == before
    cli.run("history", "verify")


def test_revoking_a_player_ends_their_sessions_at_once(table):
    cli, _, faces, browser = table
    aki, ren = browser("Aki"), browser("Ren")
    faces[:] = [3, 3, 3]
    assert aki.post("/api/rolls", {"command": "3D6", "character": "鈴音"}).status_code == 201
    before = head(cli)
    assert cli.json("invite", "revoke", "Aki") == {"player": "Aki", "invites": 0, "sessions": 1}
    assert aki.http.get("/api/session").status_code == 401
    denied = aki.post("/api/rolls", {"command": "3D6", "character": "鈴音"})
    assert denied.status_code == 401 and denied.json()["code"] == "no_session"
    assert ren.http.get("/api/session").status_code == 200  # only Aki's seat went
    assert head(cli) == before


@pytest.mark.dialect
def test_gm_call_fright_the_player_rolls_it_and_the_trait_lands_on_the_sheet(table):
    cli, _, faces, browser = table
    aki, ren, gm = browser("Aki"), browser("Ren"), browser("GM", "--gm")
    assert gm.http.get("/api/session").json()["gm"] is True
    call = cli.json("call", "fright", "鈴音", "--mod", "-2", "--reason", "屋敷の地下")
    assert (
        call["state"] == "pending"
        and call["player"] == "Aki"
        and call["prompt"] == "roll your fright check: 鈴音 modifier −2"  # --json: English in every language
    )
    pending = aki.http.get("/api/calls").json()["calls"]
    assert [c["call_id"] for c in pending] == [call["call_id"]]
    assert ren.http.get("/api/calls").json()["calls"] == []
    path = f"/api/calls/{call['call_id']}/roll"
    denied = ren.post(path, {})
    assert denied.status_code == 403 and denied.json()["code"] == "not_your_call"
    before = head(cli)
    # Will 11 - 2 = 9; 6+5+5 = 16 fails by 7; the table's 6+5+5 + 7 = 23: a mild phobia
    faces[:] = [6, 5, 5, 6, 5, 5]
    rolled = aki.post(path, {}, key="call-tap-1")
    assert rolled.status_code == 201, rolled.text
    entry = rolled.json()
    assert entry["kind"] == "fright" and entry["actor"] == "Aki" and entry["source"] == "server"
    assert entry["dice"] == [6, 5, 5] and entry["outcome"] == "failure" and entry["seq"] == before + 1
    assert entry["call_id"] == call["call_id"]
    retried = aki.post(path, {}, key="call-tap-1")
    assert retried.status_code == 200 and retried.json()["seq"] == entry["seq"]
    other_key = aki.post(path, {})
    assert other_key.status_code == 409 and other_key.json()["code"] == "refused"
    sheet = cli.json("char", "show", "鈴音")
    phobias = [t for t in sheet["traits"] if t.get("source_seq") == entry["seq"]]
    assert len(phobias) == 1 and phobias[0]["cp"] == -10, sheet["traits"]
    assert sheet["cp_total"] == 90
    record = cli.json("history", "show", str(entry["seq"]))
    assert record["detail"]["via"]["call"] == call["call_id"] and record["detail"]["check"]["modifier"] == -2
    assert cli.json("call", "list", "--all")["calls"][0]["result_seq"] == entry["seq"]
    assert aki.http.get("/api/calls").json()["calls"] == []
    assert head(cli) == before + 2  # the check and its table roll
    cli.run("history", "verify")


def test_secret_roll_result_goes_to_the_roller_only(table):
    cli, _, faces, browser = table
    aki, ren = browser("Aki"), browser("Ren")
    faces[:] = [6, 5, 4]
    rolled = aki.post("/api/rolls", {"command": "S3D6<=12 聞き耳", "character": "鈴音"})
    assert rolled.status_code == 201
    mine = rolled.json()
    assert mine["secret"] is True and mine["dice"] == [6, 5, 4] and mine["outcome"] == "failure"
    public = cli.json("history", "show", str(mine["seq"]))
    assert public["dice"] is None and "commitment" in public["detail"]["secret"]
    page = ren.http.get(f"/entries/{mine['seq']}")
    assert page.status_code == 200 and "聞き耳" not in page.text
    assert cli.json("history", "peek", str(mine["seq"]))["dice"] == [6, 5, 4]
    cli.run("history", "verify")


def test_void_request_for_ones_own_entry_granted_by_the_gm(table):
    cli, _, faces, browser = table
    aki, ren, gm = browser("Aki"), browser("Ren"), browser("GM", "--gm")
    faces[:] = [1, 1, 1]
    seq = aki.post("/api/rolls", {"command": "3D6", "character": "鈴音"}).json()["seq"]
    denied = ren.post("/api/void-requests", {"seq": seq, "reason": "押し間違い"})
    assert denied.status_code == 403 and denied.json()["code"] == "not_yours"
    character_entry = cli.json("history", "--kind", "character")[0]["seq"]  # the GM's, not a roll
    gm_only = gm.post("/api/void-requests", {"seq": character_entry, "reason": "x"})
    assert gm_only.status_code == 409 and "only the GM takes it back" in gm_only.json()["error"]
    asked = aki.post("/api/void-requests", {"seq": seq, "reason": "押し間違い"})
    assert asked.status_code == 201 and asked.json()["requested_void"] == seq
    request_seq = asked.json()["seq"]
    assert cli.json("history", "show", str(request_seq))["kind"] == "void_request"
    assert aki.post(f"/api/void-requests/{request_seq}/approve", {}, key=None).json()["code"] == "gm_only"
    assert [r["seq"] for r in gm.http.get("/api/void-requests").json()["requests"]] == [request_seq]
    granted = gm.post(f"/api/void-requests/{request_seq}/approve", {}, key=None)
    assert granted.status_code == 201, granted.text
    assert cli.json("history", "show", str(seq))["voided_by"] == granted.json()["seq"]
    assert cli.json("history", "show", str(granted.json()["seq"]))["detail"]["via"]["session"]
    # another request, refused: a void_refusal entry names it and the entry stays
    faces[:] = [2, 2, 2]
    kept = aki.post("/api/rolls", {"command": "3D6", "character": "鈴音"}).json()["seq"]
    second = aki.post("/api/void-requests", {"seq": kept, "reason": "やり直したい"}).json()["seq"]
    assert [r["seq"] for r in cli.json("requests", "list")["requests"]] == [second]
    assert aki.post(f"/api/void-requests/{second}/refuse", {"reason": "no"}, key=None).json()["code"] == "gm_only"
    refused = gm.post(f"/api/void-requests/{second}/refuse", {"reason": "判定は有効"}, key=None)
    assert refused.status_code == 201, refused.text
    assert refused.json()["request"] == second and refused.json()["requested_void"] == kept
    assert cli.json("history", "show", str(kept))["voided_by"] is None
    assert cli.json("history", "show", str(refused.json()["seq"]))["kind"] == "void_refusal"
    assert [r["state"] for r in cli.json("requests", "list", "--all")["requests"]] == ["approved", "refused"]
    assert "already refused" in cli.error("requests", "refuse", str(second), "--reason", "again", code=1)
    assert gm.http.get("/api/void-requests").json()["requests"] == []
    cli.run("history", "verify")


def test_scenario_end_call_the_missing_characters_player_rolls_the_reunion(table):
    cli, _, faces, browser = table
    aki, ren = browser("Aki"), browser("Ren")
    cli.run("scenario", "start", "第一話", "--with", "鈴音", "--with", "刀矢")
    cli.run("missing", "mark", "鈴音", "--reason", "霧の中に消えた")
    call = cli.json("scenario", "end", "--call", "--award", "2")
    assert call["kind"] == "reunion" and call["player"] == "Aki" and call["params"]["characters"] == ["鈴音"]
    assert call["prompt"] == "roll the reunion check: 鈴音 (end of scenario #1)"  # --json: English
    assert cli.json("scenario", "list")[-1]["ended_seq"] is None  # still open until the player rolls
    assert cli.error("scenario", "end", "--call", code=1).startswith("error: call #")
    path = f"/api/calls/{call['call_id']}/roll"
    assert ren.post(path, {}).status_code == 403
    faces[:] = [1]  # 1d6 <= 1 (no searchers): 鈴音 comes back
    rolled = aki.post(path, {}, key="reunion-tap-1")
    assert rolled.status_code == 201, rolled.text
    # the tap retried (same key) after the scenario has ended: the first roll, not a refusal
    retried = aki.post(path, {}, key="reunion-tap-1")
    assert retried.status_code == 200, retried.text
    assert retried.json()["seq"] == rolled.json()["seq"] and retried.json()["replayed"] is True
    # her page shows her die, not the scenario's end: the reunion entry, rolled by her for the GM
    shown = rolled.json()
    assert (shown["kind"], shown["character"], shown["dice"], shown["outcome"], shown["actor"]) == (
        "reunion",
        "鈴音",
        [1],
        "success",
        "GM",
    )
    assert shown["rolled_by"] == "Aki" and shown["seq"] in [e["seq"] for e in shown["entries"]]
    end = cli.json("history", "show", str(cli.json("call", "list", "--all")["calls"][-1]["result_seq"]))
    assert end["seq"] == shown["entries"][0]["seq"]
    # the end is the GM's act (actor GM, who called); the reunion is rolled for Aki, through her session
    session_id = aki.http.get("/api/session").json()["session"]
    assert end["kind"] == "scenario" and end["actor"] == "GM"
    assert end["detail"]["via"] == {"call": call["call_id"], "session": session_id}
    reunion = cli.json("history", "--kind", "reunion")[0]
    assert reunion["dice"] == [1] and reunion["outcome"] == "success" and reunion["source"] == "server"
    assert reunion["detail"]["on_behalf_of"] == "Aki" and reunion["detail"]["via"]["session"] == session_id
    assert cli.json("missing", "list") == []
    assert cli.json("char", "show", "鈴音")["cp_total"] == 102
    cli.run("history", "verify")


def test_a_skill_buttons_roll_names_its_skill_as_the_cli_roll_line_does(table):
    """A skill button sends the skill's name (services.checks.skill_rolls, as `roll 回避
    --char 鈴音`): the answer names the skill and level it was read from, and the latest
    list and the history page show them after the expression, as the CLI's roll line."""
    cli, _, faces, browser = table
    cli.run("skill", "add", "鈴音", "回避", "12")
    aki = browser("Aki")
    faces[:] = [1, 2, 3]
    answer = aki.post("/api/rolls", {"command": "回避-2", "character": "鈴音"}).json()
    assert (answer["expression"], answer["sheet"], answer["reason"]) == ("3D6<=10", "回避 12 −2", None)
    latest = next(e for e in aki.http.get("/api/table").json()["latest"] if e["seq"] == answer["seq"])
    assert latest["text"] == "3D6<=10 (回避 12 −2) [1,2,3]=6 success"
    assert "3D6&lt;=10 (回避 12 −2) [1,2,3]=6" in aki.http.get("/history").text
    # a plain expression names no sheet; a reason written after it comes back, shown
    faces[:] = [4, 4, 4]
    plain = aki.post("/api/rolls", {"command": "3D6<=12 目を凝らす", "character": "鈴音"}).json()
    assert (plain["sheet"], plain["reason"]) == (None, "目を凝らす")


def test_the_table_page_and_its_state_for_a_player_and_a_spectator(table):
    cli, base, faces, browser = table
    aki, spectator = browser("Aki"), browser()
    home = aki.http.get("/")
    assert home.status_code == 200 and 'id="table"' in home.text and 'data-player="Aki"' in home.text
    assert '<script src="/static/table.js" defer></script>' in home.text
    assert 'id="table"' not in spectator.http.get("/").text  # a spectator's home stays the overview
    assert aki.http.get("/static/table.js").status_code == 200
    call = cli.json("call", "fright", "鈴音", "--mod", "-2")
    faces[:] = [6, 5, 5, 6, 5, 5]
    aki.post(f"/api/calls/{call['call_id']}/roll", {})
    state = aki.http.get("/api/table").json()
    assert state["me"] == {"player": "Aki", "gm": False}
    mine = state["characters"][0]
    assert mine["name"] == "鈴音" and mine["mine"] is True and mine["hp"] == {"current": 11, "max": 11}
    assert "3D6<=11 恐怖判定" in mine["palette"]
    assert [t["cp"] for t in mine["traits"]] == [-10] and mine["traits"][0]["category"] == "phobia"
    others = [c for c in state["characters"] if c["name"] == "刀矢"]
    assert others[0]["mine"] is False and others[0]["palette"] == []
    fright = next(e for e in state["latest"] if e["kind"] == "fright" and e["consequences"])
    assert fright["consequences"] == [f"gained {mine['traits'][0]['name']} (−10 CP); CP 100 → 90"]
    watched = spectator.http.get("/api/table").json()
    assert watched["me"] is None and watched["calls"] == [] and all(c["palette"] == [] for c in watched["characters"])


def test_the_feed_tells_pages_when_calls_change(table):
    cli, base, _, browser = table
    aki = browser("Aki")
    import time

    with aki.http.stream("GET", "/api/feed", timeout=30) as stream:
        lines = stream.iter_lines()
        assert next(lines).startswith("retry:")
        started = time.monotonic()
        cli.json("call", "fright", "鈴音")
        for line in lines:
            if line == "event: calls":
                assert next(lines) == 'data: {"pending": 1}'
                break
            assert time.monotonic() - started < 10, "no calls event"
    assert time.monotonic() - started < 2


def test_the_feed_carries_the_state_after_each_entry(table):
    """The overview's missing board and characters update without a reload: after the
    entries, a `state` event holds both parts rendered by the page's own partials."""
    import json
    import time

    cli, base, _, browser = table
    spectator = browser()
    cli.run("scenario", "start", "第一話", "--with", "鈴音", "--with", "刀矢")
    overview = spectator.http.get("/").text
    assert 'data-live="missing"' in overview and "Nobody is missing." in overview
    with spectator.http.stream("GET", "/api/feed", timeout=30) as stream:
        lines = stream.iter_lines()
        assert next(lines).startswith("retry:")
        started = time.monotonic()
        cli.run("missing", "mark", "鈴音", "--reason", "<b>霧</b>")
        for line in lines:
            if line == "event: state":
                state = json.loads(next(lines).removeprefix("data: "))
                break
            assert time.monotonic() - started < 10, "no state event"
    assert "鈴音" in state["missing"] and "reunion" in state["missing"] and "(1)" in state["missing"]
    assert "&lt;b&gt;霧&lt;/b&gt;" in state["missing"] and "<b>" not in state["missing"]
    assert "status-active" in state["characters"] and "刀矢" in state["characters"]

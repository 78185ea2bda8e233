"""`campaign invite` and `campaign call` from the command line, and the server's limits
that need no second process: codes stored only as hashes, expiry, rate limit, Host."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import Browser, served


def test_invite_refusals_change_nothing(gurps):
    assert "no player named 'Bob'" in gurps.error("invite", "Bob", code=1)
    assert "--expires" in gurps.error("invite", "Aki", "--expires", "100day", code=2)
    assert "--expires" in gurps.error("invite", "Aki", "--expires", "soon", code=2)
    assert "no open invite or session" in gurps.error("invite", "revoke", "Aki", code=1)
    assert gurps.json("invite", "list") == {"invites": [], "sessions": []}


def test_a_player_named_like_a_verb_is_invited_with_new(gurps):
    gurps.run("player", "add", "list")
    made = gurps.json("invite", "new", "list")
    assert made["player"] == "list" and made["gm"] is False
    assert gurps.json("invite", "list")["invites"][0]["player"] == "list"


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_invite_codes_and_session_tokens_are_stored_only_as_hashes(gurps):
    path = gurps.json("invite", "Aki")["join_path"]
    code = path.removeprefix("/join/")
    with served(gurps.db) as base:
        aki = Browser(base)
        assert aki.join(path).status_code == 303
        token = aki.http.cookies["campaign_session"]
        aki.close()
    with sqlite3.connect(gurps.db) as raw:
        dump = "\n".join(raw.iterdump())
        stored = raw.execute("SELECT code_hash FROM web_invites").fetchone()[0]
        session_hash = raw.execute("SELECT token_hash FROM web_sessions").fetchone()[0]
    assert code not in dump and token not in dump
    assert stored == hashlib.sha256(code.encode()).hexdigest()
    assert session_hash == hashlib.sha256(token.encode()).hexdigest()


def test_an_expired_invite_opens_nothing(gurps, monkeypatch):
    from datetime import timedelta

    from campaign.services.table import invites

    path = gurps.json("invite", "Aki", "--expires", "30m")["join_path"]
    real_now = invites._now
    monkeypatch.setattr(invites, "_now", lambda: real_now() + timedelta(minutes=31))
    with served(gurps.db) as base:
        aki = Browser(base)
        assert aki.http.get(path).status_code == 410  # known, but expired: not "unknown"
        late = aki.http.post(path, data={"confirm": "1"}, headers={"origin": base})
        assert late.status_code == 410 and "set-cookie" not in late.headers
        aki.close()
    assert gurps.json("invite", "list")["invites"][0]["state"] == "expired"


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_rate_limit_is_a_bounded_burst_per_session(gurps):
    with served(gurps.db, [1] * 30, rate=(3, 0.001)) as base:
        aki, ren = Browser(base), Browser(base)
        aki.join(gurps.json("invite", "Aki")["join_path"])
        ren.join(gurps.json("invite", "Ren")["join_path"])
        codes = [aki.post("/api/rolls", {"command": "1D6", "character": "鈴音"}).status_code for _ in range(5)]
        assert codes == [201, 201, 201, 429, 429]
        limited = aki.post("/api/rolls", {"command": "1D6", "character": "鈴音"})
        assert limited.json()["code"] == "rate_limited" and "wait a moment" in limited.json()["error"]
        assert ren.post("/api/rolls", {"command": "1D6", "character": "刀矢"}).status_code == 201  # per session
        aki.close()
        ren.close()
    assert len(gurps.json("history", "--kind", "roll")) == 4


def test_call_cancel_and_gm_roll_for_an_absent_player(gurps):
    assert "has no skill or stat '鍵開け'" in gurps.error("call", "success", "鍵開け", "鈴音", code=1)
    gurps.run("skill", "add", "鈴音", "鍵開け", "12")
    called = gurps.json("call", "success", "鍵開け", "鈴音", "--mod", "-1", "--reason", "鍵開け")["calls"]
    made = called[0]
    assert made["params"] == {"check": "success", "roll": "鍵開け", "modifier": -1}
    assert made["prompt"] == "roll your success roll: 鈴音 鍵開け −1"  # --json: English in every language
    assert "no character named" in gurps.error("call", "fright", "誰か", code=1)
    assert "CHECK must be one of `ability`" in gurps.error("call", "check", "luck", "鈴音", "--target", "3", code=2)
    fright = gurps.json("call", "fright", "刀矢")
    assert f"call #{fright['call_id']} (fright) for 刀矢 is still pending" in gurps.error(
        "call", "fright", "刀矢", code=1
    )
    assert gurps.json("call", "cancel", str(fright["call_id"]))["state"] == "cancelled"
    assert "already cancelled" in gurps.error("call", "roll", str(fright["call_id"]), code=1)
    rolled = gurps.json("call", "roll", str(made["call_id"]), "--dice", "4,5,2")
    assert rolled["entry"]["kind"] == "roll" and rolled["entry"]["dice"] == [4, 5, 2]
    assert rolled["entry"]["expression"] == "3D6<=11" and rolled["entry"]["outcome"] == "success"
    assert rolled["entry"]["detail"]["from_sheet"] == {"skill": "鍵開け", "level": 12, "modifier": -1}
    assert rolled["entry"]["actor"] == "GM" and rolled["entry"]["detail"]["via"] == {"call": made["call_id"]}
    assert "already rolled" in gurps.error("call", "roll", str(made["call_id"]), code=1)
    assert gurps.json("call", "list") == {"calls": []}
    assert [c["state"] for c in gurps.json("call", "list", "--all")["calls"]] == ["rolled", "cancelled"]
    gurps.run("history", "verify")


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_host_names_other_than_addresses_localhost_and_allowed_ones_are_refused(gurps):
    import httpx

    with served(gurps.db, hosts=("table.local",)) as base:
        port = base.rsplit(":", 1)[1]
        for host, status in (
            (f"127.0.0.1:{port}", 200),
            (f"localhost:{port}", 200),
            (f"[::1]:{port}", 200),
            (f"TABLE.local.:{port}", 200),
            (f"evil.example:{port}", 421),
            (f"127.0.0.1.evil.example:{port}", 421),
            ("", 421),
        ):
            answer = httpx.get(base + "/", headers={"host": host}, timeout=30)
            assert answer.status_code == status, host


def test_seats_and_calls_are_not_exported_and_an_import_verifies(gurps, tmp_path):
    path = gurps.json("invite", "Aki")["join_path"]
    with served(gurps.db, [1, 2, 3]) as base:
        aki = Browser(base)
        aki.join(path)
        token = aki.http.cookies["campaign_session"]
        assert aki.post("/api/rolls", {"command": "3D6", "character": "鈴音"}).status_code == 201
        aki.close()
    gurps.json("call", "fright", "鈴音", "--reason", "呼び出し理由XYZ")
    exported = tmp_path / "campaign.jsonl"
    gurps.run("export", str(exported))
    text = exported.read_text(encoding="utf-8")
    code_hash = hashlib.sha256(path.removeprefix("/join/").encode()).hexdigest()
    token_hash = hashlib.sha256(token.encode()).hexdigest()
    for secret in (path, code_hash, token, token_hash, "呼び出し理由XYZ", "web_sessions", "table_calls"):
        assert secret not in text
    copy = Cli(str(tmp_path / "copy.db"))
    copy.run("import", str(exported))
    copy.run("history", "verify")
    assert copy.json("invite", "list") == {"invites": [], "sessions": []}
    assert copy.json("call", "list") == {"calls": []}
    assert copy.json("history", "--kind", "roll")[0]["source"] == "server"


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_pages_are_gzipped_the_feed_is_not_and_there_is_a_favicon(gurps):
    import httpx

    with served(gurps.db) as base:
        page = httpx.get(base + "/history", headers={"accept-encoding": "gzip"}, timeout=30)
        assert page.headers["content-encoding"] == "gzip" and "テスト卓" in page.text
        assert 'rel="icon" href="/static/favicon.svg"' in page.text
        icon = httpx.get(base + "/static/favicon.svg", timeout=30)
        assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
        with httpx.stream("GET", base + "/api/feed", headers={"accept-encoding": "gzip"}, timeout=30) as feed:
            assert "content-encoding" not in feed.headers
            assert next(feed.iter_lines()).startswith("retry:")


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_an_invite_seats_only_at_its_own_campaigns_server(gurps):
    import warnings

    from campaign.web.app import create_app

    path = gurps.json("invite", "Aki")["join_path"]
    gurps.run("init", "別の卓")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Starlette 1.x prefers httpx2 for its test client; httpx works
        from starlette.testclient import TestClient

        other = TestClient(create_app(gurps.db, "別の卓", hosts=("testserver",)), follow_redirects=False)
        assert other.get(path).status_code == 404  # unknown here: GET and POST alike
        assert (
            other.post(path, data={"confirm": "1"}, headers={"origin": "http://testserver"}).status_code == 404
        )  # unknown here, as its GET says
        mine = TestClient(create_app(gurps.db, "テスト卓", hosts=("testserver",)), follow_redirects=False)
        assert mine.post(path, data={"confirm": "1"}, headers={"origin": "http://testserver"}).status_code == 303
        other.cookies.update(mine.cookies)  # the same browser, the other campaign's server
        assert other.get("/api/session").status_code == 401

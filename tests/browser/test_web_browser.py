"""`campaign serve` in a real browser (Debian's headless Chromium through Playwright).

Every test starts `campaign serve --port 0` as a subprocess on its own copy of a SQLite
file built by CLI commands with exact dice (tests/browser/support.py), as a table would:
the overview, the live feed from another process's roll, in-browser chain verification
with both hash engines (WebCrypto in a secure context, the vendored sha256.js where the
page is not one), a raw database edit found by the browser, escaping, and the token.
"""

from __future__ import annotations

import json
import time
from urllib.parse import quote

import httpx
import pytest

from campaign.ledger import canonical_json
from tests.browser import support
from tests.browser.support import XSS_NAME, Server, cli
from tests.integration.rawdb import drop_ledger_guards, execute, raw_connection

# Chromium, a `campaign serve` process and CLI processes per test (3-7 s each, ~40 s
# for the file on two cores): in `make test`, not in `make test-fast`.
pytestmark = pytest.mark.slow

TOKEN = "table-token-2026"
RESULT = "#verify-result"


def verify(page, head: str) -> dict:
    """Paste a head, press the button, wait for the verdict; the result's attributes and text."""
    page.fill("#verify-head", head)
    page.click("#verify-run")
    page.wait_for_selector(
        ", ".join(f'{RESULT}[data-status="{status}"]' for status in ("ok", "fail", "warn")), timeout=20_000
    )
    return page.eval_on_selector(
        RESULT,
        """el => ({status: el.dataset.status, seq: el.dataset.seq ?? null,
        engine: el.dataset.engine ?? null, count: el.dataset.count ?? null, code: el.dataset.code ?? null,
        since: el.dataset.since ?? null, warning: el.dataset.warning ?? null, text: el.textContent})""",
    )


def tamper_record(db, seq: int) -> None:
    """A raw edit of one entry's record text (the append-only triggers dropped first), its
    stored hash left as it was: what someone with the database file could do."""
    with raw_connection(str(db)) as conn:
        record = json.loads(conn.execute("SELECT record FROM ledger WHERE seq = ?", (seq,)).fetchone()[0])
    record["total"] = record["total"] + 1
    drop_ledger_guards(str(db))
    execute(str(db), "UPDATE ledger SET record = ? WHERE seq = ?", (canonical_json(record), seq))


def test_overview_shows_characters_and_missing_board(table, page):
    db, _ = table
    with Server(db) as server:
        response = page.goto(server.url)
        assert response.status == 200
        main = page.inner_text("main")
        for name in ("鈴音", "刀矢", XSS_NAME):
            assert name in main
        cards = page.locator("li.missing-card")
        assert cards.count() == 1
        card = cards.first.inner_text()
        # 鈴音 is missing, 刀矢 searches for her: reunion on 1d6 <= 1 + 1 searcher = 33%.
        assert "鈴音" in card and "刀矢" in card and "33%" in card
        assert "百鬼夜翔 夜桜編" in page.title()


def test_roll_from_another_process_appears_live(table, page):
    db, info = table
    with Server(db) as server:
        page.goto(server.base + "/history")
        page.wait_for_selector(f'#history-table tr[data-seq="{info["last_seq"]}"]')
        page.evaluate("window.__notReloaded = true")
        rows_before = page.locator("#history-table tr[data-seq]").count()
        page.wait_for_timeout(500)  # let live.js open its event stream
        rolled = cli(db, "--as", "Aki", "roll", "3D6", "--char", "鈴音", "--dice", "1,2,4", json_out=True)
        committed = time.monotonic()  # the roll's process has exited: its commit is done
        row = page.wait_for_selector(f'#history-table tr[data-seq="{rolled["seq"]}"]', timeout=2000)
        seen = time.monotonic() - committed
        assert seen < 2.0
        assert page.evaluate("window.__notReloaded") is True  # the same page, not a reload
        assert page.locator("#history-table tr[data-seq]").count() == rows_before + 1
        text = row.inner_text()
        assert "鈴音" in text and "7" in text
        # The newest row is on top.
        assert page.locator("#history-table tr[data-seq]").first.get_attribute("data-seq") == str(rolled["seq"])


def _open_for(engine: str, server: Server, lan_host: str, path: str) -> str:
    if engine == "WebCrypto":
        return server.base + path
    return f"http://{lan_host}:{server.port}{path}?token={server.token}"


@pytest.mark.parametrize("engine", ["WebCrypto", "sha256.js"])
def test_verification_in_the_browser(engine, table, page, request):
    """WebCrypto on 127.0.0.1 (a secure context); sha256.js when the page is opened on
    this machine's LAN address over plain http, where the browser gives no crypto.subtle."""
    db, info = table
    lan_host = request.getfixturevalue("lan_host") if engine == "sha256.js" else None
    args = () if engine == "WebCrypto" else ("--host", "0.0.0.0", "--token", TOKEN)
    with Server(db, *args) as server:
        assert page.goto(_open_for(engine, server, lan_host, "/history")).status == 200
        secure = page.evaluate("[window.isSecureContext, typeof crypto.subtle]")
        assert secure == ([True, "object"] if engine == "WebCrypto" else [False, "undefined"])

        got = verify(page, info["head"])
        assert (got["status"], got["engine"], got["seq"], got["code"]) == ("ok", engine, str(info["seal_seq"]), "ok"), (
            got
        )
        assert got["count"] == str(info["last_seq"])  # the whole chain, from the genesis
        assert got["since"] == str(info["last_seq"] - info["seal_seq"])
        assert f"your seal #{info['seal_seq']} (第1話 終了, 20" in got["text"]
        assert f"is in this chain; {info['last_seq'] - info['seal_seq']} entries since" in got["text"]
        assert got["text"].startswith("verified: ") and engine in got["text"]

        # From an entry's page, with a head prefix of 16 digits (like `history verify --head`).
        page.goto(_open_for(engine, server, lan_host, f"/entries/{info['roll_seq']}"))
        got = verify(page, info["head"][:16].upper())
        assert (got["status"], got["seq"]) == ("ok", str(info["seal_seq"])), got
        assert "comes after your seal" not in got["text"]
        page.goto(_open_for(engine, server, lan_host, f"/entries/{info['last_seq']}"))
        got = verify(page, info["head"])
        assert got["status"] == "ok" and f"entry #{info['last_seq']} on this page comes after your seal" in got["text"]

        # Not in this chain: refused, no seq blamed; 8 digits are too few.
        got = verify(page, "ab" * 32)
        assert (got["status"], got["seq"], got["code"]) == ("fail", None, "not_contained"), got
        assert "this chain does not contain your seal: the history was rewritten after it" in got["text"]
        got = verify(page, info["head"][:8])
        assert (got["status"], got["code"]) == ("fail", "malformed") and "the first 16 or more" in got["text"]

        # A raw edit of one record in the SQLite file: the browser names that entry.
        tamper_record(db, info["roll_seq"])
        page.goto(_open_for(engine, server, lan_host, "/history"))
        got = verify(page, info["head"])
        assert (got["status"], got["seq"], got["engine"]) == ("fail", str(info["roll_seq"]), engine), got
        k = info["roll_seq"]
        assert got["text"] == f"verification failed: entry #{k} does not match"


def test_verification_reports_a_broken_link(table, page):
    """An entry whose prev_hash was rewritten: the browser names the broken link."""
    db, info = table
    k = info["roll_seq"] + 1
    drop_ledger_guards(str(db))
    execute(str(db), "UPDATE ledger SET prev_hash = ? WHERE seq = ?", ("0" * 64, k))
    with Server(db) as server:
        page.goto(server.base + "/history")
        got = verify(page, info["head"])
        assert (got["status"], got["seq"]) == ("fail", str(k)), got
        assert f"entry #{k} does not link to entry #{k - 1}" in got["text"]


def test_script_in_a_name_renders_as_text(table, page):
    db, _ = table
    with Server(db) as server:
        for path in ("/", "/characters", "/characters/" + quote(XSS_NAME, safe=""), "/history", "/scenarios"):
            response = page.goto(server.base + path)
            assert response.status == 200, path
            assert XSS_NAME in page.inner_text("body"), path
            # the page's words for its scripts are data (type application/json), never run
            inline = page.eval_on_selector_all(
                "script", "els => els.filter(e => !e.src && e.type !== 'application/json').length"
            )
            assert inline == 0, path
        page.wait_for_timeout(300)
        assert page.dialogs == []


def test_with_host_a_request_without_the_token_gets_401(table, page):
    db, _ = table
    with Server(db, "--host", "0.0.0.0", "--token", TOKEN) as server:
        assert server.token == TOKEN
        for path in ("/", "/history", "/api/chain?from=1&to=5", "/api/seals", "/api/feed"):  # seals: an API only
            assert httpx.get(server.base + path, timeout=10).status_code == 401, path
        assert httpx.get(server.base + "/?token=wrong-token-1", timeout=10).status_code == 401
        # In the browser: refused, then the link with the token, then the cookie alone.
        assert page.goto(server.base + "/history").status == 401
        assert page.goto(f"{server.base}/?token={TOKEN}").status == 200
        cookies = page.context.cookies()
        assert cookies and all(cookie["httpOnly"] for cookie in cookies)
        assert page.goto(server.base + "/history").status == 200


def test_screenshots_of_overview_and_luck(table, browser, tmp_path):
    """What `make demo-web` does, into tmp: PNGs of the width asked for, Japanese on them."""
    import struct

    from tests.browser.screenshots import take

    db, _ = table
    with Server(db) as server:
        written = take(browser, server.base, tmp_path, widths=(390,))
    assert [p.name for p in written] == ["overview-390.png", "luck-390.png"]
    for path in written:
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", data[16:24])
        assert width == 390 and height > 600


def test_verification_pages_through_a_long_chain(page, tmp_path):
    """2,500 entries (three /api/chain pages of up to 1,000) loaded by `campaign import -`,
    sealed by the CLI: verified from an entry page at #1, then a record edited on the
    second page is found there."""
    import subprocess

    from tests.perf import generate

    db = tmp_path / "long.db"
    lines = "".join(generate.export_lines("長い卓", 2500)).encode()
    done = subprocess.run(
        [*support.campaign_command(), "--db", str(db), "import", "-"], input=lines, capture_output=True, timeout=300
    )
    assert done.returncode == 0, done.stderr.decode()
    sealed = cli(db, "history", "seal", "--reason", "長い夜", json_out=True)
    assert sealed["seq"] == 2501
    with Server(db) as server:
        page.goto(server.base + "/entries/1")
        got = verify(page, sealed["head"])
        assert (got["status"], got["seq"], got["count"], got["since"]) == ("ok", "2501", "2501", "0"), got
        k = next(seq for seq in range(1500, 2000) if _has_total(db, seq))
        tamper_record(db, k)
        page.goto(server.base + "/entries/1")
        got = verify(page, sealed["head"])
        assert (got["status"], got["seq"]) == ("fail", str(k)), got


def _has_total(db, seq: int) -> bool:
    with raw_connection(str(db)) as conn:
        record = json.loads(conn.execute("SELECT record FROM ledger WHERE seq = ?", (seq,)).fetchone()[0])
    return isinstance(record.get("total"), int)


def _forge_history(db, seq: int) -> str:
    """Edit entry `seq` and re-hash every later entry (a history rewritten by whoever
    holds the file); the forged chain's seal hash, which a forged server would offer."""
    from tests.cli.test_verify_head import _rehash_from

    _rehash_from(str(db), seq, lambda record: record.update(total=record["total"] + 1))
    with raw_connection(str(db)) as conn:
        return conn.execute("SELECT hash FROM ledger WHERE kind = 'seal' ORDER BY seq DESC LIMIT 1").fetchone()[0]


def test_the_server_offers_no_heads_and_the_browser_remembers_yours(table, page):
    """The page never asks which seals exist; the seal verified once is kept in the
    browser, and a rewritten chain that lacks it is called out even when the head typed
    now (the forged chain's own seal) is in it."""
    db, info = table
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    with Server(db) as server:
        page.goto(server.base + "/history")
        assert page.locator('a[href*="seals"]').count() == 0
        got = verify(page, info["head"])
        assert got["status"] == "ok" and got["warning"] is None, got
        kept = page.evaluate("localStorage.getItem('campaign-verified-seal:百鬼夜翔 夜桜編')")
        assert json.loads(kept) == {"seq": info["seal_seq"], "hash": info["head"]}

        forged = _forge_history(db, info["roll_seq"])
        assert forged != info["head"]
        page.goto(server.base + "/history")
        got = verify(page, info["head"])  # the player's real head: not in the rewritten chain
        assert (got["status"], got["code"], got["warning"]) == ("fail", "not_contained", "kept-seal-missing"), got
        got = verify(page, forged)  # the forged chain's own seal "verifies", but the kept one is gone
        assert (got["status"], got["code"], got["warning"]) == ("warn", "ok", "kept-seal-missing"), got
        assert (
            f"the seal you verified last time in this browser (#{info['seal_seq']}, {info['head'][:16]}…) "
            "is not in this chain" in got["text"]
        )
        assert page.evaluate("localStorage.getItem('campaign-verified-seal:百鬼夜翔 夜桜編')") == kept
    assert asked and not [url for url in asked if "/api/seals" in url], asked


def test_verification_of_a_campaign_imported_under_another_name(table, page, tmp_path):
    """`import --as-name`: the records carry the chain's name, which /api/chain sends."""
    db, info = table
    exported = tmp_path / "table.jsonl"
    cli(db, "export", str(exported))
    renamed = tmp_path / "renamed.db"
    cli(renamed, "import", str(exported), "--as-name", "写しの卓")
    with Server(renamed) as server:
        page.goto(server.base + "/history")
        assert "写しの卓" in page.title()
        got = verify(page, info["head"])
        assert (got["status"], got["seq"], got["count"]) == ("ok", str(info["seal_seq"]), str(info["last_seq"])), got

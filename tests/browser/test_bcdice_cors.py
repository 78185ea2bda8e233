"""A page of another origin calls the BCDice-API roll route with fetch (CORS), as a
browser-based VTT add-on does: Debian's Chromium, the server on 127.0.0.1, the page
served from another port (another origin) of the same machine."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import served

pytestmark = pytest.mark.slow

PAGE = b"<!doctype html><html><head><meta charset='utf-8'><title>vtt</title></head><body>vtt</body></html>"


class _Page(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (the http.server protocol)
        self.send_response(200)
        self.send_header("content-type", "text/html; charset=utf-8")
        self.send_header("content-length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        return None


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_page_of_another_origin_rolls_through_fetch(browser, gurps):
    base_path = gurps.json("invite", "vtt", "--bcdice", "--player", "Aki")["base_path"]
    other = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    context = browser.new_context()
    try:
        with served(gurps.db, [2, 3, 5]) as base:
            page = context.new_page()
            page.goto(f"http://127.0.0.1:{other.server_address[1]}/")
            answer = page.evaluate(
                """async (url) => {
                    const response = await fetch(url + 'v2/game_system/GURPS/roll?command=' +
                                                 encodeURIComponent('3D6<=12 回避'));
                    return {status: response.status, body: await response.json()};
                }""",
                base + base_path,
            )
            blocked = page.evaluate(
                """async (url) => {
                    try { await fetch(url); return 'read'; } catch (e) { return 'blocked'; }
                }""",
                base + "/api/session",
            )
    finally:
        context.close()
        other.shutdown()
    assert answer["status"] == 200  # the body was readable: Chromium found the CORS header
    assert answer["body"]["text"] == "(3D6<=12) ＞ 10[2,3,5] ＞ 10 ＞ 成功(成功度：2)"
    assert blocked == "blocked"  # the rest of the server gives another origin nothing to read
    entry = gurps.json("history", "show", str(answer["body"]["campaign_seq"]))
    assert (entry["actor"], entry["source"], entry["reason"], entry["dice"]) == ("Aki", "bcdice-api", "回避", [2, 3, 5])

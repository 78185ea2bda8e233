"""A burst of rolls on three open table pages (Debian's Chromium, real uvicorn on
127.0.0.1, fixed server dice): 40 rolls posted by four sessions at once, faster than the
feed's state events; every page's latest-entries list then holds every one of them,
newest first, no seq missing or repeated (the list is kept by seq from the entry events,
and a gap is fetched)."""

from __future__ import annotations

import threading

import pytest

from tests.browser.test_table_browser import head, join
from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import Browser, served

pytestmark = pytest.mark.slow
ROLLS = 40


def _burst(base: str, joins: list[str], rolls: int) -> list[int]:
    """`rolls` rolls split over one session per join link, posted from threads at once."""
    sessions = [Browser(base) for _ in joins]
    for session, path in zip(sessions, joins):
        assert session.join(path).status_code == 303
    answered: list[int] = []

    def post(session: Browser, count: int) -> None:
        for _ in range(count):
            answer = session.post("/api/rolls", {"command": "1D6", "character": None})
            assert answer.status_code == 201, answer.text
            answered.append(answer.json()["seq"])

    threads = [threading.Thread(target=post, args=(s, rolls // len(sessions))) for s in sessions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    for session in sessions:
        session.close()
    return sorted(answered)


def test_every_roll_of_a_burst_reaches_every_open_page_in_order(browser, gurps):
    cli = gurps
    faces = [1 + n % 6 for n in range(ROLLS)]
    with served(cli.db, faces, rate=(ROLLS, 100.0)) as base:
        pages = [
            join(browser, base, cli.json("invite", "GM", "--gm")["join_path"], width=1280)[1],
            join(browser, base, cli.json("invite", "Aki")["join_path"])[1],
            join(browser, base, cli.json("invite", "Ren")["join_path"])[1],
        ]
        before = head(cli)
        joins = [cli.json("invite", "Aki")["join_path"] for _ in range(2)]
        joins += [cli.json("invite", "Ren")["join_path"] for _ in range(2)]
        invites = head(cli) - before  # the invites are entries too: they reach the pages as well
        rolled = _burst(base, joins, ROLLS)
        assert rolled == list(range(before + invites + 1, before + invites + ROLLS + 1))
        expected = list(range(rolled[-1], before, -1))  # the invites' entries and every roll, newest first
        for page in pages:
            shown = page.wait_for_function(
                """n => {
                  const seqs = Array.from(document.querySelectorAll("#latest-list li.entry > a"),
                                          a => Number(a.textContent.slice(1)));
                  return seqs[0] === n && seqs;
                }""",
                arg=expected[0],
                timeout=15_000,
            ).json_value()
            assert shown[: len(expected)] == expected

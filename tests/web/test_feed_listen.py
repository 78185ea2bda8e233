"""The live feed on PostgreSQL listens (LISTEN/NOTIFY, migration 0016) instead of polling.

In-process: with polling slowed to 30 s, a roll committed through another connection
still reaches the feed well before the next poll (within 10 s: a loaded machine slows
the wake-up, never to 30 s), so the wake-up is the notification. Two real `campaign
serve` processes on one database: a player's roll posted to one appears on the other's
feed, and a reconnect with Last-Event-ID catches up on what was committed while away.
How fast is the bench's business (tests/perf), not a test's: the two-process test had
failed under load on a one-second bound. SQLite keeps polling.
"""

from __future__ import annotations

import json
import queue
import threading
import time

import httpx
import psycopg
import pytest

from campaign.web import feed as feed_module
from tests.cli.conftest import Cli, gurps_setup
from tests.conftest import party_copy
from tests.web.table_server import Browser, served
from tests.web.test_serve import Server

pytestmark = pytest.mark.postgres


class Events:
    """An SSE stream read in a thread: (event, data, id, arrival time) on a queue."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.queue: queue.Queue = queue.Queue()
        self.opened = threading.Event()
        self.closed = False
        threading.Thread(target=self._read, args=(url, headers or {}), daemon=True).start()
        assert self.opened.wait(60), "the feed never answered"

    def _read(self, url: str, headers: dict[str, str]) -> None:
        try:
            with httpx.stream("GET", url, headers=headers, timeout=60) as response:
                event = ident = None
                for line in response.iter_lines():
                    self.opened.set()
                    if self.closed:
                        return
                    if line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("id: "):
                        ident = int(line[4:])
                    elif line.startswith("data: "):
                        self.queue.put((event, json.loads(line[6:]), ident, time.monotonic()))
                        event = ident = None
        except Exception as exc:  # noqa: BLE001 - shown by the test's next get
            self.queue.put(("error", repr(exc), None, time.monotonic()))
            self.opened.set()

    def entry(self, timeout: float) -> tuple[dict, int, float]:
        """The next `entry` event: (data, id, arrival)."""
        deadline = time.monotonic() + timeout
        while True:
            event, data, ident, at = self.queue.get(timeout=max(0.01, deadline - time.monotonic()))
            assert event != "error", data
            if event == "entry":
                return data, ident, at


@pytest.fixture
def party(request, pg_cluster):
    name = f"feed_{id(request)}"
    url = pg_cluster.create_database(name, template="campaign_template")
    party_copy(request, "gurps", url, lambda db: gurps_setup(Cli(db)), campaign="テスト卓")
    yield url
    pg_cluster.drop_database(name)


def _head(url: str) -> int:
    return Cli(url).json("history", "--limit", "1")[0]["seq"]


def test_a_commit_elsewhere_wakes_the_feed_without_polling(party, monkeypatch):
    monkeypatch.setattr(feed_module, "POLL", 30.0)  # polling alone would take 30 s
    monkeypatch.setattr(feed_module, "LISTEN_SAFETY", 30.0)
    head = _head(party)
    with served(party) as base:
        events = Events(f"{base}/api/feed?after={head}")
        time.sleep(0.5)  # the listener connects (its first wake-up probes once)
        Cli(party).run("roll", "3D6", "--dice", "1,2,3")  # another connection, as another process's
        committed = time.monotonic()
        data, ident, arrived = events.entry(timeout=30)
        events.closed = True
    assert (data["seq"], ident) == (head + 1, head + 1)
    assert arrived - committed < 10.0  # the next poll would have come after 30 s


def test_the_notification_is_sent_at_commit_and_not_for_a_rollback(party):
    from sqlalchemy.engine import make_url

    parsed = make_url(party)
    dsn = {"host": parsed.host, "port": parsed.port, "dbname": parsed.database, "user": parsed.username}
    with psycopg.connect(**dsn, autocommit=True) as listener:
        listener.execute("LISTEN campaign_feed")
        with psycopg.connect(**dsn) as writer:
            from tests.integration.forge import forged_row, insert

            insert(writer, forged_row(writer))
            writer.rollback()
            assert list(listener.notifies(timeout=0.3)) == []
            values = forged_row(writer)
            insert(writer, values)
            assert list(listener.notifies(timeout=0.3)) == []  # not before the commit
            writer.commit()
        # "something changed", and nothing more: any login of the cluster may LISTEN
        assert [n.payload for n in listener.notifies(timeout=2, stop_after=1)] == [""]
        Cli(party).run("call", "fright", "鈴音")
        assert [n.payload for n in listener.notifies(timeout=2, stop_after=1)] == [""]
        Cli(party).run("roll", "3D6", "--dice", "1,2,3")
        assert [n.payload for n in listener.notifies(timeout=2, stop_after=1)] == [""]


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_sqlite_keeps_polling(db_url):
    from campaign.db.database import Database

    Cli(db_url).run("init", "卓")
    db = Database(db_url)
    try:
        assert feed_module.Feed(db, 1, str)._listen_url is None
    finally:
        db.close()


@pytest.mark.slow
def test_two_server_processes_see_each_others_writes(party):
    """A roll posted to server A appears on server B's feed; B's feed, opened again with
    Last-Event-ID, catches up on what was committed while it was closed."""
    cli = Cli(party)
    invite = cli.json("invite", "Aki")["join_path"]
    first, second = Server(party), Server(party)
    try:
        base_a, base_b = first.first_line.rstrip("/"), second.first_line.rstrip("/")
        head = _head(party)
        events = Events(f"{base_b}/api/feed?after={head}")
        aki = Browser(base_a)
        assert aki.join(invite).status_code == 303
        # warm-up (A's first roll loads its dice code): B's listener is up once this arrives
        assert aki.post("/api/rolls", {"command": "2D6", "character": "鈴音"}).status_code == 201
        assert events.entry(timeout=10)[0]["seq"] == head + 1
        posted = time.monotonic()
        rolled = aki.post("/api/rolls", {"command": "3D6", "character": "鈴音"})
        assert rolled.status_code == 201, rolled.text
        answered = time.monotonic()
        data, ident, arrived = events.entry(timeout=30)
        print(
            f"feed: posted to A, on B's feed after {arrived - posted:.3f} s (A answered after "
            f"{answered - posted:.3f} s)"
        )
        assert (data["seq"], ident) == (rolled.json()["seq"], head + 2) and "鈴音" in data["html"]
        events.closed = True
        for _ in range(2):  # committed while B's browser is away
            assert aki.post("/api/rolls", {"command": "1D6", "character": "鈴音"}).status_code == 201
        again = Events(f"{base_b}/api/feed", headers={"last-event-id": str(head + 2)})
        assert [again.entry(timeout=30)[1] for _ in range(2)] == [head + 3, head + 4]
        again.closed = True
        aki.close()
    finally:
        first.stop()
        second.stop()
    assert cli.json("history", "verify")["ok"]

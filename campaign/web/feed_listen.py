"""What wakes the live feed on PostgreSQL: LISTEN on the channel migration 0016's triggers notify.

Every ledger insert (and every change of a GM call or an idempotent request) sends
NOTIFY campaign_feed inside the writer's transaction, so PostgreSQL delivers it at
commit, to every listening session, whichever process wrote. The notification says
nothing but "something changed" (migration 0020): any login of the cluster may LISTEN,
and a payload naming a campaign and its head would tell each of them every campaign's
progress. So every feed is woken by every write and probes its own head, reading only
what its role may read.
That is how several server processes on one database stay in step without a shared
memory of their own: each listens, and its feed probes the head only when told.

One daemon thread per feed holds one dedicated autocommit connection (psycopg 3's
`notifies()` generator, with a timeout so the thread notices a stop). A notification
wakes the feed whichever campaign wrote. When the connection breaks the thread marks
itself not `alive` (the feed falls back to polling) and reconnects; after each connect
it wakes the feed once, so a commit made while it was away is read too.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

CHANNEL = "campaign_feed"  # migrations/versions/0016_group_without_player_roles.py
RECONNECT = 1.0  # seconds between attempts after the connection broke
TICK = 1.0  # seconds a notifies() wait lasts before the thread looks at `stop` again


def conninfo(url: str) -> str:
    """The libpq URL psycopg connects with, from the SQLAlchemy URL the server uses."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class Listener:
    """LISTEN campaign_feed in a thread; calls `wake(payload)` for every notification."""

    def __init__(
        self, url: str, campaign_id: int, wake: Callable[[str], object], wanted: Callable[[], bool] = lambda: True
    ) -> None:
        self._conninfo = conninfo(url)
        self._wake = wake
        # False once whoever listens is gone (the server's event loop closed): the thread ends.
        self._wanted = wanted
        self.alive = False
        self.stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"feed-listen-{campaign_id}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import psycopg

        while not self.stop.is_set() and self._wanted():
            try:
                with psycopg.connect(self._conninfo, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.alive = True
                    self._deliver("")  # anything committed before LISTEN took effect is read now
                    while not self.stop.is_set() and self._wanted():
                        for notice in conn.notifies(timeout=TICK):
                            self._deliver(notice.payload)
            except psycopg.Error:  # a lost connection: the feed polls meanwhile, then we reconnect
                self.alive = False
                self.stop.wait(RECONNECT)
        self.alive = False

    def _deliver(self, payload: str) -> None:
        try:
            self._wake(payload)
        except RuntimeError:  # the event loop it wakes has closed: nobody listens any more
            self.stop.set()

    def close(self, timeout: float = 5.0) -> None:
        self.stop.set()
        self._thread.join(timeout)


def wait_until_alive(listener: Listener, timeout: float = 10.0) -> bool:
    """For tests and start-up: whether the listener connected within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not listener.alive and time.monotonic() < deadline:
        time.sleep(0.02)
    return listener.alive


class SharedListener:
    """One LISTEN connection for every feed of a process (`serve --all`,
    campaign.web.multi): a notification says only "something changed", so each feed
    woken probes its own head. Fifty campaigns' feeds hold one connection, not fifty.
    Started with the first feed that streams; a feed whose event loop has closed is
    dropped at its next wake-up."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._lock = threading.Lock()
        self._wakes: list[Callable[[str], object]] = []
        self.listener: Listener | None = None

    def add(self, wake: Callable[[str], object]) -> Listener:
        with self._lock:
            self._wakes.append(wake)
            if self.listener is None:
                self.listener = Listener(self._url, 0, self._deliver)
            return self.listener

    def _deliver(self, payload: str) -> None:
        for wake in list(self._wakes):
            try:
                wake(payload)
            except RuntimeError:  # that feed's event loop has closed
                with self._lock:
                    if wake in self._wakes:
                        self._wakes.remove(wake)

    def close(self) -> None:
        if self.listener is not None:
            self.listener.close()

"""The live feed: Server-Sent Events that carry each new ledger entry as a table row.

Commits come from any process (the GM's CLI, another server, a script) on the same
SQLite file or PostgreSQL database, so the server cannot wait for a signal of its own:
it watches the ledger head. One shared watcher asks the database for the head seq
(a primary-key probe, in a worker thread), however many browsers are connected; when
the head moved, the new entries are read once, rendered once by the history page's own
Jinja macro (escaping done server-side) and kept in a small cache that every client's
stream reads from. On SQLite the watcher probes every POLL seconds. On PostgreSQL it
probes when told: migration 0016's triggers NOTIFY at each commit, from any process,
and a listener thread (campaign.web.feed_listen) wakes the streams, so several server
processes on one database show each other's writes at once; it still probes every
LISTEN_SAFETY seconds, and polls while its connection is down.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

if TYPE_CHECKING:
    from campaign.db.database import Database
    from campaign.web.feed_listen import Listener, SharedListener  # started on the first stream, PostgreSQL only

POLL = 0.2  # seconds between head probes: a commit shows within about this much
KEEPALIVE = 15.0  # seconds of silence before a comment line keeps proxies from closing
CACHE = 2000  # rendered rows kept for clients that lag behind
LISTEN_SAFETY = 5.0  # PostgreSQL: seconds a stream waits for a notification before probing anyway


def page_words() -> tuple[str, str | None]:
    """What a rendered row depends on besides its entry: the request's language and the
    zone of its times (a `settings timezone=` under a running server changes the zone)."""
    from campaign.i18n import language
    from campaign.web.present import page_zone

    return language(), page_zone()


class Feed:
    def __init__(
        self,
        db: Database,
        campaign_id: int,
        render_row: Callable[[dict[str, Any]], str],
        render_state: Callable[[], tuple[int, dict[str, Any]]] | None = None,
        render_item: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        shared: SharedListener | None = None,
        probe: HeadsProbe | None = None,
    ) -> None:
        """`shared`: the process's one LISTEN connection when it serves several
        campaigns (campaign.web.multi); else the feed starts its own on PostgreSQL.
        `probe`: the heads of every campaign's open pages read at once (the same)."""
        from campaign.services.ledger.browse import entries_after
        from campaign.services.table.calls import head_and_calls

        # The table server's calls are rows, not entries: their signature is probed with
        # the head (in the same worker thread), and a change is a `calls` event (the table
        # pages fetch /api/table).
        self.calls: tuple[int, int] = (0, 0)
        self._head_and_calls = lambda: head_and_calls(db, campaign_id)
        # State after the newest entry (the overview's characters and missing board as
        # rendered HTML, the table pages' shared JSON as `table`), computed once per head
        # for every client: a `state` event, sent when the sheets in it changed (its
        # `sheets_at`, campaign.web.head_state); a plain roll's entry needs none.
        self._render_state = render_state
        self._state: dict[tuple[str, str | None], tuple[int, object, str]] = {}
        self._entries_after = lambda after: entries_after(db, campaign_id, after)
        # Each entry event carries the history row (`html`) and, for the table pages, the
        # entry as their latest-entries list shows it (`item`): the page builds that list
        # from the entries themselves, in seq order, so a burst skips none.
        self._render_row = render_row
        self._render_item = render_item
        self._head = 0
        self._checked = 0.0
        # PostgreSQL's wake-ups: each notification bumps the generation; a head probed
        # under an older generation is stale whatever its age.
        self._listen_url = db.url if db.dialect == "postgresql" else None
        self._campaign_id = campaign_id
        self._listener: Listener | None = None
        self._shared = shared
        self._probe = probe
        self._woken_at = 0.0  # when the last wake-up came (a shared probe must start after it)
        self._generation = 0
        self._probed_generation = -1
        self._woken_event: asyncio.Event | None = None
        self._lock = anyio.Lock()
        # (words, seq): (row html, the entry event's data, whether the entry leaves the sheets as they were)
        self._rows: OrderedDict[tuple[tuple[str, str | None], int], tuple[str, str, bool]] = OrderedDict()

    def _stale(self) -> bool:
        return time.monotonic() - self._checked >= POLL or self._probed_generation != self._generation

    async def head(self) -> int:
        """The ledger head, at most POLL seconds old and probed after the last notification."""
        if self._stale():
            async with self._lock:
                if self._stale():
                    generation = self._generation
                    if self._probe is not None:
                        since = self._woken_at if self._probed_generation != generation else time.monotonic() - POLL
                        self._head, self.calls = await self._probe.of(self._campaign_id, since)
                    else:
                        self._head, self.calls = await anyio.to_thread.run_sync(self._head_and_calls)
                    self._checked, self._probed_generation = time.monotonic(), generation
        return self._head

    def _listen(self) -> None:
        """Make the streams' wake-up event and start the PostgreSQL listener, once, on the
        event loop that serves the streams."""
        if self._woken_event is None:
            self._woken_event = asyncio.Event()
        if self._listen_url is None or self._listener is not None:
            return
        from campaign.web.feed_listen import Listener

        loop = asyncio.get_running_loop()
        if self._shared is not None:
            self._listener = self._shared.add(lambda payload: loop.call_soon_threadsafe(self._woken))
            return
        self._listener = Listener(
            self._listen_url,
            self._campaign_id,
            lambda payload: loop.call_soon_threadsafe(self._woken),
            wanted=lambda: not loop.is_closed(),
        )

    def _woken(self) -> None:
        self._generation += 1
        self._woken_at = time.monotonic()
        event, self._woken_event = self._woken_event, asyncio.Event()
        if event is not None:
            event.set()

    def nudge(self) -> None:
        """This server just committed a write: wake the streams now, not at the next poll
        (on the event loop's thread). Another process's commit still shows within POLL
        seconds on SQLite, at once on PostgreSQL (its NOTIFY)."""
        self._woken()

    async def _pause(self, seen: int) -> None:
        """Until the next wake-up (a write of this server, a notification on PostgreSQL
        with the listener up) or POLL seconds."""
        event, listener = self._woken_event, self._listener
        if event is None:
            await anyio.sleep(POLL)
        elif self._generation == seen:
            # While the listener (re)connects the feed polls; its connect wakes it too.
            with anyio.move_on_after(LISTEN_SAFETY if listener is not None and listener.alive else POLL):
                await event.wait()

    def close(self) -> None:
        if self._listener is not None and self._shared is None:  # a shared one is its owner's to close
            self._listener.close()

    async def rows_after(self, after: int) -> list[tuple[int, str]]:
        """(seq, row html) of the entries after `after` that exist now, oldest first, in
        this request's language and zone (rendered once per both: the cache is keyed by them)."""
        return [(seq, html) for seq, html, _, _ in await self._events_after(after)]

    async def _events_after(self, after: int) -> list[tuple[int, str, str, bool]]:
        """(seq, row html, the entry event's data, whether it leaves the sheets) of the
        entries after `after`."""
        head = await self.head()
        if head <= after:
            return []
        words = page_words()
        wanted = range(after + 1, head + 1)
        if all((words, seq) in self._rows for seq in wanted):
            return [(seq, *self._rows[words, seq]) for seq in wanted]
        async with self._lock:
            if all((words, seq) in self._rows for seq in wanted):  # another client just read them
                return [(seq, *self._rows[words, seq]) for seq in wanted]
            entries = await anyio.to_thread.run_sync(self._entries_after, after)
            rendered = [(entry["seq"], *self._render(entry)) for entry in entries]
            for seq, html, data, leaves in rendered:
                self._rows[words, seq] = (html, data, leaves)
            while len(self._rows) > CACHE:
                self._rows.popitem(last=False)
        return rendered

    def _render(self, entry: dict[str, Any]) -> tuple[str, str, bool]:
        from campaign.web.head_state import leaves_sheets

        html = self._render_row(entry)
        event: dict[str, Any] = {"seq": entry["seq"], "html": html}
        if self._render_item is not None:
            event["item"] = self._render_item(entry)
        return html, json.dumps(event), leaves_sheets(entry)

    async def state_at(self, seq: int) -> tuple[object, str]:
        """The `state` event's data once the ledger reached `seq` (rendered once per head
        and language), with the version of the sheets in it."""
        words = page_words()
        cached = self._state.get(words)
        if cached is None or cached[0] < seq:
            async with self._lock:
                cached = self._state.get(words)
                if cached is None or cached[0] < seq:
                    assert self._render_state is not None  # events() asks only a feed that renders state
                    head, parts = await anyio.to_thread.run_sync(self._render_state)
                    cached = (head, parts.get("sheets_at"), json.dumps({"seq": head, **parts}))
                    self._state[words] = cached
        return cached[1], cached[2]

    async def stream(self, after: int) -> AsyncIterator[str]:
        """The text/event-stream body: one `entry` event per new entry, newest last."""
        yield "retry: 1000\n\n"
        self._listen()
        last, quiet_since = after, time.monotonic()
        sheets_sent: object = None  # the sheets' version in the last state event sent
        await self.head()
        calls = self.calls
        while True:
            seen = self._generation
            rows = await self._events_after(last)
            if self.calls != calls:
                calls = self.calls
                yield f"event: calls\ndata: {json.dumps({'pending': calls[1]})}\n\n"
            for seq, _html, data, _leaves in rows:
                yield f"id: {seq}\nevent: entry\ndata: {data}\n\n"
                last = seq
            # The state is read only when an entry may have changed the sheets (a plain
            # roll does not: its own event carries all it shows), or to learn their version.
            touched = sheets_sent is None or not all(leaves for *_, leaves in rows)
            if rows and touched and self._render_state is not None:
                version, state = await self.state_at(last)
                if version != sheets_sent:  # the sheets changed since this page's last state
                    sheets_sent = version
                    yield f"event: state\ndata: {state}\n\n"
            now = time.monotonic()
            if rows:
                quiet_since = now
            elif now - quiet_since >= KEEPALIVE:
                yield ": keepalive\n\n"
                quiet_since = now
            await self._pause(seen)


class HeadsProbe:
    """The ledger heads and calls of every campaign with an open page, read at once, for
    a process serving many campaigns (campaign.web.multi). A notification on PostgreSQL
    says only "something changed", so it wakes every campaign's feeds; each probing its
    own head made two reads per campaign per write (fifty open campaigns: a hundred
    reads for one roll). Here the feeds woken together wait for one read of them all: a
    probe serves every feed whose wake-up came before it started. Used on the event
    loop's thread only."""

    def __init__(self, db: Database) -> None:
        from campaign.services.table.calls import heads_and_calls

        self._read = lambda ids: heads_and_calls(db, ids)
        self._ids: set[int] = set()
        self._result: dict[int, tuple[int, tuple[int, int]]] = {}
        self._result_started = float("-inf")
        self._flight: asyncio.Future[None] | None = None
        self._flight_started = float("-inf")

    async def of(self, campaign_id: int, since: float) -> tuple[int, tuple[int, int]]:
        """(head seq, calls signature) of the campaign, from a read started at or after `since`."""
        self._ids.add(campaign_id)
        while True:
            if self._result_started >= since and campaign_id in self._result:
                return self._result[campaign_id]
            if self._flight is None:
                self._flight_started = time.monotonic()
                self._flight = asyncio.ensure_future(self._run(sorted(self._ids), self._flight_started))
            await asyncio.shield(self._flight)  # a read older than `since`: the next one after it

    async def _run(self, ids: list[int], started: float) -> None:
        try:
            self._result = await anyio.to_thread.run_sync(self._read, ids)
            self._result_started = started
        finally:
            self._flight = None


class NudgeOnWrite:
    """ASGI middleware: when a request that may have appended an entry answers 2xx (any
    method but GET and HEAD, and a BCDice-API roll, which its protocol makes a GET), wake
    the feed (Feed.nudge), so every open page sees the entry without waiting for a poll."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        writes = scope["type"] == "http" and (
            scope["method"] not in ("GET", "HEAD") or scope["path"].startswith("/bcdice/")
        )
        if not writes:
            await self.app(scope, receive, send)
            return
        status = 0

        async def sent(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        await self.app(scope, receive, sent)
        if 200 <= status < 300:
            scope["app"].state.feed.nudge()

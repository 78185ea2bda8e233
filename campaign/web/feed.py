"""The live feed: Server-Sent Events that carry each new ledger entry as a table row.

Commits come from any process (the GM's CLI, another server, a script) on the same
SQLite file or PostgreSQL database, so the server cannot wait for a signal of its own:
it watches the ledger head. One shared watcher asks the database for the head seq at
most every POLL seconds (a primary-key probe, in a worker thread), however many
browsers are connected; when the head moved, the new entries are read once, rendered
once by the history page's own Jinja macro (escaping done server-side) and kept in a
small cache that every client's stream reads from. PostgreSQL's LISTEN/NOTIFY would
avoid the polling, but it needs a trigger and a dedicated connection, and a probe five
times a second costs nothing worth saving; polling also behaves the same on SQLite.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

if TYPE_CHECKING:
    from campaign.db.database import Database

POLL = 0.2          # seconds between head probes: a commit shows within about this much
KEEPALIVE = 15.0    # seconds of silence before a comment line keeps proxies from closing
CACHE = 2000        # rendered rows kept for clients that lag behind


class Feed:
    def __init__(self, db: Database, campaign_id: int, render_row: Callable[[dict[str, Any]], str],
                 render_state: Callable[[], dict[str, str]] | None = None) -> None:
        from campaign.services.browse import entries_after, head_seq
        from campaign.services.calls import calls_signature

        # The table server's calls are rows, not entries: their signature is probed with
        # the head, and a change is a `calls` event (the table pages fetch /api/table).
        self._calls_sig = lambda: calls_signature(db, campaign_id)
        self.calls: tuple[int, int] = (0, 0)
        self._head_seq = lambda: head_seq(db, campaign_id)
        # State after the newest entry (the overview's characters and missing board, as
        # rendered HTML), computed once per head for every client: a `state` event.
        self._render_state = render_state
        self._state: tuple[int, str] | None = None
        self._entries_after = lambda after: entries_after(db, campaign_id, after)
        self._render_row = render_row
        self._head = 0
        self._checked = 0.0
        self._lock = anyio.Lock()
        self._rows: OrderedDict[int, str] = OrderedDict()

    async def head(self) -> int:
        """The ledger head, at most POLL seconds old."""
        if time.monotonic() - self._checked >= POLL:
            async with self._lock:
                if time.monotonic() - self._checked >= POLL:
                    self._head = await anyio.to_thread.run_sync(self._head_seq)
                    self.calls = await anyio.to_thread.run_sync(self._calls_sig)
                    self._checked = time.monotonic()
        return self._head

    async def rows_after(self, after: int) -> list[tuple[int, str]]:
        """(seq, row html) of the entries after `after` that exist now, oldest first."""
        head = await self.head()
        if head <= after:
            return []
        wanted = range(after + 1, head + 1)
        if all(seq in self._rows for seq in wanted):
            return [(seq, self._rows[seq]) for seq in wanted]
        async with self._lock:
            if all(seq in self._rows for seq in wanted):  # another client just read them
                return [(seq, self._rows[seq]) for seq in wanted]
            entries = await anyio.to_thread.run_sync(self._entries_after, after)
            rendered = [(entry["seq"], self._render_row(entry)) for entry in entries]
            for seq, html in rendered:
                self._rows[seq] = html
            while len(self._rows) > CACHE:
                self._rows.popitem(last=False)
        return rendered

    async def state_at(self, seq: int) -> str:
        """The `state` event's data once the ledger reached `seq` (rendered once per head)."""
        cached = self._state
        if cached is None or cached[0] < seq:
            async with self._lock:
                cached = self._state
                if cached is None or cached[0] < seq:
                    assert self._render_state is not None  # events() asks only a feed that renders state
                    parts = await anyio.to_thread.run_sync(self._render_state)
                    cached = self._state = (seq, json.dumps({"seq": seq, **parts}))
        return cached[1]

    async def stream(self, after: int) -> AsyncIterator[str]:
        """The text/event-stream body: one `entry` event per new entry, newest last."""
        yield "retry: 1000\n\n"
        last, quiet_since = after, time.monotonic()
        await self.head()
        calls = self.calls
        while True:
            rows = await self.rows_after(last)
            if self.calls != calls:
                calls = self.calls
                yield f"event: calls\ndata: {json.dumps({'pending': calls[1]})}\n\n"
            for seq, html in rows:
                data = json.dumps({"seq": seq, "html": html})
                yield f"id: {seq}\nevent: entry\ndata: {data}\n\n"
                last = seq
            if rows and self._render_state is not None:
                yield f"event: state\ndata: {await self.state_at(last)}\n\n"
            now = time.monotonic()
            if rows:
                quiet_since = now
            elif now - quiet_since >= KEEPALIVE:
                yield ": keepalive\n\n"
                quiet_since = now
            await anyio.sleep(POLL)

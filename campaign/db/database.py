"""One opened campaign database: an engine at the current schema, and transactions.

Services open their own transactions through write() or read(); a write transaction
on SQLite starts with BEGIN IMMEDIATE so the whole read-decide-append step is atomic.

On SQLite the writers of one process also queue on a lock of their own before BEGIN
IMMEDIATE (one per database file). SQLite's busy handler does not wake a waiting writer
when the lock is released: it sleeps and retries, up to 100 ms a time. With 20 players
rolling at once through `campaign serve`, writers that had lost a race once slept again
and again while others took the lock in between: a roll's p95 was 30x a shell roll's and
its p99 1.8 s (docs/performance.md, "Where a server roll's time goes"). A Python lock
hands the database to the next writer of the process as soon as the last one commits;
the busy handler is left to arbitrate only between processes (the CLI beside the server).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from campaign.db.engine import lock_refusal, make_engine, resolve_url
from campaign.db.migrate import ensure_current
from campaign.errors import RuleRefused

_WRITERS: dict[str, threading.RLock] = {}  # one per SQLite file: this process's writers queue on it
_WRITERS_GUARD = threading.Lock()


def _writer_lock(url: str) -> threading.RLock | None:
    """The lock this process's writers to the SQLite file at `url` take before BEGIN
    IMMEDIATE (None on PostgreSQL, whose row locks queue writers themselves). Reentrant:
    a write opened inside another on the same thread meets SQLite's own lock, as before."""
    from campaign.db.engine import sqlite_path

    path = sqlite_path(url)
    if path is None:
        return None
    key = str(path.resolve())
    with _WRITERS_GUARD:
        return _WRITERS.setdefault(key, threading.RLock())


class Database:
    def __init__(self, db: str | None = None, *, migrate: bool = True, read_only_ok: bool = False) -> None:
        """`read_only_ok`: a command that only reads (`history verify`) opens a read-only
        SQLite copy as it is, without migrating (campaign.db.storage)."""
        self.url = resolve_url(db)
        self.read_only = read_only_ok and _open_read_only(self.url)
        if self.read_only:
            from campaign.db.engine import sqlite_path
            from campaign.db.migrate import refuse_behind
            from campaign.db.storage import read_only_engine

            path = sqlite_path(self.url)
            assert path is not None  # _open_read_only is true only for a SQLite file
            self.engine = read_only_engine(path)
            try:
                refuse_behind(self.engine, path)
            except BaseException:
                self.engine.dispose()
                raise
            migrate = False
        else:
            self.engine = make_engine(self.url)
        if migrate:
            try:
                ensure_current(self.engine)
            except BaseException:  # refused (not ours, newer, damaged): no connection stays open
                self.engine.dispose()
                raise
        # campaign_writer: PostgreSQL write transactions get lock and statement timeouts (db.engine)
        self._writer = self.engine.execution_options(sqlite_begin="IMMEDIATE", campaign_writer=True)
        self._write_queue = _writer_lock(self.url)
        if self.engine.dialect.name == "postgresql":
            # A read that takes several queries (export, history with its counts, a
            # character with its traits) must see one moment, not whatever each query
            # finds committed when it runs: one REPEATABLE READ snapshot, read only.
            self._reader = self.engine.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
        else:  # SQLite: one deferred transaction already reads one snapshot (WAL)
            self._reader = self.engine.execution_options(sqlite_begin="DEFERRED")

    @property
    def dialect(self) -> str:
        return str(self.engine.dialect.name)

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A transaction that commits on success and rolls back on any error; a lock held
        elsewhere past its timeout is a one-line refusal (nothing was changed)."""
        with self._queued(), Session(self._writer, expire_on_commit=False) as session, session.begin():
            try:
                yield session
            except OperationalError as exc:
                refusal = lock_refusal(exc)
                if refusal is None:
                    raise
                raise refusal from None

    @contextmanager
    def _queued(self) -> Iterator[None]:
        """This process's turn to write the SQLite file, waited for no longer than SQLite's
        own busy timeout, with the same refusal when it runs out."""
        from campaign.db import engine

        if self._write_queue is None:
            yield
            return
        if not self._write_queue.acquire(timeout=engine.SQLITE_BUSY_TIMEOUT_S):
            raise RuleRefused(engine.LOCKED)
        try:
            yield
        finally:
            self._write_queue.release()

    @contextmanager
    def read(self) -> Iterator[Session]:
        with Session(self._reader, expire_on_commit=False) as session, session.begin():
            yield session

    def close(self) -> None:
        self.engine.dispose()


def _open_read_only(url: str) -> bool:
    """An SQLite file this process cannot write now (read-only, or its disk full), and
    that is there to be read."""
    from campaign.db.engine import sqlite_path
    from campaign.db.storage import cannot_write

    path = sqlite_path(url)
    if path is None or not path.is_file():
        return False
    return cannot_write(path)

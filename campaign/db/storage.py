"""When the machine, not the database, is why an SQLite file cannot be used.

SQLite reports a full disk or a read-only mount as "disk I/O error" or "unable to open
database file" (it cannot grow or create the write-ahead log's index beside the file),
the words it also uses for a damaged file. Telling the GM their campaign is damaged
when the disk is merely full sends them restoring backups; so before calling a file
damaged we look at the file system, and say which it is in one line.

A PostgreSQL server says a full disk (SQLSTATE 53100) or that it takes no writes (25006)
itself: `server_trouble` words it the same way.

A read-only copy (a mount, a file or folder without write permission, an archive) can
still be read: `read_only_engine` opens it through SQLite's read-only URI, `immutable`
when not even the log's index can be made beside it, with no pragma that writes.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from campaign.errors import N_

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine

# Less room than this on the file system and SQLite cannot add a page and its log frame.
FULL_BELOW_BYTES = 64 * 1024


def _sidecars(path: Path) -> tuple[Path, Path]:
    return Path(f"{path}-wal"), Path(f"{path}-shm")


def is_full(path: Path) -> bool:
    """Whether the file system holding `path` has (almost) no room left for us."""
    try:
        fs = os.statvfs(path.parent)
    except OSError:
        return False
    blocks = fs.f_bfree if os.geteuid() == 0 else fs.f_bavail  # root may use the reserved blocks
    return blocks * fs.f_frsize < FULL_BELOW_BYTES


def read_only_reason(path: Path) -> str | None:
    """Why this process cannot write the database at `path` (None when it can):
    a read-only mount, the file's mode, or a folder where SQLite cannot create its log."""
    try:
        fs = os.statvfs(path.parent)
    except OSError:
        return None
    if fs.f_flag & os.ST_RDONLY:
        return N_("it is on a read-only file system")
    if path.exists() and not os.access(path, os.W_OK):
        return N_("the file is not writable")
    wal, shm = _sidecars(path)
    if not os.access(path.parent, os.W_OK | os.X_OK) and not (wal.exists() and shm.exists()):
        return N_("its folder is not writable (SQLite keeps its log beside the file)")
    return None


def read_only_message(path: Path, reason: str) -> str:
    from campaign.i18n import _

    return _(
        "the database is read-only: {path} ({reason}); `campaign --db {path} history verify` can still "
        "check it; to change it, copy it somewhere writable or make it writable"
    ).format(path=path, reason=_(reason))


def cannot_write(path: Path) -> bool:
    """Whether this process cannot write `path` now: a read-only file, folder or mount,
    or a full disk. Such a file is opened read-only (read_only_engine): every read works
    and a write is refused by machine_trouble's one line, with nothing written."""
    return read_only_reason(path) is not None or is_full(path)


def server_trouble(exc: BaseException | None) -> str | None:
    """One line for a PostgreSQL server that cannot take the write: its disk is full
    (SQLSTATE 53100) or it takes no writes (25006: a standby, or
    default_transaction_read_only), else None. Reads go on; nothing was changed."""
    from campaign.i18n import _

    state = getattr(getattr(exc, "orig", exc), "sqlstate", None)
    if state == "53100":
        return _("the database server's disk is full: free some space there and try again; nothing was changed")
    if state == "25006":
        return _(
            "the database server takes no writes now (a standby, or a read-only setting); reads still work; "
            "nothing was changed"
        )
    return None


def machine_trouble(path: Path | None, exc: BaseException | None = None) -> str | None:
    """One line for a full disk or a read-only database at `path`, else None.

    `exc` is the SQLite error, when there is one: its code settles it (SQLITE_FULL,
    SQLITE_READONLY...); otherwise the file system is looked at."""
    original = getattr(exc, "orig", exc)
    name = getattr(original, "sqlite_errorname", "") or ""
    # A lock timeout or a constraint is never the disk's fault, however full it is.
    about_files = not name or name.startswith(("SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_READONLY"))
    from campaign.i18n import _

    if name == "SQLITE_FULL" or (about_files and path is not None and is_full(path)):
        if path is None:
            return _("the disk is full: free some space and try again; nothing was changed")
        return _("the disk holding {path} is full: free some space and try again; nothing was changed").format(
            path=path
        )
    reason = read_only_reason(path) if path is not None and about_files else None
    if reason is None and name.startswith("SQLITE_READONLY"):
        reason = N_("this process may not write it")
    if reason is not None:
        return (
            read_only_message(path, reason)
            if path is not None
            else _("the database is read-only ({reason}): copy it somewhere writable; nothing was changed").format(
                reason=_(reason)
            )
        )
    return None


def read_only_engine(path: Path) -> Engine:
    """An engine that only reads `path`: SQLite's `mode=ro`, or `immutable=1` when the
    log's index cannot be created beside the file (then nobody can be writing it
    through this folder either), or the disk is full and the log holds nothing (so the
    file is the whole database, and no writer can add to it). Nothing is set that would write."""
    from sqlalchemy import create_engine, event

    wal, shm = _sidecars(path)
    log_empty = not wal.exists() or wal.stat().st_size == 0
    can_index = not (is_full(path) and log_empty) and (  # the log's index takes room a full disk lacks
        (wal.exists() and shm.exists())
        or (os.access(path.parent, os.W_OK | os.X_OK) and not os.statvfs(path.parent).f_flag & os.ST_RDONLY)
    )
    uri = path.absolute().as_uri() + ("?mode=ro" if can_index else "?mode=ro&immutable=1")

    def connect() -> sqlite3.Connection:
        return sqlite3.connect(uri, uri=True, timeout=60.0, check_same_thread=False)

    engine = create_engine(f"sqlite:///{path.absolute()}", creator=connect)

    @event.listens_for(engine, "connect")
    def _autocommit(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        dbapi_connection.isolation_level = None  # transactions begin as below, like the writable engine's

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN DEFERRED")

    return engine

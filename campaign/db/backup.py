"""A consistent copy of an SQLite campaign database.

SQLite's online backup API copies a consistent snapshot even while other processes
write. We copy into a temporary file beside the target and rename it into place, so a
backup killed half-way leaves neither a torn copy nor a touched original.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from campaign.errors import BadInput, RuleRefused


def backup_sqlite(source: Path, target: Path) -> int:
    """Copy source to target; returns the size in bytes of the copy."""
    target = target.expanduser().absolute()
    if target.resolve() == source.resolve():
        raise BadInput("the backup file must not be the database itself")
    if target.is_dir():
        raise BadInput(f"{target} is a directory")
    if not target.parent.is_dir():
        raise BadInput(f"no such directory: {target.parent}")
    tmp = target.with_name(f".{target.name}.{os.getpid()}.partial")
    fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)
    os.close(fd)
    try:
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=60)
        dst = sqlite3.connect(tmp)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")
        finally:
            dst.close()
            src.close()
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()
    return target.stat().st_size


def refuse_non_sqlite(dialect: str) -> None:
    if dialect != "sqlite":
        raise RuleRefused("db backup copies SQLite files; for PostgreSQL use pg_dump (or campaign export)")

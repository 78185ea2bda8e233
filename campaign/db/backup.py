"""A consistent copy of an SQLite campaign database.

SQLite's online backup API copies a consistent snapshot even while other processes
write. We copy into a temporary file beside the target, fsync it and rename it into
place (campaign.safe_files), so a backup killed half-way leaves neither a torn copy nor a
touched original, and a target that is a link or a device is refused, not replaced.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from campaign.errors import BadInput, RuleRefused


def backup_sqlite(source: Path, target: Path) -> int:
    """Copy source to target; returns the size in bytes of the copy."""
    from campaign.safe_files import replacing_paths, target_path

    target = target_path(target)  # a directory, a missing directory, a link or a device: refused
    if target.resolve() == source.resolve():
        raise BadInput("the backup file must not be the database itself")
    with replacing_paths([target]) as (tmp,):  # owner-only, fsynced, then renamed over the target
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=60)
        dst = sqlite3.connect(tmp)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")
        finally:
            dst.close()
            src.close()
    return target.stat().st_size


def refuse_non_sqlite(dialect: str) -> None:
    if dialect != "sqlite":
        raise RuleRefused("db backup copies SQLite files; for PostgreSQL use pg_dump (or campaign export)")

"""Raw DBAPI connections that bypass the application, as a tamperer would use."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

from campaign.db.engine import resolve_url, sqlite_path
from campaign.ledger import canonical_json, chain_hash


@contextmanager
def raw_connection(db: str):
    url = resolve_url(db)
    path = sqlite_path(url)
    if path is not None:
        conn = sqlite3.connect(path)
    else:
        import psycopg
        from sqlalchemy.engine import make_url

        parsed = make_url(url)
        conn = psycopg.connect(host=parsed.host, port=parsed.port, user=parsed.username, dbname=parsed.database)
    try:
        yield conn
    finally:
        conn.close()


def drop_ledger_guards(db: str) -> None:
    """What a tamperer with the database owner's rights does first: drop the triggers
    that refuse changes in place and rows that do not extend the chain (migration 0010)."""
    with raw_connection(db) as conn:
        if isinstance(conn, sqlite3.Connection):
            conn.execute("DROP TRIGGER ledger_no_update")
            conn.execute("DROP TRIGGER ledger_no_delete")
            conn.execute("DROP TRIGGER IF EXISTS ledger_append_follows_head")
        else:
            conn.execute("DROP TRIGGER ledger_no_update_delete ON ledger")
            conn.execute("DROP TRIGGER ledger_no_truncate ON ledger")
            conn.execute("DROP TRIGGER IF EXISTS ledger_chain_holds ON ledger")
        conn.commit()


def execute(db: str, sql: str, params=()) -> None:
    with raw_connection(db) as conn:
        if not isinstance(conn, sqlite3.Connection):
            sql = sql.replace("?", "%s")
        conn.execute(sql, params)
        conn.commit()


def rehash_from(db: str, first: int, change: Callable[[dict[str, Any]], Any], *, columns: tuple[str, ...] = ()) -> None:
    """Edit entry `first` with `change` and recompute its hash and every later one, as a
    careful forger would; `columns` (such as "outcome") are rewritten from the edited
    record too. The ledger's guards must be gone first (drop_ledger_guards)."""
    with raw_connection(db) as conn:
        marker = "?" if isinstance(conn, sqlite3.Connection) else "%s"
        sets = ", ".join(f"{name} = {marker}" for name in ("record", "prev_hash", "hash", *columns))
        rows = conn.execute("SELECT seq, record, prev_hash FROM ledger ORDER BY seq").fetchall()
        prev = None
        for seq, record_json, prev_hash in rows:
            if seq < first:
                continue
            prev = prev_hash if prev is None else prev
            record = json.loads(record_json)
            if seq == first:
                change(record)
            record_json = canonical_json(record)
            digest = chain_hash(prev, record_json)
            values = (record_json, prev, digest, *(record.get(name) for name in columns), seq)
            conn.execute(f"UPDATE ledger SET {sets} WHERE seq = {marker}", values)
            prev = digest
        conn.commit()

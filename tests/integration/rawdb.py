"""Raw DBAPI connections that bypass the application, as a tamperer would use."""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager

from campaign.db.engine import resolve_url, sqlite_path


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

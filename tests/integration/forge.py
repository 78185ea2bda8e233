"""Ledger rows written by hand, as an attacker with INSERT on the table would write them.

`forged_row` starts from a well-formed entry that follows the head (right seq, link,
SHA-256, columns copying the record, time now) and changes what the attack changes:
`record` fields (the row's columns follow them, the hash is recomputed), or the `row`
itself (a column, the hash, the stored text) after hashing. Works on a sqlite3 or a
psycopg connection.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from campaign.chain import GENESIS_HASH, canonical_json, chain_hash
from campaign.ledger import utc_now
from campaign.ledger_scan import INDEXED_FIELDS

COLUMNS = ("campaign_id", *INDEXED_FIELDS, "record", "prev_hash", "hash")


def _sql(conn: Any, statement: str) -> str:
    return statement if isinstance(conn, sqlite3.Connection) else statement.replace("?", "%s")


def head(conn: Any, campaign_id: int = 1) -> tuple[int, str, str | None]:
    row = conn.execute(
        _sql(conn, "SELECT seq, hash, at FROM ledger WHERE campaign_id = ? ORDER BY seq DESC LIMIT 1"), (campaign_id,)
    ).fetchone()
    return (row[0], row[1], row[2]) if row else (0, GENESIS_HASH, None)


def forged_row(
    conn: Any, campaign: str = "テスト卓", campaign_id: int = 1, record: dict | None = None, row: dict | None = None
) -> dict[str, Any]:
    seq, prev, at = head(conn, campaign_id)
    now = utc_now()
    entry = {
        "campaign": campaign,
        "seq": seq + 1,
        "at": max(now, at or now),
        "actor": "GM",
        "kind": "roll",
        "character": None,
        "scenario": None,
        "parent_seq": None,
        "voids_seq": None,
        "expression": "3D6",
        "dice": [1, 2, 3],
        "total": 6,
        "target": None,
        "outcome": None,
        "margin": None,
        "source": "manual",
        "reason": None,
        "detail": {},
        "ops": [],
        "voidable": True,
        **(record or {}),
    }
    text = canonical_json(entry)
    values = {
        "campaign_id": campaign_id,
        **{name: entry.get(name) for name in INDEXED_FIELDS},
        "record": text,
        "prev_hash": prev,
        "hash": chain_hash(prev, text),
    }
    return {**values, **(row or {})}


def insert(conn: Any, values: dict[str, Any]) -> None:
    conn.execute(
        _sql(conn, f"INSERT INTO ledger ({', '.join(COLUMNS)}) VALUES ({', '.join('?' for _ in COLUMNS)})"),
        tuple(values[name] for name in COLUMNS),
    )


def append_forged(conn: Any, **changes: Any) -> dict[str, Any]:
    """Insert one forged row (and commit, on a connection that does not autocommit)."""
    values = forged_row(conn, **changes)
    insert(conn, values)
    conn.commit()
    return values

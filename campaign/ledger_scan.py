"""The rules for a stored ledger row, and the fast way to apply them to a range of rows.

A stored row holds the hashed record (text), its hash, the previous entry's hash and,
for the history filters' indexes, copies of a few record fields (INDEXED_FIELDS).
`row_problem` is the exact rule for one row: the chain's (campaign.chain.Walk), then each
indexed column against the record as json.loads reads it.

`scan` proves a range of rows by the same rules at a fraction of their cost, for
`history verify` on SQLite: one pass through the raw cursor, SHA-256 over the stored bytes,
and msgspec decoding only the record fields the columns copy (it still checks the whole
text is JSON, several times faster than json.loads or SQLite's JSON functions). A row
the fast reading cannot vouch for (a value msgspec refuses such as NaN, a column that
differs) is judged by `row_problem`; the scan stops at the first row that fails, or at a
gap or a row out of order, and leaves the naming of the problem to the exact rules. So
the fast path can make verify faster but never changes its answer.
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass
from typing import Any, NamedTuple

from campaign.chain import Walk

# Columns kept beside the record for indexing; verify checks each against the record.
INDEXED_FIELDS = ("seq", "at", "actor", "kind", "character", "scenario", "outcome", "parent_seq", "voids_seq")
BATCH = 2048  # rows per fetch


def row_problem(walk: Walk, row: Any) -> str | None:
    """The exact rules for one stored row at walk.seq (row: seq, prev_hash, record, hash
    and the indexed columns as attributes); None when it holds."""
    if row.seq != walk.seq:
        if row.seq > walk.seq:
            return f"entry {walk.seq} is missing (next stored entry is {row.seq})"
        return f"entry {row.seq} is out of order (expected {walk.seq})"
    problem = walk.link_problem(row.prev_hash, row.record, row.hash)
    if problem:
        return problem
    record, problem = walk.record_problem(row.record)
    if problem:
        return problem
    for name in INDEXED_FIELDS:
        if record.get(name) != getattr(row, name):
            return f"column {name!r} differs from the hashed record"
    return None


class StoredRow(NamedTuple):
    """One row as `scan` fetched it, in the shape `row_problem` reads."""

    seq: Any
    prev_hash: Any
    hash: Any
    record: Any
    at: Any
    actor: Any
    kind: Any
    character: Any
    scenario: Any
    outcome: Any
    parent_seq: Any
    voids_seq: Any


@dataclass
class Scanned:
    """How far a scan of lo..hi got: every row before next_seq is proven, ending at
    `last_hash`."""

    lo: int
    next_seq: int
    last_hash: str
    head_seen: bool = False
    last_seal_seq: int | None = None


def _indexed_reader():
    """(decode, render, refused). decode reads just the record fields the row's columns
    copy (the rest of the text is still checked to be JSON, and skipped), as json.loads
    would read them, but only with the types a writer gives them; render turns what it
    read into the JSON that STORED makes of the row's columns."""
    import msgspec

    class Indexed(msgspec.Struct):  # in STORED's order
        campaign: str | None = None
        seq: int | None = None
        at: str | None = None
        actor: str | None = None
        kind: str | None = None
        character: str | None = None
        scenario: int | None = None
        outcome: str | None = None
        parent_seq: int | None = None
        voids_seq: int | None = None

    encode, astuple = msgspec.json.Encoder().encode, msgspec.structs.astuple
    return msgspec.json.Decoder(Indexed).decode, lambda got: encode(astuple(got)), (msgspec.DecodeError, TypeError)


# The campaign's name and a row's indexed columns as SQLite renders them in JSON, to
# compare with the record's values rendered by msgspec. Equal text means equal values:
# the record side holds only ints, strings and nulls (the decoder's types), a REAL
# column always renders with a decimal point or an exponent, and two JSON texts that
# are the same decode to the same value. A BLOB column makes the statement fail (the
# scan stops there and the exact rules take over).
STORED = "CAST(json_array(:name, %s) AS BLOB)" % ", ".join(INDEXED_FIELDS)


def _source(conn: sqlite3.Connection, campaign_id: int, lo: int, hi: int) -> str:
    """Rows went in in seq order, so when the range's rows sit close together the scan
    follows rowid order (a plain table scan, no lookup through the primary key per row);
    a row out of that order stops the scan, and the exact rules take over."""
    ends = [conn.execute("SELECT rowid FROM ledger WHERE campaign_id = ? AND seq = ?", (campaign_id, seq)).fetchone()
            for seq in (lo, hi)]
    if ends[0] and ends[1] and ends[0][0] <= ends[1][0] and ends[1][0] - ends[0][0] + 1 <= 2 * (hi - lo + 1):
        return "ledger NOT INDEXED WHERE rowid BETWEEN %d AND %d AND campaign_id = :c ORDER BY rowid" % (
            ends[0][0], ends[1][0])
    return "ledger WHERE campaign_id = :c AND seq BETWEEN :lo AND :hi ORDER BY seq"


def scan(conn: sqlite3.Connection, campaign_id: int, name: str, lo: int, hi: int, prev: str,
         head: str | None, progress=None) -> Scanned:
    """Prove rows lo..hi of the campaign's chain, hanging from `prev`; stop at the first
    row that does not hold."""
    result = Scanned(lo, lo, prev)
    decode, render, refused = _indexed_reader()
    sha256 = hashlib.sha256
    expected, link = lo, prev  # the next seq and the hash it must hang from
    # A record stored as anything but text gives no payload, so its row is judged exactly.
    # The source ends at row hi, so a row past it can only come out of order (and fail).
    cursor = conn.execute(
        "SELECT rowid, prev_hash, hash, CASE WHEN typeof(record) = 'text' THEN CAST(prev_hash || record AS BLOB) END, "
        f"{STORED} FROM " + _source(conn, campaign_id, lo, hi), {"c": campaign_id, "lo": lo, "hi": hi, "name": name})
    try:
        while rows := cursor.fetchmany(BATCH):
            first = expected
            for rowid, prev_hash, digest, payload, stored in rows:
                if prev_hash != link:
                    break
                try:
                    fast = sha256(payload).hexdigest() == digest
                    got = decode(memoryview(payload)[len(link):])
                    fast = fast and got.seq == expected and render(got) == stored
                except refused:
                    fast = False
                if fast:
                    seal = got.kind == "seal"
                else:
                    row = _stored_row(conn, rowid)
                    if row is None or row_problem(Walk(name, expected, link), row) is not None:
                        break
                    seal = row.kind == "seal"
                if digest == head:
                    result.head_seen = True
                if seal:
                    result.last_seal_seq = expected
                expected, link = expected + 1, digest
            if progress is not None and expected > first:
                progress(expected - first)
            if expected - first < len(rows):
                break
    except sqlite3.Error:
        pass  # a column SQLite cannot render: the exact rules, from the row it stopped at
    finally:
        cursor.close()
    result.next_seq, result.last_hash = expected, link
    return result


def _stored_row(conn: sqlite3.Connection, rowid: int) -> StoredRow | None:
    """A row read again for the exact rules (rare: one the fast reading could not vouch for)."""
    try:
        row = conn.execute("SELECT seq, prev_hash, hash, record, " + ", ".join(INDEXED_FIELDS[1:]) +
                           " FROM ledger WHERE rowid = ?", (rowid,)).fetchone()
    except sqlite3.Error:  # e.g. a record that is not UTF-8
        return None
    return None if row is None else StoredRow(*row)

"""The rules for a stored ledger row, and the fast way to apply them to a range of rows.

A stored row holds the hashed record (text), its hash, the previous entry's hash and,
for the history filters' indexes, copies of a few record fields (INDEXED_FIELDS).
`row_problem` is the exact rule for one row: the chain's (campaign.chain.Walk), the
record rule (`record_text_problem`: exactly canonical JSON, valid UTF-8, no lone
surrogates, shallow; import applies the same function to every line), then each indexed
column against the record as json.loads reads it.

`scan` proves a range of rows by the same rules at a fraction of their cost, for
`history verify` on SQLite: one pass through the raw cursor, SHA-256 over the stored bytes,
and msgspec reading the record (by its kind's shape in campaign.ledger_shapes when it has
one, which builds no dict per object) and writing it back with sorted keys, which must
give the stored bytes again (the record rule, several times faster than json.loads and
json.dumps), then comparing the fields the columns copy. A row the fast reading cannot
vouch for (bytes msgspec refuses, a float, a column that differs) is judged by
`row_problem`; the scan stops at the first row that fails, or at a gap or a row out of
order, and leaves the naming of the problem to the exact rules. So the fast path can
make verify faster but never changes its answer.

"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NamedTuple

from campaign.chain import Broken, Walk, canonical_json, strict_loads
from campaign.read_limits import JSON_DEPTH, json_too_deep

# Columns kept beside the record for indexing; verify checks each against the record.
INDEXED_FIELDS = ("seq", "at", "actor", "kind", "character", "scenario", "outcome", "parent_seq", "voids_seq")
BATCH = 2048  # rows per fetch


_SURROGATE = re.compile("[\ud800-\udfff]")
LONE_SURROGATE = "record holds a lone surrogate (a \\ud800-style escape: not text UTF-8 can carry)"


def record_text_problem(text: Any) -> str | None:
    """The one rule for a record's text, wherever a record is read (a stored row in
    `history verify`, fast path or exact; an export line in `import`): None when `text`
    is exactly the canonical JSON of its own value, else why not.

    Canonical is campaign.chain.canonical_json, the encoding every record is written
    in: sorted keys, no spaces, characters as UTF-8 (not escaped), only the escapes
    json.dumps makes. So the text of a value is unique, and it is valid UTF-8: a lone
    surrogate (raw, or as a `\\ud800` escape) can never be canonical, since no UTF-8 can
    carry it and a canonical text holds characters, not escapes. Also refused on the way:
    a key twice in one object, NaN or Infinity, and nesting deeper than
    read_limits.JSON_DEPTH (measured before parsing, so never a RecursionError)."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            return "record is not valid UTF-8"
    if not isinstance(text, str):
        return "record is not text"
    if _SURROGATE.search(text):
        return LONE_SURROGATE
    if json_too_deep(text):
        return f"record nests JSON more than {JSON_DEPTH} levels deep"
    try:
        value = strict_loads(text)
    except Broken as exc:
        return f"record: {exc.reason}"
    except ValueError:
        return "record is not valid JSON"
    canonical = canonical_json(value)
    if canonical != text:
        if _SURROGATE.search(canonical):  # an escape decoded to half a character
            return LONE_SURROGATE
        return "record is not in canonical JSON (sorted keys, no spaces, UTF-8)"
    return None


def row_problem(walk: Walk, row: Any) -> str | None:
    """The exact rules for one stored row at walk.seq (row: seq, prev_hash, record, hash
    and the indexed columns as attributes); None when it holds."""
    if row.seq != walk.seq:
        if row.seq > walk.seq:
            return f"entry {walk.seq} is missing (next stored entry is {row.seq})"
        return f"entry {row.seq} is out of order (expected {walk.seq})"
    if isinstance(row.record, bytes):  # stored bytes that are not UTF-8 (see text_as_stored), or a BLOB
        return record_text_problem(row.record) or "record is not text"
    problem = walk.link_problem(row.prev_hash, row.record, row.hash) or record_text_problem(row.record)
    if problem:
        return problem
    record, problem = walk.record_problem(row.record)
    if problem:
        return problem
    assert record is not None  # no problem: the record
    for name in INDEXED_FIELDS:
        if record.get(name) != getattr(row, name):
            return f"column {name!r} differs from the hashed record"
    return None


def _text_or_bytes(data: bytes) -> str | bytes:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


@contextmanager
def text_as_stored(session: Any) -> Iterator[None]:
    """SQLite keeps whatever bytes a TEXT column was given, and its driver raises on the
    first row that is not UTF-8, mid-batch, losing the rows before it. Inside this block
    (a Session on SQLite; anything else is left alone) such a value reads as the bytes it
    is, so the exact rules can name its row ("record is not valid UTF-8")."""
    bind = session.get_bind()
    if bind.dialect.name != "sqlite":
        yield
        return
    raw = session.connection().connection.dbapi_connection
    previous = raw.text_factory
    raw.text_factory = _text_or_bytes
    try:
        yield
    finally:
        raw.text_factory = previous


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


def _no_float(text: str) -> float:
    raise ValueError("a float: the exact rules judge it")  # msgspec spells some floats unlike json.dumps


def _fast_reader() -> tuple[
    Callable[[bytes], Any], Callable[[Any], bytes], Callable[[Any], bytes], tuple[type[Exception], ...]
]:
    """(decode, encode, render, refused) for the fast reading of a record's bytes.

    The record rule: msgspec reads the bytes as a record written by ledger.append (every
    field, with the types append gives them; anything else is refused and left to the
    exact rules, old records included), refusing text that is not UTF-8, lone surrogate
    escapes and anything json.loads would not read; `encode` writes it back, fields and
    keys in sorted order, which must give the same bytes. For strings, integers,
    booleans and nulls msgspec writes exactly what canonical_json writes
    (tests/unit/test_fast_record_rule.py holds it to that); a float, which it may spell
    differently, is refused, and so is a record with more brackets than
    read_limits.JSON_DEPTH (the caller counts them). `render` gives the JSON text of the
    campaign and the fields the row's columns copy (the scan compares those values with
    the columns directly). The scan tries its kind's shape (campaign.ledger_shapes) first."""
    from operator import attrgetter

    import msgspec

    class Record(msgspec.Struct, forbid_unknown_fields=True):  # every field, in sorted order
        actor: str
        at: str
        campaign: str
        character: str | None
        detail: Any
        dice: Any
        expression: str | None
        kind: str
        margin: int | None
        ops: Any
        outcome: str | None
        parent_seq: int | None
        reason: str | None
        scenario: int | None
        seq: int
        source: str | None
        target: int | None
        total: int | None
        voidable: bool
        voids_seq: int | None

    plain, indexed = msgspec.json.Encoder().encode, attrgetter("campaign", *INDEXED_FIELDS)
    return (
        msgspec.json.Decoder(Record, float_hook=_no_float).decode,
        msgspec.json.Encoder(order="sorted").encode,
        lambda record: plain(indexed(record)),
        (msgspec.DecodeError, TypeError, ValueError),
    )


def _source(conn: sqlite3.Connection, campaign_id: int, lo: int, hi: int) -> str:
    """Rows went in in seq order, so when the range's rows sit close together the scan
    follows rowid order (a plain table scan, no lookup through the primary key per row);
    a row out of that order stops the scan, and the exact rules take over."""
    ends = [
        conn.execute("SELECT rowid FROM ledger WHERE campaign_id = ? AND seq = ?", (campaign_id, seq)).fetchone()
        for seq in (lo, hi)
    ]
    if ends[0] and ends[1] and ends[0][0] <= ends[1][0] and ends[1][0] - ends[0][0] + 1 <= 2 * (hi - lo + 1):
        return "ledger NOT INDEXED WHERE rowid BETWEEN %d AND %d AND campaign_id = :c ORDER BY rowid" % (
            ends[0][0],
            ends[1][0],
        )
    return "ledger WHERE campaign_id = :c AND seq BETWEEN :lo AND :hi ORDER BY seq"


def scan(  # noqa: C901 - the hot loop of `history verify` (docs/performance.md): a call per step costs time per entry
    conn: sqlite3.Connection,
    campaign_id: int,
    name: str,
    lo: int,
    hi: int,
    prev: str,
    head: str | None,
    progress: Callable[[int], None] | None = None,
) -> Scanned:
    """Prove rows lo..hi of the campaign's chain, hanging from `prev`; stop at the first
    row that does not hold.

    Per row: the link, SHA-256 over the stored bytes, then the record read by its kind's
    shape (campaign.ledger_shapes: the engine's rolls and passed fright checks, read
    without a dict per object and nested too little to need the bracket count) or else by
    the generic reader (after the bracket count), written back, which must give the
    stored bytes again; then the campaign, the seq and the indexed columns compared with
    the record's values as the exact rule compares them (Python equality of the values
    json.loads would give, which msgspec's are)."""
    from operator import attrgetter

    from campaign.ledger_shapes import readers

    result = Scanned(lo, lo, prev)
    decode, encode, _, refused = _fast_reader()
    shaped, indexed = readers(), attrgetter(*INDEXED_FIELDS)
    sha256 = hashlib.sha256
    expected, link = lo, prev  # the next seq and the hash it must hang from
    # A record stored as anything but text gives no payload, so its row is judged exactly.
    # The source ends at row hi, so a row past it can only come out of order (and fail).
    cursor = conn.execute(
        "SELECT rowid, prev_hash, hash, CASE WHEN typeof(record) = 'text' THEN CAST(prev_hash || record AS BLOB) END, "
        + ", ".join(INDEXED_FIELDS)
        + " FROM "
        + _source(conn, campaign_id, lo, hi),
        {"c": campaign_id, "lo": lo, "hi": hi},
    )
    try:
        while rows := cursor.fetchmany(BATCH):
            first = expected
            for row in rows:
                rowid, prev_hash, digest, payload = row[:4]
                if prev_hash != link:
                    break
                try:
                    fast = sha256(payload).hexdigest() == digest
                    if fast:
                        body = payload[len(link) :]  # a copy: comparing a memoryview costs more
                        got: Any = None  # a decoded record: a shape's struct or the generic Record
                        reader = shaped.get(row[7])  # the kind column picks a shape; the record must agree
                        if reader is not None:
                            try:
                                got = reader(body)
                            except refused:
                                got = None
                        if got is None:
                            fast = payload.count(b"[") + payload.count(b"{") <= JSON_DEPTH
                            if fast:
                                got = decode(body)
                        fast = (
                            fast
                            and got.seq == expected
                            and got.campaign == name
                            and encode(got) == body
                            and indexed(got) == row[4:]
                        )
                except refused:
                    fast = False
                if fast:
                    seal = got.kind == "seal"
                else:
                    stored = _stored_row(conn, rowid)
                    if stored is None or row_problem(Walk(name, expected, link), stored) is not None:
                        break
                    seal = stored.kind == "seal"
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
        pass  # a value SQLite cannot read out: the exact rules, from the row it stopped at
    finally:
        cursor.close()
    result.next_seq, result.last_hash = expected, link
    return result


def _stored_row(conn: sqlite3.Connection, rowid: int) -> StoredRow | None:
    """A row read again for the exact rules (rare: one the fast reading could not vouch for)."""
    previous = conn.text_factory
    conn.text_factory = _text_or_bytes  # a record that is not UTF-8 reads as its bytes (and fails)
    try:
        row = conn.execute(
            "SELECT seq, prev_hash, hash, record, " + ", ".join(INDEXED_FIELDS[1:]) + " FROM ledger WHERE rowid = ?",
            (rowid,),
        ).fetchone()
    except sqlite3.Error:
        return None
    finally:
        conn.text_factory = previous
    return None if row is None else StoredRow(*row)

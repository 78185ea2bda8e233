"""The append-only, hash-chained roll ledger.

Each campaign has one chain. An entry's hash is SHA-256 over the previous entry's hash
followed by the entry's canonical JSON, so changing, removing or reordering anything
breaks every later link. The database refuses UPDATE and DELETE (migration triggers);
the chain catches what a determined editor with the triggers dropped could still do.

Only services call this module, inside the transaction that also changes state, so an
entry exists exactly when its effects do.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from campaign.chain import GENESIS_HASH, Walk, canonical_json, chain_hash  # noqa: F401 (re-exported)
from campaign.db.models import Campaign, LedgerEntry

# Columns kept beside the record for indexing; verify checks each against the record.
INDEXED_FIELDS = ("seq", "at", "actor", "kind", "character", "scenario", "outcome", "parent_seq", "voids_seq")


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True)
class NewEntry:
    """What a service wants recorded; seq, time and hashes are filled in by append()."""

    kind: str
    character: str | None = None
    scenario: int | None = None
    parent_seq: int | None = None
    voids_seq: int | None = None
    expression: str | None = None
    dice: list[int] | None = None
    total: int | None = None
    target: int | None = None
    outcome: str | None = None
    margin: int | None = None
    source: str | None = None
    reason: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    # The state changes the entry makes (campaign.projection.ops, as JSON) and whether
    # `history void` may take it back; None means "a top-level entry may, a sub-entry not".
    ops: list[dict[str, Any]] = field(default_factory=list)
    voidable: bool | None = None


@dataclass(frozen=True)
class Appended:
    seq: int
    hash: str
    prev_hash: str
    record: dict[str, Any]


def lock_campaign(session: Session, campaign_id: int) -> None:
    """Serialize writers of one campaign.

    PostgreSQL: a row lock on the campaign. SQLite: the write transaction already began
    with BEGIN IMMEDIATE (see db.engine), which holds the database's single write lock.
    """
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(Campaign.id).where(Campaign.id == campaign_id).with_for_update())


# The two queries of every append, as plain SQL: compiling them through the ORM would
# cost more than running them, in a process that appends once.
_HEAD = text("SELECT seq, hash FROM ledger WHERE campaign_id = :c ORDER BY seq DESC LIMIT 1")
_OPEN_SCENARIO = text(
    "SELECT number FROM scenarios WHERE campaign_id = :c AND ended_seq IS NULL ORDER BY number DESC LIMIT 1"
)


# One statement object for every append, values as parameters: building `.values(...)`
# anew costs more than the INSERT itself once a process appends many times (the shell).
_INSERT = LedgerEntry.__table__.insert()


def head(session: Session, campaign_id: int) -> tuple[int, str]:
    row = session.execute(_HEAD, {"c": campaign_id}).first()
    return (row.seq, row.hash) if row else (0, GENESIS_HASH)


def open_scenario_number(session: Session, campaign_id: int) -> int | None:
    """The scenario being played, if any: entries made during it are tagged with it,
    so `history --scenario 12` finds every roll of scenario 12."""
    return session.execute(_OPEN_SCENARIO, {"c": campaign_id}).scalar()


def next_seq(session: Session, campaign_id: int) -> int:
    """The seq the next append will get: lets a service key its state changes to the
    entry that records them before writing it (see services.effects)."""
    return head(session, campaign_id)[0] + 1


def append(
    session: Session, campaign: Campaign, actor: str, entry: NewEntry, *, expect_seq: int | None = None,
    at: str | None = None,
) -> Appended:
    """Add one entry to the campaign's chain in the caller's transaction.

    The caller must have called lock_campaign() in this transaction first.
    """
    session.flush()
    last_seq, prev_hash = head(session, campaign.id)
    if expect_seq is not None and expect_seq != last_seq + 1:
        raise RuntimeError(f"ledger head moved: expected to write seq {expect_seq}, head is {last_seq}")
    # The actor is who typed the command; detail.on_behalf_of, for whom: the GM acting for
    # a player in group mode (services.group.OnBehalf), or what a service names itself
    # (the missing character's player for a reunion roll), which wins.
    behalf = getattr(actor, "on_behalf_of", None)
    detail = {"on_behalf_of": behalf, **entry.detail} if behalf else entry.detail
    record = {
        "campaign": campaign.ledger_name,
        "seq": last_seq + 1,
        "at": at or utc_now(),
        "actor": str(actor),
        "kind": entry.kind,
        "character": entry.character,
        "scenario": entry.scenario if entry.scenario is not None else open_scenario_number(session, campaign.id),
        "parent_seq": entry.parent_seq,
        "voids_seq": entry.voids_seq,
        "expression": entry.expression,
        "dice": list(entry.dice) if entry.dice is not None else None,
        "total": entry.total,
        "target": entry.target,
        "outcome": entry.outcome,
        "margin": entry.margin,
        "source": entry.source,
        "reason": entry.reason,
        "detail": detail,
        "ops": entry.ops,
        "voidable": entry.voidable if entry.voidable is not None else entry.parent_seq is None,
    }
    record_json = canonical_json(record)
    digest = chain_hash(prev_hash, record_json)
    session.execute(
        _INSERT,
        {"campaign_id": campaign.id, "record": record_json, "prev_hash": prev_hash, "hash": digest,
         **{name: record[name] for name in INDEXED_FIELDS}},
    )
    return Appended(seq=record["seq"], hash=digest, prev_hash=prev_hash, record=record)


@dataclass(frozen=True)
class VerifyReport:
    ok: bool
    entries: int
    head_hash: str
    bad_seq: int | None = None
    reason: str | None = None


def iter_chain(session: Session, campaign_id: int, batch: int = 5000, from_seq: int | None = None) -> Iterator[Any]:
    """Stream the chain in seq order without holding it in memory (Core rows, not ORM objects)."""
    table = LedgerEntry.__table__
    query = select(table).where(table.c.campaign_id == campaign_id)
    if from_seq is not None:
        query = query.where(table.c.seq >= from_seq)
    yield from session.execute(query.order_by(table.c.seq).execution_options(yield_per=batch))


def _row_problem(walk: Walk, row) -> str | None:
    """The exact rules for one stored row at walk.seq: the chain's (campaign.chain), then
    the indexed columns against the hashed record."""
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


@dataclass
class _Progress:
    """Where a verification stands: everything before walk.seq has been proven."""

    walk: Walk
    head_hash: str | None
    head_seen: bool = False
    last_seal_seq: int | None = None

    def failed(self, row_seq: int, problem: str) -> VerifyReport:
        walk = self.walk
        return VerifyReport(False, walk.seq - 1, walk.prev_hash, min(row_seq, walk.seq), problem)

    def passed(self, seq: int, digest: str, kind_is_seal: bool) -> None:
        if digest == self.head_hash:
            self.head_seen = True
        if kind_is_seal:
            self.last_seal_seq = seq
        self.walk.advance(digest)


def _check_rows(session: Session, state: _Progress, campaign_id: int, progress=None) -> VerifyReport | None:
    """The exact rules, row by row in seq order, from state.walk.seq to the end."""
    walk = state.walk
    for row in iter_chain(session, campaign_id, from_seq=walk.seq if walk.seq > 1 else None):
        problem = _row_problem(walk, row)
        if problem:
            return state.failed(row.seq, problem)
        state.passed(row.seq, row.hash, row.kind == "seal")
        if progress is not None:
            progress(1)
    return None


BATCH = 2048  # rows per fetch of the fast scan
RANGE = 1 << 14  # entries per statement of the column check


def _differs_sql() -> str:
    """True when a row's indexed columns may not equal its record's values.

    SQLite renders both sides as JSON (the record's values as spelled in the record, the
    columns as it writes them), so equal text means equal values; it reads each record in
    C, several times faster than json.loads. A REAL column renders with a decimal point,
    never like the integer a writer records; a BLOB or malformed JSON makes the statement
    fail. Only ever a hint: a flagged row is judged by the exact rules (_row_problem).
    """
    paths = ", ".join(f"'$.{name}'" for name in (*INDEXED_FIELDS, "campaign"))
    return f"json_extract(record, {paths}) IS NOT json_array({', '.join((*INDEXED_FIELDS, ':name'))})"


class _ColumnCheck:
    """The columns-against-record half of the fast path, range by range.

    A thread of this process runs the ranges from the first on while the scan hashes;
    each statement runs inside SQLite without the GIL, so the two use two cores. When the
    scan is done it takes the remaining ranges from the last one down, so the two meet
    wherever the load on either core lets them. No second process, no protocol: a shared
    list under a lock.
    """

    def __init__(self, campaign: Campaign, last: int) -> None:
        import threading

        self.params = {"c": campaign.id, "name": campaign.ledger_name}
        self.ranges = [(lo, min(lo + RANGE - 1, last)) for lo in range(1, last + 1, RANGE)]
        self.lock = threading.Lock()
        self.flagged: list[int] = []
        self.error = False
        self.limit = last  # seqs above this need no check (the scan stopped before them)
        self.thread = None
        self.sql = f"SELECT seq FROM ledger WHERE campaign_id = :c AND seq BETWEEN :lo AND :hi AND {_differs_sql()}"

    def _take(self, from_start: bool) -> tuple[int, int] | None:
        with self.lock:
            while self.ranges and not self.error:
                lo, hi = self.ranges.pop(0) if from_start else self.ranges.pop()
                if lo <= self.limit:
                    return lo, hi
            return None

    def run(self, conn, from_start: bool) -> None:
        import sqlite3

        while (taken := self._take(from_start)) is not None:
            try:
                found = [seq for (seq,) in conn.execute(self.sql, {**self.params, "lo": taken[0], "hi": taken[1]})]
            except sqlite3.Error:
                self.error = True
                return
            with self.lock:
                self.flagged.extend(found)

    def start(self, path: str | None) -> None:
        """Run from the first range on in a thread with its own read-only connection."""
        import os
        import threading

        if not path or path == ":memory:" or (os.cpu_count() or 1) < 2 or len(self.ranges) < 2:
            return

        def work() -> None:
            import sqlite3
            from pathlib import Path

            try:
                conn = sqlite3.connect(Path(path).absolute().as_uri() + "?mode=ro", uri=True, timeout=60)
            except sqlite3.Error:
                return  # this process does every range itself
            try:
                self.run(conn, from_start=True)
            finally:
                conn.close()

        self.thread = threading.Thread(target=work, name="verify-columns", daemon=True)
        self.thread.start()

    def finish(self, conn) -> None:
        self.run(conn, from_start=False)
        if self.thread is not None:
            self.thread.join()


def _scan_query(raw, campaign_id: int, count: int, last: int) -> str:
    """Each row's seq, link, the bytes its hash covers and whether it is a seal.

    Rows went in in seq order, so when the campaign's rows sit close together the scan
    follows rowid order (a plain table scan, no lookup through the primary key per row);
    a row out of that order makes the scan hand over to the exact rules.
    """
    select_list = "SELECT seq, prev_hash, hash, CAST(prev_hash || record AS BLOB), kind = 'seal' "
    ends = [raw.execute("SELECT rowid FROM ledger WHERE campaign_id = ? AND seq = ?", (campaign_id, seq)).fetchone()
            for seq in (1, last)]
    if ends[0] and ends[1] and ends[0][0] <= ends[1][0] and ends[1][0] - ends[0][0] + 1 <= 2 * count:
        return (select_list + "FROM ledger NOT INDEXED WHERE rowid BETWEEN %d AND %d AND campaign_id = :c "
                "ORDER BY rowid" % (ends[0][0], ends[1][0]))
    return select_list + "FROM ledger WHERE campaign_id = :c ORDER BY seq"


def _scan(raw, campaign: Campaign, state: _Progress, count: int, last: int, progress=None) -> None:
    """Seq, link and SHA-256 of every row, in batches through the raw cursor, hashing the
    stored bytes with hashlib; stops (walk.seq left at the row) at the first that fails."""
    import sqlite3

    walk, sha256, head = state.walk, hashlib.sha256, state.head_hash
    cursor = None
    try:
        cursor = raw.execute(_scan_query(raw, campaign.id, count, last), {"c": campaign.id})
        while rows := cursor.fetchmany(BATCH):
            done = 0
            for seq, prev_hash, digest, payload, seal in rows:
                if seq != walk.seq or prev_hash != walk.prev_hash or sha256(payload).hexdigest() != digest:
                    break
                if digest == head:
                    state.head_seen = True
                if seal:
                    state.last_seal_seq = seq
                walk.prev_hash = digest
                walk.seq += 1
                done += 1
            if progress is not None and done:
                progress(done)
            if done < len(rows):
                return
    except (sqlite3.Error, TypeError, ValueError):
        return  # the exact rules name what is wrong
    finally:
        if cursor is not None:
            cursor.close()


def _check_sqlite(session: Session, campaign: Campaign, state: _Progress, progress=None) -> VerifyReport | None:
    """The same rules, faster, for SQLite, in one process.

    The scan checks every row's seq, link and hash; the column check (_ColumnCheck, on
    the second core) lists the rows whose columns may differ from their record, and the
    exact rules judge each of those. Anything unexpected (a row out of order, a broken
    link, a failed statement) hands the rest of the chain to _check_rows, which names the
    seq and the reason, so the answer is always the one _check_rows alone gives. (One
    reading could differ: a record with a key given twice, where SQLite takes the first
    occurrence and Python the last; no writer produces one, and forging one means
    rewriting the chain after it, which `verify --head` exposes.)
    """
    raw = session.connection().connection.dbapi_connection
    first, last, count = raw.execute("SELECT min(seq), max(seq), count(*) FROM ledger WHERE campaign_id = ?",
                                     (campaign.id,)).fetchone()
    if first != 1 or last != count:  # empty, a gap or a stray seq: the exact rules say what is wrong
        return _check_rows(session, state, campaign.id, progress)
    columns = _ColumnCheck(campaign, last)
    columns.start(session.get_bind().url.database)
    walk = state.walk
    try:
        _scan(raw, campaign, state, count, last, progress)
    finally:
        columns.limit = walk.seq - 1 if walk.seq <= last else last
        columns.finish(raw)
    if columns.error:  # a BLOB or malformed JSON somewhere: the exact rules, from the start
        state.walk, state.head_seen, state.last_seal_seq = Walk(campaign.ledger_name), state.head_hash is None, None
        return _check_rows(session, state, campaign.id, progress=None)
    table = LedgerEntry.__table__
    for seq in sorted(columns.flagged):
        if seq >= walk.seq:
            break
        row = session.execute(select(table).where(table.c.campaign_id == campaign.id, table.c.seq == seq)).one()
        problem = _row_problem(Walk(campaign.ledger_name, seq, row.prev_hash), row)
        if problem:
            return VerifyReport(False, seq - 1, row.prev_hash, seq, problem)
    if walk.seq == last + 1:
        return None
    return _check_rows(session, state, campaign.id, progress)


def verify(session: Session, campaign: Campaign, head_hash: str | None = None, progress=None) -> VerifyReport:
    """Recompute the chain; report the first bad seq and why.

    With head_hash (printed by an earlier `history seal`), also prove that the chain
    still contains that head: a rewritten-and-rehashed or truncated history lacks it.
    """
    state = _Progress(Walk(campaign.ledger_name), head_hash, head_seen=head_hash is None)
    if session.get_bind().dialect.name == "sqlite":
        failed = _check_sqlite(session, campaign, state, progress)
    else:
        failed = _check_rows(session, state, campaign.id, progress)
    if failed is not None:
        return failed
    count, prev_hash = state.walk.seq - 1, state.walk.prev_hash
    if not state.head_seen:
        if state.last_seal_seq is not None:
            return VerifyReport(
                False, count, prev_hash, state.last_seal_seq,
                "the sealed head is not in the chain: history up to this seal was rewritten",
            )
        return VerifyReport(
            False, count, prev_hash, count + 1,
            "the sealed head is not in the chain: entries from here on were removed",
        )
    return VerifyReport(True, count, prev_hash)


def entry_count(session: Session, campaign_id: int) -> int:
    return session.execute(
        text("SELECT count(*) FROM ledger WHERE campaign_id = :c"), {"c": campaign_id}
    ).scalar_one()

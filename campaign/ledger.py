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
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from campaign.db.models import Campaign, LedgerEntry

GENESIS_HASH = "0" * 64
# Columns kept beside the record for indexing; verify checks each against the record.
INDEXED_FIELDS = ("seq", "at", "actor", "kind", "character", "scenario", "outcome", "parent_seq", "voids_seq")


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, UTF-8 text: one spelling per value, so hashes are stable."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chain_hash(prev_hash: str, record_json: str) -> str:
    return hashlib.sha256((prev_hash + record_json).encode("utf-8")).hexdigest()


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
    # The GM acting for a player in group mode (services.group.OnBehalf) is recorded as the GM.
    behalf = getattr(actor, "on_behalf_of", None)
    detail = {**entry.detail, "on_behalf_of": behalf} if behalf else entry.detail
    record = {
        "campaign": campaign.name,
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


def _row_problem(row, campaign_name: str, expected_seq: int, prev_hash: str) -> str | None:
    if row.seq != expected_seq:
        if row.seq > expected_seq:
            return f"entry {expected_seq} is missing (next stored entry is {row.seq})"
        return f"entry {row.seq} is out of order (expected {expected_seq})"
    if row.prev_hash != prev_hash:
        return "prev_hash does not link to the previous entry"
    if chain_hash(row.prev_hash, row.record) != row.hash:
        return "hash does not match the entry's content (the entry was edited)"
    try:
        record = json.loads(row.record)
    except ValueError:
        return "record is not valid JSON"
    if not isinstance(record, dict) or record.get("campaign") != campaign_name:
        return "record belongs to another campaign"
    for name in INDEXED_FIELDS:
        if record.get(name) != getattr(row, name):
            return f"column {name!r} differs from the hashed record"
    return None


def iter_chain(session: Session, campaign_id: int, batch: int = 5000, from_seq: int | None = None) -> Iterator[Any]:
    """Stream the chain in seq order without holding it in memory (Core rows, not ORM objects)."""
    table = LedgerEntry.__table__
    query = select(table).where(table.c.campaign_id == campaign_id)
    if from_seq is not None:
        query = query.where(table.c.seq >= from_seq)
    yield from session.execute(query.order_by(table.c.seq).execution_options(yield_per=batch))


@dataclass
class _Progress:
    """Where a verification stands: everything before expected_seq has been proven."""

    head_hash: str | None
    expected_seq: int = 1
    prev_hash: str = GENESIS_HASH
    head_seen: bool = False
    last_seal_seq: int | None = None

    def failed(self, row, problem: str) -> VerifyReport:
        return VerifyReport(False, self.expected_seq - 1, self.prev_hash, min(row.seq, self.expected_seq), problem)


def _check_rows(session: Session, campaign: Campaign, state: _Progress, until: int | None = None,
                progress=None) -> VerifyReport | None:
    """The exact rules, row by row, from state.expected_seq on (through `until`, if given)."""
    for row in iter_chain(session, campaign.id, from_seq=state.expected_seq if state.expected_seq > 1 else None):
        problem = _row_problem(row, campaign.name, state.expected_seq, state.prev_hash)
        if problem:
            return state.failed(row, problem)
        if row.hash == state.head_hash:
            state.head_seen = True
        if row.kind == "seal":
            state.last_seal_seq = row.seq
        state.prev_hash = row.hash
        state.expected_seq += 1
        if progress is not None:
            progress(1)
        if until is not None and row.seq >= until:
            break
    return None


# Below this many entries a second process costs more than it saves.
PARALLEL_MIN_ENTRIES = 100_000


def _check_ranges_sqlite(session: Session, campaign: Campaign, state: _Progress, progress=None) -> VerifyReport | None:
    """The fast path (campaign.chaincheck): ranges of the chain checked inside SQLite, from
    the first on here and from the last on by a helper process on another core, for long
    chains. A range that is not clean is re-checked row by row with the exact rules, so
    the answer is always the one _check_rows alone would give."""
    from campaign import chaincheck

    conn = session.connection()
    first, last = conn.execute(
        text("SELECT min(seq), max(seq) FROM ledger WHERE campaign_id = :c"), {"c": campaign.id}
    ).one()
    if first != 1:  # empty, or rows before seq 1: the exact path says what is wrong
        return _check_rows(session, campaign, state, progress=progress)
    ranges = chaincheck.plan(last)
    raw = conn.connection.dbapi_connection

    def check(lo: int, hi: int) -> dict:
        return chaincheck.check_range(raw, campaign.id, campaign.name, INDEXED_FIELDS, lo, hi, state.head_hash)

    results: dict[int, dict] = {}
    helper = _Helper.start(session, campaign, state.head_hash, ranges) if last >= PARALLEL_MIN_ENTRIES else None
    try:
        met = False
        for lo, hi in ranges:
            if helper is not None and not helper.claim(lo):
                met = True
                break
            results[lo] = check(lo, hi)
            if progress is not None:
                progress(hi - lo + 1)
        if met:
            for result in helper.finish():
                if result["lo"] not in results:
                    results[result["lo"]] = result
                    if progress is not None:
                        progress(result["hi"] - result["lo"] + 1)
    finally:
        if helper is not None:
            helper.stop()
    for lo, hi in ranges:
        result = results.get(lo) or check(lo, hi)  # a range the helper did not get to
        if result["clean"] and result["prev"] == state.prev_hash and state.expected_seq == lo:
            state.expected_seq, state.prev_hash = hi + 1, result["last"]
            state.head_seen = state.head_seen or result["head_seen"]
            continue
        failed = _check_rows(session, campaign, state, until=hi)
        if failed is not None:
            return failed
    if not state.head_seen:
        state.last_seal_seq = conn.execute(
            text("SELECT max(seq) FROM ledger WHERE campaign_id = :c AND kind = 'seal' AND seq <= :last"),
            {"c": campaign.id, "last": last},
        ).scalar()
    return None


class _Helper:
    """`python -m campaign.chaincheck` checking ranges from the last one down (see its main)."""

    def __init__(self, process) -> None:
        import os

        self.process = process
        self.fd = process.stdout.fileno()
        os.set_blocking(self.fd, False)
        self.buffer = b""
        self.started: set[int] = set()
        self.results: list[dict] = []

    @classmethod
    def start(cls, session: Session, campaign: Campaign, head_hash: str | None, ranges) -> _Helper | None:
        import os
        import subprocess
        import sys

        path = session.get_bind().url.database
        if os.name != "posix" or (os.cpu_count() or 1) < 2 or not path or path == ":memory:" or not sys.executable:
            return None
        job = {"path": path, "campaign_id": campaign.id, "name": campaign.name, "fields": INDEXED_FIELDS,
               "head": head_hash, "ranges": ranges[::-1]}
        try:
            process = subprocess.Popen([sys.executable, "-m", "campaign.chaincheck"], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            process.stdin.write(json.dumps(job).encode() + b"\n")
            process.stdin.flush()
        except OSError:
            return None
        return cls(process)

    def _read(self, block: bool = False) -> None:
        import os

        while True:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                if not block:
                    break
                import select

                select.select([self.fd], [], [], 1.0)
                continue
            if not chunk:
                break
            self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        for line in lines:
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if "start" in item:
                self.started.add(item["start"])
            elif "clean" in item:
                self.results.append(item)

    def claim(self, lo: int) -> bool:
        """Take range lo unless the helper has started it; tell the helper."""
        self._read()
        if lo in self.started:
            return False
        try:
            self.process.stdin.write(b"%d\n" % lo)
            self.process.stdin.flush()
        except OSError:
            pass
        return True

    def finish(self) -> list[dict]:
        try:
            self.process.stdin.close()
        except OSError:
            pass
        self._read(block=True)
        self.process.wait()
        return self.results

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def verify(session: Session, campaign: Campaign, head_hash: str | None = None, progress=None) -> VerifyReport:
    """Recompute the chain; report the first bad seq and why.

    With head_hash (printed by an earlier `history seal`), also prove that the chain
    still contains that head: a rewritten-and-rehashed or truncated history lacks it.
    """
    state = _Progress(head_hash, head_seen=head_hash is None)
    if session.get_bind().dialect.name == "sqlite":
        failed = _check_ranges_sqlite(session, campaign, state, progress)
    else:
        failed = _check_rows(session, campaign, state, progress=progress)
    if failed is not None:
        return failed
    count, prev_hash = state.expected_seq - 1, state.prev_hash
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

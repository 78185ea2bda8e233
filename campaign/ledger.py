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

from campaign.db.models import Campaign, LedgerEntry, Scenario

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


def head(session: Session, campaign_id: int) -> tuple[int, str]:
    row = session.execute(
        select(LedgerEntry.seq, LedgerEntry.hash)
        .where(LedgerEntry.campaign_id == campaign_id)
        .order_by(LedgerEntry.seq.desc())
        .limit(1)
    ).first()
    return (row.seq, row.hash) if row else (0, GENESIS_HASH)


def open_scenario_number(session: Session, campaign_id: int) -> int | None:
    """The scenario being played, if any: entries made during it are tagged with it,
    so `history --scenario 12` finds every roll of scenario 12."""
    return session.scalar(
        select(Scenario.number).where(Scenario.campaign_id == campaign_id, Scenario.ended_seq.is_(None))
        .order_by(Scenario.number.desc()).limit(1)
    )


def next_seq(session: Session, campaign_id: int) -> int:
    """The seq the next append will get: lets a service key its state changes to the
    entry that records them before writing it (see services.effects)."""
    return head(session, campaign_id)[0] + 1


def append(
    session: Session, campaign: Campaign, actor: str, entry: NewEntry, *, expect_seq: int | None = None
) -> Appended:
    """Add one entry to the campaign's chain in the caller's transaction.

    The caller must have called lock_campaign() in this transaction first.
    """
    session.flush()
    last_seq, prev_hash = head(session, campaign.id)
    if expect_seq is not None and expect_seq != last_seq + 1:
        raise RuntimeError(f"ledger head moved: expected to write seq {expect_seq}, head is {last_seq}")
    record = {
        "campaign": campaign.name,
        "seq": last_seq + 1,
        "at": utc_now(),
        "actor": actor,
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
        "detail": entry.detail,
    }
    record_json = canonical_json(record)
    digest = chain_hash(prev_hash, record_json)
    session.execute(
        LedgerEntry.__table__.insert().values(
            campaign_id=campaign.id,
            record=record_json,
            prev_hash=prev_hash,
            hash=digest,
            **{name: record[name] for name in INDEXED_FIELDS},
        )
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


def iter_chain(session: Session, campaign_id: int, batch: int = 5000) -> Iterator[Any]:
    """Stream the chain in seq order without holding it in memory."""
    result = session.execute(
        select(LedgerEntry)
        .where(LedgerEntry.campaign_id == campaign_id)
        .order_by(LedgerEntry.seq)
        .execution_options(yield_per=batch)
    )
    for row in result.scalars():
        yield row


def verify(session: Session, campaign: Campaign, head_hash: str | None = None, progress=None) -> VerifyReport:
    """Recompute the chain; report the first bad seq and why.

    With head_hash (printed by an earlier `history seal`), also prove that the chain
    still contains that head: a rewritten-and-rehashed or truncated history lacks it.
    """
    expected_seq, prev_hash = 1, GENESIS_HASH
    head_seen = head_hash is None
    last_seal_seq = None
    for row in iter_chain(session, campaign.id):
        problem = _row_problem(row, campaign.name, expected_seq, prev_hash)
        if problem:
            return VerifyReport(False, expected_seq - 1, prev_hash, min(row.seq, expected_seq), problem)
        if row.hash == head_hash:
            head_seen = True
        if row.kind == "seal":
            last_seal_seq = row.seq
        prev_hash = row.hash
        expected_seq += 1
        if progress is not None:
            progress(1)
    count = expected_seq - 1
    if not head_seen:
        if last_seal_seq is not None:
            return VerifyReport(
                False, count, prev_hash, last_seal_seq,
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

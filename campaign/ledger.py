"""The append-only, hash-chained roll ledger.

Each campaign has one chain. An entry's hash is SHA-256 over the previous entry's hash
followed by the entry's canonical JSON, so changing, removing or reordering anything
breaks every later link. The database refuses UPDATE and DELETE (migration triggers);
the chain catches what a determined editor with the triggers dropped could still do.

Only services call this module, inside the transaction that also changes state, so an
entry exists exactly when its effects do.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from campaign import ledger_scan
from campaign.chain import GENESIS_HASH, Walk, canonical_json, chain_hash  # noqa: F401 (re-exported)
from campaign.db.models import Campaign, LedgerEntry
from campaign.ledger_scan import INDEXED_FIELDS  # noqa: F401 (re-exported)


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


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


READ_ONLY_ROLE = (
    "refused by the database: this role may not write to the campaign (in group mode a player's "
    "role reads only, until the table server)"
)


def lock_campaign(session: Session, campaign_id: int) -> None:
    """Serialize writers of one campaign.

    PostgreSQL: a row lock on the campaign, which also reads the row afresh (what was read
    of it before the lock may be stale). SQLite: the write transaction already began with
    BEGIN IMMEDIATE (see db.engine), which holds the database's single write lock.

    Once a transaction holds the lock, nobody else appends to the campaign until it ends,
    so the chain's head it reads is remembered for the rest of it (`_head_row`); locking
    again in the same transaction costs nothing.
    """
    held = session.info.setdefault(_HELD, {})
    if campaign_id in held:
        return
    if session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.exc import ProgrammingError

        try:
            # The row must be fetched (an ORM result fills the identity map only as it is
            # read) and held: the identity map keeps it only weakly, and the use-case that
            # follows asks for it again (services.common.campaign_by_id).
            locked = session.scalars(
                select(Campaign)
                .where(Campaign.id == campaign_id)
                .with_for_update()
                .execution_options(populate_existing=True)
            ).one()
            session.info.setdefault(_LOCKED_ROWS, []).append(locked)
        except ProgrammingError as exc:  # the lock needs UPDATE on the row: a role that may not write
            if getattr(exc.orig, "sqlstate", None) != "42501":
                raise
            from campaign.errors import RuleRefused

            raise RuleRefused(READ_ONLY_ROLE) from None
    held[campaign_id] = None  # the head, once read under the lock


# session.info key: {campaign id: its head (seq, hash, at) once read, or None} for each
# campaign whose append lock the session's transaction holds (a session is one transaction).
_HELD = "campaign.ledger.held"
_LOCKED_ROWS = "campaign.ledger.locked_rows"  # the Campaign rows the lock read, held for the transaction


# The two queries of every append, as plain SQL: compiling them through the ORM would
# cost more than running them, in a process that appends once.
_HEAD = text("SELECT seq, hash, at FROM ledger WHERE campaign_id = :c ORDER BY seq DESC LIMIT 1")
_OPEN_SCENARIO = text(
    "SELECT number FROM scenarios WHERE campaign_id = :c AND ended_seq IS NULL ORDER BY number DESC LIMIT 1"
)


# One statement object for every append, values as parameters: building `.values(...)`
# anew costs more than the INSERT itself once a process appends many times (the shell).
_INSERT = LedgerEntry.__table__.insert()


def _head_row(session: Session, campaign_id: int) -> tuple[int, str, str | None]:
    """(seq, hash, time) of the chain's last entry, (0, genesis, None) before the first;
    read once per transaction that holds the campaign's lock (append keeps it current)."""
    held: dict[int, tuple[int, str, str | None] | None] | None = session.info.get(_HELD)
    known = held.get(campaign_id) if held is not None else None
    if known is not None:
        return known
    row = session.execute(_HEAD, {"c": campaign_id}).first()
    found = (row.seq, row.hash, row.at) if row else (0, GENESIS_HASH, None)
    if held is not None and campaign_id in held:
        held[campaign_id] = found
    return found


def head(session: Session, campaign_id: int) -> tuple[int, str]:
    seq, digest, _at = _head_row(session, campaign_id)
    return seq, digest


def _not_before(head_at: object, now: str) -> str:
    """Entry times never go back along the chain (PostgreSQL's trigger refuses one that
    does, migration 0010): when this machine's clock is behind the head's time (it was
    set back, or another writer's clock runs ahead), the entry takes the head's time."""
    return head_at if isinstance(head_at, str) and len(head_at) == len(now) and head_at > now else now


def next_entry(session: Session, campaign_id: int) -> tuple[int, str]:
    """(seq, time) of the next append: lets a service key its state changes to the entry
    that records them, and stamp them with its time, before writing it (services.recording)."""
    seq, _hash, at = _head_row(session, campaign_id)
    return seq + 1, _not_before(at, utc_now())


def open_scenario_number(session: Session, campaign_id: int) -> int | None:
    """The scenario being played, if any: entries made during it are tagged with it,
    so `history --scenario 12` finds every roll of scenario 12."""
    return session.execute(_OPEN_SCENARIO, {"c": campaign_id}).scalar()


def next_seq(session: Session, campaign_id: int) -> int:
    """The seq the next append will get: lets a service key its state changes to the
    entry that records them before writing it (see services.recording)."""
    return head(session, campaign_id)[0] + 1


def append(
    session: Session,
    campaign: Campaign,
    actor: str,
    entry: NewEntry,
    *,
    expect_seq: int | None = None,
    at: str | None = None,
) -> Appended:
    """Add one entry to the campaign's chain in the caller's transaction.

    The caller must have called lock_campaign() in this transaction first.
    """
    session.flush()
    last_seq, prev_hash, head_at = _head_row(session, campaign.id)
    if expect_seq is not None and expect_seq != last_seq + 1:
        raise RuntimeError(f"ledger head moved: expected to write seq {expect_seq}, head is {last_seq}")
    # The actor is who typed the command; detail.on_behalf_of, for whom: the GM acting for
    # a player in group mode (services.campaigns.group.OnBehalf), or what a service names itself
    # (the missing character's player for a reunion roll), which wins.
    behalf = getattr(actor, "on_behalf_of", None)
    detail = {"on_behalf_of": behalf, **entry.detail} if behalf else entry.detail
    # The table server's actor also says how the request came (its session, the call
    # it answers): services.table.writes.SeatActor.
    via = getattr(actor, "via", None)
    if via:
        detail = {**detail, "via": via}
    # Dice derived from a committed seed say how (services.fair.seeds.FairDice); never
    # on a secret roll, whose public entry must not show its dice.
    fair = getattr(actor, "fair", None)
    fair = fair(entry.dice) if fair is not None else None
    if fair and "secret" not in detail:
        detail = {**detail, "fair": fair}
    record = {
        "campaign": campaign.ledger_name,
        "seq": last_seq + 1,
        "at": at or _not_before(head_at, utc_now()),
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
        {
            "campaign_id": campaign.id,
            "record": record_json,
            "prev_hash": prev_hash,
            "hash": digest,
            **{name: record[name] for name in INDEXED_FIELDS},
        },
    )
    held = session.info.get(_HELD)
    if held is not None and campaign.id in held:
        held[campaign.id] = (last_seq + 1, digest, record["at"])
    session.info.setdefault(APPENDED, []).append((campaign.id, last_seq + 1, record_json))
    return Appended(seq=last_seq + 1, hash=digest, prev_hash=prev_hash, record=record)


# session.info key: (campaign id, seq, canonical JSON) of every entry the transaction
# appended, in order: a caller answers from them without reading them back.
APPENDED = "campaign.ledger.appended"


# Why a chain check failed, as codes callers branch on (the reason is for people).
CHAIN_BROKEN = "chain_broken"  # entry bad_seq does not hold (edited, missing, unlinked ...)
HEAD_NOT_IN_CHAIN = "head_not_in_chain"  # every entry holds, but none has the head hash given
NOT_CONTAINED = "this chain does not contain your seal: the history was rewritten after it, or the hash is mistyped"


@dataclass(frozen=True)
class ChainVerdict:
    """What ledger.verify proved: the chain's `entries` and `head_hash`, or `code` and
    the first bad seq (None when no one entry is to blame)."""

    ok: bool
    entries: int
    head_hash: str
    bad_seq: int | None = None
    reason: str | None = None
    code: str | None = None


def iter_chain(session: Session, campaign_id: int, batch: int = 5000, from_seq: int | None = None) -> Iterator[Any]:
    """Stream the chain in seq order without holding it in memory (Core rows, not ORM objects)."""
    table = LedgerEntry.__table__
    query = select(table).where(table.c.campaign_id == campaign_id)
    if from_seq is not None:
        query = query.where(table.c.seq >= from_seq)
    yield from session.execute(query.order_by(table.c.seq).execution_options(yield_per=batch))


@dataclass
class _Progress:
    """Where a verification stands: everything before walk.seq has been proven."""

    walk: Walk
    head_hash: str | None
    head_seen: bool = False
    last_seal_seq: int | None = None

    def failed(self, row_seq: int, problem: str) -> ChainVerdict:
        walk = self.walk
        return ChainVerdict(False, walk.seq - 1, walk.prev_hash, min(row_seq, walk.seq), problem, CHAIN_BROKEN)

    def passed(self, seq: int, digest: str, kind_is_seal: bool) -> None:
        if digest == self.head_hash:
            self.head_seen = True
        if kind_is_seal:
            self.last_seal_seq = seq
        self.walk.advance(digest)


def _check_rows(
    session: Session, state: _Progress, campaign_id: int, progress: Callable[[int], None] | None = None
) -> ChainVerdict | None:
    """The exact rules, row by row in seq order, from state.walk.seq to the end."""
    walk = state.walk
    with ledger_scan.text_as_stored(session):  # bytes that are not UTF-8: named, not a crash
        for row in iter_chain(session, campaign_id, from_seq=walk.seq if walk.seq > 1 else None):
            problem = ledger_scan.row_problem(walk, row)
            if problem:
                return state.failed(row.seq, problem)
            state.passed(row.seq, row.hash, row.kind == "seal")
            if progress is not None:
                progress(1)
    return None


def _check_sqlite(
    session: Session, campaign: Campaign, state: _Progress, progress: Callable[[int], None] | None = None
) -> ChainVerdict | None:
    """The same rules, faster, for SQLite (campaign.ledger_scan), in this process: the scan
    proves rows until the first one it cannot vouch for, and whatever it did not prove
    (a broken row, a gap) goes to _check_rows, which names the seq and the reason, so the
    answer is always the one _check_rows alone gives."""
    raw = session.connection().connection.dbapi_connection
    assert isinstance(raw, sqlite3.Connection)  # the SQLite dialect's driver (db.engine)
    first, last, count = raw.execute(
        "SELECT min(seq), max(seq), count(*) FROM ledger WHERE campaign_id = ?", (campaign.id,)
    ).fetchone()
    if first != 1 or last != count:  # empty, a gap or a stray seq: the exact rules say what is wrong
        return _check_rows(session, state, campaign.id, progress)
    _take(
        state,
        ledger_scan.scan(
            raw, campaign.id, campaign.ledger_name, 1, last, state.walk.prev_hash, state.head_hash, progress
        ),
    )
    if state.walk.seq == last + 1:
        return None
    return _check_rows(session, state, campaign.id, progress)


def _take(state: _Progress, scanned: ledger_scan.Scanned) -> None:
    """Accept what a scan proved (it hangs from state.walk's head)."""
    if scanned.next_seq == scanned.lo:
        return
    state.walk.seq, state.walk.prev_hash = scanned.next_seq, scanned.last_hash
    state.head_seen = state.head_seen or scanned.head_seen
    if scanned.last_seal_seq is not None:
        state.last_seal_seq = scanned.last_seal_seq


def verify(
    session: Session, campaign: Campaign, head_hash: str | None = None, progress: Callable[[int], None] | None = None
) -> ChainVerdict:
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
        # No entry to blame: a rewrite after the seal and a mistyped hash look the same here.
        return ChainVerdict(False, count, prev_hash, None, NOT_CONTAINED, HEAD_NOT_IN_CHAIN)
    return ChainVerdict(True, count, prev_hash)


def entry_count(session: Session, campaign_id: int) -> int:
    count: int = session.execute(
        text("SELECT count(*) FROM ledger WHERE campaign_id = :c"), {"c": campaign_id}
    ).scalar_one()
    return count

"""Reading, proving and correcting the ledger: history, show, verify, seal, void."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta, timezone
from typing import Any

from sqlalchemy import and_, select
from sqlalchemy.orm import Session, aliased

from campaign import ledger
from campaign.db.database import Database
from campaign.db.models import Character, LedgerEntry
from campaign.errors import BadInput, NotFound, RuleRefused
from campaign.services.common import (
    campaign_named,
    campaign_transaction,
    character_named,
    clean_text,
    player_named,
)

OUTCOMES = ("success", "failure", "critical_success", "critical_failure")
# Kinds whose entries record structure, not results: voiding them would mean nothing.
NOT_VOIDABLE = {"campaign", "player", "relation", "seal", "void", "scenario"}
# seq, limits and scenario numbers are 32-bit INTEGER columns (PostgreSQL); SQLite refuses
# Python ints beyond 64 bits outright. Numbers outside this range never match anything.
INT_MAX = 2**31 - 1


def entry_view(record: dict[str, Any], prev_hash: str, digest: str, voided_by: int | None) -> dict[str, Any]:
    """An entry as `history --json` shows it: the hashed record plus chain fields."""
    view = {key: record.get(key) for key in (
        "seq", "at", "actor", "kind", "character", "scenario", "parent_seq", "expression", "dice", "total",
        "target", "outcome", "margin", "source", "reason",
    )}
    view["voids_seq"] = record.get("voids_seq")
    view["voided_by"] = voided_by
    view["detail"] = record.get("detail") or {}
    view["prev_hash"] = prev_hash
    view["hash"] = digest
    return view


@dataclass(frozen=True)
class HistoryFilter:
    character: str | None = None
    player: str | None = None
    kind: str | None = None
    scenario: int | None = None
    outcome: str | None = None
    since: str | None = None
    until: str | None = None
    limit: int | None = 50


def parse_when(text: str, *, end: bool, option: str) -> str:
    """A date (2026-11-29) or ISO time, as the comparable UTC text stored in `at`.

    --until with a bare date includes that whole day.
    """
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            moment = datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
            if end:
                moment += timedelta(days=1)
        else:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=timezone.utc)
            moment = moment.astimezone(timezone.utc)
    except ValueError:
        raise BadInput(f"{option}: {text!r} is not a date (YYYY-MM-DD) or ISO time") from None
    except OverflowError:  # e.g. 0001-01-01T00:00+01:00 is before year 1 in UTC
        raise BadInput(f"{option}: {text!r} is out of range (years 1 to 9999, UTC)") from None
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def filter_clauses(flt: HistoryFilter, names: list[str] | None) -> list:
    """The WHERE clauses of a filter (besides the campaign), each served by an index;
    `names` are the characters of --player (see resolve_filter). Shared with `stats`."""
    clauses = []
    if flt.character is not None:
        clauses.append(LedgerEntry.character == flt.character)
    if names is not None:
        clauses.append(LedgerEntry.character.in_(names))
    if flt.kind is not None:
        clauses.append(LedgerEntry.kind == flt.kind)
    if flt.scenario is not None:
        clauses.append(LedgerEntry.scenario == flt.scenario)
    if flt.outcome is not None:
        clauses.append(LedgerEntry.outcome == flt.outcome)
    if flt.since is not None:
        clauses.append(LedgerEntry.at >= parse_when(flt.since, end=False, option="--since"))
    if flt.until is not None:
        bound = parse_when(flt.until, end=True, option="--until")
        clauses.append(LedgerEntry.at < bound if len(flt.until) == 10 else LedgerEntry.at <= bound)
    return clauses


def _query(session: Session, campaign_id: int, flt: HistoryFilter, names: list[str] | None):
    voider = aliased(LedgerEntry)
    query = (
        select(LedgerEntry.record, LedgerEntry.prev_hash, LedgerEntry.hash, voider.seq)
        .outerjoin(voider, and_(voider.campaign_id == LedgerEntry.campaign_id, voider.voids_seq == LedgerEntry.seq,
                                voider.kind == "void"))
        .where(LedgerEntry.campaign_id == campaign_id, *filter_clauses(flt, names))
    )
    query = query.order_by(LedgerEntry.seq.desc())
    if flt.limit is not None:
        query = query.limit(flt.limit)
    return query


def check_filter(flt: HistoryFilter) -> HistoryFilter:
    """Refuse malformed filter values before any query (exit 2)."""
    if flt.outcome is not None and flt.outcome not in OUTCOMES:
        raise BadInput(f"--outcome must be one of {', '.join(OUTCOMES)}")
    if flt.limit is not None and flt.limit < 1:
        raise BadInput("--limit must be at least 1")
    if flt.limit is not None and flt.limit > INT_MAX:
        flt = replace(flt, limit=None)  # more than there can ever be: all
    if flt.scenario is not None and abs(flt.scenario) > INT_MAX:
        raise BadInput(f"--scenario: {flt.scenario} is out of range")
    return flt


def resolve_filter(session: Session, campaign, flt: HistoryFilter) -> tuple[HistoryFilter, list[str] | None]:
    """The character as stored, and the names of --player's characters (NotFound if unknown)."""
    if flt.character is not None:
        flt = replace(flt, character=character_named(session, campaign, flt.character).name)
    names = None
    if flt.player is not None:
        player = player_named(session, campaign, flt.player)
        names = list(session.scalars(select(Character.name).where(Character.player_id == player.id)))
    return flt, names


def iter_history(db: Database, campaign_name: str | None, flt: HistoryFilter) -> Iterator[dict[str, Any]]:
    """Stream matching entries, newest first, in constant memory."""
    flt = check_filter(flt)
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        flt, names = resolve_filter(session, campaign, flt)
        query = _query(session, campaign.id, flt, names)
        result = session.execute(query.execution_options(yield_per=1000))
        # The first fetch happens here, so option errors surface before any output.
        for record, prev_hash, digest, voided_by in result:
            yield entry_view(json.loads(record), prev_hash, digest, voided_by)


def _entry(session: Session, campaign_id: int, seq: int) -> tuple[dict[str, Any], str, str, int | None] | None:
    if not 1 <= seq <= INT_MAX:
        return None
    row = session.execute(_query(session, campaign_id, HistoryFilter(limit=None), None)
                          .where(LedgerEntry.seq == seq)).first()
    return None if row is None else (json.loads(row[0]), row[1], row[2], row[3])


def show_entry(db: Database, campaign_name: str | None, seq: int) -> dict[str, Any]:
    """The entry and its sub-entries (the dice a check needed along the way)."""
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        found = _entry(session, campaign.id, seq)
        if found is None:
            raise NotFound(f"no ledger entry #{seq} in campaign {campaign.name!r}")
        view = entry_view(*found)
        children = session.scalars(
            select(LedgerEntry.seq).where(LedgerEntry.campaign_id == campaign.id, LedgerEntry.parent_seq == seq)
            .order_by(LedgerEntry.seq)
        ).all()
        view["sub_entries"] = [entry_view(*_entry(session, campaign.id, child)) for child in children]
        return view


def verify(db: Database, campaign_name: str | None, head: str | None = None, progress=None) -> dict[str, Any]:
    if head is not None:
        head = head.strip().lower()
        if len(head) != 64 or any(ch not in "0123456789abcdef" for ch in head):
            raise BadInput("--head must be the 64-hex hash printed by `history seal`")
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        total = ledger.head(session, campaign.id)[0]
        if progress is not None:
            progress.start(total)
        report = ledger.verify(session, campaign, head, progress=progress.advance if progress else None)
        return {"campaign": campaign.name, "ok": report.ok, "entries": report.entries, "head": report.head_hash,
                "bad_seq": report.bad_seq, "reason": report.reason}


def seal(db: Database, campaign_name: str | None, actor: str, reason: str | None = None) -> dict[str, Any]:
    """Append a seal entry; its hash is the head players keep to prove history later."""
    reason = clean_text(reason, "--reason")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        sealed_seq = ledger.head(session, campaign.id)[0]
        appended = ledger.append(session, campaign, actor, ledger.NewEntry(
            kind="seal", reason=reason, detail={"sealed_through": sealed_seq},
        ))
        return {"campaign": campaign.name, "seq": appended.seq, "head": appended.hash}


def void(db: Database, campaign_name: str | None, actor: str, seq: int, reason: str) -> dict[str, Any]:
    """Mark an entry voided and reverse what it (and its sub-entries) applied.

    The original row is never touched: "voided" is derived from the void entry.
    """
    reason = clean_text(reason, "--reason")
    if not reason or not reason.strip():
        raise BadInput("--reason is required: say why the entry is voided")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        found = _entry(session, campaign.id, seq)
        if found is None:
            raise NotFound(f"no ledger entry #{seq} in campaign {campaign.name!r}")
        record, _prev, _hash, voided_by = found
        if voided_by is not None:
            raise RuleRefused(f"entry #{seq} is already voided (by #{voided_by})")
        if record["kind"] in NOT_VOIDABLE or (record["kind"] == "character" and "applied" not in record["detail"]):
            raise RuleRefused(f"entry #{seq} ({record['kind']}) records structure, not a result; it cannot be voided")
        if record["parent_seq"] is not None and "applied" not in record["detail"]:
            raise RuleRefused(f"entry #{seq} is part of #{record['parent_seq']}; void #{record['parent_seq']} instead")
        from campaign.services.effects import (
            reverse,  # only voids reverse effects (and load the state tables)
        )

        void_seq = ledger.next_seq(session, campaign.id)
        undone = reverse(session, campaign, record["detail"].get("applied", []), void_seq)
        for child_seq in session.scalars(
            select(LedgerEntry.seq).where(LedgerEntry.campaign_id == campaign.id, LedgerEntry.parent_seq == seq)
            .order_by(LedgerEntry.seq.desc())
        ).all():
            child = _entry(session, campaign.id, child_seq)
            if child[3] is None:
                undone = reverse(session, campaign, child[0]["detail"].get("applied", []), void_seq) + undone
        session.flush()
        appended = ledger.append(session, campaign, actor, ledger.NewEntry(
            kind="void", voids_seq=seq, character=record["character"], scenario=record["scenario"], reason=reason,
            detail={"voided": seq, "voided_kind": record["kind"], "reversed": undone},
        ), expect_seq=void_seq)
        return {"seq": appended.seq, "voided": seq, "reversed": undone}

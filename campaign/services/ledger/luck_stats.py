"""`campaign stats`: luck statistics over the ledger, streamed in constant memory.

The entries are chosen with `history`'s own filter (character, player, kind, scenario,
date range) and read one batch at a time; each record goes into a
campaign.core.luck.LuckTally, which keeps counts, never entries.

Voided entries are left out by default: a voided `1000D6` test roll would
otherwise be most of a small campaign's d6. `include_voided` counts them, for a reader
who suspects a GM of voiding the rolls they disliked (their dice were rolled all the
same). Sub-rolls of a voided entry (a fright check's table roll) go with it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from campaign.core import luck
from campaign.db.database import Database
from campaign.db.models import LedgerEntry
from campaign.ledger_shapes import dict_reader
from campaign.services.common import campaign_named
from campaign.services.ledger.history import HistoryFilter, check_filter, filter_clauses, resolve_filter


def _table_dice(text: str) -> str | None:
    """The dice a table command rolls (`CRT`, `FEAR+5` roll the table's 3D6), else None."""
    from campaign.core.table_roll import table_for_command
    from campaign.seeds import load_tables

    try:
        found = table_for_command(text.strip(), load_tables())
    except Exception:  # unreadable seed tables: the entry stays unclassified, the report goes on
        return None
    return None if found is None else found[0].dice


def read_expression(text: str) -> luck.ExpressionInfo | None:
    return luck.read_expression(text, _table_dice)


def tally(
    db: Database, campaign_name: str | None, flt: HistoryFilter, include_voided: bool = False, fair_only: bool = False
) -> tuple[str, luck.LuckTally, int]:
    """Feed every matching entry's record to a LuckTally; returns the campaign's name, it,
    and how many matching entries were left out as voided.

    Provably fair dice (services.fair.seeds) are counted as their own source,
    `provable`, apart from the server's other dice; `fair_only` counts nothing else."""
    flt = check_filter(replace(flt, limit=None))
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        flt, spans, player_spans = resolve_filter(session, campaign, flt)
        voided = voided_seqs(session, campaign.id, include_voided)
        counter = luck.LuckTally(read_expression)
        left_out = feed(session, campaign.id, filter_clauses(flt, spans, player_spans), voided, counter, fair_only)
        return campaign.name, counter, left_out


def voided_seqs(session: Session, campaign_id: int, include_voided: bool) -> set[int]:
    from campaign.projection.replay import effective_voids

    if include_voided:
        return set()
    return set(
        effective_voids(
            (seq, target)
            for seq, target in session.execute(
                select(LedgerEntry.seq, LedgerEntry.voids_seq).where(
                    LedgerEntry.campaign_id == campaign_id, LedgerEntry.kind == "void"
                )
            ).all()
            if target is not None  # a void always names its target
        )
    )


def feed(
    session: Session, campaign_id: int, clauses: list[Any], voided: set[int], counter: luck.LuckTally, fair_only: bool
) -> int:
    """Add the entries `clauses` choose to `counter`; how many were left out as voided."""
    from campaign.services.fair.seeds import abandoned_commitments, fairness_of

    abandoned = abandoned_commitments(session, campaign_id)  # their dice are no longer provable
    ledger = LedgerEntry.__table__.c
    query = select(ledger.seq, ledger.parent_seq, ledger.record).where(ledger.campaign_id == campaign_id, *clauses)
    add, loads = counter.add, dict_reader()
    left_out = 0
    # Through the connection, as plain rows: the ORM's result machinery cost a fifth of a
    # whole-ledger tally (the first luck page after a server start waits for one).
    batches = session.connection().execute(query.execution_options(yield_per=5000)).partitions()
    for seq, parent_seq, raw in (row for batch in batches for row in batch):
        if voided and (seq in voided or parent_seq in voided):
            left_out += 1
            continue
        record = loads(raw)
        if '"fair":{' in raw and fairness_of(record, abandoned) == "provable":
            record["source"] = "provable"
        elif fair_only:
            continue
        add(record)
    return left_out


@dataclass(frozen=True, slots=True)
class LuckReport:
    """`campaign stats`: the filter it was asked with, and core.luck.report's numbers
    (its per-source rows stay the core's dicts: die sizes, success rolls, tests)."""

    campaign: str
    filter: dict[str, Any]
    entries: int
    shared_entries: int
    sources: list[dict[str, Any]]
    tests: int
    note: str
    include_voided: bool = False
    voided_left_out: int = 0  # matching entries not counted because they are voided


def luck_report(
    db: Database, campaign_name: str | None, flt: HistoryFilter, include_voided: bool = False, fair_only: bool = False
) -> LuckReport:
    name, counter, left_out = tally(db, campaign_name, flt, include_voided, fair_only)
    return as_report(name, flt, counter, left_out, include_voided)


def as_report(
    name: str, flt: HistoryFilter, counter: luck.LuckTally, left_out: int, include_voided: bool = False
) -> LuckReport:
    """A LuckReport of a tally already made (here, or kept by services.ledger.luck_kept)."""
    shown = {key: getattr(flt, key) for key in ("character", "player", "kind", "scenario", "since", "until")}
    report = luck.report(counter)
    for source in report["sources"]:
        source["words"] = luck.source_words(source["source"])
    return LuckReport(campaign=name, filter=shown, **report, include_voided=include_voided, voided_left_out=left_out)

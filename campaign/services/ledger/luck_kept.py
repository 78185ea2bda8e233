"""The luck page's tally, kept in step with the ledger by the server that shows it.

`campaign stats` tallies the whole ledger once per command, which is right for a command
and wrong for a page: at a million entries a re-tally per request costs seconds. A server
keeps a `KeptTallies` instead and brings each tally up to date from the last seq it
counted, so a request reads only the entries appended since.

Why in memory and not a table: the tally is derived from the ledger and nothing else, so
a table would be one more thing that can disagree with it (it would need rebuilding by
`history verify`, leaving out of exports, and care under voids and imports). Kept in the
process, it cannot outlive the ledger it was made from: before trusting it, a refresh
checks that the entry it last counted still has the hash it had (a database replaced or
re-imported under the server gives a different chain, and a full re-tally) and that no
void has been appended since (a void takes entries out of the counts: a full re-tally,
rare at a table). Entries are append-only behind that hash, so counting only the new ones
gives exactly what a full tally gives (tests/web/test_luck_kept.py holds it to that).
Several server processes each keep their own, each in step with the one database.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.chain import GENESIS_HASH
from campaign.core import luck
from campaign.db.database import Database
from campaign.db.models import LedgerEntry
from campaign.services.common import campaign_named
from campaign.services.ledger.history import HistoryFilter, check_filter, filter_clauses, resolve_filter
from campaign.services.ledger.luck_stats import LuckReport, as_report, feed, read_expression, voided_seqs

KEPT_LIMIT = 8  # filters kept per server (the whole campaign, a few characters)


@dataclass
class _Kept:
    """A tally of entries 1..seq, whose last entry had `digest`; `voids` the void entries then."""

    counter: luck.LuckTally
    left_out: int
    voided: set[int]
    seq: int
    digest: str
    voids: int


class KeptTallies:
    """Luck tallies per (campaign, resolved filter), refreshed on every request."""

    def __init__(self, limit: int = KEPT_LIMIT) -> None:
        self._limit = limit
        self._kept: OrderedDict[tuple[Any, ...], _Kept] = OrderedDict()
        self._lock = threading.Lock()  # Starlette runs page handlers in a thread pool
        self.full_tallies = 0  # how many times a tally was made from the first entry (for tests)

    def report(
        self, db: Database, campaign_name: str | None, flt: HistoryFilter, include_voided: bool = False
    ) -> LuckReport:
        """What services.ledger.luck_stats.luck_report answers, from the kept tally brought up to date."""
        flt = check_filter(replace(flt, limit=None))
        with self._lock, db.read() as session:
            campaign = campaign_named(session, campaign_name)
            resolved, spans, player_spans = resolve_filter(session, campaign, flt)
            # Spans change with a rename: another key, another tally.
            key = (campaign.id, resolved, _frozen(spans), _frozen(player_spans), include_voided)
            head_seq, head_hash = ledger.head(session, campaign.id)
            voids = _void_count(session, campaign.id)
            clauses = filter_clauses(resolved, spans, player_spans)
            kept = self._kept.get(key)
            if kept is None or not _still_holds(session, campaign.id, kept, voids):
                kept = _Kept(
                    luck.LuckTally(read_expression),
                    0,
                    voided_seqs(session, campaign.id, include_voided),
                    0,
                    GENESIS_HASH,
                    voids,
                )
                self.full_tallies += 1
            if head_seq > kept.seq:
                window = [LedgerEntry.seq > kept.seq, LedgerEntry.seq <= head_seq]
                kept.left_out += feed(session, campaign.id, [*clauses, *window], kept.voided, kept.counter, False)
                kept.seq, kept.digest = head_seq, head_hash
            self._kept[key] = kept
            self._kept.move_to_end(key)
            while len(self._kept) > self._limit:
                self._kept.popitem(last=False)
            return as_report(campaign.name, resolved, kept.counter, kept.left_out, include_voided)


def _frozen(spans: list[tuple[str, int, int | None]] | None) -> tuple[tuple[str, int, int | None], ...] | None:
    return None if spans is None else tuple(spans)


def _void_count(session: Session, campaign_id: int) -> int:
    return (
        session.scalar(
            select(func.count())
            .select_from(LedgerEntry)
            .where(LedgerEntry.campaign_id == campaign_id, LedgerEntry.kind == "void")
        )
        or 0
    )


def _still_holds(session: Session, campaign_id: int, kept: _Kept, voids: int) -> bool:
    """Whether the ledger is still the one `kept` counted, only longer, with no new void."""
    if voids != kept.voids:
        return False
    if kept.seq == 0:
        return True
    digest = session.scalar(
        select(LedgerEntry.hash).where(LedgerEntry.campaign_id == campaign_id, LedgerEntry.seq == kept.seq)
    )
    return digest == kept.digest

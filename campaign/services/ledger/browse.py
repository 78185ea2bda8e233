"""Reading the ledger a page at a time, for the table's web page (`campaign serve`).

The CLI streams a history from the newest entry down; a web page instead shows 50
entries and a link to the next 50, and must stay as fast on the millionth entry as on
the first. So every read here is one indexed range query on seq (keyset pagination:
`seq < before ... ORDER BY seq DESC LIMIT n`), never an OFFSET and never a COUNT over
the ledger. The filters are history's own (resolve_filter / filter_clauses), so the
page and `campaign history` always agree on what "--kind fright" means.

The chain reads (`chain_slice`, `seals`) serve the stored canonical record text
byte-exact: a player's browser hashes exactly what the chain hashed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import JSON, Integer, Select, String, bindparam, select, text
from sqlalchemy.orm import Session

from campaign.chain import GENESIS_HASH
from campaign.db.database import Database
from campaign.db.models import LedgerEntry, Scenario
from campaign.errors import NotFound
from campaign.i18n import _
from campaign.services.common import campaign_named
from campaign.services.ledger.history import (
    INT_MAX,
    HistoryFilter,
    _campaign_entries,
    _query,
    check_filter,
    entry_view,
    resolve_filter,
)
from campaign.services.scenarios.views import ScenarioDetail, scenario_view

PAGE_SIZE = 50
CHAIN_BATCH = 1000


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """One page of history: the entries (history's entry views, the records 1:1) and
    `older`, the `before` of the next page (None on the last)."""

    entries: tuple[dict[str, Any], ...]
    older: int | None


@dataclass(frozen=True, slots=True)
class ChainLink:
    """An entry as the chain hashed it: `record` is the stored canonical JSON text."""

    seq: int
    kind: str
    prev_hash: str
    hash: str
    record: str


@dataclass(frozen=True, slots=True)
class ChainSlice:
    """`/api/chain`: links from `genesis` on; `next` is the seq to ask for next, or None.
    `campaign` is the name the records carry (the chain's), not the name shown."""

    campaign: str
    genesis: str
    entries: tuple[ChainLink, ...]
    next: int | None


@dataclass(frozen=True, slots=True)
class SealMark:
    """A seal's head hash, the seq of its entry and when it was sealed."""

    seq: int
    hash: str
    at: str


@dataclass(frozen=True, slots=True)
class PageFacts:
    """What a page's words and times follow: the campaign's `lang` and `timezone`
    settings (None: unset) and its ruleset (campaign.web.language)."""

    lang: str | None
    zone: str | None
    ruleset: str | None


_HEAD_SEQ = text("SELECT seq FROM ledger WHERE campaign_id = :c ORDER BY seq DESC LIMIT 1")
# Plain text, like the head probe: half the cost of the ORM's select of the same columns.
_FACTS = text("SELECT settings, ruleset FROM campaigns WHERE id = :c").columns(settings=JSON, ruleset=String)


def campaign_identity(db: Database, campaign_name: str | None) -> tuple[int, str]:
    """(id, name) of the campaign a server shows: chosen once, like the CLI chooses it."""
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        return campaign.id, campaign.name


def head_seq(db: Database, campaign_id: int) -> int:
    """The newest seq (0 for none): one primary-key probe, cheap enough to poll."""
    with db.read() as session:
        return session.execute(_HEAD_SEQ, {"c": campaign_id}).scalar() or 0


def page_facts(db: Database, campaign_id: int) -> PageFacts:
    """The campaign's `lang`, `timezone` and ruleset as they are now: one primary-key
    read per request, so `campaign settings lang=en` shows on the next page load
    without a restart of the server."""
    with db.read() as session:
        return read_page_facts(session, campaign_id)


def read_page_facts(session: Session, campaign_id: int) -> PageFacts:
    """page_facts in a transaction of the caller's (the table server reads them in the
    transaction that finds the request's seat)."""
    row = session.execute(_FACTS, {"c": campaign_id}).one_or_none()
    if row is None:  # the campaign is gone (deleted under a running server): nothing to follow
        return PageFacts(None, None, None)
    settings = row.settings or {}
    lang, zone = settings.get("lang"), settings.get("timezone")
    return PageFacts(lang if isinstance(lang, str) else None, zone if isinstance(zone, str) else None, row.ruleset)


def history_page(
    db: Database, campaign_name: str | None, flt: HistoryFilter, before: int | None = None, size: int = PAGE_SIZE
) -> HistoryPage:
    """One page of `history`, newest first, strictly below `before` when given. One extra
    row is fetched to know whether an older page exists, instead of counting."""
    flt = check_filter(replace(flt, limit=size + 1))
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        flt, spans, player_spans = resolve_filter(session, campaign, flt)
        query = _query(session, campaign.id, flt, spans, player_spans)
        if before is not None:
            query = query.where(LedgerEntry.seq < max(min(before, INT_MAX), 0))
        rows = session.execute(query).all()
        from campaign.services.fair.seeds import abandoned_commitments

        abandoned = abandoned_commitments(session, campaign.id)  # their dice are labelled unprovable
    entries = tuple(
        entry_view(json.loads(record), prev_hash, digest, voided_by, abandoned)
        for record, prev_hash, digest, voided_by in rows[:size]
    )
    older = entries[-1]["seq"] if len(rows) > size else None
    return HistoryPage(entries=entries, older=older)


# entries_after's statement per campaign, its bounds bound at each call: one statement
# object keeps SQLAlchemy's cache key, worked out once, where a statement built per call
# had it worked out again at every new head of every served campaign.
_AFTER: dict[int, Select[str, str, str, int]] = {}


def entries_after(db: Database, campaign_id: int, after: int, limit: int = 200) -> list[dict[str, Any]]:
    """Entries with seq > after, oldest first (what the live feed has not sent yet)."""
    after = max(min(after, INT_MAX), 0)
    query = _AFTER.get(campaign_id)
    if query is None:
        after_bound = LedgerEntry.seq > bindparam("after", type_=Integer)
        query = _AFTER[campaign_id] = (
            _campaign_entries(campaign_id).where(after_bound).order_by(LedgerEntry.seq).limit(bindparam("limit"))
        )
    with db.read() as session:
        rows = session.execute(query, {"after": after, "limit": limit}).all()
        from campaign.services.fair.seeds import abandoned_commitments

        abandoned = abandoned_commitments(session, campaign_id)
    return [
        entry_view(json.loads(record), prev_hash, digest, voided_by, abandoned)
        for record, prev_hash, digest, voided_by in rows
    ]


def source_kinds(db: Database, campaign_name: str | None, seqs: Iterable[int | None]) -> dict[int, str]:
    """seq -> kind for the entries a character's traits and conditions came from, so a
    page can mark the ones a fright check gave."""
    wanted = sorted({seq for seq in seqs if isinstance(seq, int) and 1 <= seq <= INT_MAX})
    if not wanted:
        return {}
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        rows = session.execute(
            select(LedgerEntry.seq, LedgerEntry.kind).where(
                LedgerEntry.campaign_id == campaign.id, LedgerEntry.seq.in_(wanted)
            )
        )
        return {seq: kind for seq, kind in rows}


def scenario_by_number(db: Database, campaign_name: str | None, number: int) -> ScenarioDetail:
    """`scenario show`'s view of scenario #number (by number only: a title never hides it)."""

    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        scenario = (
            None
            if not 0 <= number <= INT_MAX
            else session.scalar(select(Scenario).where(Scenario.campaign_id == campaign.id, Scenario.number == number))
        )
        if scenario is None:
            raise NotFound(_("no scenario #{number}").format(number=number))
        return scenario_view(session, campaign, scenario)


def chain_slice(
    db: Database, campaign_name: str | None, first: int = 1, last: int | None = None, batch: int = CHAIN_BATCH
) -> ChainSlice:
    """Entries first..last (at most `batch`) as the chain hashed them: the stored
    canonical record text, unparsed, with prev_hash and hash. `next` is the seq to ask
    for next, or None when `last` (or the head) was reached."""
    first = max(first, 1)
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        table = LedgerEntry.__table__
        query = select(table.c.seq, table.c.kind, table.c.prev_hash, table.c.hash, table.c.record).where(
            table.c.campaign_id == campaign.id, table.c.seq >= min(first, INT_MAX)
        )
        if last is not None:
            query = query.where(table.c.seq <= max(min(last, INT_MAX), 0))
        rows = session.execute(query.order_by(table.c.seq).limit(batch + 1)).all()
    entries = tuple(
        ChainLink(seq=seq, kind=kind, prev_hash=prev_hash, hash=digest, record=record)
        for seq, kind, prev_hash, digest, record in rows[:batch]
    )
    # The chain's own name, as every record holds it (an `import --as-name` shows another).
    return ChainSlice(
        campaign=campaign.ledger_name,
        genesis=GENESIS_HASH,
        entries=entries,
        next=rows[batch][0] if len(rows) > batch else None,
    )


def seals(db: Database, campaign_name: str | None) -> list[SealMark]:
    """Every seal's head hash with its seq and time, oldest first."""
    from campaign.db.models import SealHead

    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        rows = session.execute(
            select(SealHead.seq, SealHead.hash, LedgerEntry.at)
            .join(LedgerEntry, (LedgerEntry.campaign_id == SealHead.campaign_id) & (LedgerEntry.seq == SealHead.seq))
            .where(SealHead.campaign_id == campaign.id)
            .order_by(SealHead.seq)
        )
        return [SealMark(seq=seq, hash=digest, at=at) for seq, digest, at in rows]

"""`char show --at/--before` and `char timeline`: a character as the ledger had it then.

Both replay the ledger (campaign.projection.timeline); the state tables are not read,
so the answer is the one `history verify` proves the tables agree with.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.db.database import Database
from campaign.db.models import Campaign
from campaign.errors import BadInput, NotFound
from campaign.i18n import _
from campaign.projection.replay import effective_voids, entry_from_record, void_pairs
from campaign.projection.views import CharacterSheet
from campaign.seeds import stat_names_for
from campaign.services.common import campaign_named, character_named
from campaign.services.results import extended

_STATEFUL = text(
    "SELECT record FROM ledger WHERE campaign_id = :c AND kind NOT IN ('roll', 'table', 'check', 'seal') ORDER BY seq"
)


def _records(session: Session, campaign: Campaign) -> list[dict[str, Any]]:
    return [
        json.loads(record)
        for (record,) in session.execute(_STATEFUL.execution_options(yield_per=2000), {"c": campaign.id})
    ]


def _known_name(session: Session, campaign: Campaign, records: list[dict[str, Any]], name: str) -> str:
    """The character's name as the ledger knows it (a character not in the tables any
    more can still be asked about)."""
    import unicodedata

    try:
        return character_named(session, campaign, name).name
    except NotFound:
        wanted = unicodedata.normalize("NFC", name).strip()
        if any(record.get("character") == wanted for record in records):
            return wanted
        raise


@dataclass(frozen=True, slots=True)
class CharacterAsOf(CharacterSheet):
    """The sheet as the ledger had it, and the last entry counted."""

    as_of: int


def character_at(
    db: Database, campaign_name: str | None, name: str, *, at: int | None = None, before: int | None = None
) -> CharacterAsOf:
    """The `char show --json` sheet as it stood right after entry `at` (or just before
    entry `before`), plus "as_of": the last entry counted."""
    from campaign.projection.timeline import state_at
    from campaign.projection.views import character_view

    if (at is None) == (before is None):
        raise BadInput(_("give one of --at SEQ or --before SEQ"))
    seq = at if at is not None else before
    assert seq is not None  # exactly one of the two was given
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        head = ledger.head(session, campaign.id)[0]
        if not 1 <= seq <= head:
            raise NotFound(
                _("no ledger entry #{seq} in campaign {name!r} (entries 1..{head})").format(
                    seq=seq, name=campaign.name, head=head
                )
            )
        records = _records(session, campaign)
        name = _known_name(session, campaign, records, name)
        as_of = seq if at is not None else seq - 1
        state = state_at([entry_from_record(r) for r in records], as_of)
        if name not in state.characters:
            raise NotFound(_("{name!r} did not exist yet after entry #{as_of}").format(name=name, as_of=as_of))
        row = state.characters[name]
        row.stats = _in_sheet_order(session, campaign, name, row.stats)
        aliases = stat_names_for(campaign.ruleset).aliases
        return extended(CharacterAsOf, character_view(state, name, aliases), as_of=as_of)


def _in_sheet_order(
    session: Session, campaign: Campaign, name: str, stats: dict[str, int | str]
) -> dict[str, int | str]:
    """The replayed stats in the order `char show` lists them (the sheet's, as typed):
    a hashed record's keys are sorted, so a replay alone would list them alphabetically.
    Stats the sheet no longer has follow, in the record's order."""
    try:
        order = list(character_named(session, campaign, name).stats)
    except NotFound:
        return stats
    return {
        **{key: stats[key] for key in order if key in stats},
        **{key: value for key, value in stats.items() if key not in order},
    }


@dataclass(frozen=True, slots=True)
class TimelineRow:
    """An entry that changed the character. `changes` are campaign.projection.timeline's
    items ({"what", "name", "before", "after", "text"}), as the projection makes them."""

    seq: int
    at: str
    actor: str | None
    kind: str
    reason: str | None
    voids_seq: int | None
    voided_by: int | None
    changes: tuple[dict[str, Any], ...]


def timeline(db: Database, campaign_name: str | None, name: str) -> list[TimelineRow]:
    """Every entry that changed the character, oldest first, with what it changed as
    the ledger stood then; `voided_by` names a later void that took the entry back."""
    from campaign.projection.timeline import character_changes, states_through

    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        records = _records(session, campaign)
        name = _known_name(session, campaign, records, name)
        entries = [entry_from_record(r) for r in records]
        by_seq = {r["seq"]: r for r in records}
        voided = effective_voids(void_pairs(entries))
        rows = []
        aliases = stat_names_for(campaign.ruleset).aliases
        for entry, state_before, state_after in states_through(entries):
            if state_before is state_after:
                continue
            changes = character_changes(state_before, state_after, name, aliases)
            if not changes:
                continue
            record = by_seq[entry.seq]
            rows.append(
                TimelineRow(
                    seq=entry.seq,
                    at=entry.at,
                    actor=record.get("actor"),
                    kind=entry.kind,
                    reason=record.get("reason"),
                    voids_seq=entry.voids_seq,
                    voided_by=voided.get(
                        entry.seq, voided.get(entry.parent_seq) if entry.parent_seq is not None else None
                    ),
                    changes=tuple(changes),
                )
            )
        return rows

"""The state tables as a campaign.projection State: read them, check them, rewrite them.

- `ledger_entries` parses the campaign's ledger for replay (only kinds that can carry
  ops, plus voids).
- `load_state` reads the tables into the same shape replay produces.
- `check_state` compares the two and names the first difference.
- `sync_state` rewrites the tables to equal a given State, touching only what differs:
  a void writes its projection this way, and import builds a campaign this way.

All three go through campaign.db.state_mapping, the one module that maps the
tables to the State and writes them; live writes (services.recording) use it too.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from sqlalchemy import text
from sqlalchemy.orm import Session

from campaign.db.models import Campaign
from campaign.db.state_mapping import StateTables
from campaign.projection.replay import Entry, entry_from_record, project
from campaign.projection.state import Difference, State, first_difference

# Entries of these kinds never change state (rolls, tables, checks, seals): replay skips
# reading them, which is most of a long ledger.
STATELESS_KINDS = ("roll", "table", "check", "seal")


def ledger_entries(
    session: Session, campaign: Campaign, progress: Callable[[int], object] | None = None
) -> list[Entry]:
    rows = session.execute(
        text(
            "SELECT record FROM ledger WHERE campaign_id = :c AND kind NOT IN ('roll', 'table', 'check', 'seal') "
            "ORDER BY seq"
        ).execution_options(yield_per=2000),
        {"c": campaign.id},
    )
    entries = []
    for (record,) in rows:
        entries.append(entry_from_record(json.loads(record)))
        if progress is not None:
            progress(1)
    return entries


def load_state(session: Session, campaign: Campaign, only: str | None = None) -> State:
    """The tables as a State. With `only` (a character's name): just what that character's
    view needs (its traits and conditions, no reunion rolls), so `char show` and a
    command's "character after" stay cheap in a long campaign."""
    tables = StateTables(session, campaign)
    if only is None:
        return tables.load_all()
    tables.participants, tables.tracking = "none", False
    tables.need("players", "characters", "relationships", "scenarios", "disappearances", "searches")
    tables.rows_of(only)
    return tables.state


def check_state(
    session: Session, campaign: Campaign, progress: Callable[[int], object] | None = None
) -> Difference | None:
    """None when the tables equal the ledger's projection, else the first difference.

    A ledger that does not replay (malformed or impossible ops) raises BadOp or
    ReplayConflict, both naming the entry.
    """
    expected = project(ledger_entries(session, campaign, progress))
    return first_difference(expected, load_state(session, campaign))


def sync_state(session: Session, campaign: Campaign, target: State, before: State | None = None) -> None:
    """Make the tables equal `target`, changing only what differs.

    Rows are matched by stable key; a row the target lacks is deleted (children
    first), a row it adds is inserted (parents first), a differing row is updated.
    `before`, the replayed state the tables equal now, lets a renamed character or
    player keep its row (a void of a rename renames it back).
    """
    StateTables(session, campaign).write_target(target, before)
    session.flush()

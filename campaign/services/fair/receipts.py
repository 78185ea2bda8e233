"""`campaign fair check-receipts`: a player's receipts file against the campaign's ledger.

The check itself is campaign.receipts_check (standard library and fair_check.py only, so
the standalone copy a player runs says exactly what this command says); this module only
reads the ledger's records, in seq order, the way an export or a proof bundle would hand
them over.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from campaign.db.database import Database


def ledger_records(db: Database, campaign_name: str | None) -> tuple[str, list[dict[str, Any]]]:
    """(the chain's own campaign name, every record of its ledger, parsed, in seq order)."""
    from sqlalchemy import select

    from campaign.db.models import LedgerEntry
    from campaign.services.common import campaign_named

    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        table = LedgerEntry.__table__
        rows = session.execute(
            select(table.c.record).where(table.c.campaign_id == campaign.id).order_by(table.c.seq)
        ).scalars()
        return campaign.ledger_name, [json.loads(raw) for raw in rows]

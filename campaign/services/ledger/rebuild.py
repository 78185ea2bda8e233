"""`db upgrade --rebuild`: make every campaign's state the replay of its ledger again.

A database from the first release (schema revision 0002) is rebuilt from its ledger when
first opened (campaign.db.migrate).
Before that rebuild committed in one transaction with the upgrade, a process killed
between the two left a database at the newest revision with its state never rebuilt:
`history verify` failed on it for ever and nothing would redo the rebuild. This redoes
it, for such a database (or any whose state tables were edited by hand), but only from
a ledger whose chain holds: state is rebuilt from history, never history from state.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from campaign import ledger
from campaign.db.database import Database
from campaign.errors import RuleRefused
from campaign.i18n import _


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """How many campaigns' state tables were rewritten from their ledgers."""

    campaigns: int


def rebuild_states(db: Database) -> Rebuilt:
    """Check every chain, then rebuild every campaign's state in one transaction."""
    from campaign.db.migrate import rebuild_projections
    from campaign.db.models import Campaign

    with db.read() as session:
        campaigns = session.scalars(select(Campaign).order_by(Campaign.id)).all()
        for campaign in campaigns:
            report = ledger.verify(session, campaign)
            if not report.ok:
                raise RuleRefused(
                    _(
                        "the ledger of campaign {name!r} is broken at #{bad_seq} ({reason}): its state cannot be "
                        "rebuilt from it; nothing was changed"
                    ).format(name=campaign.name, bad_seq=report.bad_seq, reason=report.reason)
                )
    with db.engine.execution_options(sqlite_begin="IMMEDIATE").connect() as conn, conn.begin():
        rebuild_projections(conn)
    return Rebuilt(campaigns=len(campaigns))

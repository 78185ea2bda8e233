"""The names a person types at the table: what `campaign shell` offers on Tab.

One read transaction for all of them, so the shell asks once per command line and
never holds a snapshot across a write.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from campaign.db.database import Database
from campaign.db.models import Campaign, Character, Player
from campaign.services.common import campaign_named


@dataclass(frozen=True)
class Names:
    campaigns: tuple[str, ...] = ()
    characters: tuple[str, ...] = ()
    players: tuple[str, ...] = ()


def names(db: Database, campaign_name: str | None) -> Names:
    """Every campaign, and the characters (dead and retired ones too: history still names
    them) and players of the campaign acted on; no campaign yet gives empty lists."""
    from campaign.errors import CampaignError

    with db.read() as session:
        campaigns = tuple(session.scalars(select(Campaign.name).order_by(Campaign.name)))
        try:
            campaign = campaign_named(session, campaign_name)
        except CampaignError:
            return Names(campaigns)
        characters = session.scalars(
            select(Character.name).where(Character.campaign_id == campaign.id).order_by(Character.name)
        )
        players = session.scalars(select(Player.name).where(Player.campaign_id == campaign.id).order_by(Player.name))
        return Names(campaigns, tuple(characters), tuple(players))

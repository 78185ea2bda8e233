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


@dataclass(frozen=True, slots=True)
class ReservedName:
    """A name that reads as the GM's actor name, kept from before the rule, and the
    command that takes it away (`db check` lists them)."""

    campaign: str
    kind: str  # player | character | token
    name: str
    fix: str


def reserved_names(db: Database) -> tuple[ReservedName, ...]:
    """Every player, character and live BCDice-API token, in every campaign, whose name
    reads as the GM's (core.text_rule.is_reserved_name): made before names were checked,
    or imported with a campaign's ledger, which keeps its names as they were."""
    from shlex import quote

    from campaign.core.text_rule import is_reserved_name
    from campaign.db.models_bcdice import BcdiceToken

    kinds = (
        ("player", select(Campaign.name, Player.name).join(Player, Player.campaign_id == Campaign.id)),
        ("character", select(Campaign.name, Character.name).join(Character, Character.campaign_id == Campaign.id)),
        (
            "token",
            select(Campaign.name, BcdiceToken.name)
            .join(BcdiceToken, BcdiceToken.campaign_id == Campaign.id)
            .where(BcdiceToken.revoked_at.is_(None)),
        ),
    )
    fixes = {
        "player": "player rename {name} NEW_NAME",
        "character": "char rename {name} NEW_NAME",
        "token": "invite revoke --bcdice {name}",
    }
    found = []
    with db.read() as session:
        for kind, query in kinds:
            for campaign, name in session.execute(query):
                if is_reserved_name(name):
                    fix = f"campaign -c {quote(campaign)} " + fixes[kind].format(name=quote(name))
                    found.append(ReservedName(campaign=campaign, kind=kind, name=name, fix=fix))
    return tuple(sorted(found, key=lambda item: (item.campaign, item.kind, item.name)))

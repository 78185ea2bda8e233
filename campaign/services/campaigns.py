"""Creating and listing campaigns."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from campaign import ledger
from campaign.db.database import Database
from campaign.db.models import Campaign, Character, LedgerEntry, Player
from campaign.errors import BadInput, RuleRefused
from campaign.services.common import clean_name

RULESETS = {
    "gurps3-ja": "GURPS 3rd edition (Japanese), fright checks and seed tables",
    "2d6-ja": "Japanese 2d6 homebrew rules (心/技/体 action checks)",
}
DEFAULT_SETTINGS: dict[str, dict[str, Any]] = {
    "gurps3-ja": {"fright_cap": None},
    "2d6-ja": {"criticals": True, "default_stats": ["心", "技", "体"]},
}


def create_campaign(db: Database, name: str, ruleset: str, actor: str) -> dict[str, Any]:
    name = clean_name(name, "campaign")
    if ruleset not in RULESETS:
        raise BadInput(f"unknown ruleset {ruleset!r}; choose one of: {', '.join(RULESETS)}")
    try:
        with db.write() as session:
            if session.scalar(select(Campaign.id).where(Campaign.name == name)) is not None:
                raise RuleRefused(f"a campaign named {name!r} already exists")
            campaign = Campaign(name=name, ruleset=ruleset, settings=dict(DEFAULT_SETTINGS[ruleset]),
                                created_at=ledger.utc_now())
            session.add(campaign)
            session.flush()
            ledger.append(session, campaign, actor, ledger.NewEntry(
                kind="campaign", reason="created",
                detail={"name": name, "ruleset": ruleset, "settings": campaign.settings},
            ))
            return campaign_summary(campaign)
    except IntegrityError:
        # Another process created the same name between our check and our insert.
        raise RuleRefused(f"a campaign named {name!r} already exists") from None


def campaign_summary(campaign: Campaign, **extra: Any) -> dict[str, Any]:
    return {"name": campaign.name, "ruleset": campaign.ruleset, "settings": campaign.settings,
            "created_at": campaign.created_at, **extra}


def list_campaigns(db: Database) -> list[dict[str, Any]]:
    with db.read() as session:
        campaigns = session.scalars(select(Campaign).order_by(Campaign.name)).all()
        counts = {
            "characters": dict(session.execute(select(Character.campaign_id, func.count()).group_by(Character.campaign_id)).all()),
            "players": dict(session.execute(select(Player.campaign_id, func.count()).group_by(Player.campaign_id)).all()),
            "entries": dict(session.execute(select(LedgerEntry.campaign_id, func.max(LedgerEntry.seq)).group_by(LedgerEntry.campaign_id)).all()),
        }
        return [
            campaign_summary(c, **{key: counts[key].get(c.id, 0) for key in counts})
            for c in campaigns
        ]

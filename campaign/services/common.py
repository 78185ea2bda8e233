"""Lookups and validation shared by every service.

Each lookup raises NotFound with the name the user typed, so the CLI can print it as is.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import select
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.core.suggest import did_you_mean
from campaign.db.models import Campaign, Character, Player
from campaign.errors import BadInput, NotFound, RuleRefused

MAX_NAME = 200


def clean_name(value: str, what: str) -> str:
    """Names are free text (Japanese, emoji, quotes) but not empty, not control characters.

    NFC normalisation makes "が" typed two ways the same name.
    """
    name = unicodedata.normalize("NFC", value).strip()
    if not name:
        raise BadInput(f"{what} name must not be empty")
    if len(name) > MAX_NAME:
        raise BadInput(f"{what} name is too long ({len(name)} characters, at most {MAX_NAME})")
    if any(unicodedata.category(ch) == "Cc" for ch in name):
        raise BadInput(f"{what} name must not contain control characters")
    return name


def clean_text(value: str | None, what: str, limit: int = 2000) -> str | None:
    if value is None:
        return None
    if "\x00" in value:
        raise BadInput(f"{what} must not contain NUL characters")
    if len(value) > limit:
        raise BadInput(f"{what} is too long ({len(value)} characters, at most {limit})")
    return value


# Lookups treat a name containing NUL as unknown without asking the database: clean_name
# never stores one, and PostgreSQL refuses NUL in a query parameter (a traceback).


def campaign_named(session: Session, name: str | None) -> Campaign:
    """The campaign to act on: the one named, else the only one there is."""
    if name is None:
        campaigns = session.scalars(select(Campaign).limit(2)).all()
        if len(campaigns) == 1:
            return campaigns[0]
        if not campaigns:
            raise NotFound("no campaign yet: create one with `campaign init NAME`")
        raise RuleRefused("several campaigns exist: choose one with `campaign use NAME` or --campaign NAME")
    name = unicodedata.normalize("NFC", name).strip()
    found = None if "\x00" in name else session.scalar(select(Campaign).where(Campaign.name == name))
    if found is None:
        raise NotFound(f"no campaign named {name!r}" + did_you_mean(name, session.scalars(select(Campaign.name))))
    return found


def player_named(session: Session, campaign: Campaign, name: str) -> Player:
    name = unicodedata.normalize("NFC", name).strip()
    found = None if "\x00" in name else session.scalar(
        select(Player).where(Player.campaign_id == campaign.id, Player.name == name))
    if found is None:
        known = session.scalars(select(Player.name).where(Player.campaign_id == campaign.id))
        raise NotFound(f"no player named {name!r} in campaign {campaign.name!r}" + did_you_mean(name, known))
    return found


def character_named(session: Session, campaign: Campaign, name: str) -> Character:
    name = unicodedata.normalize("NFC", name).strip()
    found = None if "\x00" in name else session.scalar(
        select(Character).where(Character.campaign_id == campaign.id, Character.name == name))
    if found is None:
        known = session.scalars(select(Character.name).where(Character.campaign_id == campaign.id))
        raise NotFound(f"no character named {name!r} in campaign {campaign.name!r}" + did_you_mean(name, known))
    return found


def active_character_named(session: Session, campaign: Campaign, name: str, doing: str) -> Character:
    """A character who can still act in the story: dead and retired ones are refused."""
    character = character_named(session, campaign, name)
    if character.status != "active":
        raise RuleRefused(f"{character.name} is {character.status} and cannot {doing}")
    return character


@contextmanager
def campaign_transaction(db, campaign_name: str | None) -> Iterator[tuple[Session, Campaign]]:
    """A write transaction on one campaign that holds its append lock from the start,
    so everything the use-case reads is still true when its ledger entry is written."""
    with db.write() as session:
        campaign = campaign_named(session, campaign_name)
        ledger.lock_campaign(session, campaign.id)
        yield session, campaign

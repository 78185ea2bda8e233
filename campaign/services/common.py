"""Lookups and validation shared by every service.

Each lookup raises NotFound with the name the user typed, so the CLI can print it as is.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.core import suggest
from campaign.db.models import Campaign, Character, Player
from campaign.errors import BadInput, NotFound, RuleRefused
from campaign.i18n import _

if TYPE_CHECKING:
    from campaign.db.database import Database

MAX_NAME = 200
# Every stored integer must fit PostgreSQL's 32-bit INTEGER (SQLite would take 64 bits):
# a CP total that only grows by trait adds is refused at this bound on both backends, so
# the same command never succeeds on one and fails with an overflow on the other.
CP_TOTAL_LIMIT = 10_000_000


def check_cp_total(value: int, who: str) -> int:
    if abs(value) > CP_TOTAL_LIMIT:
        raise RuleRefused(_("{who}: the CP total would be {value}, beyond ±{limit:,}").format(
            who=who, value=value, limit=CP_TOTAL_LIMIT))
    return value


# Characters a name must not hold: controls (C0, DEL, C1: a terminal obeys them, so a name
# could move the cursor or recolour the screen), format characters (zero-width spaces and
# joiners, bidi overrides: two names that look identical), line and paragraph separators,
# surrogates and unassigned code points.
_NAME_REFUSED = {"Cc", "Cf", "Cs", "Cn", "Zl", "Zp"}
# Free text (reasons, notes) may span lines and hold tabs, nothing else of C0/C1.
_TEXT_ALLOWED_CONTROLS = {"\t", "\n"}


def clean_name(value: str, what: str) -> str:
    """Names are free text (Japanese, emoji, quotes) but not empty and nothing invisible.

    NFC normalisation makes "が" typed two ways the same name.
    """
    name = unicodedata.normalize("NFC", value).strip()
    if not name:
        raise BadInput(_("{what} name must not be empty").format(what=what))
    if len(name) > MAX_NAME:
        raise BadInput(_("{what} name is too long ({length} characters, at most {limit})").format(
            what=what, length=len(name), limit=MAX_NAME))
    for ch in name:
        category = unicodedata.category(ch)
        if category in _NAME_REFUSED:
            kind = "control" if category == "Cc" else "invisible or format"
            raise BadInput(f"{what} name must not contain {kind} characters (U+{ord(ch):04X})")
    return name


def clean_campaign_name(value: str, what: str = "campaign") -> str:
    """A campaign's name, which `-c NAME` and `use NAME` must be able to take: one that
    begins with '-' would be read as an option (`init -- --help` made a campaign named
    `--help` that no later command could select). Import applies the same rule."""
    name = clean_name(value, what)
    if name.startswith("-"):
        raise BadInput(f"{what} name must not begin with '-' (it would read as an option): {name!r}")
    return name


def clean_text(value: str | None, what: str, limit: int = 2000) -> str | None:
    """Free text: any length up to `limit`, tabs and newlines allowed, no other control
    character (an escape sequence in a reason would run in every terminal that shows it)."""
    if value is None:
        return None
    if "\x00" in value:
        raise BadInput(f"{what} must not contain NUL characters")
    if len(value) > limit:
        raise BadInput(f"{what} is too long ({len(value)} characters, at most {limit})")
    for ch in value:
        if ch not in _TEXT_ALLOWED_CONTROLS and unicodedata.category(ch) in ("Cc", "Cs"):
            raise BadInput(f"{what} must not contain control characters (U+{ord(ch):04X}); "
                           "tabs and line breaks are fine")
    return value


# Lookups treat a name containing NUL as unknown without asking the database: clean_name
# never stores one, and PostgreSQL refuses NUL in a query parameter (a traceback).


# Built once: every command looks its campaign up, and building the statement anew costs
# more than running it in a process that runs many commands (campaign shell).
_CAMPAIGN_BY_NAME = select(Campaign).where(Campaign.name == bindparam("name"))
_FIRST_CAMPAIGNS = select(Campaign).limit(2)


def did_you_mean(name: str, known: Iterable[str], readings: Mapping[str, str] | None = None) -> str:
    """' (did you mean 'X'?)' in the output's language, or '' (campaign.core.suggest chooses)."""
    from campaign.i18n import _

    return suggest.did_you_mean(name, known, readings, phrase=_(" (did you mean {found!r}?)"))


def campaign_named(session: Session, name: str | None) -> Campaign:
    """The campaign to act on: the one named, else the only one there is."""
    if name is None:
        campaigns = session.scalars(_FIRST_CAMPAIGNS).all()
        if len(campaigns) == 1:
            return campaigns[0]
        if not campaigns:
            raise NotFound(_("no campaign yet: create one with `campaign init NAME`"))
        raise RuleRefused(_("several campaigns exist: choose one with `campaign use NAME` or --campaign NAME"))
    name = unicodedata.normalize("NFC", name).strip()
    found = None if "\x00" in name else session.scalar(_CAMPAIGN_BY_NAME, {"name": name})
    if found is None:
        raise NotFound(_("no campaign named {name!r}").format(name=name)
                       + did_you_mean(name, session.scalars(select(Campaign.name))))
    return found


def language_facts(db: "Database", campaign_name: str | None) -> tuple[str | None, str | None]:
    """(the `lang` setting, the ruleset) of the campaign, for campaign.i18n; (None, None)
    when there is none to ask. Here, not in services.campaigns, so that every command
    can ask without loading what changing a campaign needs."""
    from campaign.errors import CampaignError

    try:
        with db.read() as session:
            campaign = campaign_named(session, campaign_name)
            lang = (campaign.settings or {}).get("lang")
            return (lang if isinstance(lang, str) else None), campaign.ruleset
    except CampaignError:
        return None, None


def player_named(session: Session, campaign: Campaign, name: str) -> Player:
    name = unicodedata.normalize("NFC", name).strip()
    found = None if "\x00" in name else session.scalar(
        select(Player).where(Player.campaign_id == campaign.id, Player.name == name))
    if found is None:
        known = session.scalars(select(Player.name).where(Player.campaign_id == campaign.id))
        raise NotFound(_("no player named {name!r} in campaign {campaign!r}").format(name=name, campaign=campaign.name)
                       + did_you_mean(name, known))
    return found


def character_named(session: Session, campaign: Campaign, name: str) -> Character:
    name = unicodedata.normalize("NFC", name).strip()
    found = None if "\x00" in name else session.scalar(
        select(Character).where(Character.campaign_id == campaign.id, Character.name == name))
    if found is None:
        known = dict(session.execute(select(Character.name, Character.reading)
                                     .where(Character.campaign_id == campaign.id)).all())
        raise NotFound(_("no character named {name!r} in campaign {campaign!r}").format(
            name=name, campaign=campaign.name)
                       + did_you_mean(name, known, {n: r for n, r in known.items() if r}))
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
        if session.get_bind().dialect.name == "postgresql":
            # The row was read before the lock: another writer may have committed new
            # settings in between. Read it again now that no one else can change it.
            session.refresh(campaign)
        yield session, campaign

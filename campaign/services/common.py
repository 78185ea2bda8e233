"""Lookups and validation shared by every service.

Each lookup raises NotFound with the name the user typed, so the CLI can print it as is.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar, overload

from sqlalchemy import Select, bindparam, select
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.core import suggest
from campaign.core.text_rule import GM_ACTOR, TEXT_LIMIT, is_reserved_name, name_problem, normal_name, text_problem
from campaign.db.models import Campaign, Character, Player
from campaign.errors import BadInput, NotFound, RuleRefused
from campaign.i18n import _, pgettext
from campaign.labels import status_label

if TYPE_CHECKING:
    from campaign.db.database import Database

# Every stored integer must fit PostgreSQL's 32-bit INTEGER (SQLite would take 64 bits):
# a CP total that only grows by trait adds is refused at this bound on both backends, so
# the same command never succeeds on one and fails with an overflow on the other.
CP_TOTAL_LIMIT = 10_000_000


def check_cp_total(value: int, who: str) -> int:
    if abs(value) > CP_TOTAL_LIMIT:
        raise RuleRefused(
            _("{who}: the CP total would be {value}, beyond ±{limit:,}").format(
                who=who, value=value, limit=CP_TOTAL_LIMIT
            )
        )
    return value


def clean_name(value: str, what: str) -> str:
    """Names are free text (Japanese, emoji, quotes) but not empty and nothing invisible
    (core.text_rule, the rule op parsing applies to a ledger too)."""
    name = normal_name(value)
    fault = name_problem(name)
    if fault is not None:
        raise BadInput(_("{what} name {fault}").format(what=what_label(what), fault=_(fault[0]).format(**fault[1])))
    return name


def clean_person_name(value: str, what: str) -> str:
    """The name of a player, a character or a bot token, which a seat or an entry's
    actor may carry: a clean name that does not read as the GM's (core.text_rule
    is_reserved_name: `GM`, `ＧＭ`, ` gm `), or an entry could pass for the GM's."""
    name = clean_name(value, what)
    if is_reserved_name(name):
        raise BadInput(
            _("{what} name {name!r} is reserved: it reads as the GM's actor name {gm!r}").format(
                what=what_label(what), name=name, gm=GM_ACTOR
            )
        )
    return name


def clean_campaign_name(value: str, what: str = "campaign") -> str:
    """A campaign's name, which `-c NAME` and `use NAME` must be able to take: one that
    begins with '-' would be read as an option (`init -- --help` made a campaign named
    `--help` that no later command could select). Import applies the same rule."""
    name = clean_name(value, what)
    if name.startswith("-"):
        raise BadInput(
            _("{what} name must not begin with '-' (it would read as an option): {name!r}").format(what=what, name=name)
        )
    return name


@overload
def clean_text(value: str, what: str, limit: int = ...) -> str: ...
@overload
def clean_text(value: str | None, what: str, limit: int = ...) -> str | None: ...
def clean_text(value: str | None, what: str, limit: int = TEXT_LIMIT) -> str | None:
    """Free text: any length up to `limit`, tabs and newlines allowed, no other control
    character (core.text_rule)."""
    if value is None:
        return None
    fault = text_problem(value, limit)
    if fault is not None:
        raise BadInput(_("{what} {fault}").format(what=what_label(what), fault=_(fault[0]).format(**fault[1])))
    return value


#: What a name or text belongs to, as refusals name it; options (--reason) stay as typed.
_WHAT_WORDS = {
    "player": lambda: pgettext("name of", "player"),
    "character": lambda: pgettext("name of", "character"),
    "campaign": lambda: pgettext("name of", "campaign"),
    "scenario": lambda: pgettext("name of", "scenario"),
    "trait": lambda: pgettext("name of", "trait"),
    "condition": lambda: pgettext("name of", "condition"),
    "skill": lambda: pgettext("name of", "skill"),
    "stat": lambda: pgettext("name of", "stat"),
    "table": lambda: pgettext("name of", "table"),
    "note": lambda: pgettext("name of", "note"),
    "category": lambda: pgettext("name of", "category"),
    "token": lambda: pgettext("name of", "BCDice-API token"),
}


def what_label(what: str) -> str:
    """'player' -> プレイヤー in a refusal; an option's name is kept as it is typed."""
    return _WHAT_WORDS[what]() if what in _WHAT_WORDS else what


# Lookups treat a name containing NUL as unknown without asking the database: clean_name
# never stores one, and PostgreSQL refuses NUL in a query parameter (a traceback).


# Built once: every command looks its campaign up, and building the statement anew costs
# more than running it in a process that runs many commands (campaign shell).
_CAMPAIGN_BY_NAME = select(Campaign).where(Campaign.name == bindparam("name"))
_FIRST_CAMPAIGNS = select(Campaign).limit(2)
_BY_NAME: dict[type[Player | Character], Select[Any]] = {
    model: select(model).where(model.campaign_id == bindparam("c"), model.name == bindparam("name"))
    for model in (Player, Character)
}


def did_you_mean(name: str, known: Iterable[str], readings: Mapping[str, str] | None = None) -> str:
    """' (did you mean 'X'?)' in the output's language, or '' (campaign.core.suggest chooses)."""
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
    name = normal_name(name)
    found = _found_before(session, Campaign, None, name)
    if found is None and "\x00" not in name:
        found = _remember(session, None, name, session.scalar(_CAMPAIGN_BY_NAME, {"name": name}))
    if found is None:
        raise NotFound(
            _("no campaign named {name!r}").format(name=name)
            + did_you_mean(name, session.scalars(select(Campaign.name)))
        )
    return found


def campaign_by_id(session: Session, campaign_id: int) -> Campaign:
    """The campaign of this id, then found by its name in this transaction with no query
    (a server knows its campaign by id, and the use-cases it runs look it up by name).
    On PostgreSQL the campaign's lock has just read the row, so this asks nothing."""
    campaign = session.get_one(Campaign, campaign_id)
    _remember(session, None, campaign.name, campaign)
    return campaign


def language_facts(db: Database, campaign_name: str | None) -> tuple[str | None, str | None]:
    """(the `lang` setting, the ruleset) of the campaign, for campaign.i18n; (None, None)
    when there is none to ask. Here, not in services.campaigns.setup, so that every command
    can ask without loading what changing a campaign needs."""
    from campaign.errors import CampaignError

    try:
        with db.read() as session:
            campaign = campaign_named(session, campaign_name)
            lang = (campaign.settings or {}).get("lang")
            return (lang if isinstance(lang, str) else None), campaign.ruleset
    except CampaignError:
        return None, None


_Named = TypeVar("_Named", Player, Character)
_Found = TypeVar("_Found", Campaign, Player, Character)

# session.info key: {(model, campaign id or None, name): the object} that a name look-up
# found in this session's transaction (a session is one transaction), so the same name
# asked again by another step of one request needs no query. The objects are held here
# because the session's identity map holds them only weakly.
_FOUND = "campaign.services.found_by_name"


def _found_before(session: Session, model: type[_Found], scope: int | None, name: str) -> _Found | None:
    found: _Found | None = session.info.get(_FOUND, {}).get((model, scope, name))
    if found is None or found not in session or found in session.deleted:
        return None
    return found if found.name == name else None  # renamed since: ask again


def _remember(session: Session, scope: int | None, name: str, found: _Found | None) -> _Found | None:
    if found is not None:
        session.info.setdefault(_FOUND, {})[(type(found), scope, name)] = found
    return found


def _named(session: Session, campaign: Campaign, model: type[_Named], name: str, what: str) -> _Named:
    """The campaign's player or character of this name, else NotFound with a did-you-mean."""
    name = normal_name(name)
    found = _found_before(session, model, campaign.id, name)
    if found is None and "\x00" not in name:
        found = _remember(session, campaign.id, name, session.scalar(_BY_NAME[model], {"c": campaign.id, "name": name}))
    if found is None:
        if model is Character:
            rows = session.execute(
                select(Character.name, Character.reading).where(Character.campaign_id == campaign.id)
            )
            known: dict[str, str | None] = {name: reading for name, reading in rows}
            message = _("no character named {name!r} in campaign {campaign!r}")
        else:
            known = dict.fromkeys(session.scalars(select(Player.name).where(Player.campaign_id == campaign.id)))
            message = _("no player named {name!r} in campaign {campaign!r}")
        readings = {n: r for n, r in known.items() if r}
        raise NotFound(message.format(name=name, campaign=campaign.name) + did_you_mean(name, known, readings))
    return found


def player_named(session: Session, campaign: Campaign, name: str) -> Player:
    return _named(session, campaign, Player, name, "player")


def character_named(session: Session, campaign: Campaign, name: str) -> Character:
    return _named(session, campaign, Character, name, "character")


def active_character_named(session: Session, campaign: Campaign, name: str, doing: str) -> Character:
    """A character who can still act in the story: dead and retired ones are refused."""
    character = character_named(session, campaign, name)
    if character.status != "active":
        raise RuleRefused(
            _("{name} is {status} and cannot {doing}").format(
                name=character.name, status=status_label(character.status), doing=doing
            )
        )
    return character


@contextmanager
def campaign_transaction(db: Database, campaign_name: str | None) -> Iterator[tuple[Session, Campaign]]:
    """A write transaction on one campaign that holds its append lock from the start,
    so everything the use-case reads is still true when its ledger entry is written."""
    with db.write() as session:
        campaign = campaign_named(session, campaign_name)
        # On PostgreSQL the row was read before the lock, and another writer may have
        # committed new settings in between: taking the lock reads it afresh.
        ledger.lock_campaign(session, campaign.id)
        yield session, campaign

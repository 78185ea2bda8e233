"""Missing characters (行方不明) and the facts the rules of docs/rules.md
"Missing and reunion check" are judged on.

The rules themselves live in campaign.core.reunion; this module reads what they need
from the database (who is missing, who searches for whom, who is related to whom) and
owns the transactions of `missing mark`, `missing faces` and `missing list`.

Where the seed is silent, these decisions stand:
- A character out searching cannot be marked missing: it takes part in no scenario, so
  nothing can happen to it (refused with one line; void its search entry first if the
  search itself was the mistake).
- An NPC without an owning player is played by its summoner's player: that player makes
  its reunion roll (ledger actor) and counts as "its own player" for the search rules;
  a GM-run NPC (no player, no summoner) rolls as "GM".
- Marking missing during an open scenario ties the disappearance to that scenario
  (`since_scenario`); every scenario end rolls for everyone missing at that moment.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from campaign.core.reunion import (
    DEFAULT_FACES,
    CharacterFacts,
    CharacterRef,
    MissingFacts,
    SearcherFacts,
    reunion_chance,
    reunion_odds_text,
    reunion_threshold,
)
from campaign.db.database import Database
from campaign.db.models import Campaign, Character, Disappearance, Relationship, Scenario, Search
from campaign.errors import BadInput, RuleRefused
from campaign.i18n import _, pgettext
from campaign.services.common import (
    active_character_named,
    campaign_named,
    campaign_transaction,
    character_named,
    clean_text,
)
from campaign.services.recording import recording
from campaign.services.results import extended

MAX_FACES = 1000


@dataclass(frozen=True, slots=True)
class Searcher:
    name: str
    player: str | None
    since_seq: int


@dataclass(frozen=True, slots=True)
class MissingCharacter:
    """One disappearance as `missing list` shows it, with the reunion chance right now."""

    character: str
    kind: str
    player: str | None  # who plays it (an unowned NPC: its summoner's player)
    summoner: str | None
    faces: int
    reason: str | None
    since_seq: int
    since_at: str
    since_scenario: int | None
    searchers: tuple[Searcher, ...]
    threshold: int
    chance: float
    odds: str


@dataclass(frozen=True, slots=True)
class MarkedMissing(MissingCharacter):
    seq: int


@dataclass(frozen=True, slots=True)
class FacesChanged(MissingCharacter):
    seq: int


@dataclass(frozen=True, slots=True)
class FoundMissing:
    """A disappearance ended by the story; `searchers` are the names that return."""

    character: str
    since_seq: int
    searchers: tuple[str, ...]
    reason: str
    seq: int


def check_faces(faces: int) -> int:
    if isinstance(faces, bool) or not isinstance(faces, int) or not 1 <= faces <= MAX_FACES:
        raise BadInput(
            _("a reunion die has 1..{MAX_FACES} faces, not {faces!r}").format(MAX_FACES=MAX_FACES, faces=faces)
        )
    return faces


# --------------------------------------------------------------------------- lookups


def open_scenario(session: Session, campaign: Campaign) -> Scenario | None:
    return session.scalar(select(Scenario).where(Scenario.campaign_id == campaign.id, Scenario.ended_seq.is_(None)))


def open_disappearance(session: Session, character: Character) -> Disappearance | None:
    return session.scalar(
        select(Disappearance).where(Disappearance.character_id == character.id, Disappearance.reunited_seq.is_(None))
    )


def open_disappearances(session: Session, campaign: Campaign) -> list[Disappearance]:
    """Everyone missing right now, in the order they went missing."""
    return list(
        session.scalars(
            select(Disappearance)
            .where(Disappearance.campaign_id == campaign.id, Disappearance.reunited_seq.is_(None))
            .order_by(Disappearance.since_seq)
        )
    )


def active_searches(session: Session, disappearance: Disappearance) -> list[tuple[Search, Character]]:
    """The searchers out for one disappearance, in the order they were sent."""
    return list(
        session.execute(
            select(Search, Character)
            .join(Character, Search.searcher_id == Character.id)
            .where(Search.disappearance_id == disappearance.id, Search.ended_seq.is_(None))
            .order_by(Search.started_seq)
        )
    )


def searches_at(session: Session, disappearance: Disappearance, seq: int) -> list[tuple[Search, Character]]:
    """The searchers that were out for one disappearance when ledger entry `seq` was
    written (a scenario's end): a reunion check re-rolled for that scenario counts these,
    not searchers sent since (docs/rules.md, "Reunion check")."""
    return list(
        session.execute(
            select(Search, Character)
            .join(Character, Search.searcher_id == Character.id)
            .where(
                Search.disappearance_id == disappearance.id,
                Search.started_seq <= seq,
                or_(Search.ended_seq.is_(None), Search.ended_seq > seq),
            )
            .order_by(Search.started_seq)
        )
    )


def active_search_of(session: Session, searcher: Character) -> tuple[Search, Character] | None:
    """(search, missing character) if `searcher` is out searching."""
    row = session.execute(
        select(Search, Character)
        .join(Disappearance, Search.disappearance_id == Disappearance.id)
        .join(Character, Disappearance.character_id == Character.id)
        .where(Search.searcher_id == searcher.id, Search.ended_seq.is_(None))
    ).first()
    return (row[0], row[1]) if row else None


def playing_player(character: Character) -> str | None:
    """Who plays a character: its owner; for an unowned NPC, its summoner's player
    (None for an NPC the GM runs)."""
    if character.player is not None:
        return character.player.name
    if character.summoner is not None and character.summoner.player is not None:
        return character.summoner.player.name
    return None


# --------------------------------------------------------------------------- facts


def character_facts(session: Session, character: Character) -> CharacterFacts:
    searching = active_search_of(session, character)
    related_ids = set()
    for rel in session.scalars(
        select(Relationship).where(or_(Relationship.from_id == character.id, Relationship.to_id == character.id))
    ):
        related_ids.add(rel.to_id if rel.from_id == character.id else rel.from_id)
    return CharacterFacts(
        id=character.id,
        name=character.name,
        is_pc=character.kind == "pc",
        player=character.player.name if character.player else None,
        missing=open_disappearance(session, character) is not None,
        searching_for=CharacterRef(searching[1].id, searching[1].name) if searching else None,
        related_to=frozenset(related_ids),
    )


def missing_facts(session: Session, character: Character, disappearance: Disappearance) -> MissingFacts:
    return MissingFacts(
        id=character.id,
        name=character.name,
        is_pc=character.kind == "pc",
        player=playing_player(character),
        summoner_id=character.summoner_id,
        searchers=tuple(
            SearcherFacts(id=searcher.id, name=searcher.name, player=searcher.player.name if searcher.player else "")
            for _, searcher in active_searches(session, disappearance)
        ),
    )


# --------------------------------------------------------------------------- views


def missing_view(session: Session, disappearance: Disappearance) -> MissingCharacter:
    character = session.get_one(Character, disappearance.character_id)
    searchers = active_searches(session, disappearance)
    since_scenario = (
        session.get_one(Scenario, disappearance.since_scenario_id).number
        if disappearance.since_scenario_id is not None
        else None
    )
    chance = reunion_chance(disappearance.faces, len(searchers))
    return MissingCharacter(
        character=character.name,
        kind=character.kind,
        player=playing_player(character),
        summoner=character.summoner.name if character.summoner else None,
        faces=disappearance.faces,
        reason=disappearance.reason,
        since_seq=disappearance.since_seq,
        since_at=disappearance.since_at,
        since_scenario=since_scenario,
        searchers=tuple(
            Searcher(
                name=searcher.name,
                player=searcher.player.name if searcher.player else None,
                since_seq=search.started_seq,
            )
            for search, searcher in searchers
        ),
        threshold=reunion_threshold(len(searchers)),
        chance=round(float(chance), 4),
        odds=reunion_odds_text(disappearance.faces, len(searchers)),
    )


# --------------------------------------------------------------------------- use-cases


def mark_missing(
    db: Database,
    campaign_name: str | None,
    name: str,
    actor: str,
    faces: int = DEFAULT_FACES,
    reason: str | None = None,
) -> MarkedMissing:
    """A character goes missing. During an open scenario the disappearance belongs to it,
    so that scenario's end already rolls for it."""
    faces = check_faces(faces)
    reason = clean_text(reason, "--reason")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        character = active_character_named(session, campaign, name, pgettext("doing", "go missing"))
        current = open_disappearance(session, character)
        if current is not None:
            raise RuleRefused(
                _("{name} is already missing (since ledger #{since_seq})").format(
                    name=character.name, since_seq=current.since_seq
                )
            )
        searching = active_search_of(session, character)
        if searching is not None:
            raise RuleRefused(
                _("{name} is out searching for {name2} and takes part in no scenario, so it cannot go missing").format(
                    name=character.name, name2=searching[1].name
                )
            )
        scenario = open_scenario(session, campaign)
        with recording(session, campaign, actor, "missing") as entry:
            disappearance = entry.start_missing(character, faces, reason, scenario)
            entry.describe(
                character=character.name,
                scenario=scenario.number if scenario else None,
                reason=reason,
                detail={"action": "mark", "faces": faces},
            )
        return extended(MarkedMissing, missing_view(session, disappearance), seq=entry.seq)


def set_faces(db: Database, campaign_name: str | None, name: str, actor: str, faces: int) -> FacesChanged:
    """The GM changes the reunion die of one disappearance."""
    faces = check_faces(faces)
    with campaign_transaction(db, campaign_name) as (session, campaign):
        character = character_named(session, campaign, name)
        disappearance = open_disappearance(session, character)
        if disappearance is None:
            raise RuleRefused(_("{name} is not missing").format(name=character.name))
        if disappearance.faces == faces:
            raise RuleRefused(_("{name}'s reunion die is already 1d{faces}").format(name=character.name, faces=faces))
        scenario = open_scenario(session, campaign)
        before = disappearance.faces
        with recording(session, campaign, actor, "missing") as entry:
            entry.set_faces(disappearance, faces)
            entry.describe(
                character=character.name,
                scenario=scenario.number if scenario else None,
                reason="faces",
                detail={"action": "faces", "before": before, "faces": faces},
            )
        return extended(FacesChanged, missing_view(session, disappearance), seq=entry.seq)


def list_missing(db: Database, campaign_name: str | None) -> list[MissingCharacter]:
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        return [missing_view(session, d) for d in open_disappearances(session, campaign)]


def found_missing(db: Database, campaign_name: str | None, name: str, actor: str, reason: str) -> FoundMissing:
    """The story brings a missing character back (a plot override, any time, even
    mid-scenario): the disappearance ends without a reunion roll and its searchers
    return. Recorded as a "missing" entry; voiding it makes them missing (and searching)
    again."""
    reason = clean_text(reason, "--reason")
    if not reason or not reason.strip():
        raise BadInput(_("--reason is required: say how the story brings them back"))
    with campaign_transaction(db, campaign_name) as (session, campaign):
        character = character_named(session, campaign, name)
        disappearance = open_disappearance(session, character)
        if disappearance is None:
            raise RuleRefused(_("{name} is not missing").format(name=character.name))
        searches = active_searches(session, disappearance)
        scenario = open_scenario(session, campaign)
        with recording(session, campaign, actor, "missing") as entry:
            entry.end_missing(disappearance)
            for search, searcher in searches:
                entry.end_search(search, searcher)
            entry.describe(
                character=character.name,
                scenario=scenario.number if scenario else None,
                reason=reason,
                detail={
                    "action": "found",
                    "since_seq": disappearance.since_seq,
                    "searchers": [s.name for _, s in searches],
                },
            )
        return FoundMissing(
            character=character.name,
            since_seq=disappearance.since_seq,
            searchers=tuple(s.name for _, s in searches),
            reason=reason,
            seq=entry.seq,
        )

"""Players, characters, their stats and relationships."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from sqlalchemy import bindparam, or_, select
from sqlalchemy.orm import Session

from campaign.db.database import Database
from campaign.db.models import Campaign, Character, Disappearance, Player, Relationship, Search
from campaign.errors import BadInput, RuleRefused
from campaign.i18n import _
from campaign.projection.views import CharacterSheet
from campaign.services.common import (
    campaign_named,
    campaign_transaction,
    character_named,
    clean_name,
    clean_person_name,
    clean_text,
    player_named,
)
from campaign.services.recording import recording
from campaign.services.results import extended

STAT_LIMIT = 1_000_000


@dataclass(frozen=True, slots=True)
class PlayerAddedResult:
    name: str
    seq: int


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """A row of `player list`: the player and the names of their characters."""

    name: str
    characters: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CharacterAddedResult(CharacterSheet):
    """The new character's sheet and the entry that added it."""

    seq: int


@dataclass(frozen=True, slots=True)
class StatsChanged(CharacterSheet):
    """The sheet after `char set` and the entry that changed it."""

    seq: int


@dataclass(frozen=True, slots=True)
class Related:
    """Two characters tied by `char relate` (`from_` is "from" in JSON)."""

    from_: str
    to: str
    note: str | None
    seq: int


def _check_stats(stats: Mapping[str, object]) -> dict[str, object]:
    return {clean_name(key, "stat"): value for key, value in stats.items()}


def stat_aliases(campaign: Campaign) -> dict[str, tuple[str, ...]]:
    from campaign.seeds import stat_names_for

    return dict(stat_names_for(campaign.ruleset).aliases)


def canonical_stats(
    campaign: Campaign, stats: Mapping[str, object], sheet: Iterable[str], *, new_stat: bool = True, who: str = ""
) -> dict[str, int | str]:
    """The stats with their names as the sheet stores them and their values as the
    stat's kind allows (see core.stat_names: Basic Speed 5.25 is kept exactly).

    Unless `new_stat`, a name that matches nothing known is refused as a likely typo."""
    from campaign.core.stat_names import resolve_stat, stat_number
    from campaign.seeds import stat_names_for

    names = stat_names_for(campaign.ruleset)
    resolved: dict[str, int | str] = {}
    for typed, value in stats.items():
        found = resolve_stat(typed, sheet, names.aliases)
        if not found.known and not new_stat:
            hint = f"did you mean {found.suggestion!r}? " if found.suggestion else ""
            raise RuleRefused(
                _("{value} has no stat {typed!r}: {hint}add --new-stat to create it").format(
                    value=who or "the sheet", typed=typed, hint=hint
                )
            )
        if found.name in resolved:
            raise BadInput(
                _("stat {name} is given twice ({typed!r} is the same stat)").format(name=found.name, typed=typed)
            )
        canonical = resolve_stat(found.name, (), names.aliases).name
        resolved[found.name] = stat_number(value, found.name, names.kind(canonical))
    return resolved


def _check_cp(cp: int) -> int:
    if abs(cp) > STAT_LIMIT:
        raise BadInput(_("CP {cp} is out of range (at most ±{STAT_LIMIT})").format(cp=cp, STAT_LIMIT=STAT_LIMIT))
    return cp


def add_player(db: Database, campaign_name: str | None, name: str, actor: str) -> PlayerAddedResult:
    name = clean_person_name(name, "player")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        if session.scalar(select(Player.id).where(Player.campaign_id == campaign.id, Player.name == name)):
            raise RuleRefused(
                _("a player named {name!r} already exists in {name2!r}").format(name=name, name2=campaign.name)
            )
        with recording(session, campaign, actor, "player", voidable=False) as entry:
            entry.add_player(name)
            entry.describe(reason="added", detail={"player": name})
        return PlayerAddedResult(name=name, seq=entry.seq)


def list_players(db: Database, campaign_name: str | None) -> list[PlayerSummary]:
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        players = session.scalars(select(Player).where(Player.campaign_id == campaign.id).order_by(Player.name)).all()
        rows = []
        for player in players:
            names = session.scalars(
                select(Character.name).where(Character.player_id == player.id).order_by(Character.name)
            ).all()
            rows.append(PlayerSummary(name=player.name, characters=tuple(names)))
        return rows


def add_character(
    db: Database,
    campaign_name: str | None,
    name: str,
    actor: str,
    *,
    player: str | None = None,
    npc: bool = False,
    summoner: str | None = None,
    stats: Mapping[str, object] | None = None,  # values as typed ("5.25") or numbers
    cp: int = 0,
    new_stat: bool = True,
    reading: str | None = None,
) -> CharacterAddedResult:
    """A new PC or NPC; unless `new_stat`, a stat name the ruleset does not know is
    refused as a likely typo (as `char set` does)."""
    name = clean_person_name(name, "character")
    reading = clean_name(reading, "--reading") if reading is not None else None
    stats = _check_stats(stats or {})
    cp = _check_cp(cp)
    if not npc and player is None:
        raise BadInput(_("a PC needs --player (or add --npc for a non-player character)"))
    if summoner is not None and not npc:
        raise BadInput(_("only an NPC has a summoner (add --npc)"))
    with campaign_transaction(db, campaign_name) as (session, campaign):
        if session.scalar(select(Character.id).where(Character.campaign_id == campaign.id, Character.name == name)):
            raise RuleRefused(
                _("a character named {name!r} already exists in {name2!r}").format(name=name, name2=campaign.name)
            )
        owner = player_named(session, campaign, player) if player is not None else None
        summoner_row = character_named(session, campaign, summoner) if summoner is not None else None
        if summoner_row is not None and summoner_row.kind != "pc":
            raise RuleRefused(_("the summoner must be a PC; {name!r} is an NPC").format(name=summoner_row.name))
        stats = canonical_stats(campaign, stats, {}, new_stat=new_stat, who=name)
        with recording(session, campaign, actor, "character", voidable=False) as entry:
            character = entry.add_character(name, "npc" if npc else "pc", owner, summoner_row, stats, cp, reading)
            entry.describe(character=name, reason="added")
        return extended(CharacterAddedResult, character_view(session, character), seq=entry.seq)


def set_stats(
    db: Database,
    campaign_name: str | None,
    name: str,
    actor: str,
    stats: Mapping[str, object],  # values as typed ("5.25") or numbers
    cp: int | None = None,
    unset: list[str] | None = None,
    new_stat: bool = False,
) -> StatsChanged:
    """Write stats (names made canonical; a new name needs `new_stat`), remove the `unset`
    ones, or write the CP total: one entry."""
    stats = _check_stats(stats)
    unset = [clean_name(stat, "stat") for stat in unset or ()]
    if not stats and cp is None and not unset:
        raise BadInput(_("nothing to set: give --stat KEY=VALUE, --unset STAT or --cp N"))
    with campaign_transaction(db, campaign_name) as (session, campaign):
        character = character_named(session, campaign, name)
        stats = canonical_stats(campaign, stats, character.stats, new_stat=new_stat, who=character.name)
        removed = []
        for typed in unset:
            from campaign.core.stat_names import resolve_stat

            found = resolve_stat(typed, character.stats, stat_aliases(campaign))
            if found.name not in character.stats:
                hint = f" (did you mean {found.suggestion!r}?)" if found.suggestion else ""
                raise RuleRefused(
                    _("{name} has no stat {typed!r} to unset{hint}").format(name=character.name, typed=typed, hint=hint)
                )
            if found.name in stats or found.name in removed:
                raise BadInput(_("stat {name} is both set and unset, or unset twice").format(name=found.name))
            removed.append(found.name)
        with recording(session, campaign, actor, "character") as entry:
            for key in removed:
                entry.unset_stat(character, key)
            for key, value in stats.items():
                entry.set_stat(character, key, value)
            if cp is not None:
                entry.set_cp(character, _check_cp(cp))
            entry.describe(character=character.name, reason="stats changed")
        return extended(StatsChanged, character_view(session, character), seq=entry.seq)


def relate(db: Database, campaign_name: str | None, a: str, b: str, actor: str, note: str | None) -> Related:
    note = clean_text(note, "--note")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        first, second = character_named(session, campaign, a), character_named(session, campaign, b)
        if first.id == second.id:
            raise RuleRefused(_("a character cannot be related to itself"))
        if related(session, first, second):
            raise RuleRefused(
                _("{name!r} and {name2!r} are already related").format(name=first.name, name2=second.name)
            )
        with recording(session, campaign, actor, "relation", voidable=False) as entry:
            entry.relate(first, second, note)
            entry.describe(character=first.name, reason=note, detail={"from": first.name, "to": second.name})
        return Related(from_=first.name, to=second.name, note=note, seq=entry.seq)


def related(session: Session, first: Character, second: Character) -> bool:
    """Relationships are symmetric; an NPC's summoner always counts as related to it."""
    if first.summoner_id == second.id or second.summoner_id == first.id:
        return True
    return (
        session.scalar(
            select(Relationship.id).where(
                or_(
                    (Relationship.from_id == first.id) & (Relationship.to_id == second.id),
                    (Relationship.from_id == second.id) & (Relationship.to_id == first.id),
                )
            )
        )
        is not None
    )


# Both questions of status_of in one statement, built once: every roll asks it of its character.
_ABSENCE = select(
    select(Disappearance.id)
    .where(Disappearance.character_id == bindparam("c"), Disappearance.reunited_seq.is_(None))
    .limit(1)
    .scalar_subquery(),
    select(Character.name)
    .join(Disappearance, Disappearance.character_id == Character.id)
    .join(Search, Search.disappearance_id == Disappearance.id)
    .where(Search.searcher_id == bindparam("c"), Search.ended_seq.is_(None))
    .limit(1)
    .scalar_subquery(),
)


def status_of(session: Session, character: Character) -> tuple[str, str | None]:
    """("dead"|"retired", None), ("missing", None), ("searching", target name) or ("active", None)."""
    if character.status != "active":
        return character.status, None
    session.flush()  # the subqueries read the tables: what this transaction changed must be there
    missing, target = session.execute(_ABSENCE, {"c": character.id}).one()
    if missing is not None:
        return "missing", None
    if target is not None:
        return "searching", target
    return "active", None


def character_view(session: Session, character: Character) -> CharacterSheet:
    """Everything `char show --json` promises: the tables read as a State, made into the
    same sheet `char show --at` makes of a replay (campaign.projection.views)."""
    from campaign.db.state_tables import load_state
    from campaign.projection.views import character_view as view_of
    from campaign.seeds import stat_names_for

    session.flush()
    campaign = session.get_one(Campaign, character.campaign_id)
    aliases = stat_names_for(campaign.ruleset).aliases
    return view_of(load_state(session, campaign, only=character.name), character.name, aliases)


def show_character(db: Database, campaign_name: str | None, name: str) -> CharacterSheet:
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        return character_view(session, character_named(session, campaign, name))


STATUS_FILTERS = ("active", "missing", "searching", "dead", "retired")


def list_characters(
    db: Database, campaign_name: str | None, status: str | None = None, include_gone: bool = False
) -> list[CharacterSheet]:
    """Characters in play; dead and retired ones only with `include_gone` (--all) or when
    asked for by status."""
    if status is not None and status not in STATUS_FILTERS:
        raise BadInput(
            _("--status must be one of {value}, not {status!r}").format(value=", ".join(STATUS_FILTERS), status=status)
        )
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        rows = []
        from campaign.core.suggest import kana

        characters = session.scalars(
            select(Character).where(Character.campaign_id == campaign.id).order_by(Character.kind, Character.name)
        )
        # by reading where one is recorded (すずね before とうや), the others after them as before
        for character in sorted(characters, key=lambda c: (c.kind, c.reading is None, kana(c.reading or ""))):
            view = character_view(session, character)
            if status is None and not include_gone and character.status != "active":
                continue
            if status is None or view.status == status:
                rows.append(view)
        return rows

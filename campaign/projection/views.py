"""A character as `char show --json` shows it, read from a projected State.

`char show` reads the state tables; `char show --at SEQ` replays the ledger up to SEQ
and reads the resulting State with `character_view` below. Both must give the same
sheet for the same state (a property test holds them together), so a field added
to one view must be added here too. The sheet is a frozen dataclass; `--json` prints it
through services.results.as_json, the fields in the order declared below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from campaign.core.condition_view import ConditionDetail
from campaign.core.derived import POOLS, Aliases, derived_stats, pool_current, stat_value
from campaign.core.json_fields import converted_by
from campaign.effect_words import shown_condition
from campaign.projection.state import State


def origin_key(origin: str) -> tuple[int | str, ...]:
    """Traits and conditions in the order they came about ("12.2" before "104.1"),
    the same in the tables and in a replay (database ids change when a void of a void
    re-inserts a row; origins never do)."""
    parts = str(origin).split(".")
    try:
        return (0, *(int(part) for part in parts))
    except ValueError:
        return (1, str(origin))


def status(state: State, name: str) -> tuple[str, str | None]:
    """("dead"|"retired", None), ("missing", None), ("searching", target) or ("active", None)."""
    row = state.characters[name]
    if row.status != "active":
        return row.status, None
    if state.open_disappearance(name) is not None:
        return "missing", None
    started = state.active_search_of(name)
    if started is not None:
        return "searching", state.disappearances[state.searches[started].since_seq].character
    return "active", None


@dataclass(frozen=True, slots=True)
class DerivedStat:
    """A 3e stat the sheet lacks, read from another (Will = IQ): `from_` is "from" in JSON."""

    value: int
    from_: str


@dataclass(frozen=True, slots=True)
class PoolLevel:
    max: int
    current: int


@dataclass(frozen=True, slots=True)
class TraitLine:
    name: str
    category: str
    cp: int
    counts_toward_limit: bool
    limit_cp: int
    unlimited_cp: int
    source_seq: int | None
    origin: str


@dataclass(frozen=True, slots=True)
class ConditionLine:
    """A condition on the sheet: its row's codes (the length words only an older row
    kept); the words `--json` shows beside them are made by sheet_conditions."""

    name: str
    duration: str | None
    detail: ConditionDetail | None  # the condition row's detail, as its source wrote it
    source_seq: int | None
    origin: str
    since_clock: int
    until_clock: int | None


def sheet_conditions(lines: tuple[ConditionLine, ...]) -> list[dict[str, Any]]:
    """The sheet's conditions as `char show --json` has always shown them: each with the
    words of its codes (effect_words.shown_condition) beside them."""
    documents = []
    for line in lines:
        codes = None if line.detail is None else dict(line.detail)
        duration, detail = shown_condition(line.duration, codes, line.name)
        documents.append(
            {
                "name": line.name,
                "duration": duration,
                "detail": detail,
                "source_seq": line.source_seq,
                "origin": line.origin,
                "since_clock": line.since_clock,
                "until_clock": line.until_clock,
            }
        )
    return documents


@dataclass(frozen=True, slots=True)
class Relation:
    name: str
    note: str | None


@dataclass(frozen=True, slots=True)
class MissingLine:
    """A missing character's case: since which entry and when, the reunion die, the odds
    at the next scenario end with the searchers out now."""

    since_seq: int
    since_at: str
    reason: str | None
    faces: int
    odds: str
    searchers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CharacterSheet:
    """Everything `char show --json` promises, in its order (services.results.as_json)."""

    name: str
    kind: str
    player: str | None
    summoner: str | None
    stats: dict[str, int | str]
    derived: dict[str, DerivedStat]
    cp_total: int
    cp_awarded: int
    status: str
    searching_for: str | None
    skills: dict[str, dict[str, Any]]  # name -> {"level", "attr", "difficulty"} (projection.ops_sheet)
    notes: tuple[str, ...]
    items: tuple[str, ...]
    traits: tuple[TraitLine, ...]
    conditions: tuple[ConditionLine, ...] = field(metadata=converted_by(sheet_conditions))
    pools: dict[str, PoolLevel]
    relations: tuple[Relation, ...]
    missing: MissingLine | None  # set while the status is "missing"
    # the name read in kana (char add --reading); keyword-only so the sheets built on this
    # one keep their own fields, and left out of the JSON while none is recorded
    reading: str | None = field(default=None, kw_only=True, metadata={"campaign.omit_when_empty": True})


def character_view(state: State, name: str, aliases: Aliases) -> CharacterSheet:
    """The character's sheet; `char show` (the tables) and `char show --at` (a replay)
    both read a State through this. `aliases` are the ruleset's stat names (which stat
    a pool or a derived value is read from: core.derived), given by the caller."""
    row = state.characters[name]
    current, searching_for = status(state, name)
    traits = [(origin, t) for origin, t in state.traits.items() if t.character == name and t.removed_seq is None]
    conditions = [
        (origin, c) for origin, c in state.conditions.items() if c.character == name and c.cleared_seq is None
    ]
    relations = []
    for (a, b), note in state.relationships.items():
        if name in (a, b):
            relations.append(Relation(name=b if a == name else a, note=note))
    pools = {}
    for pool in POOLS:  # a 3e sheet's FP/HP maximum is its ST/HT: "derived" says so
        maximum = stat_value(row.stats, pool, aliases)
        current_level = pool_current(row.stats, row.pools, pool, aliases)  # None exactly when maximum is
        if maximum is not None and current_level is not None:
            pools[pool] = PoolLevel(max=maximum.value, current=current_level)
    return CharacterSheet(
        name=name,
        reading=row.reading,
        kind=row.kind,
        player=row.player,
        summoner=row.summoner,
        stats=dict(row.stats),
        derived={
            stat: DerivedStat(value=value.value, from_=value.derived_from)
            for stat, value in derived_stats(row.stats, aliases).items()
            if value.derived_from is not None  # always: derived_stats keeps derived ones only
        },
        cp_total=row.cp_total,
        cp_awarded=row.cp_awarded,
        status=current,
        searching_for=searching_for,
        skills={name: dict(skill) for name, skill in row.skills.items()},
        notes=tuple(row.notes),
        items=tuple(row.items),
        traits=tuple(
            TraitLine(
                name=t.name,
                category=t.category,
                cp=t.cp,
                counts_toward_limit=t.counts_toward_limit,
                limit_cp=t.cp - (t.unlimited_cp or 0),
                unlimited_cp=t.unlimited_cp or 0,
                source_seq=t.source_seq,
                origin=origin,
            )
            for origin, t in sorted(traits, key=lambda pair: origin_key(pair[0]))
        ),
        conditions=tuple(
            ConditionLine(
                c.name,
                c.duration,
                c.detail,
                source_seq=c.source_seq,
                origin=origin,
                since_clock=c.since_clock or 0,
                until_clock=c.until_clock,
            )
            for origin, c in sorted(conditions, key=lambda pair: origin_key(pair[0]))
        ),
        pools=pools,
        relations=tuple(relations),
        missing=_missing_line(state, name) if current == "missing" else None,
    )


def _missing_line(state: State, name: str) -> MissingLine | None:
    from campaign.core.reunion import reunion_odds_text

    since = state.open_disappearance(name)
    if since is None:
        return None
    row = state.disappearances[since]
    searchers = tuple(state.active_searchers(since))
    return MissingLine(
        since_seq=since,
        since_at=row.since_at,
        reason=row.reason,
        faces=row.faces,
        odds=reunion_odds_text(row.faces, len(searchers)),
        searchers=searchers,
    )

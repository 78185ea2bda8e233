"""Ops on the campaign, its players and characters: creation, settings, relations,
stats, CP, HP/FP pools, renames and status (death, retirement).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from campaign.core.derived import pool_max
from campaign.errors import N_, Words
from campaign.projection.frozen_names import aliases_before_recorded_stats
from campaign.projection.op_base import (
    ALREADY,
    EntryContext,
    Op,
    OpConflict,
    Rule,
    bounded,
    character_row,
    choice,
    refuse_busy,
)
from campaign.projection.state import CharacterRow, ConditionRow, DisappearanceRow, State, TraitRow


@dataclass(frozen=True)
class CampaignCreated(Op):
    name: ClassVar[str] = "campaign_created"
    ruleset: str
    settings: dict[str, Any]

    def apply(self, state: State, entry: EntryContext) -> None:
        if state.ruleset is not None:
            raise OpConflict(N_("the campaign already exists"))
        state.ruleset = self.ruleset
        state.settings = dict(self.settings)


@dataclass(frozen=True)
class SettingSet(Op):
    name: ClassVar[str] = "setting"
    key: str
    value: Any

    def apply(self, state: State, entry: EntryContext) -> None:
        state.settings = {**state.settings, self.key: self.value}


@dataclass(frozen=True)
class PlayerAdded(Op):
    name: ClassVar[str] = "player_added"
    player: str

    def apply(self, state: State, entry: EntryContext) -> None:
        if self.player in state.players:
            raise OpConflict(N_("a player named {player!r} already exists"), player=self.player)
        state.players[self.player] = None
        state.player_born[self.player] = entry.seq


@dataclass(frozen=True)
class CharacterAdded(Op):
    name: ClassVar[str] = "character_added"
    rules: ClassVar[Mapping[str, Rule]] = {"kind": choice("pc", "npc")}
    character: str
    kind: str
    player: str | None
    summoner: str | None
    stats: dict[str, int | str]
    cp: int
    reading: str | None = None  # recorded only when given (older records have no such key)

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        if self.reading is None:
            del data["reading"]  # the record a character without a reading always had
        return data

    def apply(self, state: State, entry: EntryContext) -> None:
        if self.character in state.characters:
            raise OpConflict(N_("a character named {character!r} already exists"), character=self.character)
        if self.player is not None and self.player not in state.players:
            raise OpConflict(N_("there is no player {player!r}"), player=self.player)
        if self.summoner is not None and character_row(state, self.summoner).kind != "pc":
            raise OpConflict(N_("the summoner {summoner!r} is not a PC"), summoner=self.summoner)
        state.characters[self.character] = CharacterRow(
            self.kind, self.player, self.summoner, dict(self.stats), self.cp, {}, reading=self.reading
        )
        state.born[self.character] = entry.seq


@dataclass(frozen=True)
class RelationAdded(Op):
    name: ClassVar[str] = "relation_added"
    a: str
    b: str
    note: str | None

    @property
    def character_names(self) -> tuple[str, ...]:
        return (self.a, self.b)

    def apply(self, state: State, entry: EntryContext) -> None:
        character_row(state, self.a), character_row(state, self.b)
        if self.a == self.b:
            raise OpConflict(N_("a character cannot be related to itself"))
        if (self.a, self.b) in state.relationships or (self.b, self.a) in state.relationships:
            raise OpConflict(N_("{a!r} and {b!r} are already related"), a=self.a, b=self.b)
        state.relationships[(self.a, self.b)] = self.note


@dataclass(frozen=True)
class StatSet(Op):
    """The GM writes a stat's value (absolute: it stands whatever came before)."""

    name: ClassVar[str] = "stat_set"
    character: str
    stat: str
    value: int | str  # a quarter stat (Basic Speed 5.25) as its exact decimal text

    def apply(self, state: State, entry: EntryContext) -> None:
        row = character_row(state, self.character)
        row.stats = {**row.stats, self.stat: self.value}


@dataclass(frozen=True)
class StatChanged(Op):
    """A rule moves a stat by an amount (entry 40's IQ loss): relative, so it survives
    the void of an earlier change."""

    name: ClassVar[str] = "stat_delta"
    character: str
    stat: str
    delta: int

    def apply(self, state: State, entry: EntryContext) -> None:
        row = character_row(state, self.character)
        if self.stat not in row.stats:
            raise OpConflict(N_("{character} has no {stat} stat"), character=self.character, stat=self.stat)
        if not isinstance(row.stats[self.stat], int):
            raise OpConflict(
                N_("{character}'s {stat} is {value}, not a whole number to move"),
                character=self.character,
                stat=self.stat,
                value=row.stats[self.stat],
            )
        current = row.stats[self.stat]
        assert isinstance(current, int)  # checked just above
        row.stats = {**row.stats, self.stat: bounded(current + self.delta, self.stat)}


@dataclass(frozen=True)
class CpChanged(Op):
    name: ClassVar[str] = "cp_delta"
    character: str
    delta: int

    def apply(self, state: State, entry: EntryContext) -> None:
        row = character_row(state, self.character)
        row.cp_total = bounded(row.cp_total + self.delta, Words(N_("CP total")))


@dataclass(frozen=True)
class CpSet(Op):
    name: ClassVar[str] = "cp_set"
    character: str
    value: int

    def apply(self, state: State, entry: EntryContext) -> None:
        character_row(state, self.character).cp_total = self.value


@dataclass(frozen=True)
class PoolChanged(Op):
    """FP or HP lost (negative) or regained: relative to the pool's current value, which
    is its maximum while no entry has touched it. A heal never passes the maximum, so a
    heal depends on the damage it healed: voiding that damage alone is refused.

    `stat` is the sheet's key the maximum was read from when the change was decided (HP,
    or HT on a 3e sheet that derives HP from it; the sheet's own spelling, such as
    耐久力): replay reads that key of the replayed sheet, so the maximum still moves with
    the stat and no stat name is looked up. An op written before it carried `stat` is
    matched against the names frozen in campaign.projection.frozen_names."""

    name: ClassVar[str] = "pool_delta"
    character: str
    pool: str
    delta: int
    stat: str | None = None  # recorded by every new op (older records have no such key)

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        if self.stat is None:
            del data["stat"]  # the record an op written before `stat` always had
        return data

    def _maximum(self, state: State, row: CharacterRow) -> int | None:
        if self.stat is None:  # core.derived: the stat, or ST/HT on a 3e sheet
            return pool_max(row.stats, self.pool, aliases_before_recorded_stats(state.ruleset))
        value = row.stats.get(self.stat)
        if value is None:
            return None
        if not isinstance(value, int):
            raise OpConflict(
                N_("{character}'s {stat} is {value}, not a whole number to measure {pool} against"),
                character=self.character,
                stat=self.stat,
                value=value,
                pool=self.pool,
            )
        return value

    def apply(self, state: State, entry: EntryContext) -> None:
        row = character_row(state, self.character)
        maximum = self._maximum(state, row)
        if maximum is None:
            raise OpConflict(
                N_("{character} has no {pool} stat (nor the stat it derives from)"),
                character=self.character,
                pool=self.pool,
            )
        current = row.pools.get(self.pool, maximum)
        if self.delta > 0 and current + self.delta > maximum:  # a heal stops at the maximum
            raise OpConflict(
                N_("healing {delta} {pool} would take {character} to {value}, above the maximum {maximum}"),
                delta=self.delta,
                pool=self.pool,
                character=self.character,
                value=current + self.delta,
                maximum=maximum,
            )
        row.pools = {**row.pools, self.pool: bounded(current + self.delta, self.pool)}


@dataclass(frozen=True)
class PoolSet(Op):
    """A pool written as an absolute value (first-release records say only the value after)."""

    name: ClassVar[str] = "pool_set"
    character: str
    pool: str
    value: int

    def apply(self, state: State, entry: EntryContext) -> None:
        row = character_row(state, self.character)
        row.pools = {**row.pools, self.pool: self.value}


# --------------------------------------------------------------------------- names and lifecycle

STATUSES = ("active", "dead", "retired")
K = TypeVar("K")
V = TypeVar("V")


def _rekey(mapping: dict[K, V], old: K, new: K) -> dict[K, V]:
    """A copy of `mapping` with key `old` renamed to `new`, in the same position."""
    return {(new if key == old else key): value for key, value in mapping.items()}


@dataclass(frozen=True)
class CharacterRenamed(Op):
    """A character takes a new name. Rows are keyed by name, so every place the name
    appears is re-keyed; entries before the rename keep the old name (replay applies
    them first), entries after it use the new one."""

    name: ClassVar[str] = "character_renamed"
    character: str
    new: str

    @property
    def character_names(self) -> tuple[str, ...]:
        return (self.character, self.new)

    def apply(self, state: State, entry: EntryContext) -> None:
        old, new = self.character, self.new
        character_row(state, old)
        if new in state.characters:
            raise OpConflict(N_("a character named {new!r} already exists"), new=new)
        state.characters = _rekey(state.characters, old, new)
        for row in state.characters.values():
            if row.summoner == old:
                row.summoner = new
        if old in state.born:
            state.born = _rekey(state.born, old, new)
        state.relationships = {
            (new if a == old else a, new if b == old else b): note for (a, b), note in state.relationships.items()
        }
        owned: list[TraitRow | ConditionRow | DisappearanceRow] = [
            *state.traits.values(),
            *state.conditions.values(),
            *state.disappearances.values(),
        ]
        for owner in owned:
            if owner.character == old:
                owner.character = new
        for scenario in state.scenarios.values():
            scenario.participants = [new if p == old else p for p in scenario.participants]
        for search in state.searches.values():
            if search.searcher == old:
                search.searcher = new


@dataclass(frozen=True)
class PlayerRenamed(Op):
    name: ClassVar[str] = "player_renamed"
    player: str
    new: str

    def apply(self, state: State, entry: EntryContext) -> None:
        old, new = self.player, self.new
        if old not in state.players:
            raise OpConflict(N_("there is no player {old!r}"), old=old)
        if new in state.players:
            raise OpConflict(N_("a player named {new!r} already exists"), new=new)
        state.players = _rekey(state.players, old, new)
        if old in state.player_born:
            state.player_born = _rekey(state.player_born, old, new)
        for row in state.characters.values():
            if row.player == old:
                row.player = new
        for search in state.searches.values():
            if search.player == old:
                search.player = new


@dataclass(frozen=True)
class CharacterStatusSet(Op):
    """Death or retirement (or, set back, active again). A character out on the rules'
    business (missing, searching) must come back first."""

    name: ClassVar[str] = "character_status"
    rules: ClassVar[Mapping[str, Rule]] = {"status": choice(*STATUSES)}
    character: str
    status: str

    def apply(self, state: State, entry: EntryContext) -> None:
        row = character_row(state, self.character)
        if row.status == self.status:
            raise OpConflict(
                ALREADY.get(self.status, N_("{character} is already {status}")),
                character=self.character,
                status=self.status,
            )
        if row.status == "active":
            refuse_busy(state, self.character)
        row.status = self.status


@dataclass(frozen=True)
class CpAwarded(Op):
    """Character points given for play: they raise the CP total and are counted apart."""

    name: ClassVar[str] = "cp_awarded"
    character: str
    cp: int

    def apply(self, state: State, entry: EntryContext) -> None:
        row = character_row(state, self.character)
        row.cp_total = bounded(row.cp_total + self.cp, Words(N_("CP total")))
        row.cp_awarded = bounded(row.cp_awarded + self.cp, Words(N_("awarded CP")))


@dataclass(frozen=True)
class StatUnset(Op):
    name: ClassVar[str] = "stat_unset"
    character: str
    stat: str

    def apply(self, state: State, entry: EntryContext) -> None:
        row = character_row(state, self.character)
        if self.stat not in row.stats:
            raise OpConflict(N_("{character} has no {stat} stat"), character=self.character, stat=self.stat)
        row.stats = {k: v for k, v in row.stats.items() if k != self.stat}
        row.pools = {k: v for k, v in row.pools.items() if k != self.stat}

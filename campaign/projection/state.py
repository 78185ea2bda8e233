"""The campaign's state as plain values: what the state tables hold, keyed by stable names.

Two things produce a `State`: replaying the ledger (campaign.projection.replay) and
reading the tables (campaign.db.state_mapping, which also writes them: live, an
op's `apply` changes a working State and the mapping writes the rows that differ). The
tables are right exactly when the two are equal, and `differences()` names the first
place where they are not. Each row model's fields are its table's columns by name.

Keys never involve database ids, so a state survives export and import: characters by
name, traits and conditions by origin ("<seq>.<n>"), scenarios by number,
disappearances by the seq that started them, searches by the seq that sent them, and
reunion checks by their own seq.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any

from campaign.errors import N_, Words


@dataclass
class CharacterRow:
    kind: str
    player: str | None
    summoner: str | None
    stats: dict[str, int | str]
    cp_total: int
    pools: dict[str, int] = field(default_factory=dict)
    status: str = "active"  # active, dead or retired
    cp_awarded: int = 0
    # skill name -> {"level": int, "attr": str | None, "difficulty": str | None}
    skills: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)
    reading: str | None = None  # the name read in kana (char add --reading), None when not recorded


@dataclass
class TraitRow:
    character: str
    name: str
    category: str
    cp: int
    counts_toward_limit: bool
    source_seq: int
    removed_seq: int | None = None
    unlimited_cp: int = 0  # the part of cp outside the disadvantage limit (docs/rules.md "Fright check")


@dataclass
class ConditionRow:
    character: str
    name: str
    duration: str | None
    detail: dict[str, Any]
    source_seq: int
    cleared_seq: int | None = None
    since_clock: int = 0  # campaign time it began (campaign.core.gametime)
    until_clock: int | None = None  # campaign time a timed condition runs out


@dataclass
class ScenarioRow:
    title: str
    started_seq: int
    started_at: str
    participants: list[str]
    ended_seq: int | None = None
    ended_at: str | None = None


@dataclass
class DisappearanceRow:
    character: str
    faces: int
    reason: str | None
    since_at: str
    since_scenario: int | None
    reunited_seq: int | None = None


@dataclass
class SearchRow:
    since_seq: int
    searcher: str
    player: str
    scenario: int | None
    ended_seq: int | None = None


@dataclass
class ReunionRow:
    since_seq: int
    scenario: int
    roll: int
    threshold: int
    success: bool


@dataclass
class State:
    """One campaign's state tables, as the ledger (or the database) says they are."""

    ruleset: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    clock: int = 0  # campaign time in seconds (campaign.core.gametime)
    players: dict[str, None] = field(default_factory=dict)  # an ordered set
    characters: dict[str, CharacterRow] = field(default_factory=dict)
    relationships: dict[tuple[str, str], str | None] = field(default_factory=dict)
    traits: dict[str, TraitRow] = field(default_factory=dict)
    conditions: dict[str, ConditionRow] = field(default_factory=dict)
    scenarios: dict[int, ScenarioRow] = field(default_factory=dict)
    disappearances: dict[int, DisappearanceRow] = field(default_factory=dict)
    searches: dict[int, SearchRow] = field(default_factory=dict)
    reunions: dict[int, ReunionRow] = field(default_factory=dict)
    # Identity across renames: the seq of the entry that added each character / player,
    # under its present name. Replay fills these; the tables do not hold them, so they
    # are not compared. A void uses them to tell a rename from a removal (renamed_between).
    born: dict[str, int] = field(default_factory=dict)
    player_born: dict[str, int] = field(default_factory=dict)

    def copy(self) -> State:
        return copy.deepcopy(self)

    def traits_named(self, folded: str) -> list[str]:
        """Origins of the traits whose name case-folds to `folded`, or did when indexed:
        callers check each row (it may since be removed, or another character's). The
        index (not a field: never compared, never written) lets a sheet of n traits be
        checked for clashes in linear time; it is rebuilt whenever `traits` is another
        dict or has another size than it indexed, and TraitRenamed notes a new name."""
        index = self.__dict__.get("_trait_names")
        if index is None or index[0] is not self.traits or index[1] != len(self.traits):
            names: dict[str, list[str]] = {}
            for origin, row in self.traits.items():
                names.setdefault(row.name.casefold(), []).append(origin)
            index = self.__dict__["_trait_names"] = (self.traits, len(self.traits), names)
        found: list[str] = index[2].get(folded, [])
        return found

    def note_trait_name(self, origin: str, *, added: bool) -> None:
        """Keep the index of traits_named current after `origin` got its name (`added`,
        or renamed); an index that was not current before is dropped, to be rebuilt."""
        index = self.__dict__.get("_trait_names")
        if index is None or index[0] is not self.traits or index[1] != len(self.traits) - added:
            self.__dict__.pop("_trait_names", None)
            return
        names = index[2]
        names.setdefault(self.traits[origin].name.casefold(), []).append(origin)
        self.__dict__["_trait_names"] = (self.traits, len(self.traits), names)

    # Questions the rules ask of the state (docs/rules.md "Missing and reunion check"),
    # answered the same way everywhere.

    def open_disappearance(self, character: str) -> int | None:
        """The since_seq of the character's open disappearance, if it is missing."""
        for since_seq, row in self.disappearances.items():
            if row.character == character and row.reunited_seq is None:
                return since_seq
        return None

    def active_search_of(self, searcher: str) -> int | None:
        """The started_seq of the searcher's active search, if it is out searching."""
        for started_seq, row in self.searches.items():
            if row.searcher == searcher and row.ended_seq is None:
                return started_seq
        return None

    def active_searchers(self, since_seq: int) -> list[str]:
        return [
            row.searcher
            for _, row in sorted(self.searches.items())
            if row.since_seq == since_seq and row.ended_seq is None
        ]

    def searchers_at(self, since_seq: int, seq: int) -> list[str]:
        """The searchers out for that disappearance when entry `seq` was written."""
        return [
            row.searcher
            for started, row in sorted(self.searches.items())
            if row.since_seq == since_seq and started <= seq and (row.ended_seq is None or row.ended_seq > seq)
        ]

    def open_scenario(self) -> int | None:
        for number, row in self.scenarios.items():
            if row.ended_seq is None:
                return number
        return None

    def active_traits(self, character: str) -> list[TraitRow]:
        return [t for t in self.traits.values() if t.character == character and t.removed_seq is None]


def renamed_between(before: State, after: State) -> tuple[dict[str, str], dict[str, str]]:
    """({old character name: new}, {old player name: new}) for rows that are the same
    character or player (same `born` seq) under another name in `after`."""

    def pairs(a: dict[str, int], b: dict[str, int]) -> dict[str, str]:
        by_seq = {seq: name for name, seq in b.items()}
        return {name: by_seq[seq] for name, seq in a.items() if seq in by_seq and by_seq[seq] != name}

    return pairs(before.born, after.born), pairs(before.player_born, after.player_born)


# Tables in the order differences are reported (parents before children).
TABLES = (
    "campaign",
    "players",
    "characters",
    "relationships",
    "traits",
    "conditions",
    "scenarios",
    "disappearances",
    "searches",
    "reunion_checks",
)


@dataclass(frozen=True)
class Difference:
    """One place where the tables disagree with the ledger."""

    table: str
    key: str
    column: str
    expected: Any
    found: Any

    def text(self) -> Words:
        """The difference in English words that keep their template, shown translated."""
        place = Words(TABLE_WORDS.get(self.table, self.table))
        if self.column == "(row)":
            if self.found is None:
                return Words(
                    N_("{table} {key}: the ledger says this row exists, the table lacks it"), table=place, key=self.key
                )
            return Words(
                N_("{table} {key}: the table has this row, the ledger never made it"), table=place, key=self.key
            )
        return Words(
            N_("{table} {key}, column {column}: the ledger says {expected}, the table has {found}"),
            table=place,
            key=self.key,
            column=self.column,
            expected=repr(self.expected),
            found=repr(self.found),
        )


# The state tables as a person names them (the key of each is a code in --json).
TABLE_WORDS = {
    "campaign": N_("campaign"),
    "players": N_("players"),
    "characters": N_("characters"),
    "relationships": N_("relationships"),
    "traits": N_("traits"),
    "conditions": N_("conditions"),
    "scenarios": N_("scenarios"),
    "disappearances": N_("disappearances"),
    "searches": N_("searches"),
    "reunion_checks": N_("reunion_checks"),  # English keeps the table's own name
}


def _rows(state: State) -> Iterator[tuple[str, dict[Any, Any]]]:
    yield "campaign", {"settings": {"ruleset": state.ruleset, "settings": state.settings, "clock": state.clock}}
    yield "players", {name: {} for name in state.players}
    yield "characters", state.characters
    yield "relationships", {f"{a} ~ {b}": {"note": note} for (a, b), note in state.relationships.items()}
    yield "traits", state.traits
    yield "conditions", state.conditions
    yield "scenarios", state.scenarios
    yield "disappearances", state.disappearances
    yield "searches", state.searches
    yield "reunion_checks", state.reunions


def _columns(row: Any) -> dict[str, Any]:
    if isinstance(row, dict):
        return row
    values = {f.name: getattr(row, f.name) for f in fields(row)}
    if isinstance(row, ScenarioRow):
        values["participants"] = sorted(values["participants"])
    return values


def _sort_key(key: Any) -> tuple[int, Any, str]:
    return (0, key, "") if isinstance(key, int) else (1, 0, str(key))


def differences(expected: State, found: State) -> Iterator[Difference]:
    """Every disagreement, table by table, in key order; the first is the one to report."""
    for (table, want), (_, have) in zip(_rows(expected), _rows(found)):
        for key in sorted(set(want) | set(have), key=_sort_key):
            if key not in have:
                yield Difference(table, str(key), "(row)", "present", None)
                continue
            if key not in want:
                yield Difference(table, str(key), "(row)", None, "present")
                continue
            a, b = _columns(want[key]), _columns(have[key])
            for column in a:
                if a[column] != b.get(column) or type(a[column]) is not type(b.get(column)):
                    yield Difference(table, str(key), column, a[column], b.get(column))


def first_difference(expected: State, found: State) -> Difference | None:
    return next(differences(expected, found), None)

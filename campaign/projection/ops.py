"""The changes a ledger entry makes to the state, as small typed values ("ops").

Every entry that changes state records its ops in the hashed record (`record["ops"]`,
canonical JSON). Replaying every live entry's ops in seq order produces the state
tables, so the ops are the only description of a change there is: they carry codes,
names and numbers (never database ids, never sentences) and each says how it applies.

`apply` checks the op's precondition against the state first and raises OpConflict
when it does not hold (a trait that is not there, a character missing twice, a reunion
roll that does not fit its die). During a void, a conflict means a later entry depends
on the voided one; during verify, that the ledger does not describe a possible history.

Parsing (`parse_op`) checks every field's type and range, because a ledger can come
from a file: a record whose hash is right can still have been written by anyone.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from campaign.core.derived import pool_max
from campaign.core.gametime import CLOCK_LIMIT
from campaign.projection.state import (
    CharacterRow,
    ConditionRow,
    DisappearanceRow,
    ReunionRow,
    ScenarioRow,
    SearchRow,
    State,
    TraitRow,
)

# Both backends store these in 32-bit INTEGER columns; a larger number is refused everywhere.
INT_LIMIT = 2**31 - 1
NAME_LIMIT = 200
TEXT_LIMIT = 2000


class OpConflict(Exception):
    """An op whose precondition does not hold in the state it is applied to."""


class BadOp(ValueError):
    """An op whose JSON is not a well-formed op (wrong type, out of range, unknown)."""


@dataclass(frozen=True)
class EntryContext:
    """What an op may use of the entry that records it."""

    seq: int
    at: str
    scenario: int | None


# --------------------------------------------------------------------------- field checks


def _int(value: Any, what: str, lo: int = -INT_LIMIT, hi: int = INT_LIMIT) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise BadOp(f"{what} must be a whole number in {lo}..{hi}, not {value!r}")
    return value


def _opt_int(value: Any, what: str, lo: int = -INT_LIMIT, hi: int = INT_LIMIT) -> int | None:
    return None if value is None else _int(value, what, lo, hi)


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value or len(value) > NAME_LIMIT:
        raise BadOp(f"{what} must be a name of 1..{NAME_LIMIT} characters, not {value!r}")
    if unicodedata.normalize("NFC", value) != value or value.strip() != value:
        raise BadOp(f"{what} {value!r} is not in normal form")
    if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in value):
        raise BadOp(f"{what} {value!r} holds control or invisible characters")
    return value


def _opt_name(value: Any, what: str) -> str | None:
    return None if value is None else _name(value, what)


def _text(value: Any, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > TEXT_LIMIT or "\x00" in value:
        raise BadOp(f"{what} must be text of at most {TEXT_LIMIT} characters")
    return value


def _bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise BadOp(f"{what} must be true or false, not {value!r}")
    return value


def _json_value(value: Any, what: str, depth: int = 0) -> Any:
    """Settings and condition details: JSON made of finite numbers, text, lists, objects."""
    if depth > 8:
        raise BadOp(f"{what} is nested too deeply")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return _int(value, what)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise BadOp(f"{what} holds a number that is not finite")
        return value
    if isinstance(value, list):
        return [_json_value(item, what, depth + 1) for item in value]
    if isinstance(value, dict):
        return {_text(key, what): _json_value(item, what, depth + 1) for key, item in value.items()}
    raise BadOp(f"{what} holds a value of type {type(value).__name__}")


def _stats(value: Any, what: str) -> dict[str, int]:
    if not isinstance(value, dict):
        raise BadOp(f"{what} must be an object of stat name -> whole number")
    return {_name(key, f"{what} name"): _int(item, f"{what} {key}") for key, item in value.items()}


def _origin(value: Any) -> str:
    if not isinstance(value, str) or len(value) > 40:
        raise BadOp(f"origin must be '<seq>.<n>', not {value!r}")
    seq, dot, n = value.partition(".")
    if not (dot and seq.isdigit() and n.isdigit() and seq.isascii() and n.isascii()):
        raise BadOp(f"origin must be '<seq>.<n>', not {value!r}")
    return value


# --------------------------------------------------------------------------- state checks


def _character(state: State, name: str) -> CharacterRow:
    row = state.characters.get(name)
    if row is None:
        raise OpConflict(f"there is no character {name!r}")
    return row


def _bounded(value: int, what: str) -> int:
    if not -INT_LIMIT <= value <= INT_LIMIT:
        raise OpConflict(f"{what} would be {value}, beyond ±{INT_LIMIT}")
    return value


def _clock(value: int) -> int:
    if not 0 <= value <= CLOCK_LIMIT:
        raise OpConflict(f"the campaign clock would be {value} seconds, beyond the {CLOCK_LIMIT} it can count")
    return value


def _live_trait(state: State, origin: str, character: str) -> TraitRow:
    trait = state.traits.get(origin)
    if trait is None or trait.character != character:
        raise OpConflict(f"{character} has no trait {origin}")
    if trait.removed_seq is not None:
        raise OpConflict(f"{character}'s trait {trait.name!r} was removed by #{trait.removed_seq}")
    return trait


def _refuse_name_clash(state: State, character: str, name: str, origin: str) -> None:
    folded = name.casefold()
    for other_origin, trait in state.traits.items():
        if (trait.character == character and trait.removed_seq is None and other_origin != origin
                and trait.name.casefold() == folded):
            raise OpConflict(f"{character} already has a trait named {trait.name!r}")


def _refuse_busy(state: State, character: str) -> None:
    """R4: nobody is missing twice, and a missing character does not search (nor the reverse);
    a dead or retired character does none of it (nor takes part in a scenario)."""
    status = state.characters[character].status if character in state.characters else "active"
    if status != "active":
        raise OpConflict(f"{character} is {status}")
    since = state.open_disappearance(character)
    if since is not None:
        raise OpConflict(f"{character} is missing (since #{since})")
    searching = state.active_search_of(character)
    if searching is not None:
        raise OpConflict(f"{character} is out searching (since #{searching})")


def _open_disappearance_row(state: State, since_seq: int) -> DisappearanceRow:
    row = state.disappearances.get(since_seq)
    if row is None:
        raise OpConflict(f"no disappearance began at #{since_seq}")
    if row.reunited_seq is not None:
        raise OpConflict(f"{row.character} was already found by #{row.reunited_seq}")
    return row


# --------------------------------------------------------------------------- ops

OPS: dict[str, type[Op]] = {}


@dataclass(frozen=True)
class Op:
    """One change. Subclasses declare `name`, their fields, `parse` and `apply`."""

    name: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        OPS[cls.name] = cls

    def to_json(self) -> dict[str, Any]:
        return {"op": self.name, **asdict(self)}

    @classmethod
    def parse(cls, data: dict[str, Any]) -> Op:  # pragma: no cover - every op overrides it
        raise NotImplementedError

    def apply(self, state: State, entry: EntryContext) -> None:  # pragma: no cover
        raise NotImplementedError

    @property
    def character_names(self) -> tuple[str, ...]:
        """The characters this op changes (for `char timeline` and the like)."""
        name = getattr(self, "character", None)
        return (name,) if name else ()


@dataclass(frozen=True)
class CampaignCreated(Op):
    name: ClassVar[str] = "campaign_created"
    ruleset: str
    settings: dict[str, Any]

    @classmethod
    def parse(cls, d):
        if not isinstance(d.get("settings"), dict):
            raise BadOp("settings must be an object")
        return cls(_name(d.get("ruleset"), "ruleset"), _json_value(d["settings"], "settings"))

    def apply(self, state, entry):
        if state.ruleset is not None:
            raise OpConflict("the campaign already exists")
        state.ruleset = self.ruleset
        state.settings = dict(self.settings)


@dataclass(frozen=True)
class SettingSet(Op):
    name: ClassVar[str] = "setting"
    key: str
    value: Any

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("key"), "setting key"), _json_value(d.get("value"), "setting value"))

    def apply(self, state, entry):
        state.settings = {**state.settings, self.key: self.value}


@dataclass(frozen=True)
class PlayerAdded(Op):
    name: ClassVar[str] = "player_added"
    player: str

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("player"), "player"))

    def apply(self, state, entry):
        if self.player in state.players:
            raise OpConflict(f"a player named {self.player!r} already exists")
        state.players[self.player] = None
        state.player_born[self.player] = entry.seq


@dataclass(frozen=True)
class CharacterAdded(Op):
    name: ClassVar[str] = "character_added"
    character: str
    kind: str
    player: str | None
    summoner: str | None
    stats: dict[str, int]
    cp: int

    @classmethod
    def parse(cls, d):
        if d.get("kind") not in ("pc", "npc"):
            raise BadOp(f"character kind must be pc or npc, not {d.get('kind')!r}")
        return cls(_name(d.get("character"), "character"), d["kind"], _opt_name(d.get("player"), "player"),
                   _opt_name(d.get("summoner"), "summoner"), _stats(d.get("stats"), "stats"), _int(d.get("cp"), "cp"))

    def apply(self, state, entry):
        if self.character in state.characters:
            raise OpConflict(f"a character named {self.character!r} already exists")
        if self.player is not None and self.player not in state.players:
            raise OpConflict(f"there is no player {self.player!r}")
        if self.summoner is not None and _character(state, self.summoner).kind != "pc":
            raise OpConflict(f"the summoner {self.summoner!r} is not a PC")
        state.characters[self.character] = CharacterRow(self.kind, self.player, self.summoner, dict(self.stats),
                                                        self.cp, {})
        state.born[self.character] = entry.seq


@dataclass(frozen=True)
class RelationAdded(Op):
    name: ClassVar[str] = "relation_added"
    a: str
    b: str
    note: str | None

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("a"), "character"), _name(d.get("b"), "character"), _text(d.get("note"), "note"))

    @property
    def character_names(self):
        return (self.a, self.b)

    def apply(self, state, entry):
        _character(state, self.a), _character(state, self.b)
        if self.a == self.b:
            raise OpConflict("a character cannot be related to itself")
        if (self.a, self.b) in state.relationships or (self.b, self.a) in state.relationships:
            raise OpConflict(f"{self.a!r} and {self.b!r} are already related")
        state.relationships[(self.a, self.b)] = self.note


@dataclass(frozen=True)
class StatSet(Op):
    """The GM writes a stat's value (absolute: it stands whatever came before)."""

    name: ClassVar[str] = "stat_set"
    character: str
    stat: str
    value: int

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("character"), "character"), _name(d.get("stat"), "stat"), _int(d.get("value"), "stat"))

    def apply(self, state, entry):
        row = _character(state, self.character)
        row.stats = {**row.stats, self.stat: self.value}


@dataclass(frozen=True)
class StatChanged(Op):
    """A rule moves a stat by an amount (entry 40's IQ loss): relative, so it survives
    the void of an earlier change."""

    name: ClassVar[str] = "stat_delta"
    character: str
    stat: str
    delta: int

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("character"), "character"), _name(d.get("stat"), "stat"), _int(d.get("delta"), "delta"))

    def apply(self, state, entry):
        row = _character(state, self.character)
        if self.stat not in row.stats:
            raise OpConflict(f"{self.character} has no {self.stat} stat")
        row.stats = {**row.stats, self.stat: _bounded(row.stats[self.stat] + self.delta, self.stat)}


@dataclass(frozen=True)
class CpChanged(Op):
    name: ClassVar[str] = "cp_delta"
    character: str
    delta: int

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("character"), "character"), _int(d.get("delta"), "delta"))

    def apply(self, state, entry):
        row = _character(state, self.character)
        row.cp_total = _bounded(row.cp_total + self.delta, "CP total")


@dataclass(frozen=True)
class CpSet(Op):
    name: ClassVar[str] = "cp_set"
    character: str
    value: int

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("character"), "character"), _int(d.get("value"), "cp"))

    def apply(self, state, entry):
        _character(state, self.character).cp_total = self.value


@dataclass(frozen=True)
class PoolChanged(Op):
    """FP or HP lost (negative) or regained: relative to the pool's current value, which
    is its maximum (the stat of that name, or the ST/HT a 3e sheet derives it from) while
    no entry has touched it. A heal never passes the maximum, so a heal depends on the
    damage it healed: voiding that damage alone is refused."""

    name: ClassVar[str] = "pool_delta"
    character: str
    pool: str
    delta: int

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("character"), "character"), _name(d.get("pool"), "pool"), _int(d.get("delta"), "delta"))

    def apply(self, state, entry):
        row = _character(state, self.character)
        maximum = pool_max(row.stats, self.pool)  # the stat, or ST/HT on a 3e sheet (core.derived)
        if maximum is None:
            raise OpConflict(f"{self.character} has no {self.pool} stat (nor the stat it derives from)")
        current = row.pools.get(self.pool, maximum)
        if self.delta > 0 and current + self.delta > maximum:  # a heal stops at the maximum
            raise OpConflict(f"healing {self.delta} {self.pool} would take {self.character} to "
                             f"{current + self.delta}, above the maximum {maximum}")
        row.pools = {**row.pools, self.pool: _bounded(current + self.delta, self.pool)}


@dataclass(frozen=True)
class PoolSet(Op):
    """A pool written as an absolute value (round-1 records say only the value after)."""

    name: ClassVar[str] = "pool_set"
    character: str
    pool: str
    value: int

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("character"), "character"), _name(d.get("pool"), "pool"), _int(d.get("value"), "pool"))

    def apply(self, state, entry):
        row = _character(state, self.character)
        row.pools = {**row.pools, self.pool: self.value}


@dataclass(frozen=True)
class TraitAdded(Op):
    name: ClassVar[str] = "trait_added"
    character: str
    origin: str
    trait: str
    category: str
    cp: int
    counts_toward_limit: bool

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("character"), "character"), _origin(d.get("origin")), _name(d.get("trait"), "trait"),
                   _name(d.get("category"), "category"), _int(d.get("cp"), "cp"),
                   _bool(d.get("counts_toward_limit"), "counts_toward_limit"))

    def apply(self, state, entry):
        _character(state, self.character)
        if self.origin in state.traits:
            raise OpConflict(f"trait {self.origin} exists already")
        _refuse_name_clash(state, self.character, self.trait, self.origin)
        state.traits[self.origin] = TraitRow(self.character, self.trait, self.category, self.cp,
                                             self.counts_toward_limit, entry.seq,
                                             unlimited_cp=0 if self.counts_toward_limit else self.cp)


@dataclass(frozen=True)
class TraitRemoved(Op):
    name: ClassVar[str] = "trait_removed"
    character: str
    origin: str

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("character"), "character"), _origin(d.get("origin")))

    def apply(self, state, entry):
        _live_trait(state, self.origin, self.character).removed_seq = entry.seq


@dataclass(frozen=True)
class TraitRenamed(Op):
    name: ClassVar[str] = "trait_renamed"
    character: str
    origin: str
    trait: str

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("character"), "character"), _origin(d.get("origin")), _name(d.get("trait"), "trait"))

    def apply(self, state, entry):
        trait = _live_trait(state, self.origin, self.character)
        _refuse_name_clash(state, self.character, self.trait, self.origin)
        trait.name = self.trait


@dataclass(frozen=True)
class TraitCpSet(Op):
    name: ClassVar[str] = "trait_cp"
    character: str
    origin: str
    cp: int

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("character"), "character"), _origin(d.get("origin")), _int(d.get("cp"), "cp"))

    def apply(self, state, entry):
        _live_trait(state, self.origin, self.character).cp = self.cp


@dataclass(frozen=True)
class TraitCategorySet(Op):
    name: ClassVar[str] = "trait_category"
    character: str
    origin: str
    category: str

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("character"), "character"), _origin(d.get("origin")),
                   _name(d.get("category"), "category"))

    def apply(self, state, entry):
        _live_trait(state, self.origin, self.character).category = self.category


@dataclass(frozen=True)
class ConditionAdded(Op):
    """A condition begins now (the campaign clock as it stands). With a `length` in
    seconds it is timed: it runs out at now + length, and `time advance` ends it."""

    name: ClassVar[str] = "condition_added"
    character: str
    origin: str
    condition: str
    duration: str | None
    detail: dict[str, Any] = field(default_factory=dict)
    length: int | None = None

    @classmethod
    def parse(cls, d):
        if not isinstance(d.get("detail"), dict):
            raise BadOp("condition detail must be an object")
        return cls(_name(d.get("character"), "character"), _origin(d.get("origin")),
                   _name(d.get("condition"), "condition"), _text(d.get("duration"), "duration"),
                   _json_value(d["detail"], "condition detail"), _opt_int(d.get("length"), "length", 1, CLOCK_LIMIT))

    def to_json(self):
        data = super().to_json()
        if self.length is None:  # untimed: the record reads as it always has
            del data["length"]
        return data

    def apply(self, state, entry):
        _character(state, self.character)
        if self.origin in state.conditions:
            raise OpConflict(f"condition {self.origin} exists already")
        until = None if self.length is None else _clock(state.clock + self.length)
        state.conditions[self.origin] = ConditionRow(self.character, self.condition, self.duration,
                                                     dict(self.detail), entry.seq, since_clock=state.clock,
                                                     until_clock=until)


@dataclass(frozen=True)
class ConditionCleared(Op):
    name: ClassVar[str] = "condition_cleared"
    character: str
    origin: str

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("character"), "character"), _origin(d.get("origin")))

    def apply(self, state, entry):
        row = state.conditions.get(self.origin)
        if row is None or row.character != self.character:
            raise OpConflict(f"{self.character} has no condition {self.origin}")
        if row.cleared_seq is not None:
            raise OpConflict(f"{self.character}'s condition {row.name!r} was cleared by #{row.cleared_seq}")
        row.cleared_seq = entry.seq


@dataclass(frozen=True)
class ClockAdvanced(Op):
    """Campaign time moves on by `seconds` (relative, so it survives the void of an
    earlier advance). A time entry interleaves these with the ends of the conditions
    that run out on the way, so each follow-up begins at the moment its cause ended."""

    name: ClassVar[str] = "clock_advanced"
    seconds: int

    @classmethod
    def parse(cls, d):
        return cls(_int(d.get("seconds"), "seconds", 1, CLOCK_LIMIT))

    def apply(self, state, entry):
        state.clock = _clock(state.clock + self.seconds)


@dataclass(frozen=True)
class TraitUnlimitedChanged(Op):
    """The part of a trait's CP outside the disadvantage limit moves by `delta` (R2.5:
    the CP a fright check added when it made a mild phobia severe)."""

    name: ClassVar[str] = "trait_unlimited"
    character: str
    origin: str
    delta: int

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("character"), "character"), _origin(d.get("origin")), _int(d.get("delta"), "delta"))

    def apply(self, state, entry):
        trait = _live_trait(state, self.origin, self.character)
        trait.unlimited_cp = _bounded(trait.unlimited_cp + self.delta, "CP outside the limit")


@dataclass(frozen=True)
class ScenarioStarted(Op):
    name: ClassVar[str] = "scenario_started"
    number: int
    title: str
    participants: list[str]

    @classmethod
    def parse(cls, d):
        if not isinstance(d.get("participants"), list):
            raise BadOp("participants must be a list of names")
        return cls(_int(d.get("number"), "scenario number", 1), _name(d.get("title"), "title"),
                   [_name(p, "participant") for p in d["participants"]])

    @property
    def character_names(self):
        return tuple(self.participants)

    def apply(self, state, entry):
        current = state.open_scenario()
        if current is not None:
            raise OpConflict(f"scenario #{current} is still open")
        if self.number in state.scenarios:
            raise OpConflict(f"scenario #{self.number} exists already")
        for name in self.participants:
            _character(state, name)
            _refuse_busy(state, name)
        state.scenarios[self.number] = ScenarioRow(self.title, entry.seq, entry.at, list(self.participants))


@dataclass(frozen=True)
class ScenarioEnded(Op):
    name: ClassVar[str] = "scenario_ended"
    number: int

    @classmethod
    def parse(cls, d):
        return cls(_int(d.get("number"), "scenario number", 1))

    def apply(self, state, entry):
        row = state.scenarios.get(self.number)
        if row is None or row.ended_seq is not None:
            raise OpConflict(f"scenario #{self.number} is not open")
        row.ended_seq, row.ended_at = entry.seq, entry.at


@dataclass(frozen=True)
class MissingStarted(Op):
    name: ClassVar[str] = "missing_started"
    character: str
    faces: int
    reason: str | None
    scenario: int | None

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("character"), "character"), _int(d.get("faces"), "faces", 1, 1000),
                   _text(d.get("reason"), "reason"), _opt_int(d.get("scenario"), "scenario", 1))

    def apply(self, state, entry):
        _character(state, self.character)
        _refuse_busy(state, self.character)
        if self.scenario is not None and self.scenario not in state.scenarios:
            raise OpConflict(f"there is no scenario #{self.scenario}")
        state.disappearances[entry.seq] = DisappearanceRow(self.character, self.faces, self.reason, entry.at,
                                                           self.scenario)


@dataclass(frozen=True)
class MissingEnded(Op):
    name: ClassVar[str] = "missing_ended"
    since_seq: int

    @classmethod
    def parse(cls, d):
        return cls(_int(d.get("since_seq"), "since_seq", 1))

    def apply(self, state, entry):
        _open_disappearance_row(state, self.since_seq).reunited_seq = entry.seq


@dataclass(frozen=True)
class FacesSet(Op):
    name: ClassVar[str] = "faces"
    since_seq: int
    faces: int

    @classmethod
    def parse(cls, d):
        return cls(_int(d.get("since_seq"), "since_seq", 1), _int(d.get("faces"), "faces", 1, 1000))

    def apply(self, state, entry):
        _open_disappearance_row(state, self.since_seq).faces = self.faces


@dataclass(frozen=True)
class SearchStarted(Op):
    name: ClassVar[str] = "search_started"
    since_seq: int
    searcher: str
    player: str
    scenario: int | None

    @classmethod
    def parse(cls, d):
        return cls(_int(d.get("since_seq"), "since_seq", 1), _name(d.get("searcher"), "searcher"),
                   _name(d.get("player"), "player"), _opt_int(d.get("scenario"), "scenario", 1))

    @property
    def character_names(self):
        return (self.searcher,)

    def apply(self, state, entry):
        _open_disappearance_row(state, self.since_seq)
        row = _character(state, self.searcher)
        if row.player != self.player:
            raise OpConflict(f"{self.searcher} is not {self.player}'s character")
        _refuse_busy(state, self.searcher)
        state.searches[entry.seq] = SearchRow(self.since_seq, self.searcher, self.player, self.scenario)


@dataclass(frozen=True)
class SearchEnded(Op):
    name: ClassVar[str] = "search_ended"
    started_seq: int
    searcher: str

    @classmethod
    def parse(cls, d):
        return cls(_int(d.get("started_seq"), "started_seq", 1), _name(d.get("searcher"), "searcher"))

    @property
    def character_names(self):
        return (self.searcher,)

    def apply(self, state, entry):
        row = state.searches.get(self.started_seq)
        if row is None or row.searcher != self.searcher:
            raise OpConflict(f"{self.searcher} was not sent searching by #{self.started_seq}")
        if row.ended_seq is not None:
            raise OpConflict(f"{self.searcher} came back by #{row.ended_seq}")
        row.ended_seq = entry.seq


@dataclass(frozen=True)
class ReunionChecked(Op):
    """A reunion roll (R4). Replay re-judges it: the roll must fit the die, the threshold
    must be 1 + the searchers out at that moment, success must be roll <= threshold."""

    name: ClassVar[str] = "reunion_checked"
    since_seq: int
    scenario: int
    roll: int
    threshold: int
    success: bool

    @classmethod
    def parse(cls, d):
        return cls(_int(d.get("since_seq"), "since_seq", 1), _int(d.get("scenario"), "scenario", 1),
                   _int(d.get("roll"), "roll", 1, 1000), _int(d.get("threshold"), "threshold", 1, 1000),
                   _bool(d.get("success"), "success"))

    def apply(self, state, entry):
        gone = _open_disappearance_row(state, self.since_seq)
        scenario = state.scenarios.get(self.scenario)
        if scenario is None or scenario.ended_seq is None:
            raise OpConflict(f"scenario #{self.scenario} has not ended")
        if not 1 <= self.roll <= gone.faces:
            raise OpConflict(f"a roll of {self.roll} does not fit 1d{gone.faces}")
        searchers = len(state.active_searchers(self.since_seq))
        if self.threshold != 1 + searchers:
            raise OpConflict(f"the threshold is 1 + {searchers} searchers = {1 + searchers}, not {self.threshold}")
        if self.success != (self.roll <= self.threshold):
            raise OpConflict(f"{self.roll} against {self.threshold} is not a {'success' if self.success else 'failure'}")
        for row in state.reunions.values():
            if row.since_seq == self.since_seq and row.scenario == self.scenario:
                raise OpConflict(f"{gone.character}'s reunion check for scenario #{self.scenario} was already rolled")
        state.reunions[entry.seq] = ReunionRow(self.since_seq, self.scenario, self.roll, self.threshold, self.success)


# --------------------------------------------------------------------------- names and lifecycle

STATUSES = ("active", "dead", "retired")


def _rekey(mapping: dict, old: Any, new: Any) -> dict:
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

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("character"), "character"), _name(d.get("new"), "new name"))

    @property
    def character_names(self):
        return (self.character, self.new)

    def apply(self, state, entry):
        old, new = self.character, self.new
        _character(state, old)
        if new in state.characters:
            raise OpConflict(f"a character named {new!r} already exists")
        state.characters = _rekey(state.characters, old, new)
        for row in state.characters.values():
            if row.summoner == old:
                row.summoner = new
        if old in state.born:
            state.born = _rekey(state.born, old, new)
        state.relationships = {(new if a == old else a, new if b == old else b): note
                               for (a, b), note in state.relationships.items()}
        for row in [*state.traits.values(), *state.conditions.values(), *state.disappearances.values()]:
            if row.character == old:
                row.character = new
        for row in state.scenarios.values():
            row.participants = [new if p == old else p for p in row.participants]
        for row in state.searches.values():
            if row.searcher == old:
                row.searcher = new


@dataclass(frozen=True)
class PlayerRenamed(Op):
    name: ClassVar[str] = "player_renamed"
    player: str
    new: str

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("player"), "player"), _name(d.get("new"), "new name"))

    def apply(self, state, entry):
        old, new = self.player, self.new
        if old not in state.players:
            raise OpConflict(f"there is no player {old!r}")
        if new in state.players:
            raise OpConflict(f"a player named {new!r} already exists")
        state.players = _rekey(state.players, old, new)
        if old in state.player_born:
            state.player_born = _rekey(state.player_born, old, new)
        for row in state.characters.values():
            if row.player == old:
                row.player = new
        for row in state.searches.values():
            if row.player == old:
                row.player = new


@dataclass(frozen=True)
class CharacterStatusSet(Op):
    """Death or retirement (or, set back, active again). A character out on the rules'
    business (missing, searching) must come back first."""

    name: ClassVar[str] = "character_status"
    character: str
    status: str

    @classmethod
    def parse(cls, d):
        if d.get("status") not in STATUSES:
            raise BadOp(f"status must be one of {', '.join(STATUSES)}, not {d.get('status')!r}")
        return cls(_name(d.get("character"), "character"), d["status"])

    def apply(self, state, entry):
        row = _character(state, self.character)
        if row.status == self.status:
            raise OpConflict(f"{self.character} is already {self.status}")
        if row.status == "active":
            _refuse_busy(state, self.character)
        row.status = self.status


@dataclass(frozen=True)
class CpAwarded(Op):
    """Character points given for play: they raise the CP total and are counted apart."""

    name: ClassVar[str] = "cp_awarded"
    character: str
    cp: int

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("character"), "character"), _int(d.get("cp"), "cp"))

    def apply(self, state, entry):
        row = _character(state, self.character)
        row.cp_total = _bounded(row.cp_total + self.cp, "CP total")
        row.cp_awarded = _bounded(row.cp_awarded + self.cp, "awarded CP")


@dataclass(frozen=True)
class StatUnset(Op):
    name: ClassVar[str] = "stat_unset"
    character: str
    stat: str

    @classmethod
    def parse(cls, d):
        return cls(_name(d.get("character"), "character"), _name(d.get("stat"), "stat"))

    def apply(self, state, entry):
        row = _character(state, self.character)
        if self.stat not in row.stats:
            raise OpConflict(f"{self.character} has no {self.stat} stat")
        row.stats = {k: v for k, v in row.stats.items() if k != self.stat}
        row.pools = {k: v for k, v in row.pools.items() if k != self.stat}


def parse_op(data: Any) -> Op:
    if not isinstance(data, dict) or not isinstance(data.get("op"), str):
        raise BadOp("an op must be an object with an 'op' name")
    cls = OPS.get(data["op"])
    if cls is None:
        raise BadOp(f"unknown op {data['op']!r}")
    unknown = set(data) - {"op"} - set(cls.__dataclass_fields__)
    if unknown:
        raise BadOp(f"op {data['op']!r} has unknown fields: {', '.join(sorted(unknown))}")
    return cls.parse(data)

"""What every op is built from: the Op base class and its registry, the two errors
(BadOp: malformed JSON; OpConflict: a precondition that does not hold), and the field
and state checks that `parse` and `apply` share.

The ops themselves are in the family modules (ops_characters, ops_traits,
ops_scenarios); campaign.projection.ops gathers them and parses any op.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from campaign.core.gametime import CLOCK_LIMIT
from campaign.core.stat_names import is_stat_value
from campaign.core.text_rule import NAME_LIMIT, TEXT_LIMIT, is_normal_name, name_fault, text_fault
from campaign.projection.state import (
    CharacterRow,
    DisappearanceRow,
    State,
    TraitRow,
)

# Both backends store these in 32-bit INTEGER columns; a larger number is refused everywhere.
INT_LIMIT = 2**31 - 1


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


def field_int(value: Any, what: str, lo: int = -INT_LIMIT, hi: int = INT_LIMIT) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise BadOp(f"{what} must be a whole number in {lo}..{hi}, not {value!r}")
    return value


def field_opt_int(value: Any, what: str, lo: int = -INT_LIMIT, hi: int = INT_LIMIT) -> int | None:
    return None if value is None else field_int(value, what, lo, hi)


def field_name(value: Any, what: str) -> str:
    """A name as the services store it (core.text_rule): a ledger read from a file holds
    only what `char add` and the other commands would have taken."""
    if not isinstance(value, str):
        raise BadOp(f"{what} must be a name of 1..{NAME_LIMIT} characters, not {value!r}")
    if not is_normal_name(value):
        raise BadOp(f"{what} {value!r} is not in normal form")
    fault = name_fault(value)
    if fault is not None:
        raise BadOp(f"{what} name {fault}: {value[:NAME_LIMIT]!r}")
    return value


def field_opt_name(value: Any, what: str) -> str | None:
    return None if value is None else field_name(value, what)


def field_text(value: Any, what: str) -> str | None:
    """Free text (a note, an item): the services' rule (core.text_rule)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise BadOp(f"{what} must be text of at most {TEXT_LIMIT} characters")
    fault = text_fault(value, TEXT_LIMIT)
    if fault is not None:
        raise BadOp(f"{what} {fault}")
    return value


def field_bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise BadOp(f"{what} must be true or false, not {value!r}")
    return value


def field_json(value: Any, what: str, depth: int = 0) -> Any:
    """Settings and condition details: JSON made of finite numbers, text, lists, objects."""
    if depth > 8:
        raise BadOp(f"{what} is nested too deeply")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return field_int(value, what)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise BadOp(f"{what} holds a number that is not finite")
        return value
    if isinstance(value, list):
        return [field_json(item, what, depth + 1) for item in value]
    if isinstance(value, dict):
        return {field_text(key, what): field_json(item, what, depth + 1) for key, item in value.items()}
    raise BadOp(f"{what} holds a value of type {type(value).__name__}")


def field_stat_value(value: Any, what: str) -> int | str:
    """A stat's value: a whole number, or a quarter as its exact decimal text ("5.25",
    core.stat_names); a binary float is never a stat."""
    if isinstance(value, str):
        if not is_stat_value(value):
            raise BadOp(f"{what} must be a whole number or a quarter such as '5.25', not {value!r}")
        return value
    return field_int(value, what)


def field_stats(value: Any, what: str) -> dict[str, int | str]:
    if not isinstance(value, dict):
        raise BadOp(f"{what} must be an object of stat name -> whole number")
    return {field_name(key, f"{what} name"): field_stat_value(item, f"{what} {key}") for key, item in value.items()}


def field_origin(value: Any) -> str:
    if not isinstance(value, str) or len(value) > 40:
        raise BadOp(f"origin must be '<seq>.<n>', not {value!r}")
    seq, dot, n = value.partition(".")
    if not (dot and seq.isdigit() and n.isdigit() and seq.isascii() and n.isascii()):
        raise BadOp(f"origin must be '<seq>.<n>', not {value!r}")
    return value


# --------------------------------------------------------------------------- state checks


def character_row(state: State, name: str) -> CharacterRow:
    row = state.characters.get(name)
    if row is None:
        raise OpConflict(f"there is no character {name!r}")
    return row


def bounded(value: int, what: str) -> int:
    if not -INT_LIMIT <= value <= INT_LIMIT:
        raise OpConflict(f"{what} would be {value}, beyond ±{INT_LIMIT}")
    return value


def clock_value(value: int) -> int:
    if not 0 <= value <= CLOCK_LIMIT:
        raise OpConflict(f"the campaign clock would be {value} seconds, beyond the {CLOCK_LIMIT} it can count")
    return value


def live_trait(state: State, origin: str, character: str) -> TraitRow:
    trait = state.traits.get(origin)
    if trait is None or trait.character != character:
        raise OpConflict(f"{character} has no trait {origin}")
    if trait.removed_seq is not None:
        raise OpConflict(f"{character}'s trait {trait.name!r} was removed by #{trait.removed_seq}")
    return trait


def refuse_name_clash(state: State, character: str, name: str, origin: str) -> None:
    folded = name.casefold()
    for other_origin, trait in state.traits.items():
        if (trait.character == character and trait.removed_seq is None and other_origin != origin
                and trait.name.casefold() == folded):
            raise OpConflict(f"{character} already has a trait named {trait.name!r}")


def refuse_busy(state: State, character: str) -> None:
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


def open_disappearance_row(state: State, since_seq: int) -> DisappearanceRow:
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

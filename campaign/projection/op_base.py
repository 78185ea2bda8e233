"""What every op is built from: the Op base class and its registry, the two errors
(BadOp: malformed JSON; OpConflict: a precondition that does not hold), and the field
and state checks that `parse` and `apply` share.

The ops themselves are in the family modules (ops_characters, ops_traits,
ops_scenarios); campaign.projection.ops gathers them and parses any op.
"""

from __future__ import annotations

import functools
import math
import operator
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from campaign.core.gametime import CLOCK_LIMIT
from campaign.core.stat_names import is_stat_value
from campaign.core.text_rule import NAME_LIMIT as NAME_LIMIT
from campaign.core.text_rule import TEXT_LIMIT as TEXT_LIMIT
from campaign.core.text_rule import is_normal_name, name_fault, text_fault
from campaign.errors import N_
from campaign.projection.state import CharacterRow, DisappearanceRow, State, TraitRow

# Both backends store these in 32-bit INTEGER columns; a larger number is refused everywhere.
INT_LIMIT = 2**31 - 1


class OpConflict(Exception):
    """An op whose precondition does not hold in the state it is applied to.

    Raised like the core's refusals (campaign.errors): an English template marked by
    `N_` and its values by name, so the line can be shown in the reader's language."""

    def __init__(self, message: str, /, **params: object) -> None:
        self.template = message
        self.params = params
        super().__init__(message.format(**params) if params else message)


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
        raise OpConflict(N_("there is no character {name!r}"), name=name)
    return row


def bounded(value: int, what: str) -> int:
    if not -INT_LIMIT <= value <= INT_LIMIT:
        raise OpConflict(
            N_("{what} would be {value}, beyond ±{INT_LIMIT}"), what=what, value=value, INT_LIMIT=INT_LIMIT
        )
    return value


def clock_value(value: int) -> int:
    if not 0 <= value <= CLOCK_LIMIT:
        raise OpConflict(
            N_("the campaign clock would be {value} seconds, beyond the {CLOCK_LIMIT} it can count"),
            value=value,
            CLOCK_LIMIT=CLOCK_LIMIT,
        )
    return value


def live_trait(state: State, origin: str, character: str) -> TraitRow:
    trait = state.traits.get(origin)
    if trait is None or trait.character != character:
        raise OpConflict(N_("{character} has no such trait"), character=character)
    if trait.removed_seq is not None:
        raise OpConflict(
            N_("{character}'s trait {name!r} was removed by #{removed_seq}"),
            character=character,
            name=trait.name,
            removed_seq=trait.removed_seq,
        )
    return trait


def refuse_name_clash(state: State, character: str, name: str, origin: str) -> None:
    folded = name.casefold()
    for other_origin in state.traits_named(folded):
        trait = state.traits[other_origin]
        if (
            trait.character == character
            and trait.removed_seq is None
            and other_origin != origin
            and trait.name.casefold() == folded
        ):
            raise OpConflict(N_("{character} already has a trait named {name!r}"), character=character, name=trait.name)


# A character's status in a conflict is a whole sentence each (a code such as `dead` put
# into a translated line would stay English); the last is for a status not known here.
OUT_OF_PLAY = {"dead": N_("{character} is dead"), "retired": N_("{character} is retired")}
ALREADY = {
    "active": N_("{character} is already active"),
    "dead": N_("{character} is already dead"),
    "retired": N_("{character} is already retired"),
}


def refuse_busy(state: State, character: str) -> None:
    """docs/rules.md "Missing and reunion check": nobody is missing twice, and a missing
    character does not search (nor the reverse);
    a dead or retired character does none of it (nor takes part in a scenario)."""
    status = state.characters[character].status if character in state.characters else "active"
    if status != "active":
        raise OpConflict(OUT_OF_PLAY.get(status, N_("{character} is {status}")), character=character, status=status)
    since = state.open_disappearance(character)
    if since is not None:
        raise OpConflict(N_("{character} is missing (since #{since})"), character=character, since=since)
    searching = state.active_search_of(character)
    if searching is not None:
        raise OpConflict(
            N_("{character} is out searching (since #{searching})"), character=character, searching=searching
        )


def open_disappearance_row(state: State, since_seq: int) -> DisappearanceRow:
    row = state.disappearances.get(since_seq)
    if row is None:
        raise OpConflict(N_("no disappearance began at #{since_seq}"), since_seq=since_seq)
    if row.reunited_seq is not None:
        raise OpConflict(
            N_("{character} was already found by #{reunited_seq}"),
            character=row.character,
            reunited_seq=row.reunited_seq,
        )
    return row


# --------------------------------------------------------------------------- decoding
# An op's JSON is decoded from its dataclass's field types: the type says which check a
# field gets (a `str` is a name, an `int` a 32-bit whole number, `X | None` may be null
# or absent ...). Where a rule is more than a type, a field's name says which: the same
# name means the same thing in every op (an `origin` is always '<seq>.<n>', a `since_seq`
# a seq). An op with a rule of its own (a choice of codes) lists it in its `rules`.

Rule = Callable[[Any, str], Any]


def _object(value: Any, what: str) -> Any:
    if not isinstance(value, dict):
        raise BadOp(f"{what} must be an object")
    return field_json(value, what)


def _names(value: Any, what: str) -> list[str]:
    if not isinstance(value, list):
        raise BadOp(f"{what} must be a list of names")
    return [field_name(item, what) for item in value]


def _seq_or_number(value: Any, what: str) -> int:
    return field_int(value, what, 1)


def _die_number(value: Any, what: str) -> int:
    """Faces of a reunion die, and a roll or threshold on it."""
    return field_int(value, what, 1, 1000)


def _seconds(value: Any, what: str) -> int:
    return field_int(value, what, 1, CLOCK_LIMIT)


def _origin(value: Any, what: str) -> str:
    return field_origin(value)


def choice(*codes: str) -> Rule:
    """A rule for a field that holds one of a few codes."""

    def check(value: Any, what: str) -> str:
        if value not in codes:
            raise BadOp(f"{what} must be one of {', '.join(codes)}, not {value!r}")
        return typing.cast(str, value)

    return check


# The check each field type gets.
TYPE_RULES: dict[object, Rule] = {
    int: field_int,
    bool: field_bool,
    str: field_name,
    Any: field_json,
    dict[str, Any]: _object,
    dict[str, int | str]: field_stats,
    int | str: field_stat_value,
    list[str]: _names,
}

# Rules that are more than a type, by field name (the same in every op).
FIELD_RULES: dict[str, Rule] = {
    "origin": _origin,
    "note": field_text,
    "reason": field_text,
    "duration": field_text,
    "number": _seq_or_number,
    "scenario": _seq_or_number,
    "since_seq": _seq_or_number,
    "started_seq": _seq_or_number,
    "counted_at": _seq_or_number,
    "faces": _die_number,
    "roll": _die_number,
    "threshold": _die_number,
    "seconds": _seconds,
    "length": _seconds,
}


@functools.cache
def decoding_plan(cls: type[Op]) -> tuple[tuple[str, bool, Rule], ...]:
    """(field, may be null, rule) for each field of `cls`, in declaration order. A field
    type without a rule is a programming error, raised the first time the op is parsed
    (the round-trip test parses every op kind)."""
    hints = typing.get_type_hints(cls)
    rules = {**FIELD_RULES, **cls.rules}
    plan: list[tuple[str, bool, Rule]] = []
    for item in fields(cls):
        kind = hints[item.name]
        optional = isinstance(kind, types.UnionType) and type(None) in kind.__args__
        if optional:
            kind = functools.reduce(operator.or_, [arg for arg in kind.__args__ if arg is not type(None)])
        rule = rules.get(item.name) or TYPE_RULES.get(kind)
        if rule is None:
            raise TypeError(f"op {cls.name!r}: no rule decodes field {item.name!r} of type {kind}")
        plan.append((item.name, optional, rule))
    return tuple(plan)


def decode(cls: type[Op], data: Mapping[str, Any]) -> Op:
    """The op `cls` from its JSON object, every field checked (an absent field reads as
    null, so a field that may be null may also be left out)."""
    values: dict[str, Any] = {}
    # a class is hashable; mypy checks type[Op] against Op's instance __hash__
    for name, optional, rule in decoding_plan(cls):  # type: ignore[arg-type]
        value = data.get(name)
        values[name] = None if optional and value is None else rule(value, name)
    return cls(**values)


# --------------------------------------------------------------------------- ops

OPS: dict[str, type[Op]] = {}


@dataclass(frozen=True)
class Op:
    """One change. Subclasses declare `name`, their fields and `apply`; parsing is
    derived from the field types (decode), with `rules` for a field whose rule is an
    op's own."""

    name: ClassVar[str] = ""
    rules: ClassVar[Mapping[str, Rule]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        OPS[cls.name] = cls

    def to_json(self) -> dict[str, Any]:
        return {"op": self.name, **asdict(self)}

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Op:
        return decode(cls, data)

    def apply(self, state: State, entry: EntryContext) -> None:  # pragma: no cover
        raise NotImplementedError

    @property
    def character_names(self) -> tuple[str, ...]:
        """The characters this op changes (for `char timeline` and the like)."""
        name = getattr(self, "character", None)
        return (name,) if name else ()

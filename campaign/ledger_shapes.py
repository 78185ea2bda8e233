"""The shapes of the records the dice engine writes most (rolls, passed fright checks), as
msgspec types, so `history verify`'s fast path reads them without building a dict per
object (campaign.ledger_scan.scan).

A shape only speeds the reading: a record counts as canonical when its bytes are exactly
what encoding the decoded value gives back, whichever type decoded it, so a record of
another shape (a fright check's consequences, a void, a record of an older version) is
read by the generic reader instead, and one neither reader vouches for goes to the exact
rules. What a shape must hold to be sound, and the tests check: every struct's fields in
sorted order (the encoder writes them in declaration order, and canonical JSON sorts its
keys), no field that may hold a float, and nesting bounded by the types themselves
(`tuple[()]`, the empty array, ends every recursion), far below read_limits.JSON_DEPTH, so
a record read by a shape needs no bracket count.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec


class Group(msgspec.Struct, forbid_unknown_fields=True):
    count: int
    dropped: list[int]
    faces: list[int]
    hit_indices: list[int] | None
    keep: str | None
    kept: list[int]
    kept_indices: list[int]
    kind: str
    sides: int
    successes: int | None
    value: int


class Gurps(msgspec.Struct, forbid_unknown_fields=True):
    effective_target: int
    faces: list[int]
    margin: int
    outcome: str
    raw: int
    rule: str
    target: int
    total: int


class Repeat(msgspec.Struct, forbid_unknown_fields=True):
    """One roll of a repeat (`X3 2D6`): a roll detail whose own repeats are empty."""

    comment: str | None
    comparison: str | None
    expression: str
    faces: list[int]
    groups: list[Group]
    gurps: Gurps | None
    margin: int | None
    outcome: str | None
    repeats: tuple[()]
    source: str | None
    successes: int | None
    target: int | None
    total: int | None


class RollDetail(msgspec.Struct, forbid_unknown_fields=True):
    comment: str | None
    comparison: str | None
    expression: str
    faces: list[int]
    groups: list[Group]
    gurps: Gurps | None
    margin: int | None
    outcome: str | None
    repeats: list[Repeat]
    source: str | None
    successes: int | None
    target: int | None
    total: int | None


class FrightCheck(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    cap: int | None
    combat_reflexes: bool
    dice: list[int]
    margin: int
    modifier: int
    outcome: str
    severe_phobia: bool
    target: int
    total: int
    will: int
    will_derived_from: str | None | msgspec.UnsetType = msgspec.UNSET  # absent from older records
    will_stat: str


class PassedFright(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A fright check with no consequences (the table was not rolled). UNSET: a key some
    versions write and others do not (absent reads as UNSET and is written back absent,
    so the bytes still decide)."""

    applied: tuple[()] | msgspec.UnsetType = msgspec.UNSET
    check: FrightCheck
    choice: int | None
    effects: tuple[()]
    notes: tuple[()]
    pick: str | None
    table: None
    traits_added: tuple[()]


def _record(name: str, detail: Any) -> type[msgspec.Struct]:
    """A record type (every field ledger.append writes, sorted) with this detail and no ops."""
    return msgspec.defstruct(
        name,
        [
            ("actor", str),
            ("at", str),
            ("campaign", str),
            ("character", str | None),
            ("detail", detail),
            ("dice", list[int] | None),
            ("expression", str | None),
            ("kind", str),
            ("margin", int | None),
            ("ops", tuple[()]),
            ("outcome", str | None),
            ("parent_seq", int | None),
            ("reason", str | None),
            ("scenario", int | None),
            ("seq", int),
            ("source", str | None),
            ("target", int | None),
            ("total", int | None),
            ("voidable", bool),
            ("voids_seq", int | None),
        ],
        forbid_unknown_fields=True,
    )


SHAPES: dict[str, type[msgspec.Struct]] = {
    "roll": _record("RollRecord", RollDetail),
    "fright": _record("FrightRecord", PassedFright),
}
STRUCTS = (Group, Gurps, Repeat, RollDetail, FrightCheck, PassedFright, *SHAPES.values())


def readers() -> dict[str, Callable[[bytes], Any]]:
    """{kind: decode} for the kinds with a shape (the row's kind column picks one)."""
    return {kind: msgspec.json.Decoder(shape).decode for kind, shape in SHAPES.items()}


def dict_reader() -> Callable[[str | bytes], dict[str, Any]]:
    """Any stored record as the dict json.loads gives, read by msgspec (several times
    faster: a whole-ledger pass such as the luck tally spent most of its time in the
    standard library's reader); what msgspec refuses and json reads (NaN) goes to json."""
    import json

    decode = msgspec.json.Decoder().decode

    def read(raw: str | bytes) -> dict[str, Any]:
        try:
            return decode(raw)  # type: ignore[no-any-return]
        except msgspec.DecodeError:
            return json.loads(raw)  # type: ignore[no-any-return]

    return read

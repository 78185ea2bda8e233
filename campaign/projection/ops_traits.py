"""Ops on traits (disadvantages gained from play, renamed, re-costed, removed) and on
conditions (stun, panic, coma ... added and cleared).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from campaign.errors import N_, Words
from campaign.projection.op_base import (
    EntryContext,
    Op,
    OpConflict,
    bounded,
    character_row,
    clock_value,
    live_trait,
    refuse_name_clash,
)
from campaign.projection.state import ConditionRow, State, TraitRow


@dataclass(frozen=True)
class TraitAdded(Op):
    name: ClassVar[str] = "trait_added"
    character: str
    origin: str
    trait: str
    category: str
    cp: int
    counts_toward_limit: bool

    def apply(self, state: State, entry: EntryContext) -> None:
        character_row(state, self.character)
        if self.origin in state.traits:
            raise OpConflict(N_("the trait exists already"))
        refuse_name_clash(state, self.character, self.trait, self.origin)
        state.traits[self.origin] = TraitRow(
            self.character,
            self.trait,
            self.category,
            self.cp,
            self.counts_toward_limit,
            entry.seq,
            unlimited_cp=0 if self.counts_toward_limit else self.cp,
        )
        state.note_trait_name(self.origin, added=True)


@dataclass(frozen=True)
class TraitRemoved(Op):
    name: ClassVar[str] = "trait_removed"
    character: str
    origin: str

    def apply(self, state: State, entry: EntryContext) -> None:
        live_trait(state, self.origin, self.character).removed_seq = entry.seq


@dataclass(frozen=True)
class TraitRenamed(Op):
    name: ClassVar[str] = "trait_renamed"
    character: str
    origin: str
    trait: str

    def apply(self, state: State, entry: EntryContext) -> None:
        trait = live_trait(state, self.origin, self.character)
        refuse_name_clash(state, self.character, self.trait, self.origin)
        trait.name = self.trait
        state.note_trait_name(self.origin, added=False)


@dataclass(frozen=True)
class TraitCpSet(Op):
    name: ClassVar[str] = "trait_cp"
    character: str
    origin: str
    cp: int

    def apply(self, state: State, entry: EntryContext) -> None:
        live_trait(state, self.origin, self.character).cp = self.cp


@dataclass(frozen=True)
class TraitCategorySet(Op):
    name: ClassVar[str] = "trait_category"
    character: str
    origin: str
    category: str

    def apply(self, state: State, entry: EntryContext) -> None:
        live_trait(state, self.origin, self.character).category = self.category


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

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        if self.length is None:  # untimed: the record reads as it always has
            del data["length"]
        return data

    def apply(self, state: State, entry: EntryContext) -> None:
        character_row(state, self.character)
        if self.origin in state.conditions:
            raise OpConflict(N_("the condition exists already"))
        until = None if self.length is None else clock_value(state.clock + self.length)
        state.conditions[self.origin] = ConditionRow(
            self.character,
            self.condition,
            self.duration,
            dict(self.detail),
            entry.seq,
            since_clock=state.clock,
            until_clock=until,
        )


@dataclass(frozen=True)
class ConditionCleared(Op):
    name: ClassVar[str] = "condition_cleared"
    character: str
    origin: str

    def apply(self, state: State, entry: EntryContext) -> None:
        row = state.conditions.get(self.origin)
        if row is None or row.character != self.character:
            raise OpConflict(N_("{character} has no such condition"), character=self.character)
        if row.cleared_seq is not None:
            raise OpConflict(
                N_("{character}'s condition {name!r} was cleared by #{cleared_seq}"),
                character=self.character,
                name=row.name,
                cleared_seq=row.cleared_seq,
            )
        row.cleared_seq = entry.seq


@dataclass(frozen=True)
class TraitUnlimitedChanged(Op):
    """The part of a trait's CP outside the disadvantage limit moves by `delta` (docs/rules.md "Fright check":
    the CP a fright check added when it made a mild phobia severe)."""

    name: ClassVar[str] = "trait_unlimited"
    character: str
    origin: str
    delta: int

    def apply(self, state: State, entry: EntryContext) -> None:
        trait = live_trait(state, self.origin, self.character)
        trait.unlimited_cp = bounded(trait.unlimited_cp + self.delta, Words(N_("CP outside the limit")))

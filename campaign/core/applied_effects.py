"""What an effect did once applied to a character: the one shape of an applied effect.

core.fright says what a table entry asks for (AddCondition, LosePool, AddTrait ...);
services apply it and learn what only the character's rows know (the origin of the new
trait, the FP before and after, whether a stat was there at all). Each applied effect
is one frozen dataclass here, carried as it is from the service through the CLI, the web
and `--json`; `record()` is the object a ledger record holds (codes and numbers, never
words: campaign.effect_words puts words to it when shown) and `applied_effect()` reads a
recorded one back, an old record's too (its codes; the words it also holds are kept only
for a code this version does not know).

Adding a kind of lasting disadvantage needs nothing here: its category is a code
(effects_vocabulary.TRAIT_CATEGORIES) that an AppliedTrait carries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal, TypedDict

from campaign.core.effects_vocabulary import TraitOption, effect_data
from campaign.core.fright import AddCondition

JsonObject = dict[str, Any]


class TraitAdded(TypedDict):
    """A new trait as a fright record's `traits_added` lists it."""

    name: str
    category: str
    cp: int
    severity: str | None
    counts_toward_limit: Literal[False]  # a trait a fright check gives is outside the limit
    grants_cp: Literal[False]
    placeholder: bool
    origin: str
    entry: int


@dataclass(frozen=True, slots=True)
class AppliedTrait:
    """A new disadvantage or quirk (docs/rules.md "Fright check"): it lowers the CP total
    and is not counted toward the limit. `category` is the stored one ("severe phobia")."""

    name: str
    category: str
    cp: int
    severity: str | None
    placeholder: bool  # the name is a placeholder for the GM to rename
    origin: str
    entry: int
    options: tuple[TraitOption, ...] = ()  # what the table entry offered
    choice: int = 0
    kind = "trait"

    def added(self) -> TraitAdded:
        """The trait as the record's `traits_added` lists it."""
        return {
            "name": self.name,
            "category": self.category,
            "cp": self.cp,
            "severity": self.severity,
            "counts_toward_limit": False,
            "grants_cp": False,
            "placeholder": self.placeholder,
            "origin": self.origin,
            "entry": self.entry,
        }

    def record(self) -> JsonObject:
        return {
            "kind": self.kind,
            **self.added(),
            "options": [effect_data(option) for option in self.options],
            "choice": self.choice,
        }

    @property
    def cp_change(self) -> int:
        return self.cp


@dataclass(frozen=True, slots=True)
class AppliedEscalation:
    """A mild phobia made severe: its CP multiplied, the added part outside the limit."""

    trait: str
    old_cp: int
    new_cp: int
    category_before: str
    category: str
    limit_cp: int | None
    unlimited_cp: int | None
    origin: str | None
    entry: int
    kind = "phobia_escalation"

    @property
    def cp_change(self) -> int:
        return self.new_cp - self.old_cp

    def record(self) -> JsonObject:
        return {
            "kind": self.kind,
            "trait": self.trait,
            "old_cp": self.old_cp,
            "new_cp": self.new_cp,
            "cp_change": self.cp_change,
            "category_before": self.category_before,
            "category": self.category,
            "limit_cp": self.limit_cp,
            "unlimited_cp": self.unlimited_cp,
            "origin": self.origin,
            "entry": self.entry,
        }


@dataclass(frozen=True, slots=True)
class AppliedCondition:
    """A condition begun: what the table said (`spec`, codes only) and where it lives."""

    spec: AddCondition
    origin: str | None
    timed: bool  # ends by itself on the campaign clock (`time advance`)
    until_clock: int | None
    kind = "condition"

    def codes(self) -> JsonObject:
        """The condition's codes: also the detail of its condition row."""
        return effect_data(self.spec)

    def record(self) -> JsonObject:
        return {
            "kind": self.kind,
            **self.codes(),
            "origin": self.origin,
            "timed": self.timed,
            "until_clock": self.until_clock,
        }


@dataclass(frozen=True, slots=True)
class AppliedPool:
    """Fatigue (FP) or injury (HP) taken; `before` and `after` when the sheet keeps the pool."""

    kind: str  # "fatigue" | "injury"
    pool: str  # "FP" | "HP"
    amount: int
    dice: str | None
    entry: int
    tracked: bool
    before: int | None = None
    after: int | None = None
    max: int | None = None
    derived_from: str | None = None

    def record(self) -> JsonObject:
        out: JsonObject = {
            "kind": self.kind,
            "pool": self.pool,
            "amount": self.amount,
            "dice": self.dice,
            "entry": self.entry,
            "tracked": self.tracked,
        }
        if self.tracked:
            out.update(before=self.before, after=self.after, max=self.max, derived_from=self.derived_from)
        return out


@dataclass(frozen=True, slots=True)
class StatLowered:
    """A stat the sheet lists that falls with its attribute (docs/rules.md "Derived stats")."""

    stat: str
    before: int
    after: int


@dataclass(frozen=True, slots=True)
class AppliedAttribute:
    """An attribute lost for good; `cascade` "mental": mental skills drop with it (by hand)."""

    stat: str
    amount: int
    permanent: bool
    cascade: str | None
    entry: int
    tracked: bool
    before: int | None = None
    after: int | None = None
    with_it: tuple[StatLowered, ...] = ()
    kind = "lose_attribute"

    def record(self) -> JsonObject:
        out: JsonObject = {
            "kind": self.kind,
            "stat": self.stat,
            "amount": self.amount,
            "permanent": self.permanent,
            "cascade": self.cascade,
            "entry": self.entry,
            "tracked": self.tracked,
        }
        if self.tracked:
            out.update(before=self.before, after=self.after)
        if self.with_it:
            out["with_it"] = [{"stat": s.stat, "before": s.before, "after": s.after} for s in self.with_it]
        return out


AppliedEffect = AppliedTrait | AppliedEscalation | AppliedCondition | AppliedPool | AppliedAttribute

_CONDITION_FIELDS = frozenset(f.name for f in fields(AddCondition))


def applied_effect(record: Mapping[str, Any]) -> AppliedEffect | None:
    """A recorded effect read back (any version's record); None for a kind or shape this
    version does not know, which is then shown by its codes as recorded."""
    try:
        return _READERS[record["kind"]](record)
    except (KeyError, TypeError, ValueError):
        return None


def _trait(r: Mapping[str, Any]) -> AppliedTrait:
    options = tuple(
        TraitOption(category=o["category"], cp=int(o["cp"]), severity=o.get("severity")) for o in r.get("options") or ()
    )
    return AppliedTrait(
        name=str(r["name"]),
        category=str(r.get("category") or ""),  # a record trimmed to name and CP shows those
        cp=int(r["cp"]),
        severity=r.get("severity"),
        placeholder=bool(r.get("placeholder")),
        origin=str(r.get("origin") or ""),
        entry=int(r.get("entry") or 0),
        options=options,
        choice=int(r.get("choice") or 0),
    )


def _escalation(r: Mapping[str, Any]) -> AppliedEscalation:
    return AppliedEscalation(
        trait=str(r["trait"]),
        old_cp=int(r["old_cp"]),
        new_cp=int(r["new_cp"]),
        category_before=str(r.get("category_before") or "phobia"),
        category=str(r.get("category") or "severe phobia"),
        limit_cp=r.get("limit_cp"),
        unlimited_cp=r.get("unlimited_cp"),
        origin=r.get("origin"),
        entry=int(r.get("entry") or 0),
    )


def _condition(r: Mapping[str, Any]) -> AppliedCondition:
    codes = {key: value for key, value in r.items() if key in _CONDITION_FIELDS}
    spec = AddCondition(**{"duration": None, "unit": None, **codes})
    return AppliedCondition(
        spec=spec, origin=r.get("origin"), timed=bool(r.get("timed")), until_clock=r.get("until_clock")
    )


def _pool(r: Mapping[str, Any]) -> AppliedPool:
    return AppliedPool(
        kind=str(r["kind"]),
        pool=str(r["pool"]),
        amount=int(r["amount"]),
        dice=r.get("dice"),
        entry=int(r.get("entry") or 0),
        tracked=bool(r["tracked"]),
        before=r.get("before"),
        after=r.get("after"),
        max=r.get("max"),
        derived_from=r.get("derived_from"),
    )


def _attribute(r: Mapping[str, Any]) -> AppliedAttribute:
    return AppliedAttribute(
        stat=str(r["stat"]),
        amount=int(r["amount"]),
        permanent=bool(r.get("permanent", True)),
        cascade=r.get("cascade"),
        entry=int(r.get("entry") or 0),
        tracked=bool(r["tracked"]),
        before=r.get("before"),
        after=r.get("after"),
        with_it=tuple(StatLowered(str(w["stat"]), int(w["before"]), int(w["after"])) for w in r.get("with_it") or ()),
    )


_READERS: dict[str, Callable[[Mapping[str, Any]], AppliedEffect]] = {
    "trait": _trait,
    "phobia_escalation": _escalation,
    "condition": _condition,
    "fatigue": _pool,
    "injury": _pool,
    "lose_attribute": _attribute,
}


@dataclass(frozen=True, slots=True)
class FrightNote:
    """What the GM should know about an applied fright result, by its code: a --pick that
    named an existing trait (`pick_unused`), mild phobias the escalation entry could have
    worsened instead (`mild_phobias`), a pool or stat the sheet does not track
    (`pool_untracked`, `stat_untracked`). campaign.labels.note_text says it."""

    note: Literal["pick_unused", "mild_phobias", "pool_untracked", "stat_untracked"]
    character: str | None = None
    pick: str | None = None
    pool: str | None = None
    amount: int | None = None
    stat: str | None = None
    phobias: tuple[str, ...] = ()

    def record(self) -> JsonObject:
        """The note as a fright record's `notes` hold it: its code, then the values it has."""
        record: JsonObject = {"note": self.note}
        for name in ("character", "pick", "pool", "amount", "stat"):
            value = getattr(self, name)
            if value is not None:
                record[name] = value
        if self.phobias:
            record["phobias"] = list(self.phobias)
        return record

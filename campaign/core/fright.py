"""Fright check (恐怖判定, docs/rules.md "Fright check"): Will roll, table lookup, and
what it does.

Pure: values and a dice source in, a frozen `FrightResult` out. The result lists every
change as a typed effect (AddCondition, LosePool, AddTrait, PhobiaEscalation,
LoseAttribute) for the persistence layer to apply, and every die rolled as a `SubRoll`
in the order it was rolled, so the ledger can prove what happened.

Decisions where the source is silent (documented in the module so a GM can find them):
- A critical failure of the check is read from the table like any failure; the margin
  of failure is still added (nothing extra). When the check fails automatically with a
  total at or under the target (a 17 or 18 against a high Will), the margin added is 0.
- The fright table's own rolls (1D FP, 2D turns, durations, the HT rolls of entries 18
  and 31, the GM's 3D for a total panic) are made at once; later recovery rolls
  (every minute, every 30 minutes ...) belong to play and are only described.
- Entry 31: a failed HT roll costs 1D HP; a critical failure is also a failure, so it
  costs the 1D HP *and* 1 HT permanently.
- Entry 25 escalates the existing phobia the GM names with `pick` (only the GM can say
  which phobia is "related to this fear"); it must be a phobia not already severe. With
  no such pick the character gains the -10 CP mental trait instead, named by `pick`
  unless that name is already one of the character's traits (then a placeholder).
- `pick` names the first new trait of the result; `choice` picks the option where an
  entry offers one (phobia or mental trait) and is ignored where it offers none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from campaign.core.dice_source import roll_dice
from campaign.core.effects_vocabulary import (
    AttributeLoss,
    Check,
    ConditionEffect,
    EscalatePhobia,
    Fatigue,
    Injury,
    Stun,
    TraitEffect,
    TraitOption,
)
from campaign.core.stat_names import sheet_key
from campaign.core.success import CRITICAL_FAILURE, FAILURE, success_roll
from campaign.core.table_model import EntryEffect, Table, TableEntry, expand_entry
from campaign.core.table_roll import table_purpose
from campaign.errors import N_, BadInput, RuleRefused, Words

if TYPE_CHECKING:
    from campaign.core.dice_source import DiceSource

COMBAT_REFLEXES_BONUS = 2
SEVERE_PHOBIA_PENALTY = -4
FRIGHT_TABLE = "FEAR"


class TraitLike(Protocol):
    """Anything with a trait's name, category and cp (a DB row will do; read only, so a
    frozen KnownTrait does too)."""

    @property
    def name(self) -> str: ...
    @property
    def category(self) -> str: ...
    @property
    def cp(self) -> int: ...


@dataclass(frozen=True, slots=True)
class KnownTrait:
    """A trait the character already has. `severity` "severe" marks a severe phobia."""

    name: str
    category: str
    cp: int
    severity: str | None = None


#: A stunned character defends at -4 (GURPS): recorded on every stun condition.
STUN_DEFENSE_PENALTY = -4

# --- effects for the persistence layer ---


@dataclass(frozen=True, slots=True)
class AddCondition:
    condition: str  # stun, unconscious, faint, panic, major_panic, light_coma, coma, ...
    recovery: str  # auto | will_ignoring_penalties | will | ht | iq | iq_ignoring_penalties | gm
    duration: int | None  # rolled already; None: until a recovery roll succeeds
    unit: str | None  # turn | minute | hour | day
    duration_dice: str | None = None  # the expression rolled for duration, e.g. "2D"
    every: int | None = None  # recovery roll interval
    every_unit: str | None = None
    after_penalty: int | None = None  # to all rolls once recovered, for:
    after_duration: int | str | None = None  # "same": as long as the condition lasted
    after_unit: str | None = None
    extend: str | int | None = None  # a failed recovery roll adds this much more
    hp_drain: str | None = None  # "escalating_daily" (catatonia without care)
    severity: int | None = None  # the GM's 3D for a total panic: higher is sillier
    entry: int = 0  # the fright table entry that declared it
    defense_penalty: int | None = None  # to active defenses while it lasts (stun: -4)


@dataclass(frozen=True, slots=True)
class LosePool:
    pool: str  # "FP" (fatigue) | "HP" (injury)
    amount: int
    dice: str | None = None  # expression rolled, or None for a fixed amount
    entry: int = 0


@dataclass(frozen=True, slots=True)
class AddTrait:
    """A new disadvantage or quirk: lowers the CP total, grants nothing (docs/rules.md
    "Fright check")."""

    name: str  # the GM's pick; "" when the trait is to get a placeholder name
    category: str  # quirk | delusion | phobia | mental | physical
    cp: int
    severity: str | None = None
    placeholder: bool = True  # no name yet: the service gives it one to rename (effect_words.placeholder_name)
    options: tuple[TraitOption, ...] = ()  # what the entry offered
    choice: int = 0  # index into options that was taken
    grants_cp: bool = False
    counts_toward_limit: bool = False
    entry: int = 0


@dataclass(frozen=True, slots=True)
class PhobiaEscalation:
    """An existing mild phobia becomes severe; its CP value is multiplied."""

    trait: str
    old_cp: int
    new_cp: int
    severity: str = "severe"
    entry: int = 0


@dataclass(frozen=True, slots=True)
class LoseAttribute:
    stat: str
    amount: int
    permanent: bool = True
    cascade: str | None = None  # "mental": mental skills, spells and psi drop too
    entry: int = 0


FrightEffect = AddCondition | LosePool | AddTrait | PhobiaEscalation | LoseAttribute


@dataclass(frozen=True, slots=True)
class SubRoll:
    purpose: str  # stun_turns, fatigue, injury, duration:<condition>, severity:<condition>, check:HT
    expression: str  # "2D", "3D6<=11"
    faces: tuple[int, ...]
    total: int
    entry: int  # the table entry that needed it
    target: int | None = None  # for checks
    outcome: str | None = None  # for checks (a success roll's outcome)
    effect: int | None = None  # an amount's: the index of the effect it sized (its duration, amount, severity)

    @property
    def margin(self) -> int | None:
        """target - total for a check; None for an amount (turns, fatigue)."""
        return None if self.target is None else self.target - self.total


@dataclass(frozen=True, slots=True)
class FrightCheck:
    will: int
    modifier: int  # the GM's
    combat_reflexes: bool
    severe_phobia: bool
    cap: int | None
    target: int  # effective target after modifiers and cap
    dice: tuple[int, int, int]
    total: int
    outcome: str  # success | failure | critical_success | critical_failure
    margin: int  # target - total

    @property
    def succeeded(self) -> bool:
        return self.outcome in ("success", "critical_success")


@dataclass(frozen=True, slots=True)
class FrightTableRoll:
    dice: tuple[int, int, int]
    margin_added: int  # the margin of failure (>= 0) added to the dice
    raw: int  # sum(dice) + margin_added, before clamping
    result: int  # clamped to 4..40: the entry looked up
    entry: TableEntry


@dataclass(frozen=True, slots=True)
class FrightResult:
    check: FrightCheck
    table: FrightTableRoll | None  # None when the check succeeded
    effects: tuple[FrightEffect, ...] = ()
    sub_rolls: tuple[SubRoll, ...] = ()


def effective_target(
    will: int,
    modifier: int = 0,
    *,
    combat_reflexes: bool = False,
    severe_phobia: bool = False,
    fright_cap: int | None = None,
) -> int:
    target = will + modifier
    if combat_reflexes:
        target += COMBAT_REFLEXES_BONUS
    if severe_phobia:
        target += SEVERE_PHOBIA_PENALTY
    if fright_cap is not None:
        target = min(target, fright_cap)
    return target


def resolve_fright_check(
    will: int,
    source: DiceSource,
    *,
    modifier: int = 0,
    combat_reflexes: bool = False,
    severe_phobia: bool = False,
    fright_cap: int | None = None,
    traits: Sequence[TraitLike] = (),
    stats: Mapping[str, int] | None = None,
    pick: str | None = None,
    choice: int = 0,
    table: Table,
) -> FrightResult:
    """Roll a fright check and, on failure, the table entry and all it needs
    (docs/rules.md "Fright check").

    `table` is the fright table (campaign.seeds.fright_table() for the shipped one)."""
    _check_inputs(table, stats, choice)  # before any die is rolled
    target = effective_target(
        will, modifier, combat_reflexes=combat_reflexes, severe_phobia=severe_phobia, fright_cap=fright_cap
    )
    judged = success_roll(target, source, purpose=Words(N_("the Will roll")))
    check = FrightCheck(
        will=will,
        modifier=modifier,
        combat_reflexes=combat_reflexes,
        severe_phobia=severe_phobia,
        cap=fright_cap,
        target=target,
        dice=judged.faces,  # type: ignore[arg-type]
        total=judged.total,
        outcome=judged.outcome,
        margin=judged.margin,
    )
    if check.succeeded:
        return FrightResult(check=check, table=None)

    margin_of_failure = max(0, judged.total - target)
    first, second, third = roll_dice(source, 3, 6, table_purpose(table))
    dice = (first, second, third)
    raw = sum(dice) + margin_of_failure
    result = table.clamp(raw)
    entry = table.entry_for(result)
    effects, sub_rolls = apply_entry(table, result, source, traits=traits, stats=stats, pick=pick, choice=choice)
    return FrightResult(
        check=check,
        table=FrightTableRoll(dice=dice, margin_added=margin_of_failure, raw=raw, result=result, entry=entry),
        effects=effects,
        sub_rolls=sub_rolls,
    )


def apply_entry(
    table: Table,
    value: int,
    source: DiceSource,
    *,
    traits: Sequence[TraitLike] = (),
    stats: Mapping[str, int] | None = None,
    pick: str | None = None,
    choice: int = 0,
) -> tuple[tuple[FrightEffect, ...], tuple[SubRoll, ...]]:
    """Expand the fright table entry for `value` and roll what it needs.

    Used by `resolve_fright_check`; callable alone to apply an entry chosen by the GM.
    """
    _check_inputs(table, stats, choice)
    entry = table.entry_for(table.clamp(value))
    state = _Resolution(source, traits, stats or {}, pick, choice)
    for item in expand_entry(table, entry):
        state.apply(item)
    return tuple(state.effects), tuple(state.sub_rolls)


# --- internals ---


def _check_inputs(table: Table, stats: Mapping[str, int] | None, choice: int) -> None:
    if isinstance(choice, bool) or not isinstance(choice, int) or choice < 0:
        raise BadInput(N_("option choice must be 0 or more, not {choice!r}"), choice=choice)
    offered = max((len(e.effect.options) for e in _all_effects(table) if isinstance(e.effect, TraitEffect)), default=1)
    if choice >= offered:
        raise BadInput(
            N_("option choice {choice} is out of range: entries offer options 0..{last}"),
            choice=choice,
            last=offered - 1,
        )
    needed = sorted({e.effect.stat for e in _all_effects(table) if isinstance(e.effect, Check)})
    for stat in needed:
        if _stat(stats or {}, stat) is None:
            raise RuleRefused(
                N_("a fright check needs the character's {stat} (some table entries roll against it)"), stat=stat
            )


def _all_effects(table: Table) -> list[EntryEffect]:
    return [item for entry in table.entries for item in expand_entry(table, entry)]


def _stat(stats: Mapping[str, int], stat: str) -> int | None:
    """`stats` is keyed canonically by the caller (core.stat_names.canonical_view)."""
    key = sheet_key(stats, stat)
    return None if key is None else int(stats[key])


_SUB_PURPOSES = {
    "stun_turns": N_("the stun turns (fright entry {entry})"),
    "fatigue": N_("the fatigue (fright entry {entry})"),
    "injury": N_("the injury (fright entry {entry})"),
    "duration": N_("the duration (fright entry {entry})"),
    "severity": N_("the severity (fright entry {entry})"),
}


def _dice_count(amount: str) -> int:
    return int(amount[:-1])  # seeds validate "nD"


class _Resolution:
    """Walks an expanded entry, rolling in order and collecting effects."""

    def __init__(
        self, source: DiceSource, traits: Sequence[TraitLike], stats: Mapping[str, int], pick: str | None, choice: int
    ) -> None:
        self.source = source
        self.traits = traits
        self.stats = stats
        self.pick = pick.strip() if pick and pick.strip() else None
        self.choice = choice
        self.effects: list[FrightEffect] = []
        self.sub_rolls: list[SubRoll] = []

    def roll(self, amount: int | str, purpose: str, entry: int) -> tuple[int, str | None]:
        if isinstance(amount, int):
            return amount, None
        faces = roll_dice(
            self.source,
            _dice_count(amount),
            6,
            Words(_SUB_PURPOSES[purpose.split(":")[0]], entry=entry)
            if purpose.split(":")[0] in _SUB_PURPOSES
            else Words(N_("{purpose} (fright entry {entry})"), purpose=purpose, entry=entry),
        )
        self.sub_rolls.append(
            # the effect it sizes is appended next: its index is the effects' count now
            SubRoll(
                purpose=purpose, expression=amount, faces=faces, total=sum(faces), entry=entry, effect=len(self.effects)
            )
        )
        return sum(faces), amount

    def apply(self, item: EntryEffect) -> None:
        self._apply(item.effect, item.entry)

    def _apply(self, effect: object, entry: int) -> None:
        if isinstance(effect, Stun):
            turns, dice = self.roll(effect.turns, "stun_turns", entry)
            self.effects.append(
                AddCondition(
                    condition="stun",
                    recovery=effect.recovery,
                    duration=turns,
                    unit="turn",
                    duration_dice=dice,
                    every=None if effect.recovery == "auto" else 1,
                    every_unit=None if effect.recovery == "auto" else "turn",
                    entry=entry,
                    defense_penalty=STUN_DEFENSE_PENALTY,
                )
            )
        elif isinstance(effect, (Fatigue, Injury)):
            pool, purpose = ("FP", "fatigue") if isinstance(effect, Fatigue) else ("HP", "injury")
            amount, dice = self.roll(effect.amount, purpose, entry)
            self.effects.append(LosePool(pool=pool, amount=amount, dice=dice, entry=entry))
        elif isinstance(effect, ConditionEffect):
            duration, dice = (None, None)
            if effect.duration is not None:
                duration, dice = self.roll(effect.duration, f"duration:{effect.condition}", entry)
            severity = None
            if effect.severity_dice is not None:
                severity, _ = self.roll(effect.severity_dice, f"severity:{effect.condition}", entry)
            self.effects.append(
                AddCondition(
                    condition=effect.condition,
                    recovery=effect.recovery,
                    duration=duration,
                    unit=effect.unit,
                    duration_dice=dice,
                    every=effect.every,
                    every_unit=effect.every_unit,
                    after_penalty=effect.after_penalty,
                    after_duration=effect.after_duration,
                    after_unit=effect.after_unit,
                    extend=effect.extend,
                    hp_drain=effect.hp_drain,
                    severity=severity,
                    entry=entry,
                )
            )
        elif isinstance(effect, TraitEffect):
            index = self.choice if self.choice < len(effect.options) else 0
            self._add_trait(effect.options[index], effect.options, index, entry)
        elif isinstance(effect, EscalatePhobia):
            existing = self._related_mild_phobia()
            if existing is not None:
                self.pick = None  # the name was used up naming the existing phobia
                self.effects.append(
                    PhobiaEscalation(
                        trait=existing.name, old_cp=existing.cp, new_cp=existing.cp * effect.factor, entry=entry
                    )
                )
            else:
                if self.pick is not None and self._existing(self.pick) is not None:
                    self.pick = None  # never give a new trait an existing trait's name
                self._add_trait(effect.fallback, (effect.fallback,), 0, entry)
        elif isinstance(effect, Check):
            self._check(effect, entry)
        elif isinstance(effect, AttributeLoss):
            self.effects.append(
                LoseAttribute(stat=effect.stat, amount=effect.amount, cascade=effect.cascade, entry=entry)
            )
        else:  # directives never appear in the fright table; refuse rather than ignore
            raise RuleRefused(
                N_("fright table entry {entry}: effect {effect!r} cannot be applied"), entry=entry, effect=effect
            )

    def _add_trait(self, option: TraitOption, options: tuple[TraitOption, ...], index: int, entry: int) -> None:
        placeholder = self.pick is None
        name = self.pick or ""
        self.pick = None  # only the first new trait takes the GM's name
        self.effects.append(
            AddTrait(
                name=name,
                category=option.category,
                cp=option.cp,
                severity=option.severity,
                placeholder=placeholder,
                options=options,
                choice=index,
                entry=entry,
            )
        )

    def _existing(self, name: str) -> TraitLike | None:
        folded = name.casefold()
        for trait in self.traits:
            if trait.name.casefold() == folded:
                return trait
        return None

    def _related_mild_phobia(self) -> TraitLike | None:
        if self.pick is None:
            return None
        trait = self._existing(self.pick)
        if trait is None or trait.category != "phobia" or getattr(trait, "severity", None) == "severe":
            return None
        return trait

    def _check(self, effect: Check, entry: int) -> None:
        target = _stat(self.stats, effect.stat)
        if target is None:  # _check_inputs refuses this before rolling
            raise RuleRefused(
                N_("fright table entry {entry} needs the character's {stat}"), entry=entry, stat=effect.stat
            )
        judged = success_roll(
            target,
            self.source,
            purpose=Words(N_("the {stat} roll (fright entry {entry})"), stat=effect.stat, entry=entry),
        )
        self.sub_rolls.append(
            SubRoll(
                purpose=f"check:{effect.stat}",
                expression=f"3D6<={target}",
                faces=judged.faces,
                total=judged.total,
                entry=entry,
                target=target,
                outcome=judged.outcome,
            )
        )
        if judged.outcome in (FAILURE, CRITICAL_FAILURE):
            for nested in effect.on_failure:
                self._apply(nested, entry)
        if judged.outcome == CRITICAL_FAILURE:
            for nested in effect.on_critical_failure:
                self._apply(nested, entry)

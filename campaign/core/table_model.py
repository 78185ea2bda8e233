"""A rule table as data (criticals, fumbles, fright): its entries and what they mean.

The tables live in `seeds/*.toml` so a GM can read and audit every entry; campaign.seeds
reads them and core.table_validation checks them into these frozen dataclasses. The
effect kinds are in core.effects_vocabulary; `expand_entry` resolves an entry's
`as_entry` references into the effects it really has.

Seed format (one file per table):

    command = "FEAR"            # BCDice command; upper case
    name = "恐怖判定表"          # Japanese name
    name_en = "Fright Check Table"
    dice = "3D6"
    range = [4, 40]             # every value is covered by exactly one entry
    modifiable = true           # optional: `FEAR+5` adds 5 to the roll, clamped to range
    repeat_reroll = "stands"    # optional: a reroll that lands on a reroll result again is
                                # applied, not rerolled (the basic fumble table FMB only);
                                # by default a reroll result is rerolled again (to MAX_DEPTH)
    source = "..."              # optional citation; note_ja / note_en optional summaries

    [[entries]]
    range = [14, 15]            # or `roll = 13` for a single value
    ja = "..."                  # our own short summary
    en = "..."
    tags = ["damage_x3"]        # optional, informational slugs
    rolls = [{ dice = "1D-3", min = 1, ja = "1D-3ターン(最低1)", en = "1d-3 turns (at least 1)" }]
                                # optional: dice written in the text, rolled when the entry
                                # comes up; `ja` / `en` are the words of the text that the
                                # rolled value is shown after; `min` defaults to 0
    effects = [{ kind = "fatigue", amount = "1D" }, { kind = "as_entry", entry = 10 }]
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from campaign.core.effects_vocabulary import AsEntry, Effect, EscalatePhobia, TraitEffect, TraitOption
from campaign.errors import N_, DataError, Words


class SeedProblem(Exception):
    """A seed problem found below the entry level; re-raised as DataError with context.

    Raised like the core's refusals, an `N_` template and its values by name, so `words`
    can be put into the DataError and shown in the reader's language (refusal_words)."""

    def __init__(self, template: str, /, **params: object) -> None:
        self.words = Words(template, **params)
        super().__init__(str(self.words))


def entry_error(path: str, label: str, problem: SeedProblem) -> DataError:
    """The DataError for `problem` in entry `label` of the seed file `path`."""
    return DataError(N_("{path}: entry {entry}: {problem}"), path=path, entry=label, problem=problem.words)


@dataclass(frozen=True, slots=True)
class TextDice:
    """Dice that an entry's text names ("blind for 1d-3 turns"), rolled when it comes up.

    `ja` / `en` are the words of the entry's summaries the rolled value belongs to.
    """

    dice: str  # "1D-3": count D (six-sided) with an optional modifier
    ja: str
    en: str
    minimum: int = 0

    @property
    def count(self) -> int:
        return int(self.dice.split("D")[0])

    @property
    def modifier(self) -> int:
        rest = self.dice.split("D")[1]
        return int(rest) if rest else 0


@dataclass(frozen=True, slots=True)
class TableEntry:
    lo: int
    hi: int
    ja: str
    en: str
    effects: tuple[Effect, ...] = ()
    tags: tuple[str, ...] = ()
    rolls: tuple[TextDice, ...] = ()

    @property
    def label(self) -> str:
        return str(self.lo) if self.lo == self.hi else f"{self.lo}-{self.hi}"

    def covers(self, value: int) -> bool:
        return self.lo <= value <= self.hi


@dataclass(frozen=True, slots=True)
class Table:
    command: str
    name: str
    name_en: str
    dice: str
    lo: int
    hi: int
    entries: tuple[TableEntry, ...]
    modifiable: bool = False
    source: str = ""
    note_ja: str = ""
    note_en: str = ""
    path: str = ""
    repeat_reroll: str = "reroll"  # "stands": a reroll's own reroll result is applied (FMB)

    def clamp(self, value: int) -> int:
        return max(self.lo, min(self.hi, value))

    def entry_for(self, value: int) -> TableEntry:
        for entry in self.entries:
            if entry.covers(value):
                return entry
        raise ValueError(f"{self.command}: {value} is outside {self.lo}..{self.hi}")  # a bug, not a refusal


@dataclass(frozen=True, slots=True)
class EntryEffect:
    """One effect of an expanded entry, with the entry that declared it."""

    effect: Effect
    entry: int  # `lo` of the declaring entry: 17 inside 26 = 18 + 22; 36 for 24's trait at -20 CP


def expand_entry(table: Table, entry: TableEntry) -> tuple[EntryEffect, ...]:
    """The entry's effects with every `as_entry` replaced by what it refers to, in order.

    Directives (roll_twice, reroll, roll_table) are kept as they are.
    """
    try:
        return expand_references(table, entry, ())
    except SeedProblem as problem:  # only reachable for a table not built by this module
        raise entry_error(table.path, entry.label, problem) from None


def expand_references(table: Table, entry: TableEntry, seen: tuple[int, ...]) -> tuple[EntryEffect, ...]:
    """`expand_entry` without the DataError wrapping: a bad reference raises SeedProblem,
    which seed validation reports with the file and entry (every entry is expanded once
    when the seeds are loaded, so a loop or dangling reference never reaches play)."""
    if entry.lo in seen:
        chain = " -> ".join(str(step) for step in (*seen, entry.lo))
        raise SeedProblem(N_("as_entry references loop: {chain}"), chain=chain)
    out: list[EntryEffect] = []
    for effect in entry.effects:
        if not isinstance(effect, AsEntry):
            out.append(EntryEffect(effect, entry.lo))
            continue
        if not table.lo <= effect.entry <= table.hi:
            raise SeedProblem(
                N_("as_entry refers to {entry}, outside the range {lo}..{hi}"),
                entry=effect.entry,
                lo=table.lo,
                hi=table.hi,
            )
        target = table.entry_for(effect.entry)
        if target is entry:
            raise SeedProblem(N_("as_entry refers to {entry}, which is this entry"), entry=effect.entry)
        expanded = expand_references(table, target, (*seen, entry.lo))
        for name, value in effect.overrides:
            touched = False
            updated = []
            for item in expanded:
                new, hit = _override(item.effect, name, value)
                touched = touched or hit
                # an overridden effect is the overriding entry's own (36's -20 CP, not 24's)
                updated.append(EntryEffect(new, entry.lo if hit else item.entry))
            if not touched:
                raise SeedProblem(
                    N_("as_entry {entry}: set.{name} matches no effect of that entry"), entry=effect.entry, name=name
                )
            expanded = tuple(updated)
        out.extend(expanded)
    return tuple(out)


def _override(effect: Effect, name: str, value: Any) -> tuple[Effect, bool]:
    option_fields = {f.name for f in fields(TraitOption)}
    if isinstance(effect, TraitEffect) and name in option_fields:
        return replace(effect, options=tuple(replace(o, **{name: value}) for o in effect.options)), True
    if isinstance(effect, EscalatePhobia) and name in option_fields:
        return replace(effect, fallback=replace(effect.fallback, **{name: value})), True
    if name in {f.name for f in fields(effect)}:
        return replace(effect, **{name: value}), True
    return effect, False

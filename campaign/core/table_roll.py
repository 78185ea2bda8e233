"""Rolling on a rule table: 3d6 looked up, and the rolls its entry's directives call for.

`table_for_command` recognises a BCDice table command (`CRT`, `FEAR+5`); `roll_on_table`
rolls it. Both take the loaded tables as an argument (campaign.seeds supplies them),
so rolling reads nothing from disk.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from campaign.core.dice_source import roll_dice
from campaign.core.effects_vocabulary import DIRECTIVES, Directive, Reroll, RollTwice
from campaign.core.table_model import SeedProblem, Table, TableEntry, TextDice, entry_error
from campaign.errors import N_, Words

if TYPE_CHECKING:
    from campaign.core.dice_source import DiceSource

MAX_DEPTH = 5  # directive nesting followed by roll_on_table; deeper rolls are not made
_INVOCATION_RE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9]*)\s*(?:([+-])\s*([0-9]{1,4}))?\s*$")
_GLUED_RE = re.compile(r"([A-Za-z]+?)([0-9]{1,4})")

# How a dice request names each table in errors and prompts ("3d6 for the fright table").
TABLE_PURPOSES = {
    "FEAR": N_("the fright table"),
    "CRT": N_("the critical table"),
    "FMB": N_("the fumble table"),
    "HCRT": N_("the head-blow critical table"),
    "GFMB": N_("the firearm fumble table"),
    "YSCRT": N_("the special critical table"),
    "YSFMB": N_("the special fumble table"),
    "YFMB": N_("the sorcery fumble table"),
    "MFMB": N_("the spell fumble table"),
    "REACT": N_("the reaction table"),
}

# ask(table, entry, reroll) -> True (reroll), False (declined) or None (the defaults)
RerollQuestion = Callable[["Table", "TableEntry", "Reroll"], "bool | None"]


def table_purpose(table: Table) -> str:
    """How a dice request for this table reads: "the fright table"."""
    if table.command in TABLE_PURPOSES:
        return Words(TABLE_PURPOSES[table.command])
    return Words(N_("the {command} table"), command=table.command)


# The extra roll a directive asks for, as a dice request names it ("3d6 for the fumble
# table (reroll)"): a whole template per directive, so each language orders its words.
DIRECTIVE_PURPOSES = {
    "roll_twice": N_("{table} (roll twice)"),
    "reroll": N_("{table} (reroll)"),
    "roll_table": N_("{table} (roll table)"),
}


def directive_purpose(table: Table, directive: Directive) -> Words:
    """How the dice request of a directive's extra roll reads: "the fumble table (reroll)"."""
    template = DIRECTIVE_PURPOSES.get(directive.kind, DIRECTIVE_PURPOSES["roll_table"])
    return Words(template, table=table_purpose(table))


@dataclass(frozen=True, slots=True)
class TextRoll:
    """One TextDice rolled: `value` = max(minimum, sum(faces) + modifier)."""

    spec: TextDice
    faces: tuple[int, ...]
    value: int


@dataclass(frozen=True, slots=True)
class TableRoll:
    """One 3d6 lookup; its sub_rolls are the extra rolls its directives called for."""

    command: str
    dice: tuple[int, ...]
    modifier: int
    raw: int  # sum of dice + modifier, before clamping
    result: int  # clamped into the table's range: the value looked up
    entry: TableEntry
    directive: Directive | None = None  # why this roll was made; None for the first
    sub_rolls: tuple[TableRoll, ...] = ()
    truncated: bool = False  # directives not followed because MAX_DEPTH was reached
    text_rolls: tuple[TextRoll, ...] = ()  # the entry text's dice, rolled after the 3d6
    declined: tuple[Reroll, ...] = ()  # rerolls left to the GM that the GM declined
    stood: bool = False  # a reroll result that stands (the table's repeat_reroll rule)

    def walk(self, depth: int = 0) -> Iterator[tuple[int, TableRoll]]:
        """Every table roll, depth first: the order the 3d6 were rolled in."""
        yield depth, self
        for sub in self.sub_rolls:
            yield from sub.walk(depth + 1)

    def steps(self, depth: int = 0) -> Iterator[tuple[int, TableRoll | TextRoll]]:
        """Every roll including the text dice, in the order the dice were rolled: a
        table roll, its text dice (one level deeper), then its extra table rolls."""
        yield depth, self
        for text_roll in self.text_rolls:
            yield depth + 1, text_roll
        for sub in self.sub_rolls:
            yield from sub.steps(depth + 1)

    def text(self, language: str) -> str:
        """The entry's summary with each rolled value after the words it belongs to."""
        return entry_text(self.entry, self.text_rolls, language)


def entry_text(entry: TableEntry, text_rolls: Iterable[TextRoll], language: str) -> str:
    """An entry's summary ("ja" or "en") with each rolled value after the words it belongs
    to: "blind for 1d-3 turns (at least 1)[=2]". Also how a record's codes are shown."""
    text = entry.ja if language == "ja" else entry.en
    for rolled in text_rolls:
        words = rolled.spec.ja if language == "ja" else rolled.spec.en
        text = text.replace(words, f"{words}[={rolled.value}]", 1)
    return text


def table_for_command(text: str, tables: Mapping[str, Table]) -> tuple[Table, int] | None:
    """Recognise a BCDice table command (`CRT`, `fmb`, `FEAR+5`, `REACT-1`), case-insensitively.

    Only tables marked `modifiable` (fright, reaction) accept `+n` / `-n`, or BCDice's
    `FEAR5` (= `FEAR+5`).
    """
    match = _INVOCATION_RE.match(text)
    if not match:
        return None
    table = tables.get(match.group(1).upper())
    if table is None:
        # BCDice's FEAR5 / REACT2: digits right after a modifiable table's command are +n
        glued = _GLUED_RE.fullmatch(match.group(1))
        table = tables.get(glued.group(1).upper()) if glued and match.group(2) is None else None
        if table is None or not table.modifiable:
            return None
        return table, int(glued.group(2))  # type: ignore[union-attr]
    if match.group(2) is None:
        return table, 0
    if not table.modifiable:
        return None
    amount = int(match.group(3))
    return table, amount if match.group(2) == "+" else -amount


def roll_on_table(
    table: Table,
    source: DiceSource,
    modifier: int = 0,
    *,
    tables: Mapping[str, Table],
    gm_reroll: bool = True,
    ask: RerollQuestion | None = None,
) -> TableRoll:
    """Roll 3d6 (+modifier, clamped to the table's range) and follow the entry's directives.

    The entry's text dice (`rolls`) are rolled first, then its directives: roll_twice
    makes two more rolls on the same table; reroll one (shown as conditional when the
    seed says "only if"); roll_table one on the named table. A reroll that lands on a
    reroll result again is rerolled again, except on a table whose `repeat_reroll` is
    "stands" (the basic fumble table: the repeated result is applied). A reroll the
    text leaves to the GM (`gm_choice`) is made unless `gm_reroll` is False, when it is
    recorded as declined. `tables` (every loaded table by command) resolves roll_table.

    `ask(table, entry, reroll)` is consulted for every reroll the text makes conditional
    (a condition, or the GM's choice) when the entry comes up: True rolls it, False
    records it as declined, None leaves it to the defaults above (a conditional reroll
    is rolled and shown as conditional). It is how the GM states or is asked the fact.
    """
    return _roll(table, source, modifier, None, 0, tables, gm_reroll, ask)


def _roll_text_dice(spec: TextDice, source: DiceSource, table: Table, entry: TableEntry) -> TextRoll:
    purpose = Words(N_("the dice of {table} entry {entry}"), table=table_purpose(table), entry=entry.label)
    faces = roll_dice(source, spec.count, 6, purpose)
    return TextRoll(spec=spec, faces=faces, value=max(spec.minimum, sum(faces) + spec.modifier))


def _roll(
    table: Table,
    source: DiceSource,
    modifier: int,
    directive: Directive | None,
    depth: int,
    tables: Mapping[str, Table],
    gm_reroll: bool = True,
    ask: RerollQuestion | None = None,
) -> TableRoll:
    dice = roll_dice(source, 3, 6, table_purpose(table) if directive is None else directive_purpose(table, directive))
    raw = sum(dice) + modifier
    result = table.clamp(raw)
    entry = table.entry_for(result)
    text_rolls = tuple(_roll_text_dice(spec, source, table, entry) for spec in entry.rolls)
    subs: list[TableRoll] = []
    declined: list[Reroll] = []
    truncated = stood = False
    for effect in entry.effects:
        if not isinstance(effect, DIRECTIVES):
            continue
        if isinstance(effect, Reroll) and isinstance(directive, Reroll) and table.repeat_reroll == "stands":
            stood = True
            continue  # FMB: a repeated reroll result stands
        answer = None
        if isinstance(effect, Reroll) and ask is not None and (effect.gm_choice or effect.condition):
            answer = ask(table, entry, effect)
            if answer is False:
                declined.append(effect)
                continue
        if isinstance(effect, Reroll) and effect.gm_choice and not gm_reroll and answer is None:
            declined.append(effect)
            continue
        if depth >= MAX_DEPTH:
            truncated = True
            continue
        if isinstance(effect, RollTwice):
            subs.append(_roll(table, source, modifier, effect, depth + 1, tables, gm_reroll, ask))
            subs.append(_roll(table, source, modifier, effect, depth + 1, tables, gm_reroll, ask))
        elif isinstance(effect, Reroll):
            subs.append(_roll(table, source, modifier, effect, depth + 1, tables, gm_reroll, ask))
        else:
            other = tables.get(effect.table)
            if other is None:
                problem = SeedProblem(N_("roll_table refers to unknown table {table!r}"), table=effect.table)
                raise entry_error(table.path, entry.label, problem)
            subs.append(_roll(other, source, 0, effect, depth + 1, tables, gm_reroll, ask))
    return TableRoll(
        command=table.command,
        dice=dice,
        modifier=modifier,
        raw=raw,
        result=result,
        entry=entry,
        directive=directive,
        sub_rolls=tuple(subs),
        truncated=truncated,
        text_rolls=text_rolls,
        declined=tuple(declined),
        stood=stood,
    )

"""Rule tables (criticals, fumbles, fright) as data: the TOML seeds, loaded and checked.

The tables live in `seeds/*.toml` so a GM can read and audit every entry; this module
refuses a broken seed when it is loaded (a `DataError` naming the file and the entry)
rather than in the middle of a session when the one bad entry finally comes up.

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

Effect kinds (fields; `amount`-like fields take an integer or dice such as "2D"):
    stun              turns, recovery
    fatigue / injury  amount                      (lose FP / HP)
    condition         condition, duration?, unit?, recovery, every?, every_unit?,
                      after_penalty?, after_duration?, after_unit?, extend?, hp_drain?,
                      severity_dice?
    trait             category, cp, severity?  or  options = [{category, cp, severity?}, ...]
                      (first option is the default)
    phobia_escalation factor?, fallback = {category, cp, severity?}
    check             stat, on_failure = [...], on_critical_failure = [...]
                      (a roll made at once against the character's stat; a critical
                      failure applies on_failure and then on_critical_failure)
    lose_attribute    stat, amount, cascade?
    as_entry          entry, set?   (the effects of another entry of this table, with
                      fields overridden by `set`, e.g. set = { cp = -30 })
    roll_twice        apply = "both" | "choose"
    reroll            only_if_ja?, only_if_en?, gm_choice?, condition?
                      (conditional when only_if is present; gm_choice = true: the GM
                      decides, `roll_on_table(gm_reroll=False)` declines it; condition =
                      crushing | impaling | grenade names the fact that decides it, so
                      the GM can state it (--weapon, --grenade) or be asked)
    roll_table        table, only_if_ja?, only_if_en?
The last three are directives that `roll_on_table` resolves itself by rolling again.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from campaign.errors import DataError

if TYPE_CHECKING:
    from campaign.core.dice_source import DiceSource

RECOVERIES = frozenset({"auto", "will_ignoring_penalties", "will", "ht", "iq", "iq_ignoring_penalties", "gm"})
UNITS = frozenset({"turn", "minute", "hour", "day"})
CONDITIONS = frozenset(
    {
        "stun",
        "unconscious",
        "faint",
        "panic",
        "major_panic",
        "light_coma",
        "coma",
        "catatonia",
        "seizure",
        "heart_attack",
    }
)
# Facts that decide a conditional reroll: the weapon was a solid crushing one (FMB 3, 4,
# 15, 16), an impaling or missile one (FMB 5, 6), a grenade (GFMB jam).
REROLL_CONDITIONS = frozenset({"crushing", "impaling", "grenade"})

# How a dice request names each table in errors and prompts ("3d6 for the fright table").
TABLE_PURPOSES = {"FEAR": "the fright table", "CRT": "the critical table", "FMB": "the fumble table",
                  "HCRT": "the head-blow critical table", "GFMB": "the firearm fumble table",
                  "YSCRT": "the special critical table", "YSFMB": "the special fumble table",
                  "YFMB": "the sorcery fumble table"}

# ask(table, entry, reroll) -> True (reroll), False (declined) or None (the defaults)
RerollQuestion = Callable[["Table", "Entry", "Reroll"], "bool | None"]

TRAIT_CATEGORIES = frozenset({"quirk", "delusion", "phobia", "mental", "physical"})
SEVERITIES = frozenset({"mild", "severe"})
STATS = frozenset({"ST", "DX", "IQ", "HT", "Will"})
MAX_DEPTH = 5  # directive nesting followed by roll_on_table; deeper rolls are not made

Amount = Union[int, str]  # a fixed number, or dice such as "2D" (d6s)

_DICE_RE = re.compile(r"^([1-9][0-9]?)D$")
_TEXT_DICE_RE = re.compile(r"^([1-9])D([+-][0-9]{1,2})?$")
_COMMAND_RE = re.compile(r"^[A-Z][A-Z0-9]*$")
_TAG_RE = re.compile(r"^[a-z0-9_]+$")
_INVOCATION_RE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9]*)\s*(?:([+-])\s*([0-9]{1,4}))?\s*$")


# --- effect specifications (what a seed says; fright.py turns them into changes) ---


@dataclass(frozen=True, slots=True)
class Stun:
    turns: Amount
    recovery: str
    kind = "stun"


@dataclass(frozen=True, slots=True)
class Fatigue:
    amount: Amount
    kind = "fatigue"


@dataclass(frozen=True, slots=True)
class Injury:
    amount: Amount
    kind = "injury"


@dataclass(frozen=True, slots=True)
class Condition:
    condition: str
    recovery: str
    duration: Amount | None = None  # None: lasts until the recovery roll succeeds
    unit: str | None = None
    every: int | None = None  # recovery roll interval, e.g. every 30 minutes
    every_unit: str | None = None
    after_penalty: int | None = None  # penalty to all rolls once recovered ...
    after_duration: int | str | None = None  # ... for this long ("same": as long as it lasted)
    after_unit: str | None = None
    extend: Amount | None = None  # a failed recovery roll extends it by this much
    hp_drain: str | None = None  # "escalating_daily": lose 1, 2, 3 ... HP a day untreated
    severity_dice: Amount | None = None  # rolled at once; higher is worse (major panic)
    kind = "condition"


@dataclass(frozen=True, slots=True)
class TraitOption:
    category: str
    cp: int
    severity: str | None = None


@dataclass(frozen=True, slots=True)
class Trait:
    options: tuple[TraitOption, ...]  # the first is the default choice
    kind = "trait"


@dataclass(frozen=True, slots=True)
class EscalatePhobia:
    fallback: TraitOption  # gained when no related mild phobia exists
    factor: int = 2
    kind = "phobia_escalation"


@dataclass(frozen=True, slots=True)
class AttributeLoss:
    stat: str
    amount: int
    cascade: str | None = None  # "mental": mental skills, spells and psi drop with it
    kind = "lose_attribute"


@dataclass(frozen=True, slots=True)
class Check:
    stat: str
    on_failure: tuple[Any, ...] = ()
    on_critical_failure: tuple[Any, ...] = ()
    kind = "check"


@dataclass(frozen=True, slots=True)
class AsEntry:
    entry: int
    overrides: tuple[tuple[str, Any], ...] = ()  # the seed's `set = {...}`
    kind = "as_entry"


@dataclass(frozen=True, slots=True)
class RollTwice:
    apply: str  # "both" | "choose"
    kind = "roll_twice"


@dataclass(frozen=True, slots=True)
class Reroll:
    only_if_ja: str | None = None
    only_if_en: str | None = None
    gm_choice: bool = False  # the text leaves the reroll to the GM (YFMB 14, YSFMB 13)
    condition: str | None = None  # a fact of the situation that decides it (REROLL_CONDITIONS)
    kind = "reroll"


@dataclass(frozen=True, slots=True)
class RollTable:
    table: str
    only_if_ja: str | None = None
    only_if_en: str | None = None
    kind = "roll_table"


Effect = Union[
    Stun, Fatigue, Injury, Condition, Trait, EscalatePhobia, AttributeLoss, Check, AsEntry,
    RollTwice, Reroll, RollTable,
]
Directive = Union[RollTwice, Reroll, RollTable]
DIRECTIVES = (RollTwice, Reroll, RollTable)


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
class TextRoll:
    """One TextDice rolled: `value` = max(minimum, sum(faces) + modifier)."""

    spec: TextDice
    faces: tuple[int, ...]
    value: int


@dataclass(frozen=True, slots=True)
class Entry:
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
    entries: tuple[Entry, ...]
    modifiable: bool = False
    source: str = ""
    note_ja: str = ""
    note_en: str = ""
    path: str = ""
    repeat_reroll: str = "reroll"  # "stands": a reroll's own reroll result is applied (FMB)

    def clamp(self, value: int) -> int:
        return max(self.lo, min(self.hi, value))

    def entry_for(self, value: int) -> Entry:
        for entry in self.entries:
            if entry.covers(value):
                return entry
        raise ValueError(f"{self.command}: {value} is outside {self.lo}..{self.hi}")


@dataclass(frozen=True, slots=True)
class EntryEffect:
    """One effect of an expanded entry, with the entry that declared it."""

    effect: Effect
    entry: int  # `lo` of the declaring entry: 17 inside 26 = 18 + 22; 36 for 24's trait at -20 CP


@dataclass(frozen=True, slots=True)
class TableRoll:
    """One 3d6 lookup; its sub_rolls are the extra rolls its directives called for."""

    command: str
    dice: tuple[int, ...]
    modifier: int
    raw: int  # sum of dice + modifier, before clamping
    result: int  # clamped into the table's range: the value looked up
    entry: Entry
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
        text = self.entry.ja if language == "ja" else self.entry.en
        for rolled in self.text_rolls:
            words = rolled.spec.ja if language == "ja" else rolled.spec.en
            text = text.replace(words, f"{words}[={rolled.value}]", 1)
        return text


# --- loading ---


def default_seed_dir() -> Path:
    import campaign

    installed = Path(campaign.__file__).parent / "seeds"
    if installed.is_dir():
        return installed
    return Path(__file__).parents[2] / "seeds"


@lru_cache(maxsize=4)
def load_stat_aliases(directory: Path | str | None = None) -> dict[str, dict[str, tuple[str, ...]]]:
    """{ruleset: {canonical stat: (aliases...)}} from seeds/rulesets/stats.toml."""
    import tomllib

    path = Path(directory or default_seed_dir()) / "rulesets" / "stats.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise DataError(f"{path}: cannot read stat names ({exc})") from None
    aliases: dict[str, dict[str, tuple[str, ...]]] = {}
    for ruleset, stats in data.items():
        if not isinstance(stats, dict) or not all(
                isinstance(v, list) and all(isinstance(a, str) and a for a in v) for v in stats.values()):
            raise DataError(f"{path}: [{ruleset}] must map each stat to a list of names")
        aliases[ruleset] = {canonical: tuple(names) for canonical, names in stats.items()}
    return aliases


def load_tables(directory: Path | str | None = None) -> dict[str, Table]:
    """All tables keyed by command. The shipped seeds are read once per process."""
    if directory is None:
        return dict(_load_default())
    return dict(_load_directory(Path(directory)))


@lru_cache(maxsize=1)
def _load_default() -> tuple[tuple[str, Table], ...]:
    return _load_directory(default_seed_dir())


def _load_directory(directory: Path) -> tuple[tuple[str, Table], ...]:
    import tomllib

    paths = sorted(directory.glob("*.toml"))
    if not paths:
        raise DataError(f"{directory}: no seed tables (*.toml) found")
    tables: dict[str, Table] = {}
    for path in paths:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise DataError(f"{path}: not valid TOML: {exc}") from None
        table = _build_table(path, data)
        if table.command in tables:
            first = tables[table.command].path
            raise DataError(f"{path}: command {table.command} is already defined in {first}")
        tables[table.command] = table
    for table in tables.values():
        for entry in table.entries:
            for effect in entry.effects:
                if isinstance(effect, RollTable) and effect.table not in tables:
                    raise DataError(
                        f"{table.path}: entry {entry.label}: roll_table refers to unknown table {effect.table!r}"
                    )
    return tuple(tables.items())


_TABLE_KEYS = {"command", "name", "name_en", "dice", "range", "modifiable", "source", "note_ja", "note_en", "entries",
               "repeat_reroll"}
_ENTRY_KEYS = {"roll", "range", "ja", "en", "tags", "effects", "rolls"}
REPEAT_REROLL = frozenset({"reroll", "stands"})


class _Problem(Exception):
    """A seed problem found below the entry level; re-raised as DataError with context."""


def _build_table(path: Path, data: dict[str, Any]) -> Table:
    def fail(message: str) -> DataError:
        return DataError(f"{path}: {message}")

    unknown = set(data) - _TABLE_KEYS
    if unknown:
        raise fail(f"unknown key(s) {', '.join(sorted(unknown))}")
    for key in ("command", "name", "name_en", "dice", "range", "entries"):
        if key not in data:
            raise fail(f"missing {key!r}")
    command = data["command"]
    if not isinstance(command, str) or not _COMMAND_RE.match(command):
        raise fail(f"command must be upper-case letters/digits, not {command!r}")
    if data["dice"] != "3D6":
        raise fail(f"dice must be \"3D6\", not {data['dice']!r}")
    try:
        lo, hi = _range(data["range"])
        name, name_en = _text(data["name"]), _text(data["name_en"])
        extras = {key: _text(data[key]) for key in ("source", "note_ja", "note_en") if key in data}
        modifiable = _bool(data.get("modifiable", False))
        repeat_reroll = _one_of(REPEAT_REROLL)(data.get("repeat_reroll", "reroll"))
    except _Problem as problem:
        raise fail(str(problem)) from None
    raw_entries = data["entries"]
    if not isinstance(raw_entries, list) or not raw_entries:
        raise fail("entries must be a non-empty array of tables")

    entries = [_build_entry(path, position, raw) for position, raw in enumerate(raw_entries, start=1)]
    entries.sort(key=lambda entry: entry.lo)
    expected = lo
    previous: Entry | None = None
    for entry in entries:
        if entry.lo < expected:
            if previous is None:
                raise fail(f"entry {entry.label}: starts below the table's range {lo}..{hi}")
            raise fail(f"entry {entry.label}: overlaps entry {previous.label}")
        if entry.lo > expected:
            after = f"after entry {previous.label}" if previous else "at the start of the range"
            raise fail(f"entry {entry.label}: gap: {_span(expected, entry.lo - 1)} {after} is not covered")
        expected = entry.hi + 1
        previous = entry
    if previous is not None and previous.hi > hi:
        raise fail(f"entry {previous.label}: goes past the table's range {lo}..{hi}")
    if expected <= hi:
        last = previous.label if previous else "?"
        raise fail(f"entry {last}: gap: {_span(expected, hi)} at the end is not covered")

    table = Table(
        command=command,
        name=name,
        name_en=name_en,
        dice="3D6",
        lo=lo,
        hi=hi,
        entries=tuple(entries),
        modifiable=modifiable,
        path=str(path),
        repeat_reroll=repeat_reroll,
        **extras,
    )
    for entry in table.entries:
        try:
            _expand(table, entry, ())
        except _Problem as problem:
            raise fail(f"entry {entry.label}: {problem}") from None
    return table


def _span(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}..{hi}"


def _build_entry(path: Path, position: int, raw: Any) -> Entry:
    label = f"#{position}"
    try:
        if not isinstance(raw, dict):
            raise _Problem("must be a table")
        if ("roll" in raw) == ("range" in raw):
            raise _Problem("give exactly one of `roll = N` or `range = [lo, hi]`")
        if "roll" in raw:
            lo = hi = _int(raw["roll"])
        else:
            lo, hi = _range(raw["range"])
        label = str(lo) if lo == hi else f"{lo}-{hi}"
        unknown = set(raw) - _ENTRY_KEYS
        if unknown:
            raise _Problem(f"unknown key(s) {', '.join(sorted(unknown))}")
        for key in ("ja", "en"):
            if key not in raw:
                raise _Problem(f"missing {key!r} summary")
        tags = raw.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) and _TAG_RE.match(t) for t in tags):
            raise _Problem("tags must be a list of lower_case_slugs")
        effects = raw.get("effects", [])
        if not isinstance(effects, list):
            raise _Problem("effects must be an array")
        ja, en = _text(raw["ja"]), _text(raw["en"])
        rolls = raw.get("rolls", [])
        if not isinstance(rolls, list):
            raise _Problem("rolls must be an array")
        return Entry(
            lo=lo,
            hi=hi,
            ja=ja,
            en=en,
            effects=tuple(_effect(item, nested=False) for item in effects),
            tags=tuple(tags),
            rolls=tuple(_text_dice(item, ja, en) for item in rolls),
        )
    except _Problem as problem:
        raise DataError(f"{path}: entry {label}: {problem}") from None


def _text_dice(raw: Any, ja: str, en: str) -> TextDice:
    if not isinstance(raw, dict):
        raise _Problem("rolls: each item must be a table such as { dice = \"1D\", ja = ..., en = ... }")
    values = _fields("rolls", raw, {"dice": (_text_dice_expression, True), "ja": (_text, True),
                                    "en": (_text, True), "min": (_int, False)})
    if values["ja"] not in ja:
        raise _Problem(f"rolls: {values['ja']!r} does not occur in the entry's ja text")
    if values["en"] not in en:
        raise _Problem(f"rolls: {values['en']!r} does not occur in the entry's en text")
    return TextDice(dice=values["dice"], ja=values["ja"], en=values["en"], minimum=values.get("min", 0))


def _text_dice_expression(value: Any) -> str:
    if not isinstance(value, str) or not _TEXT_DICE_RE.match(value):
        raise _Problem(f"dice must look like \"1D\", \"3D\" or \"1D-3\", not {value!r}")
    return value


# --- field converters: raise _Problem with a short reason ---


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Problem(f"expected a whole number, not {value!r}")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Problem(f"expected true or false, not {value!r}")
    return value


def _positive(value: Any) -> int:
    if _int(value) < 1:
        raise _Problem(f"expected a positive number, not {value!r}")
    return value


def _negative(value: Any) -> int:
    if _int(value) >= 0:
        raise _Problem(f"CP of a disadvantage must be negative, not {value!r}")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _Problem(f"expected non-empty text, not {value!r}")
    return value


def _range(value: Any) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2:
        raise _Problem(f"range must be [lo, hi], not {value!r}")
    lo, hi = _int(value[0]), _int(value[1])
    if lo > hi:
        raise _Problem(f"range [{lo}, {hi}] is backwards")
    return lo, hi


def _amount(value: Any) -> Amount:
    if isinstance(value, str):
        if not _DICE_RE.match(value):
            raise _Problem(f"dice must look like \"2D\", not {value!r}")
        return value
    return _positive(value)


def _one_of(allowed: frozenset[str]) -> Callable[[Any], str]:
    def convert(value: Any) -> str:
        if value not in allowed:
            raise _Problem(f"{value!r} is not one of {', '.join(sorted(allowed))}")
        return value

    return convert


def _after_duration(value: Any) -> int | str:
    return value if value == "same" else _positive(value)


def _table_name(value: Any) -> str:
    if not isinstance(value, str) or not _COMMAND_RE.match(value):
        raise _Problem(f"table must be a command such as \"HCRT\", not {value!r}")
    return value


_Schema = dict[str, tuple[Callable[[Any], Any], bool]]  # field -> (converter, required)
_unit = _one_of(UNITS)
_recovery = _one_of(RECOVERIES)

_SIMPLE_KINDS: dict[str, tuple[type, _Schema]] = {
    "stun": (Stun, {"turns": (_amount, True), "recovery": (_recovery, True)}),
    "fatigue": (Fatigue, {"amount": (_amount, True)}),
    "injury": (Injury, {"amount": (_amount, True)}),
    "condition": (
        Condition,
        {
            "condition": (_one_of(CONDITIONS), True),
            "recovery": (_recovery, True),
            "duration": (_amount, False),
            "unit": (_unit, False),
            "every": (_positive, False),
            "every_unit": (_unit, False),
            "after_penalty": (_int, False),
            "after_duration": (_after_duration, False),
            "after_unit": (_unit, False),
            "extend": (_amount, False),
            "hp_drain": (_one_of(frozenset({"escalating_daily"})), False),
            "severity_dice": (_amount, False),
        },
    ),
    "lose_attribute": (
        AttributeLoss,
        {
            "stat": (_one_of(STATS), True),
            "amount": (_positive, True),
            "cascade": (_one_of(frozenset({"mental"})), False),
        },
    ),
    "roll_twice": (RollTwice, {"apply": (_one_of(frozenset({"both", "choose"})), True)}),
    "reroll": (Reroll, {"only_if_ja": (_text, False), "only_if_en": (_text, False), "gm_choice": (_bool, False),
                        "condition": (_one_of(REROLL_CONDITIONS), False)}),
    "roll_table": (
        RollTable,
        {"table": (_table_name, True), "only_if_ja": (_text, False), "only_if_en": (_text, False)},
    ),
}
_OPTION_FIELDS = {
    "category": (_one_of(TRAIT_CATEGORIES), True),
    "cp": (_negative, True),
    "severity": (_one_of(SEVERITIES), False),
}
# Fields an `as_entry` may override with `set = {...}`, and how to check the new value.
_OVERRIDABLE: dict[str, Callable[[Any], Any]] = {
    "cp": _negative,
    "severity": _one_of(SEVERITIES),
    "category": _one_of(TRAIT_CATEGORIES),
    "condition": _one_of(CONDITIONS),
    "recovery": _recovery,
    "turns": _amount,
    "duration": _amount,
    "unit": _unit,
    "every": _positive,
    "every_unit": _unit,
    "after_penalty": _int,
    "after_duration": _after_duration,
    "after_unit": _unit,
}
_NESTABLE = {"stun", "fatigue", "injury", "condition", "trait", "lose_attribute"}


def _fields(kind: str, raw: dict[str, Any], schema: _Schema) -> dict[str, Any]:
    unknown = set(raw) - set(schema)
    if unknown:
        raise _Problem(f"{kind}: unknown field(s) {', '.join(sorted(unknown))}")
    values = {}
    for name, (convert, required) in schema.items():
        if name in raw:
            try:
                values[name] = convert(raw[name])
            except _Problem as problem:
                raise _Problem(f"{kind}.{name}: {problem}") from None
        elif required:
            raise _Problem(f"{kind}: missing field {name!r}")
    return values


def _option(raw: Any, kind: str) -> TraitOption:
    if not isinstance(raw, dict):
        raise _Problem(f"{kind}: a trait option must be a table")
    return TraitOption(**_fields(kind, raw, _OPTION_FIELDS))


def _effect(raw: Any, *, nested: bool) -> Effect:
    if not isinstance(raw, dict):
        raise _Problem(f"an effect must be a table, not {raw!r}")
    kind = raw.get("kind")
    rest = {key: value for key, value in raw.items() if key != "kind"}
    if nested and kind not in _NESTABLE:
        raise _Problem(f"effect kind {kind!r} cannot be nested inside a check")
    if kind in _SIMPLE_KINDS:
        cls, schema = _SIMPLE_KINDS[kind]
        return cls(**_fields(kind, rest, schema))
    if kind == "trait":
        if "options" in rest:
            if set(rest) != {"options"}:
                raise _Problem("trait: give either options = [...] or category/cp/severity, not both")
            options = rest["options"]
            if not isinstance(options, list) or not options:
                raise _Problem("trait.options must be a non-empty array")
            return Trait(options=tuple(_option(option, "trait.options") for option in options))
        return Trait(options=(_option(rest, "trait"),))
    if kind == "phobia_escalation":
        values = _fields(kind, rest, {"fallback": (lambda v: v, True), "factor": (_positive, False)})
        values["fallback"] = _option(values["fallback"], "phobia_escalation.fallback")
        return EscalatePhobia(**values)
    if kind == "check":
        schema = {
            "stat": (_one_of(STATS), True),
            "on_failure": (_effect_list, False),
            "on_critical_failure": (_effect_list, False),
        }
        values = _fields(kind, rest, schema)
        if not values.get("on_failure") and not values.get("on_critical_failure"):
            raise _Problem("check: give on_failure and/or on_critical_failure")
        return Check(**values)
    if kind == "as_entry":
        values = _fields(kind, rest, {"entry": (_int, True), "set": (lambda v: v, False)})
        overrides = values.get("set", {})
        if not isinstance(overrides, dict):
            raise _Problem("as_entry.set must be a table such as { cp = -30 }")
        checked = []
        for name, value in sorted(overrides.items()):
            if name not in _OVERRIDABLE:
                raise _Problem(f"as_entry.set: {name!r} cannot be overridden")
            try:
                checked.append((name, _OVERRIDABLE[name](value)))
            except _Problem as problem:
                raise _Problem(f"as_entry.set.{name}: {problem}") from None
        return AsEntry(entry=values["entry"], overrides=tuple(checked))
    raise _Problem(f"unknown effect kind {kind!r}")


def _effect_list(value: Any) -> tuple[Effect, ...]:
    if not isinstance(value, list):
        raise _Problem("expected an array of effects")
    return tuple(_effect(item, nested=True) for item in value)


# --- expansion of references ---


def expand_entry(table: Table, entry: Entry) -> tuple[EntryEffect, ...]:
    """The entry's effects with every `as_entry` replaced by what it refers to, in order.

    Directives (roll_twice, reroll, roll_table) are kept as they are.
    """
    try:
        return _expand(table, entry, ())
    except _Problem as problem:  # only reachable for a table not built by this module
        raise DataError(f"{table.path}: entry {entry.label}: {problem}") from None


def _expand(table: Table, entry: Entry, seen: tuple[int, ...]) -> tuple[EntryEffect, ...]:
    if entry.lo in seen:
        chain = " -> ".join(str(step) for step in (*seen, entry.lo))
        raise _Problem(f"as_entry references loop: {chain}")
    out: list[EntryEffect] = []
    for effect in entry.effects:
        if not isinstance(effect, AsEntry):
            out.append(EntryEffect(effect, entry.lo))
            continue
        if not table.lo <= effect.entry <= table.hi:
            raise _Problem(f"as_entry refers to {effect.entry}, outside the range {table.lo}..{table.hi}")
        target = table.entry_for(effect.entry)
        if target is entry:
            raise _Problem(f"as_entry refers to {effect.entry}, which is this entry")
        expanded = _expand(table, target, (*seen, entry.lo))
        for name, value in effect.overrides:
            touched = False
            updated = []
            for item in expanded:
                new, hit = _override(item.effect, name, value)
                touched = touched or hit
                # an overridden effect is the overriding entry's own (36's -20 CP, not 24's)
                updated.append(EntryEffect(new, entry.lo if hit else item.entry))
            if not touched:
                raise _Problem(f"as_entry {effect.entry}: set.{name} matches no effect of that entry")
            expanded = tuple(updated)
        out.extend(expanded)
    return tuple(out)


def _override(effect: Effect, name: str, value: Any) -> tuple[Effect, bool]:
    option_fields = {f.name for f in fields(TraitOption)}
    if isinstance(effect, Trait) and name in option_fields:
        return replace(effect, options=tuple(replace(o, **{name: value}) for o in effect.options)), True
    if isinstance(effect, EscalatePhobia) and name in option_fields:
        return replace(effect, fallback=replace(effect.fallback, **{name: value})), True
    if name in {f.name for f in fields(effect)}:  # type: ignore[arg-type]
        return replace(effect, **{name: value}), True
    return effect, False


# --- commands and rolling ---


def table_for_command(text: str, tables: Mapping[str, Table] | None = None) -> tuple[Table, int] | None:
    """Recognise a BCDice table command (`CRT`, `fmb`, `FEAR+5`), case-insensitively.

    Only tables marked `modifiable` (the fright table) accept `+n` / `-n`.
    """
    match = _INVOCATION_RE.match(text)
    if not match:
        return None
    if tables is None:
        tables = load_tables()
    table = tables.get(match.group(1).upper())
    if table is None:
        return None
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
    tables: Mapping[str, Table] | None = None,
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
    recorded as declined. `tables` resolves roll_table; by default the shipped seeds.

    `ask(table, entry, reroll)` is consulted for every reroll the text makes conditional
    (a condition, or the GM's choice) when the entry comes up: True rolls it, False
    records it as declined, None leaves it to the defaults above (a conditional reroll
    is rolled and shown as conditional). It is how the GM states or is asked the fact.
    """
    return _roll(table, source, modifier, None, 0, tables, gm_reroll, ask)


def table_purpose(table: Table) -> str:
    return TABLE_PURPOSES.get(table.command, f"the {table.command} table")


def _roll_text_dice(spec: TextDice, source: DiceSource, table: Table, entry: Entry) -> TextRoll:
    from campaign.core.dice_source import roll_dice

    faces = roll_dice(source, spec.count, 6, f"the dice of {table_purpose(table)} entry {entry.label}")
    return TextRoll(spec=spec, faces=faces, value=max(spec.minimum, sum(faces) + spec.modifier))


def _roll(
    table: Table,
    source: DiceSource,
    modifier: int,
    directive: Directive | None,
    depth: int,
    tables: Mapping[str, Table] | None,
    gm_reroll: bool = True,
    ask: RerollQuestion | None = None,
) -> TableRoll:
    from campaign.core.dice_source import roll_dice

    dice = roll_dice(source, 3, 6, table_purpose(table) if directive is None
                     else f"{table_purpose(table)} ({directive.kind.replace('_', ' ')})")
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
            if tables is None:
                tables = load_tables()
            other = tables.get(effect.table)
            if other is None:
                raise DataError(
                    f"{table.path}: entry {entry.label}: roll_table refers to unknown table {effect.table!r}"
                )
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

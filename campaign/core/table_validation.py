"""Seed validation: a rule table's TOML data checked into a Table, or a DataError.

A broken seed is refused when it is loaded (a `DataError` naming the file and the
entry) rather than in the middle of a session when the one bad entry finally comes up.
Each problem is an `N_` template with its values (SeedProblem, nested as `Words` as deep
as the field), so the GM who broke the file reads it in the chosen language
(campaign.refusal_words) while `str(error)` stays the English line.
This module only checks data it is given; campaign.seeds reads the files.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from typing import Any

from campaign.core.effects_vocabulary import (
    CONDITIONS,
    RECOVERIES,
    REROLL_CONDITIONS,
    SEVERITIES,
    STATS,
    TRAIT_CATEGORIES,
    UNITS,
    Amount,
    AsEntry,
    AttributeLoss,
    Check,
    ConditionEffect,
    Effect,
    EscalatePhobia,
    Fatigue,
    Injury,
    Reroll,
    RollTable,
    RollTwice,
    Stun,
    TraitEffect,
    TraitOption,
)
from campaign.core.table_model import SeedProblem as _Problem
from campaign.core.table_model import Table, TableEntry, TextDice, entry_error, expand_references
from campaign.errors import N_, DataError, Words

_DICE_RE = re.compile(r"^([1-9][0-9]?)D$")
_TEXT_DICE_RE = re.compile(r"^([1-9])D([+-][0-9]{1,2})?$")
_COMMAND_RE = re.compile(r"^[A-Z][A-Z0-9]*$")
_TAG_RE = re.compile(r"^[a-z0-9_]+$")


def build_tables(sources: Iterable[tuple[str, dict[str, Any]]]) -> dict[str, Table]:
    """Every table keyed by command from (file path, parsed TOML) pairs, in that order.

    Refuses a command defined twice and a roll_table naming a table that is not there.
    """
    tables: dict[str, Table] = {}
    for path, data in sources:
        table = build_table(path, data)
        if table.command in tables:
            first = tables[table.command].path
            raise DataError(
                N_("{path}: command {command} is already defined in {first}"),
                path=path,
                command=table.command,
                first=first,
            )
        tables[table.command] = table
    for table in tables.values():
        for entry in table.entries:
            for effect in entry.effects:
                if isinstance(effect, RollTable) and effect.table not in tables:
                    raise entry_error(
                        table.path,
                        entry.label,
                        _Problem(N_("roll_table refers to unknown table {table!r}"), table=effect.table),
                    )
    return tables


_TABLE_KEYS = {
    "command",
    "name",
    "name_en",
    "dice",
    "range",
    "modifiable",
    "source",
    "note_ja",
    "note_en",
    "entries",
    "repeat_reroll",
}
_ENTRY_KEYS = {"roll", "range", "ja", "en", "tags", "effects", "rolls"}
REPEAT_REROLL = frozenset({"reroll", "stands"})


def _check_coverage(entries: list[TableEntry], lo: int, hi: int, fail: Callable[..., DataError]) -> None:
    """The entries (sorted by their low end) cover lo..hi exactly: no gap, no overlap."""
    expected = lo
    previous: TableEntry | None = None
    for entry in entries:
        if entry.lo < expected:
            if previous is None:
                raise fail(
                    N_("entry {entry}: starts below the table's range {lo}..{hi}"), entry=entry.label, lo=lo, hi=hi
                )
            raise fail(N_("entry {entry}: overlaps entry {other}"), entry=entry.label, other=previous.label)
        if entry.lo > expected:
            gap = _span(expected, entry.lo - 1)
            if previous is None:
                raise fail(
                    N_("entry {entry}: gap: {gap} at the start of the range is not covered"), entry=entry.label, gap=gap
                )
            raise fail(
                N_("entry {entry}: gap: {gap} after entry {other} is not covered"),
                entry=entry.label,
                gap=gap,
                other=previous.label,
            )
        expected = entry.hi + 1
        previous = entry
    if previous is not None and previous.hi > hi:
        raise fail(N_("entry {entry}: goes past the table's range {lo}..{hi}"), entry=previous.label, lo=lo, hi=hi)
    if expected <= hi:
        last = previous.label if previous else "?"
        raise fail(N_("entry {entry}: gap: {gap} at the end is not covered"), entry=last, gap=_span(expected, hi))


def build_table(path: str, data: dict[str, Any]) -> Table:
    def fail(template: str, /, **params: object) -> DataError:
        return DataError(N_("{path}: {problem}"), path=path, problem=Words(template, **params))

    unknown = set(data) - _TABLE_KEYS
    if unknown:
        raise fail(N_("unknown key(s) {keys}"), keys=", ".join(sorted(unknown)))
    for key in ("command", "name", "name_en", "dice", "range", "entries"):
        if key not in data:
            raise fail(N_("missing {key!r}"), key=key)
    command = data["command"]
    if not isinstance(command, str) or not _COMMAND_RE.match(command):
        raise fail(N_("command must be upper-case letters/digits, not {command!r}"), command=command)
    if data["dice"] != "3D6":
        raise fail(N_('dice must be "3D6", not {dice!r}'), dice=data["dice"])
    try:
        lo, hi = _range(data["range"])
        name, name_en = _text(data["name"]), _text(data["name_en"])
        extras = {key: _text(data[key]) for key in ("source", "note_ja", "note_en") if key in data}
        modifiable = _bool(data.get("modifiable", False))
        repeat_reroll = _one_of(REPEAT_REROLL)(data.get("repeat_reroll", "reroll"))
    except _Problem as problem:
        raise DataError(N_("{path}: {problem}"), path=path, problem=problem.words) from None
    raw_entries = data["entries"]
    if not isinstance(raw_entries, list) or not raw_entries:
        raise fail(N_("entries must be a non-empty array of tables"))

    entries = [_build_entry(path, position, raw) for position, raw in enumerate(raw_entries, start=1)]
    entries.sort(key=lambda entry: entry.lo)
    _check_coverage(entries, lo, hi, fail)

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
            expand_references(table, entry, ())
        except _Problem as problem:
            raise entry_error(path, entry.label, problem) from None
    return table


def _span(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}..{hi}"


def _build_entry(path: str, position: int, raw: Any) -> TableEntry:
    label = f"#{position}"
    try:
        if not isinstance(raw, dict):
            raise _Problem(N_("must be a table"))
        if ("roll" in raw) == ("range" in raw):
            raise _Problem(N_("give exactly one of `roll = N` or `range = [lo, hi]`"))
        if "roll" in raw:
            lo = hi = _int(raw["roll"])
        else:
            lo, hi = _range(raw["range"])
        label = str(lo) if lo == hi else f"{lo}-{hi}"
        unknown = set(raw) - _ENTRY_KEYS
        if unknown:
            raise _Problem(N_("unknown key(s) {keys}"), keys=", ".join(sorted(unknown)))
        for key in ("ja", "en"):
            if key not in raw:
                raise _Problem(N_("missing {key!r} summary"), key=key)
        tags = raw.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) and _TAG_RE.match(t) for t in tags):
            raise _Problem(N_("tags must be a list of lower_case_slugs"))
        effects = raw.get("effects", [])
        if not isinstance(effects, list):
            raise _Problem(N_("effects must be an array"))
        ja, en = _text(raw["ja"]), _text(raw["en"])
        rolls = raw.get("rolls", [])
        if not isinstance(rolls, list):
            raise _Problem(N_("rolls must be an array"))
        return TableEntry(
            lo=lo,
            hi=hi,
            ja=ja,
            en=en,
            effects=tuple(_effect(item, nested=False) for item in effects),
            tags=tuple(tags),
            rolls=tuple(_text_dice(item, ja, en) for item in rolls),
        )
    except _Problem as problem:
        raise entry_error(path, label, problem) from None


def _text_dice(raw: Any, ja: str, en: str) -> TextDice:
    if not isinstance(raw, dict):
        raise _Problem(
            N_("rolls: each item must be a table such as {example}"), example='{ dice = "1D", ja = ..., en = ... }'
        )
    values = _fields(
        "rolls",
        raw,
        {"dice": (_text_dice_expression, True), "ja": (_text, True), "en": (_text, True), "min": (_int, False)},
    )
    if values["ja"] not in ja:
        raise _Problem(N_("rolls: {words!r} does not occur in the entry's ja text"), words=values["ja"])
    if values["en"] not in en:
        raise _Problem(N_("rolls: {words!r} does not occur in the entry's en text"), words=values["en"])
    return TextDice(dice=values["dice"], ja=values["ja"], en=values["en"], minimum=values.get("min", 0))


def _text_dice_expression(value: Any) -> str:
    if not isinstance(value, str) or not _TEXT_DICE_RE.match(value):
        raise _Problem(N_('dice must look like "1D", "3D" or "1D-3", not {value!r}'), value=value)
    return value


# --- field converters: raise _Problem with a short reason ---


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Problem(N_("expected a whole number, not {value!r}"), value=value)
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Problem(N_("expected true or false, not {value!r}"), value=value)
    return value


def _positive(value: Any) -> int:
    if _int(value) < 1:
        raise _Problem(N_("expected a positive number, not {value!r}"), value=value)
    return _int(value)


def _negative(value: Any) -> int:
    if _int(value) >= 0:
        raise _Problem(N_("CP of a disadvantage must be negative, not {value!r}"), value=value)
    return _int(value)


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _Problem(N_("expected non-empty text, not {value!r}"), value=value)
    return value


def _range(value: Any) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2:
        raise _Problem(N_("range must be [lo, hi], not {value!r}"), value=value)
    lo, hi = _int(value[0]), _int(value[1])
    if lo > hi:
        raise _Problem(N_("range [{lo}, {hi}] is backwards"), lo=lo, hi=hi)
    return lo, hi


def _amount(value: Any) -> Amount:
    if isinstance(value, str):
        if not _DICE_RE.match(value):
            raise _Problem(N_('dice must look like "2D", not {value!r}'), value=value)
        return value
    return _positive(value)


def _one_of(allowed: Collection[str]) -> Callable[[Any], str]:
    def convert(value: Any) -> str:
        if value not in allowed:
            raise _Problem(N_("{value!r} is not one of {allowed}"), value=value, allowed=", ".join(sorted(allowed)))
        return str(value)

    return convert


def _after_duration(value: Any) -> int | str:
    return value if value == "same" else _positive(value)


def _table_name(value: Any) -> str:
    if not isinstance(value, str) or not _COMMAND_RE.match(value):
        raise _Problem(N_('table must be a command such as "HCRT", not {value!r}'), value=value)
    return value


_Schema = dict[str, tuple[Callable[[Any], Any], bool]]  # field -> (converter, required)
_unit = _one_of(UNITS)
_recovery = _one_of(RECOVERIES)

_SIMPLE_KINDS: dict[str, tuple[Callable[..., Effect], _Schema]] = {
    "stun": (Stun, {"turns": (_amount, True), "recovery": (_recovery, True)}),
    "fatigue": (Fatigue, {"amount": (_amount, True)}),
    "injury": (Injury, {"amount": (_amount, True)}),
    "condition": (
        ConditionEffect,
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
    "reroll": (
        Reroll,
        {
            "only_if_ja": (_text, False),
            "only_if_en": (_text, False),
            "gm_choice": (_bool, False),
            "condition": (_one_of(REROLL_CONDITIONS), False),
        },
    ),
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
        raise _Problem(N_("{kind}: unknown field(s) {fields}"), kind=kind, fields=", ".join(sorted(unknown)))
    values = {}
    for name, (convert, required) in schema.items():
        if name in raw:
            try:
                values[name] = convert(raw[name])
            except _Problem as problem:
                raise _Problem(N_("{field}: {problem}"), field=f"{kind}.{name}", problem=problem.words) from None
        elif required:
            raise _Problem(N_("{kind}: missing field {name!r}"), kind=kind, name=name)
    return values


def _option(raw: Any, kind: str) -> TraitOption:
    if not isinstance(raw, dict):
        raise _Problem(N_("{kind}: a trait option must be a table"), kind=kind)
    return TraitOption(**_fields(kind, raw, _OPTION_FIELDS))


def _trait_effect(kind: str, rest: dict[str, Any]) -> Effect:
    if "options" in rest:
        if set(rest) != {"options"}:
            raise _Problem(N_("trait: give either options = [...] or category/cp/severity, not both"))
        options = rest["options"]
        if not isinstance(options, list) or not options:
            raise _Problem(N_("trait.options must be a non-empty array"))
        return TraitEffect(options=tuple(_option(option, "trait.options") for option in options))
    return TraitEffect(options=(_option(rest, "trait"),))


def _escalation_effect(kind: str, rest: dict[str, Any]) -> Effect:
    values = _fields(kind, rest, {"fallback": (lambda v: v, True), "factor": (_positive, False)})
    values["fallback"] = _option(values["fallback"], "phobia_escalation.fallback")
    return EscalatePhobia(**values)


def _check_effect(kind: str, rest: dict[str, Any]) -> Effect:
    schema = {
        "stat": (_one_of(STATS), True),
        "on_failure": (_effect_list, False),
        "on_critical_failure": (_effect_list, False),
    }
    values = _fields(kind, rest, schema)
    if not values.get("on_failure") and not values.get("on_critical_failure"):
        raise _Problem(N_("check: give on_failure and/or on_critical_failure"))
    return Check(**values)


def _as_entry_effect(kind: str, rest: dict[str, Any]) -> Effect:
    values = _fields(kind, rest, {"entry": (_int, True), "set": (lambda v: v, False)})
    overrides = values.get("set", {})
    if not isinstance(overrides, dict):
        raise _Problem(N_("as_entry.set must be a table such as {example}"), example="{ cp = -30 }")
    checked = []
    for name, value in sorted(overrides.items()):
        if name not in _OVERRIDABLE:
            raise _Problem(N_("as_entry.set: {name!r} cannot be overridden"), name=name)
        try:
            checked.append((name, _OVERRIDABLE[name](value)))
        except _Problem as problem:
            raise _Problem(N_("{field}: {problem}"), field=f"as_entry.set.{name}", problem=problem.words) from None
    return AsEntry(entry=values["entry"], overrides=tuple(checked))


#: Effect kinds whose fields need more than a schema: kind -> its reader.
_COMPOUND_KINDS: dict[str, Callable[[str, dict[str, Any]], Effect]] = {
    "trait": _trait_effect,
    "phobia_escalation": _escalation_effect,
    "check": _check_effect,
    "as_entry": _as_entry_effect,
}


def _effect(raw: Any, *, nested: bool) -> Effect:
    if not isinstance(raw, dict):
        raise _Problem(N_("an effect must be a table, not {value!r}"), value=raw)
    kind = raw.get("kind")
    rest = {key: value for key, value in raw.items() if key != "kind"}
    if nested and kind not in _NESTABLE:
        raise _Problem(N_("effect kind {kind!r} cannot be nested inside a check"), kind=kind)
    if kind in _SIMPLE_KINDS:
        cls, schema = _SIMPLE_KINDS[kind]
        return cls(**_fields(kind, rest, schema))
    if kind in _COMPOUND_KINDS:
        return _COMPOUND_KINDS[kind](kind, rest)
    raise _Problem(N_("unknown effect kind {kind!r}"), kind=kind)


def _effect_list(value: Any) -> tuple[Effect, ...]:
    if not isinstance(value, list):
        raise _Problem(N_("expected an array of effects"))
    return tuple(_effect(item, nested=True) for item in value)

"""Reference tables (docs/rules.md "Reference tables"): look-ups that change no state,
kept as data in seeds/ref/.

Seed 000's modifier tables, seed 001's situation modifiers and object hardness, seed
002's target-number guide: a GM wants them at hand during play. Each lives in its own
`seeds/ref/*.toml` in our own short words and is checked when loaded (a DataError
naming the file), like the roll tables in campaign.core.table_validation. This module
only checks and looks up data it is given; campaign.seeds reads the files.

Format (one file per table):

    key = "hit_location"          # stable identifier (lower_case)
    name = "命中部位表"            # Japanese name; name_en the English one
    aliases = ["命中部位", "HIT"]  # other names `ref show` accepts
    origin = "000"                 # which reference seed it summarises: 000, 001 or 002
    source = "..."                 # citation; note_ja / note_en optional summaries
    command = "HIT"                # optional, rollable tables only: the ledger expression
    roll = "3D6"                   # optional: the table can be rolled on
    columns = [{ key = "part", ja = "部位", en = "Location" }, ...]

    [[rows]]
    roll = [3, 4]                  # rollable tables: the 3d6 results that land here
    part = "..."                   # one text per column key, or a short name in both
    part = { ja = "頭", en = "skull" }  # languages (shown in the output's language)

A rollable table's `roll` ranges cover 3..18 exactly once; rows without `roll` are
listed but never rolled (aimed-only hit locations).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from campaign.errors import N_, DataError, Words

if TYPE_CHECKING:
    from campaign.core.dice_source import DiceSource

ORIGINS = frozenset({"000", "001", "002"})
_KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_COMMAND_RE = re.compile(r"^[A-Z][A-Z0-9]*$")
_TABLE_KEYS = {
    "key",
    "name",
    "name_en",
    "aliases",
    "origin",
    "source",
    "note_ja",
    "note_en",
    "command",
    "roll",
    "columns",
    "rows",
}
ROLL_LO, ROLL_HI = 3, 18
# How a dice request names a rollable table ("3d6 for the hit location table"), by command.
REFERENCE_PURPOSES = {"HIT": N_("the hit location table")}


@dataclass(frozen=True, slots=True)
class ReferenceColumn:
    key: str
    ja: str
    en: str


@dataclass(frozen=True, slots=True)
class Both:
    """A cell the seed gives in both languages (a short name: 頭 / skull); the display
    shows one of them, --json both."""

    ja: str
    en: str


Cell = str | Both


@dataclass(frozen=True, slots=True)
class Row:
    cells: tuple[Cell, ...]  # in column order
    lo: int | None = None  # the 3d6 results that land here (rollable tables)
    hi: int | None = None

    @property
    def roll_label(self) -> str:
        if self.lo is None:
            return ""
        return str(self.lo) if self.lo == self.hi else f"{self.lo}-{self.hi}"


@dataclass(frozen=True, slots=True)
class RefTable:
    key: str
    name: str
    name_en: str
    origin: str
    source: str
    columns: tuple[ReferenceColumn, ...]
    rows: tuple[Row, ...]
    aliases: tuple[str, ...] = ()
    note_ja: str = ""
    note_en: str = ""
    command: str | None = None
    roll: str | None = None  # "3D6" when the table can be rolled on
    path: str = ""

    @property
    def rollable(self) -> bool:
        return self.roll is not None

    def row_for(self, value: int) -> Row:
        for row in self.rows:
            if row.lo is not None and row.lo <= value <= row.hi:  # type: ignore[operator]
                return row
        raise ValueError(f"{self.key}: {value} is not on the table")


@dataclass(frozen=True, slots=True)
class RefRoll:
    """One roll on a rollable reference table."""

    table: RefTable
    dice: tuple[int, ...]
    total: int
    row: Row


class _Problem(Exception):
    """What is wrong with a file, as an `N_` template and its values (shown translated
    in the DataError that names the file)."""

    def __init__(self, template: str, /, **params: object) -> None:
        self.words = Words(template, **params)
        super().__init__(str(self.words))


# --- checking ---


def build_references(sources: Iterable[tuple[str, dict[str, Any]]]) -> dict[str, RefTable]:
    """Every reference table keyed by `key` from (file path, parsed TOML) pairs, in order.

    Refuses a key used twice and a name (key, name, English name or alias) that two
    tables share, since `ref show NAME` must find exactly one.
    """
    tables: dict[str, RefTable] = {}
    names: dict[str, str] = {}
    for path, data in sources:
        try:
            table = _build(path, data)
        except _Problem as problem:
            raise DataError(N_("{path}: {problem}"), path=path, problem=problem.words) from None
        if table.key in tables:
            raise DataError(
                N_("{path}: key {key!r} is already used by {first}"),
                path=path,
                key=table.key,
                first=tables[table.key].path,
            )
        for name in (table.key, table.name, table.name_en, *table.aliases):
            folded = fold(name)
            if folded in names and names[folded] != table.key:
                raise DataError(
                    N_("{path}: name {name!r} is already used by table {other!r}"),
                    path=path,
                    name=name,
                    other=names[folded],
                )
            names[folded] = table.key
        tables[table.key] = table
    return tables


def fold(name: str) -> str:
    """How names are compared: NFKC (full-width letters, ／), trimmed, case-folded."""
    return unicodedata.normalize("NFKC", name).strip().casefold()


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _Problem(N_("{what} must be non-empty text, not {value!r}"), what=what, value=value)
    return value


def _build(path: str, data: dict[str, Any]) -> RefTable:
    unknown = set(data) - _TABLE_KEYS
    if unknown:
        raise _Problem(N_("unknown key(s) {keys}"), keys=", ".join(sorted(unknown)))
    for required in ("key", "name", "name_en", "origin", "source", "columns", "rows"):
        if required not in data:
            raise _Problem(N_("missing {key!r}"), key=required)
    key = data["key"]
    if not isinstance(key, str) or not _KEY_RE.match(key):
        raise _Problem(N_("key must be lower_case letters, digits and _, not {key!r}"), key=key)
    if data["origin"] not in ORIGINS:
        raise _Problem(
            N_("origin must be one of {allowed}, not {origin!r}"),
            allowed=", ".join(sorted(ORIGINS)),
            origin=data["origin"],
        )
    aliases = data.get("aliases", [])
    if not isinstance(aliases, list):
        raise _Problem(N_("aliases must be an array of names"))
    aliases = [_text(alias, "aliases") for alias in aliases]
    roll = data.get("roll")
    if roll is not None and roll != "3D6":
        raise _Problem(N_('roll must be "3D6", not {roll!r}'), roll=roll)
    command = data.get("command")
    if command is not None and (not isinstance(command, str) or not _COMMAND_RE.match(command)):
        raise _Problem(N_("command must be upper-case letters/digits, not {command!r}"), command=command)
    if (command is None) != (roll is None):
        raise _Problem(N_("a rollable table gives both `roll` and `command`; others neither"))
    columns = _columns(data["columns"])
    rows = _rows(data["rows"], columns, rollable=roll is not None)
    return RefTable(
        key=key,
        name=_text(data["name"], "name"),
        name_en=_text(data["name_en"], "name_en"),
        origin=data["origin"],
        source=_text(data["source"], "source"),
        columns=columns,
        rows=rows,
        aliases=tuple(aliases),
        note_ja=_text(data["note_ja"], "note_ja") if "note_ja" in data else "",
        note_en=_text(data["note_en"], "note_en") if "note_en" in data else "",
        command=command,
        roll=roll,
        path=str(path),
    )


def _columns(raw: Any) -> tuple[ReferenceColumn, ...]:
    if not isinstance(raw, list) or not raw:
        raise _Problem(N_("columns must be a non-empty array"))
    columns: list[ReferenceColumn] = []
    for position, item in enumerate(raw, start=1):
        if not isinstance(item, dict) or set(item) != {"key", "ja", "en"}:
            raise _Problem(
                N_("column {position} must be {example}"),
                position=position,
                example="{ key = ..., ja = ..., en = ... }",
            )
        if not isinstance(item["key"], str) or not _KEY_RE.match(item["key"]) or item["key"] == "roll":
            raise _Problem(
                N_("column {position}: key {key!r} must be lower_case (and not 'roll')"),
                position=position,
                key=item["key"],
            )
        if any(column.key == item["key"] for column in columns):
            raise _Problem(N_("column {position}: key {key!r} is used twice"), position=position, key=item["key"])
        for language in ("ja", "en"):
            if not isinstance(item[language], str) or not item[language].strip():
                raise _Problem(
                    N_("column {position}: {language} must be non-empty text, not {value!r}"),
                    position=position,
                    language=language,
                    value=item[language],
                )
        columns.append(ReferenceColumn(item["key"], item["ja"], item["en"]))
    return tuple(columns)


def _check_row_keys(item: dict[str, Any], keys: set[str], position: int) -> None:
    """A row names every column and nothing else (`roll` aside)."""
    unknown = set(item) - keys - {"roll"}
    missing = keys - set(item)
    if unknown and missing:
        raise _Problem(
            N_("row {position}: unknown {keys}; missing {missing}"),
            position=position,
            keys=", ".join(sorted(unknown)),
            missing=", ".join(sorted(missing)),
        )
    if unknown:
        raise _Problem(N_("row {position}: unknown {keys}"), position=position, keys=", ".join(sorted(unknown)))
    if missing:
        raise _Problem(N_("row {position}: missing {keys}"), position=position, keys=", ".join(sorted(missing)))


def _row_roll(item: dict[str, Any], position: int, *, rollable: bool) -> tuple[int | None, int | None]:
    """A row's 3D6 range ([lo, hi]), for a rollable table only; (None, None) without one."""
    if "roll" not in item:
        return None, None
    if not rollable:
        raise _Problem(N_('row {position}: `roll` is only for a table with roll = "3D6"'), position=position)
    span = item["roll"]
    if (
        not isinstance(span, list)
        or len(span) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in span)
        or not ROLL_LO <= span[0] <= span[1] <= ROLL_HI
    ):
        raise _Problem(
            N_("row {position}: roll must be [lo, hi] within {lo}..{hi}, not {span!r}"),
            position=position,
            lo=ROLL_LO,
            hi=ROLL_HI,
            span=span,
        )
    return span[0], span[1]


def _rows(raw: Any, columns: tuple[ReferenceColumn, ...], *, rollable: bool) -> tuple[Row, ...]:
    if not isinstance(raw, list) or not raw:
        raise _Problem(N_("rows must be a non-empty array of tables"))
    keys = {column.key for column in columns}
    rows: list[Row] = []
    for position, item in enumerate(raw, start=1):
        if not isinstance(item, dict):
            raise _Problem(N_("row {position} must be a table"), position=position)
        _check_row_keys(item, keys, position)
        cells = tuple(_cell(item[column.key], position, column.key) for column in columns)
        lo, hi = _row_roll(item, position, rollable=rollable)
        rows.append(Row(cells, lo, hi))
    if rollable:
        covered: dict[int, int] = {}
        for position, row in enumerate(rows, start=1):
            if row.lo is None:
                continue
            for value in range(row.lo, row.hi + 1):  # type: ignore[operator]
                if value in covered:
                    raise _Problem(
                        N_("row {position}: roll {value} is already on row {other}"),
                        position=position,
                        value=value,
                        other=covered[value],
                    )
                covered[value] = position
        gaps = [value for value in range(ROLL_LO, ROLL_HI + 1) if value not in covered]
        if gaps:
            raise _Problem(N_("rolls {values} land on no row"), values=", ".join(map(str, gaps)))
    return tuple(rows)


def _cell(value: Any, position: int, column: str) -> Cell:
    """A row's text for `column`: non-empty text, or `{ ja = ..., en = ... }` with both."""
    if isinstance(value, dict):
        if set(value) != {"ja", "en"} or not all(isinstance(v, str) and v.strip() for v in value.values()):
            raise _Problem(
                N_("row {position}: {column} in both languages must be {example}, not {value!r}"),
                position=position,
                column=column,
                example='{ ja = "...", en = "..." }',
                value=value,
            )
        return Both(value["ja"], value["en"])
    if not isinstance(value, str) or not value.strip():
        raise _Problem(
            N_("row {position}: {column} must be non-empty text, not {value!r}"),
            position=position,
            column=column,
            value=value,
        )
    return value


# --- finding and rolling ---


def find_reference(name: str, tables: Mapping[str, RefTable]) -> RefTable | None:
    """A table by key, name, English name or alias; else the one whose name contains it."""
    wanted = fold(name)
    if not wanted:
        return None
    for table in tables.values():
        if wanted in {fold(n) for n in (table.key, table.name, table.name_en, *table.aliases)}:
            return table
    partial = [t for t in tables.values() if wanted in fold(t.name) or wanted in fold(t.name_en)]
    return partial[0] if len(partial) == 1 else None


def reference_purpose(table: RefTable) -> Words:
    """How a dice request for this table reads, in words the catalog translates."""
    if table.command in REFERENCE_PURPOSES:
        return Words(REFERENCE_PURPOSES[table.command])
    return Words(N_("the {command} table"), command=table.command or table.key)


def roll_reference(table: RefTable, source: DiceSource) -> RefRoll:
    """Roll 3d6 on a rollable table: the row whose `roll` range holds the total."""
    if not table.rollable:
        raise ValueError(f"{table.key} cannot be rolled on")
    from campaign.core.dice_source import roll_dice

    dice = roll_dice(source, 3, 6, reference_purpose(table))
    total = sum(dice)
    return RefRoll(table=table, dice=dice, total=total, row=table.row_for(total))

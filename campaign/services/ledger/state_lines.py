"""The state lines of an export file, derived from the declarative table list.

Why derived: the state tables are declared once (campaign.db.state_mapping.TABLES,
each against its row model in campaign.projection.state); export and import read that
declaration instead of naming every column a second time. A new field on a row model
(with its default, for files written before it) is written by `export` and read back by
`import` with no change here.

What this module keeps is only what the file format itself fixed in version 1: each
line's type, the name its key goes by, a field spelled differently in the file
(`missing_since_seq`), the order version 1 wrote its fields in (all required on
import) and the sheet fields left out while empty. Fields a row model gained later
follow in the model's order and take its default when a file lacks them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from campaign.db.state_mapping import BY_SECTION, Table
from campaign.projection.state import State


@dataclass(frozen=True)
class Line:
    """How one State section is spelled as lines of the export file."""

    type: str  # the line's "type"
    section: str  # the State section (and state_mapping table) it holds
    key: str  # the name the row's key goes by in the file
    version_1: tuple[str, ...]  # the fields version 1 wrote, in its order (file names); required on import
    renamed: Mapping[str, str] = field(default_factory=dict)  # row field -> its name in the file
    omit_empty: tuple[str, ...] = ()  # left out of the line while empty (the files before them stay as they were)
    # what a file older than a field reads as, when that is not the row model's own default
    older: Mapping[str, Callable[[dict[str, Any]], Any]] = field(default_factory=dict)


def _unlimited_cp(item: dict[str, Any]) -> Any:
    """Files from before unlimited_cp: a fright trait's CP was all outside the limit
    (docs/rules.md "Fright check")."""
    return 0 if item["counts_toward_limit"] else item["cp"]


_SINCE = {"since_seq": "missing_since_seq"}

# Parents before children, as import resolves each reference in one pass.
LINES: tuple[Line, ...] = (
    Line("player", "players", "name", ("name",)),
    Line(
        "character",
        "characters",
        "name",
        ("name", "kind", "player", "summoner", "stats", "cp_total", "pools"),
        omit_empty=("skills", "notes", "items", "reading"),
    ),
    Line(
        "trait",
        "traits",
        "origin",
        ("character", "name", "category", "cp", "counts_toward_limit", "origin", "source_seq", "removed_seq"),
        older={"unlimited_cp": _unlimited_cp},
    ),
    Line(
        "condition",
        "conditions",
        "origin",
        ("character", "name", "duration", "detail", "origin", "source_seq", "cleared_seq"),
    ),
    Line(
        "scenario",
        "scenarios",
        "number",
        ("number", "title", "started_seq", "ended_seq", "started_at", "ended_at", "participants"),
    ),
    Line(
        "disappearance",
        "disappearances",
        "since_seq",
        ("character", "faces", "reason", "since_seq", "since_at", "since_scenario", "reunited_seq"),
    ),
    Line(
        "search",
        "searches",
        "started_seq",
        ("missing_since_seq", "searcher", "player", "started_seq", "scenario", "ended_seq"),
        renamed=_SINCE,
    ),
    Line(
        "reunion_check",
        "reunions",
        "seq",
        ("missing_since_seq", "scenario", "seq", "roll", "threshold", "success"),
        renamed=_SINCE,
    ),
)
BY_TYPE = {line.type: line for line in LINES}


def line_fields(line: Line, key: Any, row: Any, table: Table | None = None) -> dict[str, Any]:
    """One row as the fields of its line (without "type"), in the file's order."""
    table = table or BY_SECTION[line.section]
    values = {line.key: key}
    for each in fields(table.row) if table.row is not None else ():
        file_name, value = line.renamed.get(each.name, each.name), getattr(row, each.name)
        if file_name in line.omit_empty and not value:
            continue
        values[file_name] = value
    order = {name: index for index, name in enumerate(line.version_1)}  # stable: later fields keep model order
    return dict(sorted(values.items(), key=lambda item: order.get(item[0], len(order))))


def state_lines(state: State, tables: Mapping[str, Table] = BY_SECTION) -> Iterator[tuple[str, dict[str, Any]]]:
    """(line type, fields) for every row of the state's sections, parents first.

    Summoners come before the characters they summon, so import resolves every
    reference in one pass. Relationships, a table of pairs rather than rows (as in
    state_mapping), follow the characters."""
    for line in LINES:
        table = tables[line.section]
        rows = list(getattr(state, line.section).items())
        if line.section == "characters":
            rows.sort(key=lambda pair: pair[1].summoner is not None)
        elif line.section == "scenarios":
            rows.sort(key=lambda pair: pair[0])
        for key, row in rows:
            yield line.type, line_fields(line, key, row, table)
        if line.section == "characters":
            for (a, b), note in state.relationships.items():
                yield "relationship", {"from": a, "to": b, "note": note}


def claim(state: State, line: Line, item: dict[str, Any], table: Table | None = None) -> None:
    """Put the row a line claims into `state`: a field version 1 wrote must be there
    (KeyError names it); a later one takes its default when an older file lacks it."""
    table = table or BY_SECTION[line.section]
    key = item[line.key]
    section = getattr(state, line.section)
    if table.row is None:
        section[key] = None
        return
    values: dict[str, Any] = {}
    for each in fields(table.row):
        file_name = line.renamed.get(each.name, each.name)
        if file_name in item:
            values[each.name] = item[file_name]
        elif file_name in line.version_1:
            raise KeyError(file_name)
        elif file_name in line.older:
            values[each.name] = line.older[file_name](item)
        elif each.default is dataclasses.MISSING and each.default_factory is dataclasses.MISSING:
            raise KeyError(file_name)  # a new field without a default: every file must carry it
    section[key] = table.row(**values)

"""Rendering: one JSON document, CSV, or a Rich table, from the same rows.

Data goes to stdout, messages to stderr. Rich is imported only for human output, so
`--json` pipelines don't pay for it.
"""

from __future__ import annotations

import csv
import json
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer

from campaign.core.text_rule import spreadsheet_safe, visible, visible_in_json

if TYPE_CHECKING:
    from rich.console import Console, JustifyMethod
    from rich.progress import Progress as RichProgress
    from rich.progress import TaskID
    from rich.text import Text


def _json_is_neutral(value: bool) -> bool:
    """--json: the document is codes, and the few words in it (a sub-roll's reason) are
    English whatever the language of the terminal (campaign.i18n), so a program reads the
    same document for every player."""
    if value:
        from campaign import i18n

        i18n.use("en")
    return value


JsonOption = Annotated[
    bool, typer.Option("--json", callback=_json_is_neutral, help="Print one JSON document instead of a table.")
]
CsvOption = Annotated[bool, typer.Option("--csv", help="Print CSV (one row per line) instead of a table.")]
BomOption = Annotated[
    bool,
    typer.Option(
        "--bom",
        help="With --csv: start with a UTF-8 byte order mark, so Excel on Japanese Windows "
        "reads the file as UTF-8 (or set CAMPAIGN_CSV_BOM=1).",
    ),
]


def csv_bom(bom: bool = False) -> bool:
    """--bom on this command, or the setting CAMPAIGN_CSV_BOM=1 (yes/true/on)."""
    return bom or os.environ.get("CAMPAIGN_CSV_BOM", "").strip().lower() in ("1", "yes", "true", "on")


DiceOption = Annotated[
    str | None, typer.Option("--dice", help="Physical dice faces in the order they came up, e.g. 3,5,6.")
]
# The ledger's time filters (history, stats), read in the campaign's zone (services.ledger.history.parse_when).
SinceOption = Annotated[
    str | None, typer.Option("--since", help="From this date (YYYY-MM-DD) or ISO time, in the campaign's timezone.")
]
UntilOption = Annotated[
    str | None, typer.Option("--until", help="Up to this date (inclusive) or ISO time, in the campaign's timezone.")
]


def safe_text(value: Any, *, keep_lines: bool = True) -> str:
    """User text made harmless for a terminal (core.text_rule.visible): every unsafe
    character shown as an escape (\\x1b, \\u2028), so it is visible rather than obeyed.
    Tabs and newlines stay unless the text must be one line (messages, errors)."""
    return visible("" if value is None else str(value), keep_lines=keep_lines)


def safe_line(value: Any) -> str:
    return safe_text(value, keep_lines=False)


def emit_json(value: Any) -> None:
    """A service's result (a dataclass, or plain JSON values holding some) as one document,
    through the one conversion every result shares (services.results.as_json).

    JSON escapes C0 itself; C1, DEL, bidi controls and U+2028/2029 are escaped here as well
    (core.text_rule.visible_in_json)."""
    from campaign.services.results import as_json

    document = json.dumps(as_json(value), ensure_ascii=False, indent=None)
    document = visible_in_json(document)
    sys.stdout.write(document + "\n")


def _console(stderr: bool = False) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=False)


def say(message: str) -> None:
    """One line of a command's result ("added PC 鈴音", "voided #9") to stdout, so
    `campaign award 3 ... > session.log` logs it; never hard-wrapped: a result line is
    one line however narrow the terminal or log it goes to. Diagnostics use `warn`."""
    _line(message, sys.stdout)


def warn(message: str) -> None:
    """One line that is not the result (a warning, a note, a question's preamble) to
    stderr, so a pipe or a redirect of stdout carries the results alone."""
    _line(message, sys.stderr)


def _line(message: str, stream: TextIO) -> None:
    message = safe_line(message)
    if not stream.isatty():  # a pipe or a log: the line as it is, without loading Rich
        stream.write(message + "\n")
        return
    _console(stderr=stream is sys.stderr).print(message, markup=False, soft_wrap=True)


def print_text(message: str, style: str | None = None) -> None:
    message = safe_text(message)
    if style is None and not sys.stdout.isatty():  # piped: plain text, unwrapped, without Rich
        sys.stdout.write(message + "\n")
        return
    _console().print(message, style=style, markup=False)


def print_table(title: str | None, columns: Sequence[Any], rows: Iterable[Sequence[Any]]) -> None:
    """A Rich table fitted to the terminal: long cells wrap (or fold, for Japanese) onto
    more lines instead of being cut; columns marked `keep` (Column) are never broken,
    and headers are not folded mid-word. When even that does not fit in a box, the
    table drops its vertical rules (they cost three columns per column)."""
    from dataclasses import replace

    from rich import box
    from rich.cells import cell_len
    from rich.table import Table

    from campaign.i18n import _

    specs = [replace(spec, header=_(spec.header)) if spec.header else spec for spec in map(_column, columns)]
    cells = [[_plain(cell) for cell in row] for row in rows]
    minima = []
    for index, spec in enumerate(specs):
        header = cell_len(spec.header)
        if spec.keep:  # as wide as its widest cell, so the other columns give way
            minima.append(max([cell_len(row[index].plain) for row in cells if index < len(row)] + [header]))
        elif spec.words:  # as wide as its widest word: "2026-12-01" stays whole, the time wraps below
            minima.append(
                max(
                    [cell_len(word) for row in cells if index < len(row) for word in row[index].plain.split()]
                    + [min(header, 12)]
                )
            )
        else:
            minima.append(min(header, 12))
    console = _console()
    boxed = sum(minima) + 3 * len(specs) + 1 <= console.width
    rules: dict[str, Any] = {} if boxed else {"box": box.SIMPLE_HEAD, "show_edge": False, "pad_edge": False}
    table = Table(title=None if title is None else _plain(title), title_justify="left", header_style="bold", **rules)
    for spec, minimum in zip(specs, minima):
        if spec.keep:
            table.add_column(spec.header, no_wrap=True, min_width=minimum, justify=spec.justify)
        else:
            table.add_column(spec.header, overflow="fold", min_width=minimum, justify=spec.justify)
    for row in cells:
        table.add_row(*row)
    console.print(table)


def _plain(value: Any) -> Text:
    """User text is never Rich markup: a trait category "[phobia]" must print as typed."""
    from rich.text import Text

    return Text(safe_text(value))


def csv_cell(value: Any) -> Any:
    """A cell a spreadsheet shows as data and never runs (core.text_rule.spreadsheet_safe:
    text starting with = + - @, or a tab / carriage return hiding one, gets a leading
    apostrophe; plain numbers such as "-10" are left alone)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        return value
    return spreadsheet_safe(safe_text(value))


def print_csv(columns: Sequence[str], rows: Iterable[Sequence[Any]], *, bom: bool = False) -> None:
    if csv_bom(bom):
        sys.stdout.write("\ufeff")
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow([csv_cell(column) for column in columns])
    for row in rows:
        writer.writerow([csv_cell(cell) for cell in row])


def print_fields(title: str, fields: Sequence[tuple[str, Any]]) -> None:
    from rich.table import Table

    table = Table(title=_plain(title), title_justify="left", show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")  # long values wrap at spaces, Japanese folds: nothing is cut
    for key, value in fields:
        table.add_row(_plain(key), _plain(value))
    _console().print(table)


# --- One way to print a listing ----------------------------------------------------------
# Every listing command resolves --json / --csv into one format, then hands its rows to
# render_rows (sqlite-utils' output_rows is the model): the same rows become a Rich table
# on a terminal, CSV for a spreadsheet, or one JSON document for a program.

TABLE, JSON, CSV = "table", "json", "csv"


def output_format(json_out: bool = False, csv_out: bool = False) -> str:
    """The format a listing prints in; --json and --csv together is malformed input."""
    if json_out and csv_out:
        from campaign.errors import BadInput

        raise BadInput("--json and --csv: choose one output format")
    return JSON if json_out else CSV if csv_out else TABLE


@dataclass(frozen=True)
class Column:
    """A table column. `keep` marks text that must stay whole on screen (a name: cutting
    "百鬼夜翔・スペシャルファンブル表" in the middle makes a different word), so the
    other columns wrap first; any other column folds long text onto more lines instead of
    ending it with "…" (Japanese has no spaces to wrap at)."""

    header: str
    keep: bool = False
    justify: JustifyMethod = "left"
    words: bool = False  # may wrap only between words (a date and its time), never inside one


def _column(spec: str | Column) -> Column:
    return spec if isinstance(spec, Column) else Column(spec)


def render_rows(
    title: str | None,
    columns: Sequence[str | Column],
    rows: Iterable[Sequence[Any]],
    fmt: str,
    *,
    records: Any = None,
    empty: str | None = None,
    bom: bool = False,
) -> None:
    """Print a listing in `fmt` (see output_format).

    json: `records` (the service's own values: a result dataclass, a list of them, or an
    iterator of record-shaped dicts, so field names stay stable) or, without
    them, one object per row keyed by the column headers; an iterator is streamed as a
    JSON array in constant memory. csv: a header line (after a byte order mark with
    `bom`, see csv_bom), then the rows. table: a Rich table
    whose columns wrap to the terminal; with no rows, the one line `empty` instead of an
    empty box (on stdout: "nothing" is the listing's result)."""
    headers = [_column(c).header for c in columns]
    if fmt == JSON:
        if records is None:
            records = [dict(zip(headers, row)) for row in rows]
        from dataclasses import is_dataclass

        if isinstance(records, (list, dict, tuple)) or is_dataclass(records):
            emit_json(records)
        else:
            stream_json(records)
        return
    if fmt == CSV:
        print_csv(headers, rows, bom=bom)
        return
    iterator = iter(rows)
    first = next(iterator, None)
    if first is None:
        if empty is not None:
            say(empty)
        elif title is not None:
            say(f"{title}: none")
        return
    print_table(title, columns, _prepend(first, iterator))


def _prepend(first: Sequence[Any], rest: Iterator[Sequence[Any]]) -> Iterator[Sequence[Any]]:
    yield first
    yield from rest


def stream_json(items: Iterable[Any]) -> None:
    """A JSON array written item by item: constant memory however long the listing.
    Escapes like emit_json. Items are plain JSON values (the record-shaped history rows:
    the hot path, passed as they are) or result dataclasses (as_json)."""
    from dataclasses import is_dataclass

    from campaign.services.results import as_json

    encode = json.JSONEncoder(ensure_ascii=False).encode  # one encoder, not one per item
    out = sys.stdout
    out.write("[")
    for index, item in enumerate(items):
        if index:
            out.write(",\n")
        if is_dataclass(item):
            item = as_json(item)
        out.write(visible_in_json(encode(item)))
    out.write("]\n")


# --- Times --------------------------------------------------------------------------------
# The ledger keeps UTC ISO 8601 (and JSON output shows it as stored); people read local
# time with the year. The zone is the campaign's `timezone` setting, else the system's.


def local_time(at: str | None, zone: str | None, *, seconds: bool = False) -> str:
    """'2026-11-29T18:52:31.964013Z' -> '2026-11-30 03:52' in zone "Asia/Tokyo" (None: the
    system's zone): the one formatter every table and key/value view uses for ledger times.
    The zone is an argument, never module state: the shell and the tests run several
    commands (and campaigns) in one process, and each shows its own (AppState.time_zone)."""
    if not at:
        return ""
    from datetime import datetime

    try:
        moment = datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError:
        return at  # not ours to reinterpret: shown as stored
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if zone is not None:
        from zoneinfo import ZoneInfo

        moment = moment.astimezone(ZoneInfo(zone))
    else:
        moment = moment.astimezone()
    return moment.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


# --- Progress ------------------------------------------------------------------------------


class Progress:
    """Progress of long work (verify, export, import) on a terminal; silent when piped.

    Call it (or .advance) with the number of items just done; updates are batched, Rich
    is told every `every` items. Two shapes: Progress.counter("importing") shows a running
    count at once (the total is unknown while streaming); Progress.bar("verifying",
    min_total=10_000) waits for .start(total) and draws a bar only for work long
    enough to be worth the screen."""

    def __init__(self, label: str, *, unit: str = "lines", min_total: int = 0, every: int = 2000) -> None:
        self._label, self._unit, self._min_total, self._every = label, unit, min_total, every
        self._bar: RichProgress | None = None
        self._task: TaskID  # set with the bar (_open)
        self._pending = 0

    @classmethod
    def counter(cls, label: str, unit: str = "lines") -> Progress:
        progress = cls(label, unit=unit)
        progress._open(None)
        return progress

    @classmethod
    def bar(cls, label: str, *, min_total: int = 0, every: int = 5000) -> Progress:
        return cls(label, min_total=min_total, every=every)

    def start(self, total: int) -> None:
        """The total is known (verify counts first): open a bar if it is worth it."""
        if self._bar is None and total > self._min_total:
            self._open(total)

    def _open(self, total: int | None) -> None:
        if not sys.stderr.isatty():
            return
        from rich.progress import Progress as RichProgress
        from rich.progress import SpinnerColumn, TextColumn

        if total is None:
            columns = (SpinnerColumn(), TextColumn("{task.description} {task.completed} " + self._unit))
            self._bar = RichProgress(*columns, transient=True)
        else:
            self._bar = RichProgress(transient=True)
        self._task = self._bar.add_task(self._label, total=total)
        self._bar.start()

    def advance(self, n: int = 1) -> None:
        if self._bar is not None:
            self._pending += n
            if self._pending >= self._every:
                self._bar.advance(self._task, self._pending)
                self._pending = 0

    __call__ = advance

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    stop = close

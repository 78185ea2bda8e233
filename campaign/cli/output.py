"""Rendering: one JSON document, CSV, or a Rich table, from the same rows.

Data goes to stdout, messages to stderr. Rich is imported only for human output, so
`--json` pipelines don't pay for it.
"""

from __future__ import annotations

import csv
import json
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any

import typer

JsonOption = typer.Option(False, "--json", help="Print one JSON document instead of a table.")
CsvOption = typer.Option(False, "--csv", help="Print CSV (one row per line) instead of a table.")
_bom_wanted = False  # set by --bom, reset by the root callback at every invocation


def reset() -> None:
    global _bom_wanted
    _bom_wanted = False


def _want_bom(value: bool) -> bool:
    global _bom_wanted
    _bom_wanted = _bom_wanted or bool(value)
    return value


BomOption = typer.Option(False, "--bom", callback=_want_bom,
                         help="With --csv: start with a UTF-8 byte order mark, so Excel on Japanese Windows "
                              "reads the file as UTF-8 (or set CAMPAIGN_CSV_BOM=1).")


def csv_bom() -> bool:
    """--bom on this command, or the setting CAMPAIGN_CSV_BOM=1 (yes/true/on)."""
    return _bom_wanted or os.environ.get("CAMPAIGN_CSV_BOM", "").strip().lower() in ("1", "yes", "true", "on")


DiceOption = typer.Option(None, "--dice", help="Physical dice faces in the order they came up, e.g. 3,5,6.")


def emit_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=None) + "\n")


def _console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=False)


def say(message: str) -> None:
    """A human message to stderr (never mixed into data on stdout), never hard-wrapped:
    a message is one line however narrow the terminal or log it goes to."""
    if not sys.stderr.isatty():  # a pipe or a log: the line as it is, without loading Rich
        sys.stderr.write(message + "\n")
        return
    _console(stderr=True).print(message, markup=False, soft_wrap=True)


def print_text(message: str, style: str | None = None) -> None:
    if style is None and not sys.stdout.isatty():  # piped: plain text, unwrapped, without Rich
        sys.stdout.write(message + "\n")
        return
    _console().print(message, style=style, markup=False)


def print_table(title: str | None, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    from rich.table import Table

    table = Table(title=title, title_justify="left", header_style="bold")
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*(_plain(cell) for cell in row))
    _console().print(table)


def _plain(value: Any):
    """User text is never Rich markup: a trait category "[phobia]" must print as typed."""
    from rich.text import Text

    return Text("" if value is None else str(value))


def print_csv(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    if csv_bom():
        sys.stdout.write("\ufeff")
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if cell is None else cell for cell in row])


def print_fields(title: str, fields: Sequence[tuple[str, Any]]) -> None:
    from rich.table import Table

    table = Table(title=title, title_justify="left", show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    for key, value in fields:
        table.add_row(_plain(key), _plain(value))
    _console().print(table)

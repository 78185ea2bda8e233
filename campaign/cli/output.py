"""Rendering: one JSON document, CSV, or a Rich table, from the same rows.

Data goes to stdout, messages to stderr. Rich is imported only for human output, so
`--json` pipelines don't pay for it.
"""

from __future__ import annotations

import csv
import json
import os
import re
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


# What user text may not bring to a terminal: C0 controls and DEL (ESC starts the escape
# sequences that move the cursor, recolour, retitle the window), C1 controls (0x9B is a
# one-byte CSI on some terminals) and the bidi controls that reorder what is displayed.
# Names refuse all of these on input; older data, imports and reasons may still hold some.
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_UNSAFE = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f{_BIDI}]")
_UNSAFE_IN_LINES = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{_BIDI}]")  # tab, newline kept


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(value: Any, *, keep_lines: bool = True) -> str:
    """User text made harmless for a terminal: every unsafe character shown as an escape
    (\\x1b), so it is visible rather than obeyed. Tabs and newlines stay unless the text
    must be one line (messages, errors)."""
    text = "" if value is None else str(value)
    return (_UNSAFE_IN_LINES if keep_lines else _UNSAFE).sub(_escape, text)


def safe_line(value: Any) -> str:
    return safe_text(value, keep_lines=False)


def emit_json(value: Any) -> None:
    """JSON escapes C0 itself; C1, DEL and bidi controls are escaped here as well (inside a
    JSON document they can only occur in strings, where \\uXXXX means the same)."""
    document = json.dumps(value, ensure_ascii=False, indent=None)
    document = _UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", document)
    sys.stdout.write(document + "\n")


def _console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=False)


def say(message: str) -> None:
    """A human message to stderr (never mixed into data on stdout), never hard-wrapped:
    a message is one line however narrow the terminal or log it goes to."""
    message = safe_line(message)
    if not sys.stderr.isatty():  # a pipe or a log: the line as it is, without loading Rich
        sys.stderr.write(message + "\n")
        return
    _console(stderr=True).print(message, markup=False, soft_wrap=True)


def print_text(message: str, style: str | None = None) -> None:
    message = safe_text(message)
    if style is None and not sys.stdout.isatty():  # piped: plain text, unwrapped, without Rich
        sys.stdout.write(message + "\n")
        return
    _console().print(message, style=style, markup=False)


def print_table(title: str | None, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    from rich.table import Table

    table = Table(title=None if title is None else _plain(title), title_justify="left", header_style="bold")
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*(_plain(cell) for cell in row))
    _console().print(table)


def _plain(value: Any):
    """User text is never Rich markup: a trait category "[phobia]" must print as typed."""
    from rich.text import Text

    return Text(safe_text(value))


_NUMBER = re.compile(r"[+-]?\d+(\.\d+)?")


def csv_cell(value: Any) -> Any:
    """A cell a spreadsheet shows as data and never runs: text starting with = + - @ (or a
    tab / carriage return that hides one) is a formula to Excel, LibreOffice and Sheets,
    so it gets a leading apostrophe, their own "this is text" mark. Plain numbers
    ("-10", "+3") are left alone: they are not formulas."""
    if value is None:
        return ""
    if not isinstance(value, str):
        return value
    text = safe_text(value)
    if text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        if not _NUMBER.fullmatch(text):
            text = "'" + text
    return text


def print_csv(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    if csv_bom():
        sys.stdout.write("\ufeff")
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow([csv_cell(column) for column in columns])
    for row in rows:
        writer.writerow([csv_cell(cell) for cell in row])


def print_fields(title: str, fields: Sequence[tuple[str, Any]]) -> None:
    from rich.table import Table

    table = Table(title=_plain(title), title_justify="left", show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    for key, value in fields:
        table.add_row(_plain(key), _plain(value))
    _console().print(table)

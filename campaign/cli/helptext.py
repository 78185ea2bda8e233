"""How `--help` reads: paragraphs that reflow to the terminal, and plain value names.

Typer 0.29 renders help with Rich and keeps every line break of a docstring, so text
wrapped at 100 columns in the source comes out ragged at 80 ("... will do. A" / "hash
that ..."). It also labels every option with its Python type (`--json <bool>`, `--char
<str>`, `--stat <list[str]>`), which tells a GM nothing. Both are fixed here, once, for
every command (including the --help option Typer adds itself), rather than by a metavar
on each of a hundred options:

- a paragraph's single line breaks become spaces (a paragraph starting with Click's
  "\\b" marker, or whose lines are a list, keeps its lines);
- a flag shows no value placeholder; an option that takes a value shows a name for it
  in the argparse way (`--char CHAR`, `--limit N`); an explicit metavar still wins;
  an argument's name column already names it, so its type column stays empty.

If Typer's internals move, install() leaves Typer's own rendering in place (and
tests/cli/test_help.py fails, which is the point).
"""

from __future__ import annotations

import re
from typing import Any

_LIST_LINE = re.compile(r"\s*([-*•]|\d+[.)])\s")


def reflow(paragraphs: list[str], markup_mode: Any = None) -> str:
    """Paragraphs joined by blank lines, each one flowing as a single line of text."""
    flowed = []
    for paragraph in paragraphs:
        lines = paragraph.split("\n")
        if paragraph.startswith("\b") or any(_LIST_LINE.match(line) for line in lines[1:]):
            flowed.append(paragraph)
        else:
            flowed.append(" ".join(line.strip() for line in lines if line.strip()))
    return "\n\n".join(flowed)


def option_value_name(param: Any) -> str | None:
    """The placeholder after an option in help: None for a flag, else e.g. CHAR or N."""
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return None
    if param.metavar is not None:
        return param.metavar
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is not None and descriptor.is_choice:
        return "|".join(str(choice) for choice in descriptor.choices or ())
    annotation = getattr(descriptor, "annotation", None)
    leaf = getattr(annotation, "__args__", (annotation,))[0] if descriptor is not None and descriptor.is_list \
        else annotation
    if leaf is int:
        return "N"
    longest = max(param.opts, key=len).lstrip("-")
    return longest.replace("-", "_").upper() or None


def install() -> None:
    """Route Typer's help rendering through reflow() and option_value_name(). Idempotent."""
    try:
        from typer import rich_utils
        from typer.core import TyperArgument, TyperOption
    except ImportError:  # pragma: no cover - a Typer without Rich help
        return
    if getattr(rich_utils._fix_linebreaks, "_campaign", False):
        return
    reflow._campaign = True
    rich_utils._fix_linebreaks = reflow

    def option_type(self, ctx):
        return option_value_name(self)

    def argument_type(self, ctx):
        return None

    TyperOption.display_type_rich = option_type
    TyperArgument.display_type_rich = argument_type

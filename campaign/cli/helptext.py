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


def _patch_rich_help() -> None:
    """Swap Typer's paragraph joiner for reflow(); done on the first --help only, as
    typer.rich_utils loads Rich's console (which a roll or a --json listing never needs)."""
    from typer import rich_utils

    if not getattr(rich_utils._fix_linebreaks, "_campaign", False):
        reflow._campaign = True
        rich_utils._fix_linebreaks = reflow


def install() -> None:
    """Route Typer's help rendering through reflow() and option_value_name(). Idempotent,
    and cheap at start-up: nothing of Rich is imported until help is printed."""
    try:
        from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption
    except ImportError:  # pragma: no cover - a Typer without these classes
        return
    if getattr(TyperOption.display_type_rich, "_campaign", False):
        return

    def option_type(self, ctx):
        return option_value_name(self)

    def argument_type(self, ctx):
        return None

    option_type._campaign = True
    TyperOption.display_type_rich = option_type
    TyperArgument.display_type_rich = argument_type
    for cls in (TyperCommand, TyperGroup):
        original = cls.format_help

        def format_help(self, ctx, formatter, _original=original):
            _patch_rich_help()
            return _original(self, ctx, formatter)

        cls.format_help = format_help

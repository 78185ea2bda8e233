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

import inspect
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from campaign.i18n import N_, _

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
    metavar: str | None = param.metavar
    if metavar is not None:
        return metavar
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is not None and descriptor.is_choice:
        return "|".join(str(choice) for choice in descriptor.choices or ())
    annotation = getattr(descriptor, "annotation", None)
    leaf = (
        getattr(annotation, "__args__", (annotation,))[0]
        if descriptor is not None and descriptor.is_list
        else annotation
    )
    if leaf is int:
        return "N"
    longest = max(param.opts, key=len).lstrip("-")
    return longest.replace("-", "_").upper() or None


# Typer's own words around the help (its panels, the marks after an option).
TYPER_WORDS = {
    "ARGUMENTS_PANEL_TITLE": N_("Arguments"),
    "OPTIONS_PANEL_TITLE": N_("Options"),
    "COMMANDS_PANEL_TITLE": N_("Commands"),
    "REQUIRED_LONG_STRING": N_("[required]"),
    "DEFAULT_STRING": N_("[default: {}]"),
    "ENVVAR_STRING": N_("[env var: {}]"),
}
HELP_OPTION = N_("Show this message and exit.")
USAGE = N_("Usage: ")


def help_key(text: str) -> str:
    """A help text as the catalog knows it: dedented (a docstring's indentation is not
    part of the message), cut at Click's \\f."""
    return inspect.cleandoc(text).partition("\f")[0].strip()


def translated_help(text: str | None) -> str | None:
    """A command's or option's help in the language of this output (as written without a translation)."""
    if not text:
        return text
    key = help_key(text)
    shown = _(key)
    return text if shown == key else shown


def summary_key(text: str) -> str:
    """The first paragraph of a command's help, one line: what a list of commands shows
    (a message of its own, so the list reads translated before every full text is)."""
    return " ".join(help_key(text).split("\n\n")[0].split())


def translated_summary(text: str | None) -> str | None:
    """A listed command's help: its full translation, else its first paragraph's, else as written."""
    if not text:
        return text
    shown = translated_help(text)
    if shown is not text:
        return shown
    key = summary_key(text)
    summary = _(key)
    return text if summary == key else summary


@contextmanager
def _translated(command: Any, ctx: Any) -> Iterator[None]:
    """The command, its parameters and its subcommands with translated help while it prints."""
    from typer import rich_utils

    saved: list[tuple[Any, str, Any]] = []

    def swap(obj: Any, attribute: str, value: Any) -> None:
        saved.append((obj, attribute, getattr(obj, attribute)))
        setattr(obj, attribute, value)

    swap(command, "help", translated_help(command.help))
    for param in command.get_params(ctx):
        if getattr(param, "help", None):
            swap(param, "help", _(HELP_OPTION) if param.help == HELP_OPTION else translated_help(param.help))
    listed = (
        [command.get_command(ctx, name) for name in command.list_commands(ctx)]
        if hasattr(command, "list_commands")
        else []
    )
    for sub in [sub for sub in listed if sub is not None]:
        swap(sub, "help", translated_summary(sub.help))
        if sub.short_help:
            swap(sub, "short_help", translated_summary(sub.short_help))
    for name, english in TYPER_WORDS.items():
        swap(rich_utils, name, _(english))
    from typer._click.formatting import HelpFormatter

    write_usage = HelpFormatter.write_usage

    def usage(self: Any, prog: str, args: str = "", prefix: str | None = None) -> None:
        write_usage(self, prog, args, _(USAGE) if prefix is None else prefix)

    swap(HelpFormatter, "write_usage", usage)
    try:
        yield
    finally:
        for obj, attribute, value in reversed(saved):
            setattr(obj, attribute, value)


def _patch_rich_help() -> None:
    """Swap Typer's paragraph joiner for reflow(); done on the first --help only, as
    typer.rich_utils loads Rich's console (which a roll or a --json listing never needs)."""
    from typer import rich_utils

    if not getattr(rich_utils._fix_linebreaks, "_campaign", False):
        reflow._campaign = True  # type: ignore[attr-defined]  # a mark: patched once
        rich_utils._fix_linebreaks = reflow
    if not getattr(rich_utils._make_rich_text, "_campaign", False):
        make_text = rich_utils._make_rich_text

        def folding_text(**options: Any) -> Any:
            """Help text that breaks Japanese between characters (cli/help_wrap.py) and folds, never "…"."""
            from campaign.cli.help_wrap import breaking

            made = make_text(**options)
            if hasattr(made, "overflow"):
                made.overflow = "fold"
            return breaking(made)

        folding_text._campaign = True  # type: ignore[attr-defined]
        rich_utils._make_rich_text = folding_text


def install() -> None:
    """Route Typer's help rendering through reflow() and option_value_name(). Idempotent,
    and cheap at start-up: nothing of Rich is imported until help is printed."""
    try:
        from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption
    except ImportError:  # pragma: no cover - a Typer without these classes
        return
    if getattr(TyperOption.display_type_rich, "_campaign", False):
        return

    def option_type(self: TyperOption, ctx: Any) -> str | None:
        return option_value_name(self)

    def argument_type(self: TyperArgument, ctx: Any) -> str | None:
        return None

    # Patches of Typer's help rendering (its private API, so untyped for it): marked, set once.
    option_type._campaign = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = option_type  # type: ignore[method-assign]
    TyperArgument.display_type_rich = argument_type  # type: ignore[method-assign,assignment]
    for cls in (TyperCommand, TyperGroup):
        original = cls.format_help

        def format_help(
            self: Any, ctx: Any, formatter: Any, _original: Callable[[Any, Any, Any], None] = original
        ) -> None:
            _patch_rich_help()
            with _translated(self, ctx):
                return _original(self, ctx, formatter)

        cls.format_help = format_help  # type: ignore[method-assign]

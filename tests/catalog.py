"""The message catalog's tooling: what the code shows, extracted; the .po merged; the .mo compiled.

    .venv/bin/python -m tests.catalog        # extract, merge into campaign.po, compile campaign.mo

Messages come from three places (docs/i18n.md):
- `_("...")`, `N_("...")` and `ngettext("...", "...", n)` calls in campaign/ (Babel's
  Python extractor);
- every command's help and every option's help, as the CLI shows them (read from the
  built Click commands, so a docstring is a message without any marking);
- `_("...")` in the web templates (Babel's Jinja2 extractor).

The .po is the source: translations are written there; merging keeps every translation
whose message is still in the code and drops the rest (so no entry is unused). The
compiled .mo is committed next to it (the wheel ships it; tests/unit/test_catalog.py
fails when it is not the .po compiled). Babel is a test dependency only: the program
reads the .mo with the standard library's gettext.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "campaign" / "locale" / "ja" / "LC_MESSAGES" / "campaign.po"
MO = PO.with_suffix(".mo")
KEYWORDS = {"_": None, "N_": None, "Nn_": (1, 2), "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}


Key = tuple  # (context or None, msgid or (singular, plural))


def code_messages() -> dict[Key, str]:
    """Every marked message in campaign/*.py and the templates -> where it is first."""
    from babel.messages.extract import extract_from_dir

    found: dict[Key, str] = {}
    method_map = [("**.py", "python"), ("**/templates/**.html", "jinja2")]
    options = {"**/templates/**.html": {"extensions": "", "trimmed": "true"}}
    for filename, lineno, message, _comments, context in extract_from_dir(
        str(ROOT / "campaign"), method_map, options_map=options, keywords=KEYWORDS, comment_tags=()
    ):
        if not message:
            continue
        found.setdefault(
            (context, message if isinstance(message, str) else tuple(message)), f"campaign/{filename}:{lineno}"
        )
    return found


def help_messages() -> dict[Key, str]:
    """Every command's and option's help text as `--help` shows it -> the command path."""
    import typer.main

    from campaign.cli.app import COMMANDS, _load, app
    from campaign.cli.helptext import help_key, summary_key

    found: dict[Key, str] = {}

    def visit(command, path: str) -> None:
        if command.help:
            found.setdefault((None, help_key(command.help)), path)
        for param in command.params:
            text = getattr(param, "help", None)
            if text:
                found.setdefault((None, help_key(text)), f"{path} {param.opts[0] if param.opts else param.name}")
        for name, sub in getattr(command, "commands", {}).items():
            if sub.help and summary_key(sub.help) != help_key(sub.help):  # what the list of commands shows
                found.setdefault((None, summary_key(sub.help)), f"{path} {name}")
            visit(sub, f"{path} {name}")

    root = typer.main.get_command(app)
    visit_root = type("Root", (), {"help": root.help, "params": root.params, "commands": {}})
    visit(visit_root, "campaign")
    for name in COMMANDS:
        for loaded, command in _load(name).items():
            if command.help and summary_key(command.help) != help_key(command.help):
                found.setdefault((None, summary_key(command.help)), f"campaign {loaded}")
            visit(command, f"campaign {loaded}")
    return found


def all_messages() -> dict[Key, str]:
    return {**help_messages(), **code_messages()}


def read_po():
    from babel.messages.pofile import read_po

    with PO.open("rb") as handle:
        return read_po(handle, locale="ja", domain="campaign")


def compiled(catalog) -> bytes:
    from babel.messages.mofile import write_mo

    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def translated(message) -> bool:
    """A catalog Message has its Japanese (every plural form), and is not fuzzy."""
    strings = message.string if isinstance(message.string, (list, tuple)) else [message.string]
    return bool(strings) and all(strings) and not message.fuzzy


def update() -> tuple[int, int]:
    """Merge the code's messages into the .po (keeping translations), compile the .mo.
    Returns (messages, untranslated)."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    old = read_po() if PO.exists() else Catalog(locale="ja", domain="campaign")
    new = Catalog(locale="ja", domain="campaign", project="campaign", charset="utf-8")
    missing = 0
    for (context, message), where in sorted(all_messages().items(), key=lambda item: repr(item[0])):
        msgid = message if isinstance(message, str) else message[0]
        previous = old.get(msgid, context=context)
        blank = ("",) if isinstance(message, tuple) else ""
        translation = previous.string if previous is not None else blank
        file, _, line = where.partition(":")
        new.add(message, translation, locations=[(file, int(line) if line else None)], context=context)
        if not translated(new.get(msgid, context=context)):
            missing += 1
    PO.parent.mkdir(parents=True, exist_ok=True)
    with PO.open("wb") as handle:
        write_po(handle, new, width=0, sort_output=True, include_lineno=False)
    MO.write_bytes(compiled(read_po()))
    return len(new), missing


if __name__ == "__main__":
    total, untranslated = update()
    print(f"{PO.relative_to(ROOT)}: {total} messages, {untranslated} without a translation")
    sys.exit(0)

"""`campaign char import` / `char export`: whole sheets in the documented template
(docs/sheets.md), registered by campaign.cli.char."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from campaign.cli.context import state
from campaign.cli.output import JsonOption, emit_json, say
from campaign.errors import BadInput
from campaign.i18n import _

FILE_LIMIT = 5_000_000  # bytes: far above any party's sheets


def _read(file: str) -> str:
    try:
        if file == "-":
            data = sys.stdin.buffer.read(FILE_LIMIT + 1)
        else:
            with open(file, "rb") as handle:
                data = handle.read(FILE_LIMIT + 1)
    except OSError as exc:
        from campaign.labels import os_problem

        raise BadInput(_("cannot read {file}: {reason}").format(file=file, reason=os_problem(exc))) from None
    if len(data) > FILE_LIMIT:
        raise BadInput(_("{file} is larger than {limit} bytes").format(file=file, limit=FILE_LIMIT))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    # Excel's 「CSV (コンマ区切り)」 on a Japanese Windows writes Shift_JIS (CP932)
    from campaign.bridges.ccfolia_export import plausible_cp932

    try:
        text = data.decode("cp932")
    except UnicodeDecodeError:
        text = None
    if text is None or not plausible_cp932(text):
        raise BadInput(_("{file} is not text in UTF-8 or Shift_JIS (CP932)").format(file=file))
    return text


def char_import(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(help="The sheet file ('-' for stdin).")],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="csv or json (the template of docs/sheets.md), or ccfolia "
            "(ココフォリア piece JSON, one or a list or one per line).",
        ),
    ],
    player: Annotated[
        str | None, typer.Option("--player", "-p", help="The player of every PC the file does not name one for.")
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Check the file and show what would be created.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Create characters from a sheet file: stats, CP total, paid traits, skills, notes, items.

    Each character is one ledger entry (voidable). Unknown columns are refused by name.

    Example: campaign char import party.csv --format csv --player Aki --dry-run
    """
    from campaign.services.characters.sheet_transfer import import_sheets

    s = state(ctx)
    done = import_sheets(s.db, s.campaign, s.actor, _read(file), fmt, player=player, dry_run=dry_run)
    if json_out:
        emit_json(done)
        return
    for c in done.characters:
        if done.dry_run:
            line = _("would add {kind} {name}: {facts}")
        else:
            line = _("added {kind} {name}: {facts} (ledger #{seq})")
        say(line.format(kind=c.kind.upper(), name=c.name, facts=_sheet_facts(c), seq=c.seq))


def _sheet_facts(c: Any) -> str:
    """`CP 100、ST=10 HT=11、技能 3`: only what the sheet holds (no empty stats, no 0 skills)."""
    facts = [_("CP {cp}").format(cp=c.cp_total)]
    if c.stats:
        facts.append(" ".join(f"{k}={v}" for k, v in c.stats.items()))
    if c.skills:
        facts.append(_("{count} skills").format(count=c.skills))
    if c.traits:
        facts.append(_("{count} traits").format(count=c.traits))
    if c.noted_params:
        facts.append(_("params kept as notes: {names}").format(names=" ".join(c.noted_params)))
    if c.not_kept:
        facts.append(_("not kept: {what}").format(what=_(", ").join(_not_kept_words(code) for code in c.not_kept)))
    return _(", ").join(facts)


def _not_kept_words(code: str) -> str:
    """`status MP`, `palette 67`, `initiative 12` (services.characters.sheet_transfer) in words."""
    kind, _sep, value = code.partition(" ")
    if kind == "status":
        return _("status bar {label}").format(label=value)
    if kind == "palette":
        return _("{count} palette lines").format(count=value)
    return _("initiative {value}").format(value=value)


def write_sheets(ctx: typer.Context, fmt: str, names: list[str] | None) -> None:
    """`char export --format csv|json`: the sheets on stdout (campaign.cli.char has the command)."""
    from campaign.services.characters.sheet_transfer import export_sheets

    s = state(ctx)
    sys.stdout.write(export_sheets(s.db, s.campaign, fmt, names))

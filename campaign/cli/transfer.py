"""`campaign export` and `campaign import`: move a campaign between databases."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from campaign.cli.context import state
from campaign.cli.output import JsonOption, Progress, emit_json, say, warn
from campaign.errors import BadInput
from campaign.i18n import _, ngettext
from campaign.labels import os_problem as os_problem  # serve reads it from here too

if TYPE_CHECKING:
    from campaign.read_limits import TextFile


def _opened(name: str) -> TextFile:
    """A text file to import from (read lazily, line by line, within campaign.read_limits)."""
    from campaign.read_limits import TextFile

    try:
        return TextFile(open(Path(name).expanduser(), encoding="utf-8"), name)
    except OSError as exc:
        raise BadInput(_("cannot read {file}: {problem}").format(file=name, problem=os_problem(exc))) from None


def export(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(help="Where to write the JSON Lines file ('-' for stdout).")],
    secrets: Annotated[
        str | None,
        typer.Option(
            "--secrets",
            help="Also write secret rolls' hidden results to this "
            "separate GM-only file (the campaign file never has them).",
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Write the campaign (characters, state and the whole ledger) as JSON Lines, streaming.

    Secret rolls appear in it only as commitments; `--secrets FILE` writes their hidden
    results to a second file, which `import --secrets FILE` takes back.

    Example: campaign -c 'Night Parade' export night-parade.jsonl --secrets night-parade.secrets.jsonl
    """
    from campaign.safe_files import replacing, same_file, target_path
    from campaign.services.ledger.transfer import export_campaign

    s = state(ctx)
    # Every target is checked before anything is read, and replaced only once all are
    # written (campaign.safe_files): a refused or failed export leaves each file as it was.
    targets = [] if file == "-" else [target_path(file)]
    if secrets is not None:
        if secrets == "-" or (file != "-" and same_file(secrets, file)):
            raise BadInput(_("--secrets needs a file of its own (not '-', a directory or the export file)"))
        targets.append(target_path(secrets, "--secrets"))
    counter = Progress.counter(_("exporting"), _("lines"))
    try:
        # The whole campaign is in there: owner-only, like the database itself.
        with replacing(targets) as handles:
            out = sys.stdout if file == "-" else handles[0]
            secrets_out = handles[-1] if secrets is not None else None
            summary = export_campaign(s.db, s.campaign, out, counter, secrets_out)
    finally:
        counter.close()
    if summary.secrets and not summary.secrets_exported:
        warn(
            ngettext(
                "note: {n} secret roll's hidden result is not in the export; "
                "add --secrets FILE to keep it revealable after import",
                "note: {n} secret rolls' hidden results are not in the export; "
                "add --secrets FILE to keep them revealable after import",
                summary.secrets,
            ).format(n=summary.secrets)
        )
    if json_out:
        from campaign.services.results import as_json

        emit_json({**as_json(summary), "file": file})
    elif file != "-":
        say(
            ngettext(
                "exported {campaign} ({n} ledger entry) to {file}",
                "exported {campaign} ({n} ledger entries) to {file}",
                summary.entries,
            ).format(campaign=summary.campaign, n=summary.entries, file=file)
        )


def import_(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(help="A file written by `campaign export` ('-' for stdin).")],
    secrets: Annotated[
        str | None, typer.Option("--secrets", help="The secrets file written by `export --secrets`.")
    ] = None,
    as_name: Annotated[
        str | None,
        typer.Option(
            "--as-name",
            metavar="NEW",
            help="Give the campaign this name here (e.g. when the name is taken); its history keeps verifying.",
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Recreate an exported campaign in this database, re-verifying its chain; all or nothing.

    With --as-name the campaign is renamed on the way in. Its ledger entries are hashed
    with the name they were written under and keep it (new entries too), so `history
    verify`, proofs and a later export and import all still check.

    Example: campaign --db postgresql+psycopg://gm@server/group import night-parade.jsonl --as-name '夜行 (copy)'
    """
    from contextlib import ExitStack

    from campaign.read_limits import TextFile
    from campaign.services.ledger.transfer import import_campaign

    s = state(ctx)
    s.may_create = True
    counter = Progress.counter(_("importing"), _("lines"))
    with ExitStack() as files:
        hidden = None if secrets is None else files.enter_context(_opened(secrets))
        source = TextFile(sys.stdin, "stdin") if file == "-" else files.enter_context(_opened(file))
        try:
            summary = import_campaign(s.db, source, counter, hidden, as_name)
        finally:
            counter.close()
    if json_out:
        emit_json(summary)
    else:
        message = ngettext(
            "imported {campaign}: {n} ledger entry, chain verified",
            "imported {campaign}: {n} ledger entries, chain verified",
            summary.entries,
        )
        if summary.chain_name != summary.campaign:
            message = ngettext(
                "imported {campaign}: {n} ledger entry, chain verified (its entries keep the name {chain})",
                "imported {campaign}: {n} ledger entries, chain verified (its entries keep the name {chain})",
                summary.entries,
            )
        say(message.format(campaign=summary.campaign, n=summary.entries, chain=summary.chain_name))
        if summary.abandoned_seed is not None:  # services.fair.on_import: the file left a commitment open
            say(
                _(
                    "fair dice: the seed committed in the file is not in any export: abandoned (entry #{seq}); "
                    "its dice are unprovable, the next scenario start may commit a new seed"
                ).format(seq=summary.abandoned_seed)
            )

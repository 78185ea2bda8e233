"""`campaign db ...`: where the database is, its schema revision, upgrades, backups."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from campaign.cli.context import state
from campaign.cli.output import JsonOption, emit_json, print_text, say, warn
from campaign.i18n import _

app = typer.Typer(
    help="The database itself: path, schema revision, upgrade, backup.\n\n"
    "Example: campaign db backup before-session-12.db",
    no_args_is_help=True,
)


def _redacted(url: str) -> str:
    from campaign.db.engine import redacted_url

    return redacted_url(url)


@app.command("path")
def db_path(ctx: typer.Context, json_out: JsonOption = False) -> None:
    """Print where the database is (a file path, or the URL without its password).

    Example: campaign db path
    """
    from campaign.db.engine import resolve_url, sqlite_path

    s = state(ctx)
    url = resolve_url(s.db_option)
    path = sqlite_path(url)
    where = str(path) if path is not None else _redacted(url)
    emit_json({"path": where, "url": _redacted(url)}) if json_out else print_text(where)


@app.command("current")
def db_current(ctx: typer.Context, json_out: JsonOption = False) -> None:
    """Print the schema revision of the database and the newest this version knows, and
    report any missing ledger trigger as damage (one line each, exit 1).

    Example: campaign db current --json
    """
    from campaign.db.engine import make_engine, resolve_url
    from campaign.db.guards import missing_ledger_guards
    from campaign.db.migrate import HEAD_REVISION, current_revision

    s = state(ctx)
    engine = make_engine(resolve_url(s.db_option))
    try:
        revision = current_revision(engine)
        damage = missing_ledger_guards(engine, revision)
    finally:
        engine.dispose()
    info = {"current": revision, "head": HEAD_REVISION, "up_to_date": revision == HEAD_REVISION, "damage": damage}
    if json_out:
        emit_json(info)
    else:
        shown = revision or _("(blank)")
        print_text(
            (_("{revision} (head {head}, up to date)") if info["up_to_date"] else _("{revision} (head {head})")).format(
                revision=shown, head=HEAD_REVISION
            )
        )
        for line in damage:
            warn(_("damage: {line}").format(line=line))
    if damage:
        raise typer.Exit(1)


@app.command("check")
def db_check(ctx: typer.Context, json_out: JsonOption = False) -> None:
    """Report what the database holds that today's rules refuse: players, characters
    and BCDice-API tokens whose name reads as the GM's (GM, ＧＭ, gm), each with the
    command that renames it (one line each, exit 1).

    Example: campaign db check --json
    """
    from campaign.services.characters.names import reserved_names
    from campaign.services.results import as_json

    s = state(ctx)
    found = reserved_names(s.db)
    if json_out:
        emit_json({"ok": not found, "reserved_names": as_json(list(found))})
    elif not found:
        say(_("no problems found"))
    for item in [] if json_out else found:
        from campaign.services.common import what_label

        warn(
            _("{campaign}: {kind} {name!r} reads as the GM's name; rename it: {fix}").format(
                campaign=item.campaign, kind=what_label(item.kind), name=item.name, fix=item.fix
            )
        )
    if found:
        raise typer.Exit(1)


@app.command("upgrade")
def db_upgrade(
    ctx: typer.Context,
    json_out: JsonOption = False,
    rebuild: Annotated[
        bool,
        typer.Option(
            "--rebuild",
            help="Also rewrite every campaign's state as the "
            "replay of its ledger (after checking each chain): repairs a "
            "first-release database's upgrade that an older version left half done.",
        ),
    ] = False,
) -> None:
    """Bring the database to the newest schema (commands also do this on their own).

    Example: campaign db upgrade --rebuild
    """
    from campaign.db.migrate import HEAD_REVISION

    s = state(ctx)
    s.db  # noqa: B018 - opening migrates
    rebuilt = None
    if rebuild:
        from campaign.services.ledger.rebuild import rebuild_states

        rebuilt = rebuild_states(s.db).campaigns
    if json_out:
        emit_json({"current": HEAD_REVISION, **({"rebuilt": rebuilt} if rebuild else {})})
        return
    say(_("database at revision {revision}").format(revision=HEAD_REVISION))
    if rebuild:
        say(_("rebuilt the state of {n} campaign(s) from their ledgers").format(n=rebuilt))


@app.command("backup")
def db_backup(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="Where to write the copy.")],
    force: Annotated[bool, typer.Option("--force", help="Overwrite FILE if it exists.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Write a consistent copy of the SQLite database, safe while others are writing.

    The copy keeps this database's selected campaign (`use`), so commands on the copy
    (`campaign --db COPY history verify`) act on the same campaign.

    Example: campaign db backup ~/backups/campaign-2026-11-29.db
    """
    from campaign.db.backup import backup_sqlite, refuse_non_sqlite
    from campaign.db.engine import resolve_url, sqlite_path
    from campaign.errors import RuleRefused
    from campaign.safe_files import target_path
    from campaign.selection import select_campaign, selected_campaign

    s = state(ctx)
    db = s.db
    refuse_non_sqlite(db.dialect)
    target = target_path(file)  # a link, a FIFO or a device is refused, --force or not
    if target.exists() and not target.is_dir() and not force:
        raise RuleRefused(_("{target} exists; add --force to overwrite it").format(target=target))
    source = sqlite_path(db.url)
    assert source is not None  # refuse_non_sqlite above
    size = backup_sqlite(source, file)
    selected = selected_campaign(db.url)
    if selected is not None:
        select_campaign(resolve_url(str(target)), selected)
    emit_json({"backup": str(file), "bytes": size}) if json_out else say(
        _("backed up to {file} ({size} bytes)").format(file=file, size=size)
    )

"""`campaign group ...`: group mode on PostgreSQL (the GM's role, which the table server uses).

Run by the database owner. Players hold no database role (migration 0016): they join
with `campaign invite`; the commands that once managed players' roles now say so, and
`migrate-players` hands out the invites owed to players whose roles the upgrade removed.
SQLite databases are single-GM mode: these commands refuse.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from campaign.cli.context import AppState, state
from campaign.cli.output import (
    BomOption,
    CsvOption,
    JsonOption,
    emit_json,
    output_format,
    print_table,
    render_rows,
    say,
    warn,
)
from campaign.i18n import N_, _

app = typer.Typer(
    help="Group mode (PostgreSQL only): the GM's database role, which `campaign serve` signs in as; "
    "players join the server with `campaign invite`, never with a database role.\n\n"
    "Example: campaign group setup --db postgresql://owner@db.example/campaign",
    no_args_is_help=True,
)

ROLE_COLUMNS = [N_("role"), N_("player"), N_("url")]
DbOption = Annotated[str | None, typer.Option("--db", help="The database URL (same as the global --db).")]


def _state(ctx: typer.Context, db: str | None) -> AppState:
    s = state(ctx)
    if db is not None:
        s.db_option = db
    return s


def _show_invites(invites: Any) -> None:
    if invites:
        warn(_("invite links are shown once: send each to its player (their database roles are gone)"))
        print_table(
            None, [N_("player"), N_("link"), N_("expires")], [(i.player, i.join_path, i.expires) for i in invites]
        )


@app.command("setup")
def setup(ctx: typer.Context, db: DbOption = None, json_out: JsonOption = False) -> None:
    """Create the GM's login role (the one `campaign serve` uses) with a generated
    password (shown once) and grant it every table the server writes; players whose
    database roles an upgrade removed get their invite links here. Run it as the
    database owner; safe to run again (it only adds what is missing).

    Example: campaign group setup --db postgresql://owner@localhost/campaign --json
    """
    from campaign.services.campaigns.group import setup as setup_service

    s = _state(ctx, db)
    result = setup_service(s.db, s.campaign)
    if json_out:
        emit_json(result)
        return
    if result.roles:
        warn(_("the password is shown once: keep the URL for `campaign serve --db ...`"))
        print_table(None, ROLE_COLUMNS, [(r.role, r.player, r.url) for r in result.roles])
    else:
        say(_("the GM's role exists; grants refreshed"))
    _show_invites(result.invites)


@app.command("migrate-players")
def migrate_players(ctx: typer.Context, db: DbOption = None, json_out: JsonOption = False) -> None:
    """Give each player whose database role migration 0016 removed a one-time invite
    link to the table server (shown once; each player is given one only once).

    Example: campaign group migrate-players --json
    """
    from campaign.services.campaigns.group import migrate_players as migrate_service

    s = _state(ctx, db)
    result = migrate_service(s.db, s.campaign)
    if json_out:
        emit_json(result)
    elif not result.invites:
        say(_("no player is owed an invite"))
    else:
        _show_invites(result.invites)


@app.command("add-player")
def add_player(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Player name.")],
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Players have no database role any more: this says how to invite NAME instead
    (`campaign invite NAME`) and changes nothing.

    Example: campaign group add-player 葵
    """
    from campaign.errors import RuleRefused
    from campaign.services.campaigns.group import PLAYERS_HAVE_NO_ROLE, require_postgres

    require_postgres(_state(ctx, db).db)
    raise RuleRefused(PLAYERS_HAVE_NO_ROLE.format(name=name))


@app.command("status")
def status(
    ctx: typer.Context,
    db: DbOption = None,
    json_out: JsonOption = False,
    csv_out: CsvOption = False,
    bom: BomOption = False,
) -> None:
    """List the GM's role, whether it may log in and the tables it may write, as the
    database reports them; and the players still owed an invite.

    Example: campaign group status --json
    """
    from campaign.services.campaigns.group import status as status_service

    fmt = output_format(json_out, csv_out)
    s = _state(ctx, db)
    result = status_service(s.db, s.campaign)
    columns = [N_("role"), N_("player"), N_("kind"), N_("login"), N_("writes")]
    rows = [
        (
            r.role,
            r.player,
            r.kind,
            _("yes") if r.login else _("no"),
            " ".join(
                f"{table}:{'/'.join(p for p in privileges if p != 'SELECT')}"
                for table, privileges in r.rights.items()
                if set(privileges) - {"SELECT"}
            ),
        )
        for r in result.roles
    ]
    render_rows(None, columns, rows, fmt, bom=bom, records=result, empty=_("no roles yet: run `campaign group setup`"))
    if result.owed_invites and fmt == "table":
        warn(
            _("owed an invite (run `campaign group migrate-players`): {players}").format(
                players=_(", ").join(result.owed_invites)
            )
        )


@app.command("revoke")
def revoke(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="GM (players: `campaign invite revoke`).")],
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Take the GM's role's login and rights away (its entries keep their actor;
    `group reopen` opens it again with a new password). A player's seat is revoked
    with `campaign invite revoke NAME`.

    Example: campaign group revoke GM
    """
    from campaign.services.campaigns.group import revoke as revoke_service

    s = _state(ctx, db)
    result = revoke_service(s.db, s.campaign, name)
    emit_json(result) if json_out else say(
        _("revoked {role} ({player})").format(role=result.role, player=result.player)
    )


@app.command("reopen")
def reopen(ctx: typer.Context, db: DbOption = None, json_out: JsonOption = False) -> None:
    """Open the revoked GM's role again with a new password (shown once).

    Example: campaign group reopen --json
    """
    from campaign.services.campaigns.group import reopen as reopen_service

    s = _state(ctx, db)
    result = reopen_service(s.db, s.campaign)
    if json_out:
        emit_json(result)
    else:
        warn(_("the password is shown once"))
        print_table(None, ROLE_COLUMNS, [(r.role, r.player, r.url) for r in result.roles])

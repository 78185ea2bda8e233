"""`campaign group ...`: group mode on PostgreSQL (one login role per player, the GM's role).

Run by the database owner. SQLite databases are single-GM mode: these commands refuse.
"""

from __future__ import annotations

import typer

from campaign.cli.context import state
from campaign.cli.output import (
    BomOption, CsvOption, JsonOption, emit_json, output_format, print_table, render_rows, say, warn,
)

app = typer.Typer(help="Group mode (PostgreSQL only): every player signs in as their own database role, "
                             "and the database records who acted and enforces what each role may do.\n\n"
                             "Example: campaign group setup --db postgresql://owner@db.example/campaign",
                        no_args_is_help=True)

DbOption = typer.Option(None, "--db", help="The database URL (same as the global --db).")


def _state(ctx: typer.Context, db: str | None):
    s = state(ctx)
    if db is not None:
        s.db_option = db
    return s


def _show_issued(result, json_out: bool) -> None:
    if json_out:
        emit_json(result)
        return
    if not result.roles:
        say("every player already has a role; nothing to do")
        return
    warn("passwords are shown once: hand each URL to its player now")
    print_table(None, ["role", "player", "url"], [(r.role, r.player, r.url) for r in result.roles])


@app.command("setup")
def setup(ctx: typer.Context, db: str = DbOption, json_out: bool = JsonOption) -> None:
    """Create the GM's login role and one per player of the campaign, with generated
    passwords (shown once). Run it as the database owner; safe to run again (it only
    adds what is missing and refreshes the grants).

    Example: campaign group setup --db postgresql://owner@localhost/campaign --json
    """
    from campaign.services.group import setup as setup_service

    s = _state(ctx, db)
    _show_issued(setup_service(s.db, s.campaign), json_out)


@app.command("add-player")
def add_player(ctx: typer.Context, name: str = typer.Argument(..., help="Player name (added if new)."),
               db: str = DbOption, json_out: bool = JsonOption) -> None:
    """Give one player a login role (a new player is added to the campaign first; a
    revoked player's role is opened again with a new password).

    Example: campaign group add-player 葵
    """
    from campaign.services.group import add_player as add_service

    s = _state(ctx, db)
    _show_issued(add_service(s.db, s.campaign, name), json_out)


@app.command("status")
def status(ctx: typer.Context, db: str = DbOption, json_out: bool = JsonOption, csv_out: bool = CsvOption,
           bom: bool = BomOption) -> None:
    """List the campaign's roles, whether each may log in, and the tables each may
    write, as the database reports them.

    Example: campaign group status --json
    """
    from campaign.services.group import status as status_service

    fmt = output_format(json_out, csv_out)
    s = _state(ctx, db)
    result = status_service(s.db, s.campaign)
    columns = ["role", "player", "kind", "login", "writes"]
    rows = [(r.role, r.player, r.kind, "yes" if r.login else "no",
             " ".join(f"{table}:{'/'.join(p for p in privileges if p != 'SELECT')}"
                      for table, privileges in r.rights.items() if set(privileges) - {"SELECT"}))
            for r in result.roles]
    render_rows(None, columns, rows, fmt, bom=bom, records=result,
                empty="ロールはまだありません (no roles yet: run `campaign group setup`)")


@app.command("revoke")
def revoke(ctx: typer.Context, name: str = typer.Argument(..., help="Player name, or GM."),
           db: str = DbOption, json_out: bool = JsonOption) -> None:
    """Take a role's login and rights away (its entries keep their actor; `add-player`
    opens it again with a new password).

    Example: campaign group revoke Ren
    """
    from campaign.services.group import revoke as revoke_service

    s = _state(ctx, db)
    result = revoke_service(s.db, s.campaign, name)
    emit_json(result) if json_out else say(f"revoked {result.role} ({result.player})")

"""`campaign player ...`: the players of the campaign."""

from __future__ import annotations

from typing import Annotated

import typer

from campaign.cli.context import state
from campaign.cli.output import BomOption, Column, CsvOption, JsonOption, emit_json, output_format, render_rows, say
from campaign.i18n import N_, _

app = typer.Typer(help="Players of the campaign.\n\nExample: campaign player add Aki", no_args_is_help=True)


@app.command("add")
def player_add(
    ctx: typer.Context, name: Annotated[str, typer.Argument(help="Player name.")], json_out: JsonOption = False
) -> None:
    """Add a player.

    Example: campaign player add Aki
    """
    from campaign.services.characters.roster import add_player

    s = state(ctx)
    added = add_player(s.db, s.campaign, name, s.actor)
    emit_json(added) if json_out else say(_("added player {name}").format(name=added.name))


@app.command("list")
def player_list(
    ctx: typer.Context, json_out: JsonOption = False, csv_out: CsvOption = False, bom: BomOption = False
) -> None:
    """List players and their characters.

    Example: campaign player list --csv
    """
    from campaign.services.characters.roster import list_players

    fmt = output_format(json_out, csv_out)
    s = state(ctx)
    rows = list_players(s.db, s.campaign)
    table = [[r.name, ", ".join(r.characters)] for r in rows]
    render_rows(
        _("players"),
        [Column(N_("name"), keep=True), N_("characters")],
        table,
        fmt,
        bom=bom,
        records=rows,
        empty=_("no players"),
    )


@app.command("rename")
def player_rename(
    ctx: typer.Context,
    old: Annotated[str, typer.Argument(help="The player's present name.")],
    new: Annotated[str, typer.Argument(help="The new name.")],
    json_out: JsonOption = False,
) -> None:
    """Rename a player; history keeps the old name in the entries made before.

    Example: campaign player rename Aki Akiko
    """
    from campaign.services.characters.lifecycle import rename_player

    s = state(ctx)
    done = rename_player(s.db, s.campaign, old, new, s.actor)
    emit_json(done) if json_out else say(
        _("player {old} is now {new} (ledger #{seq})").format(old=done.from_, new=done.to, seq=done.seq)
    )

"""`campaign table ...`: list the seed roll tables and roll on one."""

from __future__ import annotations

from typing import Annotated

import typer

from campaign.cli.context import state
from campaign.cli.output import (
    BomOption,
    Column,
    CsvOption,
    DiceOption,
    JsonOption,
    emit_json,
    output_format,
    render_rows,
)
from campaign.cli.physical import PhysicalOption
from campaign.cli.presence import say_warnings
from campaign.errors import BadInput
from campaign.i18n import N_, _, pick

WEAPONS = ("crushing", "impaling", "other")

app = typer.Typer(
    help="The seed roll tables (criticals, fumbles, fright): list them, roll on one.\n\n"
    "Example: campaign table roll CRT",
    no_args_is_help=True,
)


@app.command("list")
def table_list(
    ctx: typer.Context, json_out: JsonOption = False, csv_out: CsvOption = False, bom: BomOption = False
) -> None:
    """List the roll tables: BCDice command, names, dice, range and number of entries.

    Example: campaign table list
    """
    from campaign.services.checks.tables import list_tables

    fmt = output_format(json_out, csv_out)
    rows = list_tables()
    if fmt != "table":  # a spreadsheet's columns: both names, whatever the language
        columns: list[str | Column] = [
            "command",
            Column("name", keep=True),
            "name_en",
            "dice",
            "range",
            Column("entries", justify="right"),
        ]
        table = [
            [
                r.command + ("+n" if r.modifiable else ""),
                r.name,
                r.name_en,
                r.dice,
                f"{r.range[0]}..{r.range[1]}",
                r.entries,
            ]
            for r in rows
        ]
    else:  # on screen, the table's name in the output's language
        columns = [
            N_("command"),
            Column(N_("name"), keep=True),
            N_("dice"),
            N_("range"),
            Column(N_("entries"), justify="right"),
        ]
        table = [
            [
                r.command + ("+n" if r.modifiable else ""),
                pick(r.name, r.name_en),
                r.dice,
                f"{r.range[0]}..{r.range[1]}",
                r.entries,
            ]
            for r in rows
        ]
    render_rows(_("roll tables"), columns, table, fmt, bom=bom, records=rows, empty=_("no tables"))


@app.command("roll")
def table_roll(
    ctx: typer.Context,
    name: Annotated[
        str,
        typer.Argument(
            help="BCDice command (CRT, FMB, HCRT, GFMB, YSCRT, YSFMB, YFMB, FEAR, FEAR+5) or the table's Japanese name."
        ),
    ],
    char: Annotated[str | None, typer.Option("--char", help="Character the roll is for (recorded).")] = None,
    mod: Annotated[
        int, typer.Option("--mod", help="Added to the roll (the fright table only), clamped to its range.")
    ] = 0,
    reason: Annotated[str | None, typer.Option("--reason", help="Why the roll is made.")] = None,
    gm_reroll: Annotated[
        bool | None,
        typer.Option(
            "--reroll/--no-reroll",
            help="The GM's choice where a table leaves a "
            "reroll to the GM (YFMB 14, YSFMB 13): --no-reroll declines it. Default: reroll "
            "(asked with --physical).",
        ),
    ] = None,
    weapon: Annotated[
        str | None,
        typer.Option(
            "--weapon",
            metavar="crushing|impaling|other",
            help="The weapon that fumbled (FMB): a solid crushing weapon rerolls a breakage, an "
            "impaling or missile weapon a hit on oneself; other: neither. Unstated: such "
            "rerolls are made and shown as conditional (asked with --physical).",
        ),
    ] = None,
    grenade: Annotated[
        bool | None,
        typer.Option(
            "--grenade/--no-grenade",
            help="The firearm was a grenade (GFMB: a jam is "
            "ignored and rerolled). Unstated: the reroll is made and shown as conditional "
            "(asked with --physical).",
        ),
    ] = None,
    dice: DiceOption = None,
    physical: PhysicalOption = False,
    json_out: JsonOption = False,
) -> None:
    """Roll 3d6 on a table and log it; extra rolls (roll twice, reroll) and the dice an entry
    names ("1d-3 turns") are rolled and logged too, as sub-entries.

    A table lookup changes no character: apply the result by hand or with other commands.
    A reroll the entry makes conditional (a grenade, a crushing weapon, the GM's choice)
    follows --grenade, --weapon, --reroll; with --physical it is asked when it comes up.

    Example: campaign table roll 百鬼夜翔・スペシャルファンブル表 --char 刀矢
    """
    from campaign.cli.physical import reroll_asker
    from campaign.cli.roll import render_roll
    from campaign.services.checks.tables import roll_table

    s = state(ctx)
    if weapon is not None and weapon not in WEAPONS:
        raise BadInput(_("--weapon {weapon!r}: say crushing, impaling or other").format(weapon=weapon))
    source = s.dice(dice, physical)
    entry = roll_table(
        s.db,
        s.campaign,
        s.actor,
        name,
        source,
        character=char,
        modifier=mod,
        reason=reason,
        ask=reroll_asker(source, weapon, grenade, gm_reroll),
    )
    say_warnings(entry)
    emit_json(entry) if json_out else render_roll(entry)

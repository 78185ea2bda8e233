"""`campaign table ...`: list the seed roll tables and roll on one."""

from __future__ import annotations


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


app = typer.Typer(help="The seed roll tables (criticals, fumbles, fright): list them, roll on one.\n\n"
                             "Example: campaign table roll CRT", no_args_is_help=True)


@app.command("list")
def table_list(ctx: typer.Context, json_out: bool = JsonOption,
               csv_out: bool = CsvOption, bom: bool = BomOption) -> None:
    """List the roll tables: BCDice command, names, dice, range and number of entries.

    Example: campaign table list
    """
    from campaign.services.tables import list_tables

    fmt = output_format(json_out, csv_out)
    rows = list_tables()
    columns = ["command", Column("name", keep=True), "name_en", "dice", "range", Column("entries", justify="right")]
    table = [[r["command"] + ("+n" if r["modifiable"] else ""), r["name"], r["name_en"], r["dice"],
              f"{r['range'][0]}..{r['range'][1]}", r["entries"]] for r in rows]
    render_rows("tables", columns, table, fmt, records=rows, empty="表はありません (no tables)")


@app.command("roll")
def table_roll(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="BCDice command (CRT, FMB, HCRT, GFMB, YSCRT, YSFMB, YFMB, FEAR, "
                                         "FEAR+5) or the table's Japanese name."),
    char: str = typer.Option(None, "--char", help="Character the roll is for (recorded)."),
    mod: int = typer.Option(0, "--mod", help="Added to the roll (the fright table only), clamped to its range."),
    reason: str = typer.Option(None, "--reason", help="Why the roll is made."),
    gm_reroll: bool = typer.Option(True, "--reroll/--no-reroll", help="The GM's choice where a table leaves a "
                                   "reroll to the GM (YFMB 14, YSFMB 13): --no-reroll declines it. Default: reroll."),
    dice: str = DiceOption,
    json_out: bool = JsonOption,
) -> None:
    """Roll 3d6 on a table and log it; extra rolls (roll twice, reroll) and the dice an entry
    names ("1d-3 turns") are rolled and logged too, as sub-entries.

    A table lookup changes no character: apply the result by hand or with other commands.

    Example: campaign table roll 百鬼夜翔・スペシャルファンブル表 --char 刀矢
    """
    from campaign.cli.roll import render_roll
    from campaign.services.tables import roll_table

    s = state(ctx)
    entry = roll_table(s.db, s.campaign, s.actor, name, s.dice(dice), character=char, modifier=mod, reason=reason,
                       gm_reroll=gm_reroll)
    emit_json(entry) if json_out else render_roll(entry)

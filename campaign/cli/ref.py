"""`campaign ref ...`: the reference tables (docs/rules.md "Reference tables") — modifiers,
hit location, target numbers.

Look-ups print aligned Rich tables (or --json / --csv) and write nothing; `ref show
命中部位 --roll` rolls on the hit location table and logs it like `table roll`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

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
    print_csv,
    print_text,
    render_rows,
)
from campaign.cli.physical import PhysicalOption
from campaign.cli.presence import say_warnings
from campaign.i18n import N_, _, pick

if TYPE_CHECKING:
    from campaign.services.checks.reference import ReferenceColumn, ReferenceShown

app = typer.Typer(
    help="Reference tables that change no state: combat modifiers and hit location, "
    "situation modifiers and object hardness, target numbers.\n\n"
    "Example: campaign ref show 姿勢表",
    no_args_is_help=True,
)


@app.command("list")
def ref_list(
    ctx: typer.Context, json_out: JsonOption = False, csv_out: CsvOption = False, bom: BomOption = False
) -> None:
    """List the reference tables: name, rows, and the command that rolls on one.

    Example: campaign ref list
    """
    from campaign.services.checks.reference import list_references

    fmt = output_format(json_out, csv_out)
    state(ctx).learn_language()
    rows = list_references()
    if fmt != "table":  # a spreadsheet's columns: both names and the seed, whatever the language
        columns: list[str | Column] = [Column("name", keep=True), "name_en", "seed", "rows", "roll"]
        table = [[r.name, r.name_en, r.origin, r.rows, r.command or ""] for r in rows]
    else:
        columns = [Column(N_("name"), keep=True), Column(N_("rows"), justify="right"), N_("roll with")]
        table = [[pick(r.name, r.name_en), r.rows, r.command or ""] for r in rows]
    render_rows(_("reference tables"), columns, table, fmt, bom=bom, records=rows, empty=_("no reference tables"))


def _header(column: ReferenceColumn) -> str:
    """A column's header in the output's language."""
    return pick(column.ja, column.en)


def render_reference(view: ReferenceShown) -> None:
    """A ReferenceShown (services.checks.reference) as a folded table."""
    from campaign.services.checks.reference import ReferenceColumn
    from campaign.table_labels import cell_text

    columns = [ReferenceColumn("roll", _("roll (3D6)"), _("roll (3D6)"))] if view.rollable else []
    columns += view.columns
    rows = []
    for row in view.data:
        cells = []
        for column in columns:
            if column.key == "roll":
                span = row["roll"]
                cells.append("" if span is None else (str(span[0]) if span[0] == span[1] else f"{span[0]}-{span[1]}"))
            else:
                cells.append(cell_text(row[column.key]))
        rows.append(cells)
    title = _("{name} ({source})").format(name=pick(view.name, view.name_en), source=view.source)
    _folded_table(title, [_header(c) for c in columns], rows)
    note = pick(view.note_ja or "", view.note_en or "")
    if note:
        print_text(note)


def _folded_table(title: str, columns: list[str], rows: list[list[str]]) -> None:
    """An aligned table whose long Japanese cells fold onto more lines instead of being cut
    (Japanese has no spaces to wrap at, and Rich's default would end them with "…")."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, title_justify="left", header_style="bold", show_lines=True)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    Console(highlight=False, soft_wrap=False).print(table)


@app.command("show")
def ref_show(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The table's name, English name or a short form (命中部位, 姿勢, HIT).")],
    roll: Annotated[
        bool, typer.Option("--roll", help="Roll 3d6 on a rollable table (hit location) and log it.")
    ] = False,
    char: Annotated[
        str | None, typer.Option("--char", help="With --roll: the character the roll is for (recorded).")
    ] = None,
    reason: Annotated[str | None, typer.Option("--reason", help="With --roll: why the roll is made.")] = None,
    dice: DiceOption = None,
    physical: PhysicalOption = False,
    json_out: JsonOption = False,
    csv_out: CsvOption = False,
    bom: BomOption = False,
) -> None:
    """Show a reference table; with --roll, roll on it (hit location) and record the roll.

    Example: campaign ref show 命中部位 --roll --char 刀矢 --dice 3,3,4
    """
    from campaign.errors import BadInput

    output_format(json_out, csv_out)  # refuses --json with --csv before anything else
    state(ctx).learn_language()
    if not roll:
        if char or reason or dice:
            raise BadInput(_("--char, --reason and --dice go with --roll"))
        from campaign.services.checks.reference import show_reference

        view = show_reference(name)
        if json_out:
            emit_json(view)
        elif csv_out:
            keys = (["roll"] if view.rollable else []) + [c.key for c in view.columns]
            print_csv(keys, ([_csv_cell(row.get(k)) for k in keys] for row in view.data), bom=bom)
        else:
            render_reference(view)
        return
    from campaign.cli.roll import render_roll
    from campaign.services.checks.reference import roll_reference_table

    s = state(ctx)
    entry = roll_reference_table(s.db, s.campaign, s.actor, name, s.dice(dice, physical), character=char, reason=reason)
    say_warnings(entry)
    emit_json(entry) if json_out else render_roll(entry)


def _csv_cell(value: Any) -> Any:
    """A CSV cell: a roll range as 3-4, a cell given in both languages in the output's."""
    from campaign.table_labels import cell_text

    if isinstance(value, dict):
        return cell_text(value)
    if isinstance(value, list):
        return "" if not value else (str(value[0]) if value[0] == value[1] else f"{value[0]}-{value[1]}")
    return "" if value is None else value

"""`campaign missing ...`: missing characters (docs/rules.md "Missing and reunion check"),
their reunion die and plot overrides."""

from __future__ import annotations

from typing import Annotated

import typer

from campaign.cli.context import state
from campaign.cli.output import (
    BomOption,
    Column,
    CsvOption,
    JsonOption,
    emit_json,
    output_format,
    print_text,
    render_rows,
    say,
)
from campaign.cli.physical import PhysicalOption

app = typer.Typer(
    help="Missing characters (行方不明): mark them, set their reunion die, list them.\n\n"
         "Example: campaign missing mark 鈴音 --reason '霧の中で'",
    no_args_is_help=True,
)


@app.command("mark")
def missing_mark(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The character that went missing.")],
    faces: Annotated[int, typer.Option("--faces", help="Faces of its reunion die (default 6).")] = 6,
    reason: Annotated[str | None, typer.Option("--reason", help="What happened, for the record.")] = None,
    json_out: JsonOption = False,
) -> None:
    """Mark a character missing; it is rolled for at the end of every scenario until it returns.

    Example: campaign missing mark 鈴音 --faces 8 --reason '異界に迷い込んだ'
    """
    from campaign.services.missing import mark_missing

    s = state(ctx)
    view = mark_missing(s.db, s.campaign, name, s.actor, faces=faces, reason=reason)
    if json_out:
        emit_json(view)
    else:
        say(f"{view.character} is missing: {view.odds} at each scenario end (ledger #{view.seq})")


@app.command("faces")
def missing_faces(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="A missing character.")],
    faces: Annotated[int, typer.Argument(help="New number of faces of its reunion die.")],
    json_out: JsonOption = False,
) -> None:
    """Change the reunion die of a missing character (the GM's call).

    Example: campaign missing faces 鈴音 10
    """
    from campaign.services.missing import set_faces

    s = state(ctx)
    view = set_faces(s.db, s.campaign, name, s.actor, faces)
    if json_out:
        emit_json(view)
    else:
        say(f"{view.character}: reunion die is now 1d{view.faces}, {view.odds} (ledger #{view.seq})")


@app.command("reunion")
def missing_reunion(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The missing character.")],
    scenario: Annotated[str | None, typer.Option("--scenario", help="Title or number of the ended scenario "
                                                          "(default: the last one that ended).")] = None,
    dice: Annotated[str | None, typer.Option("--dice", help="The physical die's face.")] = None,
    physical: PhysicalOption = False,
    json_out: JsonOption = False,
) -> None:
    """Roll a reunion check again for an ended scenario whose roll was voided.

    Example: campaign missing reunion 鈴音 --dice 2
    """
    from campaign.services.scenarios import roll_reunion_again

    s = state(ctx)
    rolled = roll_reunion_again(s.db, s.campaign, name, s.dice(dice, physical), scenario, actor=s.actor)
    if json_out:
        emit_json(rolled)
        return
    verdict = "reunited" if rolled.success else "still missing"
    if rolled.success and rolled.searchers:
        verdict += f"; {', '.join(rolled.searchers)} {'returns' if len(rolled.searchers) == 1 else 'return'}"
    print_text(f"{rolled.character} (scenario #{rolled.scenario}): {rolled.odds} → rolled "
               f"{rolled.roll}: {verdict} (ledger #{rolled.seq})")


@app.command("found")
def missing_found(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The missing character.")],
    reason: Annotated[str, typer.Option("--reason", help="How the story brings them back.")],
    json_out: JsonOption = False,
) -> None:
    """End a missing status for story reasons, at any time (its searchers return); voidable.

    Example: campaign missing found 鈴音 --reason '祠で眠っていた'
    """
    from campaign.services.missing import found_missing

    s = state(ctx)
    done = found_missing(s.db, s.campaign, name, s.actor, reason)
    if json_out:
        emit_json(done)
        return
    back = f"; {', '.join(done.searchers)} {'returns' if len(done.searchers) == 1 else 'return'}" \
        if done.searchers else ""
    say(f"{done.character} is found{back} (ledger #{done.seq})")


@app.command("list")
def missing_list(ctx: typer.Context, json_out: JsonOption = False,
                 csv_out: CsvOption = False, bom: BomOption = False) -> None:
    """List missing characters: reunion die, searchers, since when, and the current chance.

    Example: campaign missing list --json
    """
    from campaign.services.missing import list_missing

    fmt = output_format(json_out, csv_out)
    s = state(ctx)
    rows = list_missing(s.db, s.campaign)
    columns: list[str | Column] = [Column("character", keep=True), "player", "searchers", "since", "reunion"]
    table = [
        [r.character, r.player, ", ".join(x.name for x in r.searchers),
         f"#{r.since_seq}" + (f" (S{r.since_scenario})" if r.since_scenario else ""), r.odds]
        for r in rows
    ]
    render_rows("missing", columns, table, fmt, bom=bom, records=rows,
                empty="行方不明のキャラクターはいません (no missing characters)")

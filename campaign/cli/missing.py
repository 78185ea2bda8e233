"""`campaign missing ...`: missing characters (docs/rules.md "Missing and reunion check"),
their reunion die and plot overrides."""

from __future__ import annotations

from collections.abc import Sequence
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
from campaign.i18n import N_, _, ngettext
from campaign.labels import odds_label

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
    from campaign.services.scenarios.missing import mark_missing

    s = state(ctx)
    view = mark_missing(s.db, s.campaign, name, s.actor, faces=faces, reason=reason)
    if json_out:
        emit_json(view)
    else:
        say(
            _("{character} is missing: {odds} at each scenario end (ledger #{seq})").format(
                character=view.character, odds=odds_label(view.odds), seq=view.seq
            )
        )


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
    from campaign.services.scenarios.missing import set_faces

    s = state(ctx)
    view = set_faces(s.db, s.campaign, name, s.actor, faces)
    if json_out:
        emit_json(view)
    else:
        say(
            _("{character}: reunion die is now 1d{faces}, {odds} (ledger #{seq})").format(
                character=view.character, faces=view.faces, odds=odds_label(view.odds), seq=view.seq
            )
        )


@app.command("reunion")
def missing_reunion(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The missing character.")],
    scenario: Annotated[
        str | None,
        typer.Option("--scenario", help="Title or number of the ended scenario (default: the last one that ended)."),
    ] = None,
    dice: Annotated[str | None, typer.Option("--dice", help="The physical die's face.")] = None,
    physical: PhysicalOption = False,
    json_out: JsonOption = False,
) -> None:
    """Roll a reunion check again for an ended scenario whose roll was voided.

    Example: campaign missing reunion 鈴音 --dice 2
    """
    from campaign.services.scenarios.runs import roll_reunion_again

    s = state(ctx)
    rolled = roll_reunion_again(s.db, s.campaign, name, s.dice(dice, physical), scenario, actor=s.actor)
    if json_out:
        emit_json(rolled)
        return
    verdict = reunion_verdict(rolled.success, rolled.searchers)
    print_text(
        _("{character} (scenario #{scenario}): {odds} → rolled {roll}: {verdict} (ledger #{seq})").format(
            character=rolled.character,
            scenario=rolled.scenario,
            odds=odds_label(rolled.odds),
            roll=rolled.roll,
            verdict=verdict,
            seq=rolled.seq,
        )
    )


def reunion_verdict(success: bool, searchers: Sequence[str]) -> str:
    """ "reunited; 刀矢 returns" / "still missing", in the output's language."""
    if not success:
        return _("still missing")
    if not searchers:
        return _("reunited")
    return ngettext("reunited; {names} returns", "reunited; {names} return", len(searchers)).format(
        names=", ".join(searchers)
    )


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
    from campaign.services.scenarios.missing import found_missing

    s = state(ctx)
    done = found_missing(s.db, s.campaign, name, s.actor, reason)
    if json_out:
        emit_json(done)
        return
    if done.searchers:
        say(
            ngettext(
                "{character} is found; {names} returns (ledger #{seq})",
                "{character} is found; {names} return (ledger #{seq})",
                len(done.searchers),
            ).format(character=done.character, names=", ".join(done.searchers), seq=done.seq)
        )
    else:
        say(_("{character} is found (ledger #{seq})").format(character=done.character, seq=done.seq))


@app.command("list")
def missing_list(
    ctx: typer.Context, json_out: JsonOption = False, csv_out: CsvOption = False, bom: BomOption = False
) -> None:
    """List missing characters: reunion die, searchers, since when, and the current chance.

    Example: campaign missing list --json
    """
    from campaign.services.scenarios.missing import list_missing

    fmt = output_format(json_out, csv_out)
    s = state(ctx)
    rows = list_missing(s.db, s.campaign)
    headers = (N_("character"), N_("player"), N_("searchers"), N_("since"), N_("reunion"))  # messages (print_table)
    columns: list[str | Column] = [Column(headers[0], keep=True), *headers[1:]]
    table = [
        [
            r.character,
            r.player,
            ", ".join(x.name for x in r.searchers),
            f"#{r.since_seq}" + (f" (S{r.since_scenario})" if r.since_scenario else ""),
            odds_label(r.odds),
        ]
        for r in rows
    ]
    render_rows(_("missing"), columns, table, fmt, bom=bom, records=rows, empty=_("no missing characters"))

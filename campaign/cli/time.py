"""`campaign time ...`: the campaign clock (in-game time)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

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

if TYPE_CHECKING:
    from campaign.services.clock import TimeAdvanced

app = typer.Typer(
    help="Campaign time (the in-game clock): advance it, and timed conditions run out.\n\n"
    "The clock starts at day 1, 00:00. Spans are a number and a unit: turn, s, min (or m), h, day, week, "
    "or several (1day6h); Japanese units too (3日, 2時間, 30分). Nothing that reads as dice: 1d6h and "
    "3d are refused. A turn is one second, as in GURPS combat, so advancing even a minute ends "
    "every turn-long condition that ends by itself.\n\n"
    "Example: campaign time advance 6h",
    no_args_is_help=True,
)


def _who(item: dict[str, Any]) -> str:
    label = f" {item['label_ja']}" if item.get("label_ja") else ""
    return f"{item['character']}: {item['name']}{label}"


def render_advance(done: TimeAdvanced) -> None:
    say(
        f"time advances {done.span} / {done.span_ja}: {done.from_['text_ja']} → {done.to['text_ja']} "
        f"(ledger #{done.seq})"
    )
    for item in done.ended:
        print_text(f"ended  {_who(item)} (at {item['until']['text_ja'] if item['until'] else done.to['text_ja']})")
    for item in done.started:
        print_text(f"began  {_who(item)} {item['detail'].get('summary_ja', '')} until {item['until']['text_ja']}")
    for item in done.hp_drains:  # untreated catatonia (docs/rules.md "Catatonia's HP drain")
        hp = f"HP {item['before']} → {item['after']}" if item["tracked"] else "HP not tracked"
        from campaign.i18n import pick

        print_text(
            pick(
                f"drain  {item['character']}: 硬直{item['day']}日目 生命力-{item['hp']} ({hp})",
                f"drain  {item['character']}: catatonia day {item['day']}: -{item['hp']} HP ({hp})",
            )
        )
    for item in done.recovery_due:
        print_text(
            f"due    {_who(item)}: recovery roll due since {item['recovery_due']['text_ja']}: {recover_command(item)}"
        )


def recover_command(item: dict[str, Any]) -> str:
    """The command that makes a due recovery roll (or ends a condition without one)."""
    import shlex

    from campaign.services.recovery import recovery_stat

    who, what = shlex.quote(item["character"]), shlex.quote(item["name"])
    rolled = recovery_stat(item.get("detail"))
    if rolled is None:
        return f"`campaign condition clear {who} {what}` once it is over"
    return f"{rolled[0]} roll, `campaign condition recover {who} {what}`"


@app.command("advance")
def time_advance(
    ctx: typer.Context,
    span: Annotated[str, typer.Argument(help="How much time passes: 6h, 30min, 2day, 3turns, 1day6h, 2日.")],
    reason: Annotated[str | None, typer.Option("--reason", help="What happened meanwhile (recorded).")] = None,
    json_out: JsonOption = False,
) -> None:
    """Advance campaign time: timed conditions run out, follow-up penalties begin.

    Conditions end in the order they run out, and a penalty that follows recovery (fright
    table 28-30) begins where its cause ended. One voidable entry: voiding it brings the
    ended conditions back.
    An untreated catatonia (fright table 30) loses 1 HP on its first day, 2 on the second ...:
    each day that completes is applied and listed; `condition add CHAR medical_care` stops it.

    Example: campaign time advance 2day --reason '移動'
    """
    from campaign.services.clock import advance

    s = state(ctx)
    done = advance(s.db, s.campaign, s.actor, span, reason=reason)
    emit_json(done) if json_out else render_advance(done)


@app.command("show")
def time_show(
    ctx: typer.Context, json_out: JsonOption = False, csv_out: CsvOption = False, bom: BomOption = False
) -> None:
    """Show the campaign clock and every timed condition, soonest to run out first.

    Example: campaign time show
    """
    from campaign.services.clock import show

    fmt = output_format(json_out, csv_out)
    s = state(ctx)
    shown = show(s.db, s.campaign)
    columns: list[str | Column] = [Column("character", keep=True), "condition", "label", "until", "remaining"]
    rows = [
        [c["character"], c["name"], c["label_ja"] or "", c["until"]["text_ja"], c["remaining_ja"]] for c in shown.timed
    ]
    if fmt == "table":
        print_text(f"now: {shown.now['text_ja']} / {shown.now['text']}")
    render_rows(
        "timed conditions",
        columns,
        rows,
        fmt,
        bom=bom,
        records=shown,
        empty="時間制限のある状態異常はありません (no timed conditions)",
    )

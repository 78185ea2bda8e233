"""`campaign time ...`: the campaign clock (in-game time)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

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
from campaign.core.gametime import clock_text, span_text
from campaign.effect_words import condition_label_ja, span_label
from campaign.i18n import N_, _
from campaign.labels import clock_label, condition_name, follow_up_words, stat_label

if TYPE_CHECKING:
    from campaign.core.condition_view import ConditionView
    from campaign.services.campaigns.clock import TimeAdvanced

app = typer.Typer(
    help="Campaign time (the in-game clock): advance it, and timed conditions run out.\n\n"
    "The clock starts at day 1, 00:00. Spans are a number and a unit: turn, s, min (or m), h, day, week, "
    "or several (1day6h); Japanese units too (3日, 2時間, 30分). Nothing that reads as dice: 1d6h and "
    "3d are refused. A turn is one second, as in GURPS combat, so advancing even a minute ends "
    "every turn-long condition that ends by itself.\n\n"
    "Example: campaign time advance 6h",
    no_args_is_help=True,
)


def _who(item: ConditionView) -> str:
    """ "鈴音: 朦朧" / "鈴音: stunned": a condition (the fright table's own name in Japanese)."""
    name = condition_name(item)
    return _("{character}: {condition}").format(character=item.character, condition=name)


def _at(clock: int | None) -> str:
    return "" if clock is None else clock_label(clock)


def _ja(words: tuple[str, str]) -> str:
    """The Japanese of an (English, Japanese) pair: the spreadsheet keeps both languages' columns."""
    return words[1]


def label_ja(view: ConditionView) -> str | None:
    """A condition's Japanese name for the spreadsheet: its code's, else as an older row kept it."""
    return condition_label_ja(view.name) or view.recorded_label_ja


def render_advance(done: TimeAdvanced) -> None:
    say(
        _("time advances {span}: {start} → {end} (ledger #{seq})").format(
            span=span_label(done.seconds), start=clock_label(done.from_), end=clock_label(done.to), seq=done.seq
        )
    )
    for item in done.ended:
        print_text(
            _("ended  {who} (at {when})").format(
                who=_who(item), when=clock_label(done.to if item.until is None else item.until)
            )
        )
    for item in done.started:
        print_text(
            _("began  {who} {summary} until {when}").format(
                who=_who(item), summary=follow_up_words(item), when=_at(item.until)
            )
        )
    for drain in done.hp_drains:  # untreated catatonia (docs/rules.md "Catatonia's HP drain")
        hp = (
            _("HP {before} → {after}").format(before=drain["before"], after=drain["after"])
            if drain["tracked"]
            else _("HP not tracked")
        )
        print_text(
            _("drain  {character}: catatonia day {day}: -{hp} HP ({shown})").format(
                character=drain["character"], day=drain["day"], hp=drain["hp"], shown=hp
            )
        )
    for item in done.recovery_due:
        print_text(
            _("due    {who}: recovery roll due since {when}: {command}").format(
                who=_who(item), when=_at(item.recovery_due), command=recover_command(item)
            )
        )


def recover_command(item: ConditionView) -> str:
    """The command that makes a due recovery roll (or ends a condition without one)."""
    import shlex

    from campaign.services.checks.recovery import recovery_stat

    who, what = shlex.quote(item.character or ""), shlex.quote(item.name)
    rolled = recovery_stat(item.detail)
    if rolled is None:
        return _("`campaign condition clear {who} {what}` once it is over").format(who=who, what=what)
    return _("{stat} roll, `campaign condition recover {who} {what}`").format(
        stat=stat_label(rolled[0]), who=who, what=what
    )


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
    from campaign.services.campaigns.clock import advance

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
    from campaign.services.campaigns.clock import show

    fmt = output_format(json_out, csv_out)
    s = state(ctx)
    shown = show(s.db, s.campaign)
    if fmt != "table":  # the spreadsheet's columns stay as they were: codes and both languages
        columns: list[str | Column] = [Column("character", keep=True), "condition", "label", "until", "remaining"]
        rows = [
            [
                c.character,
                c.name,
                label_ja(c) or "",
                _ja(clock_text(c.until or 0)),
                _ja(span_text(c.remaining_seconds or 0)),
            ]
            for c in shown.timed
        ]
    else:
        columns = [Column(N_("character"), keep=True), N_("condition"), N_("until"), N_("remaining")]
        rows = [
            [c.character, condition_name(c), _at(c.until), span_label(c.remaining_seconds or 0)] for c in shown.timed
        ]
        print_text(_("now: {when}").format(when=clock_label(shown.now)))
    render_rows(_("timed conditions"), columns, rows, fmt, bom=bom, records=shown, empty=_("no timed conditions"))

"""`campaign condition ...`: temporary conditions, timed ones on the campaign clock."""

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
from campaign.cli.physical import PhysicalOption
from campaign.effect_words import span_label
from campaign.i18n import N_, _
from campaign.labels import (
    clock_label,
    condition_length,
    condition_name,
    condition_shown_words,
    follow_up_begun,
    named_condition,
)

if TYPE_CHECKING:
    from campaign.core.condition_view import ConditionView
    from campaign.services.characters.conditions import ConditionsCleared
    from campaign.services.checks.recovery import RecoveryRolled

app = typer.Typer(
    help="A character's temporary conditions (stunned, unconscious ...), timed ones "
    "on the campaign clock (see `time`).\n\n"
    "Example: campaign condition clear 鈴音 stun",
    no_args_is_help=True,
)


def _condition_row(c: ConditionView) -> list[Any]:
    if c.until is not None:
        remaining = span_label(c.remaining_seconds) if c.remaining_seconds is not None else ""
        until = _("{time} ({remaining} left)").format(time=clock_label(c.until), remaining=remaining)
    elif c.recovery_due is not None:
        until = _("roll due {time}").format(time=clock_label(c.recovery_due))
    else:
        until = _("until cleared")
    return [condition_name(c), condition_length(c), clock_label(c.since), until, c.source_seq]


@app.command("list")
def condition_list(
    ctx: typer.Context,
    char: Annotated[str | None, typer.Argument(help="Character name (default: every character).")] = None,
    json_out: JsonOption = False,
    csv_out: CsvOption = False,
    bom: BomOption = False,
) -> None:
    """List active conditions, how long they last and, for timed ones, until when (campaign time).

    Example: campaign condition list 鈴音
    """
    from campaign.services.characters.conditions import list_conditions

    fmt = output_format(json_out, csv_out)
    listed = list_conditions(state(ctx).db, state(ctx).campaign, char)
    columns: list[str | Column] = [N_("condition"), N_("duration"), N_("since"), N_("until"), N_("from #")]
    if listed.character is None:
        columns = [Column(N_("character"), keep=True), *columns]
        rows = [[c.character, *_condition_row(c)] for c in listed.conditions]
    else:
        rows = [_condition_row(c) for c in listed.conditions]
    now = clock_label(listed.now)
    title = (
        _("{character}: conditions (now {now})").format(character=listed.character, now=now)
        if listed.character
        else _("all characters: conditions (now {now})").format(now=now)
    )
    render_rows(
        title, columns, rows, fmt, bom=bom, records=listed, empty=_("no conditions (now {now})").format(now=now)
    )


@app.command("add")
def condition_add(
    ctx: typer.Context,
    char: Annotated[str, typer.Argument(help="Character name.")],
    name: Annotated[str, typer.Argument(help="Condition (stun, unconscious, poisoned, 毒 ...).")],
    lasts: Annotated[
        str | None,
        typer.Option(
            "--for",
            help="Timed: runs out after this much campaign time (6h, 3day, "
            "2turns; a turn is a second). Without it, until cleared.",
        ),
    ] = None,
    then_penalty: Annotated[
        int | None,
        typer.Option(
            "--then-penalty", help="A penalty to every roll that follows once it ends (e.g. -2); needs --then-for."
        ),
    ] = None,
    then_for: Annotated[str | None, typer.Option("--then-for", help="How long that penalty lasts (6h, 2day).")] = None,
    reason: Annotated[str | None, typer.Option("--reason", help="What caused it (recorded).")] = None,
    json_out: JsonOption = False,
) -> None:
    """Put a condition on a character, optionally timed on the campaign clock; logged and voidable.

    Example: campaign condition add 鈴音 poisoned --for 3day --reason '毒蛇'
    """
    from campaign.services.characters.conditions import add_condition

    s = state(ctx)
    done = add_condition(
        s.db, s.campaign, s.actor, char, name, lasts=lasts, then_penalty=then_penalty, then_for=then_for, reason=reason
    )
    if json_out:
        emit_json(done)
        return
    what = condition_shown_words(done.condition)
    say(_("{character}: {condition} (ledger #{seq})").format(character=done.character, condition=what, seq=done.seq))


@app.command("clear")
def condition_clear(
    ctx: typer.Context,
    char: Annotated[str, typer.Argument(help="Character name.")],
    name: Annotated[str, typer.Argument(help="Condition (stun, unconscious ... or 朦朧, 気絶 ...).")],
    reason: Annotated[str | None, typer.Option("--reason", help="E.g. 'made the Will roll'.")] = None,
    lasted: Annotated[
        str | None,
        typer.Option(
            "--lasted",
            help="How long it really lasted (e.g. 5day), for a penalty "
            "that lasts as long (catatonia); default: the campaign "
            "time since it began, at least its rolled time.",
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """End a condition (every active one of that name); logged, so it can be voided.

    A penalty that follows recovery (fright table 28-30: -2 for 6 hours, or for as many days
    as a catatonia lasted) begins now as a timed condition.

    Example: campaign condition clear 鈴音 朦朧 --reason '意思判定に成功'
    """
    from campaign.services.characters.conditions import clear_condition

    s = state(ctx)
    done = clear_condition(s.db, s.campaign, s.actor, char, name, reason=reason, lasted=lasted)
    if json_out:
        emit_json(done)
        return

    say(
        _("{character}: cleared {conditions} (ledger #{seq})").format(
            character=done.character, conditions=", ".join(condition_name(c) for c in done.cleared), seq=done.seq
        )
    )
    _follow_ups(done)


def _follow_ups(done: ConditionsCleared | RecoveryRolled) -> None:
    """The penalty after waking that a cleared or recovered condition leaves."""
    for follow in done.follow_ups:
        print_text(follow_up_begun(done.character, follow))


@app.command("recover")
def condition_recover(
    ctx: typer.Context,
    char: Annotated[str, typer.Argument(help="Character name.")],
    name: Annotated[str, typer.Argument(help="Condition (stun, unconscious ... or 朦朧, 気絶 ...).")],
    dice: Annotated[str | None, typer.Option("--dice", help="The three physical dice, in order (e.g. 3,4,2).")] = None,
    mod: Annotated[
        int, typer.Option("--mod", help="Modifier to the stat (not for a roll that ignores penalties).")
    ] = 0,
    reason: Annotated[str | None, typer.Option("--reason", help="Recorded with the roll.")] = None,
    physical: PhysicalOption = False,
    json_out: JsonOption = False,
) -> None:
    """Roll a condition's recovery roll (Will, HT or IQ, as its fright table entry says) and
    clear the condition on a success; one entry either way, voidable.

    Example: campaign condition recover 鈴音 stun --dice 3,4,2
    """
    from campaign.cli.presence import say_warnings
    from campaign.labels import outcome_label
    from campaign.services.checks.recovery import recover

    s = state(ctx)
    done = recover(s.db, s.campaign, s.actor, char, name, s.dice(dice, physical), modifier=mod, reason=reason)
    if json_out:
        emit_json(done)
        return
    say_warnings(done)
    from campaign.labels import stat_label

    label = named_condition(done.condition, done.label_ja)
    faces = ",".join(map(str, done.dice))
    verdict = _("recovered") if done.recovered else _("still {condition}").format(condition=label)
    say(
        _(
            "#{seq} {character}: {stat} roll to recover from {condition}: 3D6<={target} → [{faces}] = {total} → "
            "{outcome} (margin {margin:+d}): {verdict}"
        ).format(
            seq=done.seq,
            character=done.character,
            stat=stat_label(done.stat),
            condition=label,
            target=done.target,
            faces=faces,
            total=done.total,
            outcome=outcome_label(None, done.outcome),
            margin=done.margin,
            verdict=verdict,
        )
    )
    _follow_ups(done)

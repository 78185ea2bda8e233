"""`campaign call ...`: the GM asks a player to roll; the player taps it on the table server.

A call is a pending row, not a ledger entry (services.table.calls says why); the roll that
answers it is one, made by the same service as `campaign fright` / `campaign check`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from campaign.cli.context import state
from campaign.cli.output import Column, DiceOption, JsonOption, emit_json, print_text, render_rows, say
from campaign.i18n import N_, _

if TYPE_CHECKING:
    from campaign.services.table.calls import CallView

app = typer.Typer(
    help="Calls: the GM asks for a roll, the character's player rolls it on the table server "
    "(`campaign serve`).\n\nExample: campaign call fright 鈴音 --mod -2",
    no_args_is_help=True,
)

ReasonOption = Annotated[str | None, typer.Option("--reason", help="What the call is about (shown to the player).")]


#: A call's state as its list shows it.
STATES = {"pending": N_("pending"), "rolled": N_("rolled"), "cancelled": N_("cancelled")}


def _prompt(view: CallView) -> str:
    """The call's question in the output's language (--json holds it in English)."""
    from campaign.services.table.calls import prompt_of

    return prompt_of(view.kind, view.character, view.params)


def call_made(view: CallView, json_out: bool) -> None:
    if json_out:
        emit_json(view)
        return
    print_text(_("call #{id}: {prompt}").format(id=view.call_id, prompt=_prompt(view)))
    who = view.player or _("the GM")
    say(
        _("waiting for {who} to roll it on the table server (or `campaign call roll {id}`)").format(
            who=who, id=view.call_id
        )
    )


@app.command("fright")
def call_fright(
    ctx: typer.Context,
    char: Annotated[str, typer.Argument(help="The character facing something frightening.")],
    mod: Annotated[int, typer.Option("--mod", help="GM's modifier to the Will roll (+2, -3 ...).")] = 0,
    severe_phobia: Annotated[
        bool, typer.Option("--severe-phobia", help="The object of the character's severe phobia (-4).")
    ] = False,
    reason: ReasonOption = None,
    json_out: JsonOption = False,
) -> None:
    """Call for a fright check (恐怖判定): the player's tap rolls it as `campaign fright`.

    Example: campaign call fright 鈴音 --mod -2 --reason '屋敷の地下'
    """
    from campaign.services.table.calls import make_call

    s = state(ctx)
    call_made(
        make_call(s.db, s.campaign, s.actor, "fright", char, {"modifier": mod, "severe_phobia": severe_phobia}, reason),
        json_out,
    )


@app.command("success")
def call_success(
    ctx: typer.Context,
    roll: Annotated[str, typer.Argument(help="The skill or stat to roll against (回避, DX, 意志 ...).")],
    chars: Annotated[
        list[str] | None,
        typer.Argument(help="The characters who roll (none: every active PC taking part in the scenario)."),
    ] = None,
    mod: Annotated[int, typer.Option("--mod", help="GM's modifier (+2, -3 ...).")] = 0,
    reason: ReasonOption = None,
    json_out: JsonOption = False,
) -> None:
    """Call for a GURPS success roll (成功判定): 3D6 against the skill or stat on each
    character's sheet, with the modifier; each player's tap rolls it as `campaign roll
    回避-2 --char NAME` would. One call per character.

    Example: campaign call success 聞き耳 --mod -2 --reason '物音'
    """
    from campaign.services.table.calls import make_calls

    s = state(ctx)
    params = {"check": "success", "roll": roll, "modifier": mod}
    made = make_calls(s.db, s.campaign, s.actor, "check", chars or [], params, reason)
    if json_out:
        emit_json({"calls": made})
        return
    for view in made:
        call_made(view, json_out=False)


@app.command("check")
def call_check(
    ctx: typer.Context,
    check: Annotated[str, typer.Argument(help="ability, skill or danger (a GURPS success roll: `call success`).")],
    char: Annotated[str, typer.Argument(help="The character making the check.")],
    stat: Annotated[str | None, typer.Argument(help="Stat to use (心, 技, 体 ...; danger: 感 by default).")] = None,
    target: Annotated[int | None, typer.Option("--target", help="Target number (ability, skill).")] = None,
    skill: Annotated[int | None, typer.Option("--skill", help="Skill level (skill).")] = None,
    difficulty: Annotated[int | None, typer.Option("--difficulty", help="Difficulty to exceed (danger).")] = None,
    mod: Annotated[int, typer.Option("--mod", help="GM's modifier.")] = 0,
    reason: ReasonOption = None,
    json_out: JsonOption = False,
) -> None:
    """Call for a 2d6 check (能力判定, 技能判定, 危険感知) in a 2d6 campaign, rolled as
    `campaign check` would.

    Example: campaign call check ability 鈴音 技 --target 12
    """
    from campaign.services.table.calls import make_call

    params = {"check": check, "stat": stat, "modifier": mod}
    params.update(
        {
            name: value
            for name, value in (("target", target), ("skill", skill), ("difficulty", difficulty))
            if value is not None
        }
    )
    s = state(ctx)
    call_made(make_call(s.db, s.campaign, s.actor, "check", char, params, reason), json_out)


@app.command("list")
def call_list(
    ctx: typer.Context,
    all_: Annotated[bool, typer.Option("--all", help="Rolled and cancelled calls too.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Pending calls (with --all, every call).

    Example: campaign call list --json
    """
    from campaign.services.table.calls import list_calls

    s = state(ctx)
    calls = list_calls(s.db, s.campaign, pending=not all_)
    if json_out:
        emit_json({"calls": calls})
        return
    rows = [
        [c.call_id, _(STATES[c.state]) if c.state in STATES else c.state, c.character, c.player or "GM", _prompt(c)]
        + [c.result_seq or ""]
        for c in calls
    ]
    render_rows(
        _("calls"),
        [N_("id"), N_("state"), Column(N_("character"), keep=True), N_("player"), N_("call"), N_("entry")],
        rows,
        "table",
        records=calls,
        empty=_("no pending calls"),
    )


@app.command("cancel")
def call_cancel(
    ctx: typer.Context, call_id: Annotated[int, typer.Argument(help="The call's id.")], json_out: JsonOption = False
) -> None:
    """Take a pending call back (it leaves nothing in the ledger).

    Example: campaign call cancel 3
    """
    from campaign.services.table.calls import cancel_call

    s = state(ctx)
    done = cancel_call(s.db, s.campaign, call_id, s.actor)
    emit_json(done) if json_out else say(_("call #{id} cancelled").format(id=done.call_id))


@app.command("roll")
def call_roll(
    ctx: typer.Context,
    call_id: Annotated[int, typer.Argument(help="The call's id.")],
    dice: DiceOption = None,
    json_out: JsonOption = False,
) -> None:
    """Roll a pending call yourself (for an absent player), through the same service.

    Example: campaign call roll 3 --dice 3,4,5
    """
    from campaign.services.ledger.browse import campaign_identity
    from campaign.services.ledger.history import show_entry
    from campaign.services.table.calls import roll_call

    s = state(ctx)
    campaign_id, name = campaign_identity(s.db, s.campaign)
    done = roll_call(s.db, campaign_id, name, call_id, s.actor, s.dice(dice))
    entry = show_entry(s.db, name, done.seq)
    if json_out:
        emit_json({"call_id": done.call.call_id, "seq": done.seq, "entry": entry})
        return
    if entry["kind"] == "scenario":
        _ended_by_call(done.call.call_id, entry)
        return
    from campaign.labels import kind_label, outcome_label

    outcome = outcome_label(entry["kind"], entry["outcome"]) if entry.get("outcome") else ""
    line = _("call #{id} → #{seq} {kind} {character}").format(
        id=done.call.call_id, seq=done.seq, kind=kind_label(entry["kind"]), character=entry["character"]
    )
    print_text(" ".join(str(part) for part in (line, entry.get("expression"), entry.get("dice"), outcome) if part))


def _ended_by_call(call_id: int, entry: dict[str, Any]) -> None:
    """A reunion call's answer: the scenario it ended and each reunion check, as
    `scenario end` prints them."""
    from campaign.cli.scenario import award_line, reunion_line
    from campaign.core.reunion import reunion_odds_text

    detail = entry["detail"]
    print_text(
        _("call #{id} → scenario #{number} {title} ended (ledger #{seq})").format(
            id=call_id, number=detail.get("number"), title=detail.get("title"), seq=entry["seq"]
        )
    )
    subs = entry.get("sub_entries") or ()
    for sub in subs:
        if sub["kind"] == "reunion":
            found = sub["detail"]
            odds = reunion_odds_text(found["faces"], found["threshold"] - 1)
            looking = found.get("searchers") or ()
            print_text(reunion_line(sub["character"], odds, sub["total"], found["success"], looking, sub["seq"]))
    for sub in subs:
        if sub["kind"] == "award":
            say(award_line(sub["character"], sub["detail"]["cp"], sub["detail"]["cp_total"], sub["seq"]))

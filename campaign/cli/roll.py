"""`campaign roll`: a dice expression in BCDice habits, recorded in the ledger."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from campaign.cli.context import state
from campaign.cli.output import DiceOption, JsonOption, emit_json, say
from campaign.cli.physical import PhysicalOption
from campaign.cli.presence import say_warnings
from campaign.i18n import _
from campaign.labels import outcome_label


def roll(
    ctx: typer.Context,
    expression: Annotated[list[str], typer.Argument(help="Dice expression; words after it are a comment.")],
    char: Annotated[str | None, typer.Option("--char", help="Character making the roll.")] = None,
    reason: Annotated[str | None, typer.Option("--reason", help="Why the roll is made (else the comment).")] = None,
    sorcery: Annotated[
        bool,
        typer.Option(
            "--sorcery",
            help="A sorcery (妖術) success roll: 17 and 18 are "
            "always a critical failure, whatever the target (GURPS 3D6<=N only).",
        ),
    ] = False,
    dice: DiceOption = None,
    physical: PhysicalOption = False,
    json_out: JsonOption = False,
) -> None:
    """Roll BCDice-style dice and record the roll in the ledger.

    3D6<=12 (or BCDice's 12-3D6) in a GURPS campaign is a success roll with criticals
    judged on the raw 3d6; also 2D6+3>=10, 4D6KH3, D66, 3B6>=4, x3 2D6, and table
    commands such as CRT, FEAR+5 (FEAR5), REACT-1 and HIT. With --char, an active
    penalty after waking (回復後の不調) lowers a success roll's target by itself.
    With --sorcery a GURPS success roll treats 17 and 18 as critical failure.
    With --physical (on a terminal) each die is asked for as it is needed.

    Example: campaign roll '3D6<=12' 回避 --char 鈴音
    """
    from campaign.cli.physical import reroll_asker
    from campaign.services.checks.rolls import roll as roll_service

    s = state(ctx)
    source = s.dice(dice, physical)
    entry = roll_service(
        s.db,
        s.campaign,
        s.actor,
        " ".join(expression),
        source,
        character=char,
        reason=reason,
        sorcery=sorcery,
        ask=reroll_asker(source, None, None, None),
    )
    if entry["kind"] == "repeat":
        render_repeat(entry, json_out)
        return
    say_warnings(entry)
    if json_out:
        emit_json(entry)
    elif commitment := commitment_text(entry):
        render_secret(entry["seq"], entry["actor"], entry.get("character"), commitment)
    else:
        render_roll(entry)


def render_repeat(repeat: dict[str, Any], json_out: bool) -> None:
    """A repeat (each roll its own entry). In Japanese, as BCDice prints it (`#1` ...
    `#N`, character for character) and then the entries it wrote; BCDice's words are
    Japanese only, so an English session gets each entry's own line, and `--json`
    carries BCDice's text (`text`) in both. A secret repeat: each entry's commitment."""
    from campaign.cli.output import print_text
    from campaign.i18n import is_ja

    say_warnings(repeat["entries"][0])
    if json_out:
        emit_json(repeat)
    elif repeat["text"] is None:
        for entry in repeat["entries"]:
            render_secret(entry["seq"], entry["actor"], entry.get("character"), commitment_text(entry) or "")
    elif not is_ja():
        for entry in repeat["entries"]:
            render_roll(entry)
    else:
        print_text(repeat["text"])
        first, last = repeat["entries"][0]["seq"], repeat["entries"][-1]["seq"]
        say(_("recorded as #{first}–#{last}").format(first=first, last=last) if last > first else f"#{first}")


def commitment_text(entry: dict[str, Any]) -> str | None:
    secret = (entry.get("detail") or {}).get("secret")
    return secret.get("commitment") if isinstance(secret, dict) else None


def render_secret(seq: int, actor: str, character: str | None, commitment: str) -> None:
    """A secret roll as anyone may see it: who, for whom, and the commitment."""
    if character:
        say(
            _(
                "#{seq} secret roll by {actor} for {character} (commitment {commitment}…); the GM sees it with "
                "`history peek {seq}`, everyone with `history reveal {seq}`"
            ).format(seq=seq, actor=actor, character=character, commitment=commitment[:12])
        )
    else:
        say(
            _(
                "#{seq} secret roll by {actor} (commitment {commitment}…); the GM sees it with "
                "`history peek {seq}`, everyone with `history reveal {seq}`"
            ).format(seq=seq, actor=actor, commitment=commitment[:12])
        )


def repeat_results(entry: dict[str, Any]) -> list[str]:
    """`x3 2D6`: each repetition's result, as BCDice lists them (never summed)."""
    results = []
    for repetition in (entry.get("detail") or {}).get("repeats") or []:
        text = str(repetition.get("total"))
        if repetition.get("outcome"):
            text += " " + outcome_label(None, repetition["outcome"], repetition.get("gurps"))
        results.append(text)
    return results


def render_roll(entry: dict[str, Any]) -> None:
    from campaign.cli.output import print_text

    who = f"{entry['character']}: " if entry["character"] else ""
    repeats = (entry.get("detail") or {}).get("repeats") or []
    if repeats:
        line = f"#{entry['seq']} {who}{entry['expression']}"
        if entry["reason"]:
            line += f"  « {entry['reason']} »"
        print_text(line)
        for number, repetition in enumerate(repeats, start=1):
            dice = ",".join(str(face) for face in repetition["faces"])
            text = f"  #{number} {repetition['expression']} → [{dice}] = {repetition['total']}"
            if repetition.get("outcome"):
                label = outcome_label(None, repetition["outcome"], repetition.get("gurps"))
                text += f" → {label}"
            print_text(text)
        return
    dice = ",".join(str(face) for face in entry["dice"] or [])
    expression = entry["expression"]
    if entry["detail"].get("from_sheet"):  # 3D6<=10 (回避 12 −2)
        from campaign.services.checks.skill_rolls import skill_label

        expression += f" ({skill_label(entry['detail']['from_sheet'])})"
    line = f"#{entry['seq']} {who}{expression} → [{dice}] = {entry['total']}"
    gurps = entry["detail"].get("gurps") or {}
    if entry["outcome"]:
        line += f" → {outcome_label(entry['kind'], entry['outcome'], gurps)}"
        if entry["margin"] is not None:
            line += " " + _("(margin {margin:+d})").format(margin=entry["margin"])
    if gurps.get("sorcery"):
        line += " " + _("[sorcery]")
    if entry["reason"]:
        line += f"  « {entry['reason']} »"
    print_text(line)
    for penalty in entry["detail"].get("penalties") or []:  # docs/rules.md "Penalty after waking"
        print_text(
            "  "
            + _("{penalty:+d} to every roll after recovering: target {before} → {after}").format(
                penalty=penalty["penalty"], before=entry["detail"]["written_target"], after=entry["target"]
            )
        )
    if gurps.get("sorcery_fumble"):
        print_text("  " + _("sorcery: 17 and 18 always critically fail"))
    for line in (entry.get("detail_shown") or entry["detail"]).get("lines", []):  # words made from codes
        print_text("  " + line)

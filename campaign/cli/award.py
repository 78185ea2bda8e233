"""`campaign award`: character points for the characters who earned them."""

from __future__ import annotations

from typing import Annotated

import typer

from campaign.cli.context import state
from campaign.cli.output import JsonOption, emit_json, say
from campaign.i18n import _


def award(
    ctx: typer.Context,
    cp: Annotated[
        int, typer.Argument(help="Character points for each character (negative to take points away, with --reason).")
    ],
    to: Annotated[str, typer.Option("--to", help="Who gets them: NAME[,NAME...].")],
    reason: Annotated[str | None, typer.Option("--reason", help="What for, for the record.")] = None,
    json_out: JsonOption = False,
) -> None:
    """Award character points (one ledger entry per character, each voidable).

    A negative award (award -5 --to 鈴音 --reason ...) takes points away, e.g. a penalty
    the table agreed on; it needs a reason. A mistaken award is voided, not reversed.

    Example: campaign award 3 --to 鈴音,刀矢 --reason '霧の館 クリア'
    """
    from campaign.services.characters.lifecycle import award as give

    s = state(ctx)
    names = [n.strip() for n in to.split(",") if n.strip()]
    done = give(s.db, s.campaign, cp, names, s.actor, reason)
    if json_out:
        emit_json(done)
        return
    for a in done.awards:
        say(
            _("{character}: {cp:+d} CP → {total} (awarded {awarded}) (ledger #{seq})").format(
                character=a.character, cp=a.cp, total=a.cp_total, awarded=a.cp_awarded, seq=a.seq
            )
        )


award.context_settings = {"ignore_unknown_options": True}  # type: ignore[attr-defined]  # read by app.py; -5 is the amount

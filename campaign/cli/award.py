"""`campaign award`: character points for the characters who earned them."""

from __future__ import annotations

import typer

from campaign.cli.context import state
from campaign.cli.output import (
    JsonOption,
    emit_json,
    say,
)
from campaign.i18n import _


def award(
    ctx: typer.Context,
    cp: int = typer.Argument(..., help="Character points for each character (negative to take points "
                                       "away, with --reason)."),
    to: str = typer.Option(..., "--to", help="Who gets them: NAME[,NAME...]."),
    reason: str = typer.Option(None, "--reason", help="What for, for the record."),
    json_out: bool = JsonOption,
) -> None:
    """Award character points (one ledger entry per character, each voidable).

    A negative award (award -5 --to 鈴音 --reason ...) takes points away, e.g. a penalty
    the table agreed on; it needs a reason. A mistaken award is voided, not reversed.

    Example: campaign award 3 --to 鈴音,刀矢 --reason '霧の館 クリア'
    """
    from campaign.services.lifecycle import award as give

    s = state(ctx)
    names = [n.strip() for n in to.split(",") if n.strip()]
    done = give(s.db, s.campaign, cp, names, s.actor, reason)
    if json_out:
        emit_json(done)
        return
    for a in done.awards:
        say(_("{character}: {cp:+d} CP → {total} (awarded {awarded}) (ledger #{seq})").format(
            character=a.character, cp=a.cp, total=a.cp_total, awarded=a.cp_awarded, seq=a.seq))


award.context_settings = {"ignore_unknown_options": True}  # `award -5 --to ...`: -5 is the amount

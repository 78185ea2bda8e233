"""`campaign requests ...`: players' void requests, for the GM to grant or refuse."""

from __future__ import annotations

from typing import Annotated

import typer

from campaign.cli.context import state
from campaign.cli.output import Column, JsonOption, emit_json, render_rows, say
from campaign.i18n import N_, _, pgettext

#: A request's state (a code in --json) in words.
STATES = {
    "open": lambda: pgettext("request", "open"),
    "approved": lambda: pgettext("request", "approved"),
    "refused": lambda: pgettext("request", "refused"),
    "voided": lambda: pgettext("request", "voided"),
}

app = typer.Typer(
    help="Players' void requests (from the table server's page, or `history void` in group "
    "mode): list, approve, refuse.\n\nExample: campaign requests refuse 57 --reason '判定は有効'",
    no_args_is_help=True,
)


@app.command("list")
def requests_list(
    ctx: typer.Context,
    all_: Annotated[bool, typer.Option("--all", help="Answered requests too.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Open void requests (with --all, every one and how it was answered).

    Example: campaign requests list --json
    """
    from campaign.services.disputes.answers import list_requests

    s = state(ctx)
    found = list_requests(s.db, s.campaign, open_only=not all_)
    if json_out:
        emit_json({"requests": found})
        return
    rows = [
        [
            f"#{r.seq}",
            STATES[r.state]() if r.state in STATES else r.state,
            r.on_behalf_of or r.actor,
            f"#{r.requested_void}",
            r.reason or "",
        ]
        for r in found
    ]
    render_rows(
        _("void requests"),
        [N_("request"), N_("state"), Column(N_("player"), keep=True), N_("entry to void"), N_("reason")],
        rows,
        "table",
        records=found,
        empty=_("no void requests") if all_ else _("no open void requests"),
    )


@app.command("approve")
def requests_approve(
    ctx: typer.Context,
    seq: Annotated[int, typer.Argument(help="The void request entry to grant.")],
    cascade: Annotated[bool, typer.Option("--cascade", help="Also void the later entries that depend on it.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Grant a void request (as `history approve`): the requested entry is voided.

    Example: campaign requests approve 57
    """
    from campaign.services.disputes.answers import requests_service

    s = state(ctx)
    voided = requests_service().approve(s.db, s.campaign, s.actor, seq, cascade=cascade)
    emit_json(voided) if json_out else say(
        _("voided #{seq} (entry #{entry}) as requested in #{request}").format(
            seq=voided.voided, entry=voided.seq, request=seq
        )
    )


@app.command("refuse")
def requests_refuse(
    ctx: typer.Context,
    seq: Annotated[int, typer.Argument(help="The void request entry to refuse.")],
    reason: Annotated[str, typer.Option("--reason", help="Why (recorded, shown to the player).")],
    json_out: JsonOption = False,
) -> None:
    """Refuse a void request: a `void_refusal` entry names it; the entry stays.

    Example: campaign requests refuse 57 --reason '判定は有効'
    """
    from campaign.services.disputes.answers import refuse

    s = state(ctx)
    done = refuse(s.db, s.campaign, s.actor, seq, reason)
    emit_json(done) if json_out else say(
        _("refused void request #{request} (entry #{entry})").format(request=seq, entry=done.seq)
    )

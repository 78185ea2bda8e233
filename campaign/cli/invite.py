"""`campaign invite PLAYER`: a one-time link that seats a player at `campaign serve`.

`invite PLAYER` is the common case, so it needs no verb; `invite list` and `invite
revoke PLAYER` are the other two (a player literally named "list" or "revoke" is
invited with `invite new list`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from typer.core import TyperGroup

from campaign.cli.context import state
from campaign.cli.output import Column, JsonOption, emit_json, local_time, print_text, render_rows, say

if TYPE_CHECKING:
    from typer import _click  # the Click that Typer vendors

    from campaign.cli.context import AppState


class _DefaultNew(TyperGroup):
    """A first word that is no verb is the player to invite: `invite Aki` = `invite new Aki`."""

    def resolve_command(
        self, ctx: _click.Context, args: list[str]
    ) -> tuple[str | None, _click.Command | None, list[str]]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            return "new", self.commands["new"], args
        return super().resolve_command(ctx, args)


app = typer.Typer(
    cls=_DefaultNew,
    no_args_is_help=True,
    help="Invite players to the table server (`campaign serve`): one-time links that become "
    "session cookies; list and revoke them.\n\nExample: campaign invite Aki --expires 2day",
)


def _seconds(text: str) -> int:
    from campaign.core.gametime import parse_span

    return parse_span(text, "--expires").seconds


@app.command("new")
def invite_new(
    ctx: typer.Context,
    player: Annotated[
        str,
        typer.Argument(
            help="The player to seat (a player of the campaign), or with --gm the "
            "name the GM's entries carry (usually GM)."
        ),
    ],
    gm: Annotated[bool, typer.Option("--gm", help="The invite gives the GM's rights (calls, any character).")] = False,
    expires: Annotated[
        str, typer.Option("--expires", help="How long the link stays good: 30min, 12h, 7day (at most 90day).")
    ] = "7day",
    bcdice: Annotated[
        bool,
        typer.Option(
            "--bcdice",
            help="Make a BCDice-API token for a dice bot instead, named "
            "PLAYER (docs/bcdice-api.md); good until revoked.",
        ),
    ] = False,
    bcdice_player: Annotated[
        str | None, typer.Option("--player", help="With --bcdice: the player its rolls are recorded for.")
    ] = None,
    bcdice_character: Annotated[
        str | None, typer.Option("--character", help="With --bcdice: the character its rolls are for.")
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Make a one-time invite link (shown once: only its hash is stored).

    Share the path after the server's address: http://192.168.1.20:8000/join/....
    Opening it asks to confirm; confirming signs the browser in as PLAYER.
    With --bcdice, print a dice bot's server path /bcdice/<token>/ instead.

    Example: campaign invite Aki --expires 2day
    """
    from campaign.services.invites import invite

    s = state(ctx)
    if bcdice or bcdice_player is not None or bcdice_character is not None:
        _bcdice_token(s, player, bcdice, gm, bcdice_player, bcdice_character, json_out)
        return
    made = invite(s.db, s.campaign, player, gm=gm, expires_in=_seconds(expires))
    if json_out:
        emit_json(made)
        return
    print_text(made.join_path)
    say(
        f"invite for {made.player}{' (GM)' if made.gm else ''}, good once until {made.expires}: "
        "give the server's address followed by this path"
    )


def _bcdice_token(
    s: AppState, name: str, bcdice: bool, gm: bool, player: str | None, character: str | None, json_out: bool
) -> None:
    from campaign.errors import BadInput
    from campaign.services.bcdice_api import make_token

    if not bcdice:
        raise BadInput("--player and --character go with --bcdice")
    if gm:
        raise BadInput("--gm does not go with --bcdice (a token rolls dice, it has no GM rights)")
    made = make_token(s.db, s.campaign, name, player=player, character=character)
    if json_out:
        emit_json(made)
        return
    print_text(made.base_path)
    who = made.player or f"{made.name} (integration)"
    say(
        f"BCDice-API token {made.name!r}: rolls recorded as {who}"
        f"{' for ' + made.character if made.character else ''}; the bot's server URL is http://HOST:PORT"
        f"{made.base_path} (revoke: campaign invite revoke {made.name})"
    )


@app.command("list")
def invite_list(ctx: typer.Context, json_out: JsonOption = False) -> None:
    """Invites (pending, used, expired, revoked) and sessions of the campaign.

    Example: campaign invite list --json
    """
    from campaign.services.invites import list_invites

    s = state(ctx)
    listed = list_invites(s.db, s.campaign)
    if json_out:
        emit_json(listed)
        return
    zone = s.time_zone
    rows: list[list[object]] = [
        [r.player, "GM" if r.gm else "", r.state, local_time(r.created, zone), local_time(r.expires, zone)]
        for r in listed.invites
    ]
    render_rows(
        "invites",
        [Column("player", keep=True), "rights", "state", "created", "expires"],
        rows,
        "table",
        records=listed.invites,
        empty="招待はありません (no invites)",
    )
    rows = [
        [
            r.id,
            r.player,
            "GM" if r.gm else "",
            local_time(r.created, zone),
            local_time(r.revoked, zone) if r.revoked else "active",
        ]
        for r in listed.sessions
    ]
    render_rows(
        "sessions",
        ["id", Column("player", keep=True), "rights", "created", "state"],
        rows,
        "table",
        records=listed.sessions,
        empty="セッションはありません (no sessions)",
    )
    from campaign.services.bcdice_api import list_tokens

    tokens = list_tokens(s.db, s.campaign)
    if tokens:  # BCDice-API tokens (--bcdice): shown here, revoked by name like a seat
        rows = [
            [
                t.name,
                t.player or "(integration)",
                t.character or "",
                local_time(t.created, zone),
                local_time(t.revoked, zone) if t.revoked else "active",
            ]
            for t in tokens
        ]
        render_rows(
            "BCDice-API tokens",
            [Column("name", keep=True), "player", "character", "created", "state"],
            rows,
            "table",
            records=tokens,
        )


@app.command("revoke")
def invite_revoke(
    ctx: typer.Context,
    player: Annotated[str, typer.Argument(help="Whose seat (or which BCDice-API token's name) to take away.")],
    json_out: JsonOption = False,
) -> None:
    """End every session of PLAYER at once and cancel their unused invites; end the
    BCDice-API tokens of that name (--bcdice) too.

    Example: campaign invite revoke Aki
    """
    from campaign.errors import NotFound
    from campaign.services.bcdice_api import revoke_tokens
    from campaign.services.invites import Revoked, revoke
    from campaign.services.results import as_json

    s = state(ctx)
    tokens = revoke_tokens(s.db, s.campaign, player)
    try:
        done = revoke(s.db, s.campaign, player)
    except NotFound:
        if not tokens:
            raise
        done = Revoked(player=player.strip(), invites=0, sessions=0)
    if json_out:
        emit_json({**as_json(done), "bcdice_tokens": tokens} if tokens else done)
        return
    say(
        f"{done.player}: {done.sessions} session(s) ended, {done.invites} invite(s) cancelled"
        + (f", {tokens} BCDice-API token(s) ended" if tokens else "")
    )

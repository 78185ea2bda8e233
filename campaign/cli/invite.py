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
from campaign.i18n import N_, _, pgettext

#: An invite's state as its list shows it.
INVITE_STATES = {"pending": N_("pending"), "used": N_("used"), "expired": N_("expired"), "revoked": N_("revoked")}


def _invite_state(state: str) -> str:
    return _(INVITE_STATES[state]) if state in INVITE_STATES else state


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
    qr: Annotated[bool, typer.Option("--qr", help="Also draw the link as a QR code for a phone's camera.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Make a one-time invite link (shown once: only its hash is stored).

    With the campaign's `public_url` setting (campaign settings
    public_url=http://192.168.1.20:8000/) the whole link is printed; without it, the
    path to give after the server's address. Opening it asks to confirm; confirming
    signs the browser in as PLAYER.
    With --bcdice, print a dice bot's server path /bcdice/<token>/ instead.

    Example: campaign invite Aki --expires 2day
    """
    from campaign.services.table.invites import invite

    s = state(ctx)
    if bcdice or bcdice_player is not None or bcdice_character is not None:
        _bcdice_token(s, player, bcdice, gm, bcdice_player, bcdice_character, json_out)
        return
    from campaign.services.campaigns.setup import public_url_of
    from campaign.services.table.invites import join_link

    made = invite(s.db, s.campaign, player, gm=gm, expires_in=_seconds(expires))
    public = public_url_of(s.db, s.campaign)
    link = join_link(public, made.join_path)
    if json_out:
        from campaign.services.results import as_json

        emit_json({**as_json(made), "url": link if public else None})
        return
    print_text(link)
    if qr:
        print_qr(link)
    expires_at = local_time(made.expires, s.time_zone)
    if public:
        message = (
            _("invite for {player} (GM), good once until {expires}: send this link")
            if made.gm
            else _("invite for {player}, good once until {expires}: send this link")
        )
    else:
        message = (
            _("invite for {player} (GM), good once until {expires}: give the server's address followed by this path")
            if made.gm
            else _("invite for {player}, good once until {expires}: give the server's address followed by this path")
        )
    say(message.format(player=made.player, expires=expires_at))


def print_qr(text: str) -> None:
    """`text` as a QR code drawn with block characters (two rows a line), dark on light as
    a camera expects it whatever the terminal's colours."""
    import io

    import segno

    drawn = io.StringIO()
    segno.make(text, error="m").terminal(out=drawn, compact=True)
    print_text(drawn.getvalue().rstrip("\n"))


def _bcdice_token(
    s: AppState, name: str, bcdice: bool, gm: bool, player: str | None, character: str | None, json_out: bool
) -> None:
    from campaign.errors import BadInput
    from campaign.services.bridges.bcdice_api import make_token

    if not bcdice:
        raise BadInput(_("--player and --character go with --bcdice"))
    if gm:
        raise BadInput(_("--gm does not go with --bcdice (a token rolls dice, it has no GM rights)"))
    made = make_token(s.db, s.campaign, name, player=player, character=character)
    if json_out:
        emit_json(made)
        return
    print_text(made.base_path)
    who = made.player or _("{name} (integration)").format(name=made.name)
    if made.character:
        who = _("{who} for {character}").format(who=who, character=made.character)
    say(
        _(
            "BCDice-API token {name!r}: rolls recorded as {who}; the bot's server URL is http://HOST:PORT{path}"
            " (revoke: `campaign invite revoke {name}`)"
        ).format(name=made.name, who=who, path=made.base_path)
    )


@app.command("rotate-bot")
def invite_rotate_bot(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The BCDice-API token to replace (the name it was made with).")],
    json_out: JsonOption = False,
) -> None:
    """Replace a BCDice-API token in one step: the old URL stops working and a new one,
    for the same player and character, is printed (once). Paste it into the bot.

    Example: campaign invite rotate-bot aki-bot
    """
    from campaign.services.bridges.bcdice_api import rotate_token

    s = state(ctx)
    made = rotate_token(s.db, s.campaign, name)
    if json_out:
        emit_json(made)
        return
    print_text(made.base_path)
    say(
        _(
            "BCDice-API token {name!r} replaced: the old URL no longer works; the bot's new server URL is http://HOST:PORT{path}"
        ).format(name=made.name, path=made.base_path)
    )


@app.command("list")
def invite_list(ctx: typer.Context, json_out: JsonOption = False) -> None:
    """Invites (pending, used, expired, revoked) and sessions of the campaign.

    Example: campaign invite list --json
    """
    from campaign.services.table.invites import list_invites

    s = state(ctx)
    listed = list_invites(s.db, s.campaign)
    if json_out:
        emit_json(listed)
        return
    zone = s.time_zone
    rows: list[list[object]] = [
        [
            r.player,
            "GM" if r.gm else "",
            _invite_state(r.state),
            local_time(r.created, zone),
            local_time(r.expires, zone),
        ]
        for r in listed.invites
    ]
    render_rows(
        _("invites"),
        [Column(N_("player"), keep=True), N_("rights"), N_("state"), N_("created"), N_("expires")],
        rows,
        "table",
        records=listed.invites,
        empty=_("no invites"),
    )
    active = pgettext("session", "active")
    rows = [
        [
            r.id,
            r.player,
            "GM" if r.gm else "",
            local_time(r.created, zone),
            local_time(r.revoked, zone) if r.revoked else active,
        ]
        for r in listed.sessions
    ]
    render_rows(
        _("sessions"),
        [N_("id"), Column(N_("player"), keep=True), N_("rights"), N_("created"), N_("state")],
        rows,
        "table",
        records=listed.sessions,
        empty=_("no sessions"),
    )
    from campaign.services.bridges.bcdice_api import list_tokens

    tokens = list_tokens(s.db, s.campaign)
    if tokens:  # BCDice-API tokens (--bcdice): shown here, revoked by name like a seat
        rows = [
            [
                t.name,
                t.player or _("(integration)"),
                t.character or "",
                local_time(t.created, zone),
                local_time(t.revoked, zone) if t.revoked else active,
            ]
            for t in tokens
        ]
        render_rows(
            _("BCDice-API tokens"),
            [Column(N_("name"), keep=True), N_("player"), N_("character"), N_("created"), N_("state")],
            rows,
            "table",
            records=tokens,
        )


@app.command("revoke")
def invite_revoke(
    ctx: typer.Context,
    player: Annotated[str, typer.Argument(help="Whose seat (or which BCDice-API token's name) to take away.")],
    bcdice_only: Annotated[
        bool, typer.Option("--bcdice", help="Only the BCDice-API tokens of that name; no seat is touched.")
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """End every session of PLAYER at once and cancel their unused invites; end the
    BCDice-API tokens of that name (--bcdice) too.

    Example: campaign invite revoke Aki
    """
    from campaign.errors import NotFound
    from campaign.services.bridges.bcdice_api import revoke_tokens
    from campaign.services.results import as_json
    from campaign.services.table.invites import Revoked, revoke

    s = state(ctx)
    tokens = revoke_tokens(s.db, s.campaign, player)
    if bcdice_only and not tokens:
        raise NotFound(_("no live BCDice-API token named {name!r}").format(name=player.strip()))
    try:
        if bcdice_only:
            raise NotFound(player)
        done = revoke(s.db, s.campaign, player)
    except NotFound:
        if not tokens:
            raise
        done = Revoked(player=player.strip(), invites=0, sessions=0)
    if json_out:
        emit_json({**as_json(done), "bcdice_tokens": tokens} if tokens else done)
        return
    line = _("{player}: {sessions} session(s) ended, {invites} invite(s) cancelled").format(
        player=done.player, sessions=done.sessions, invites=done.invites
    )
    if tokens:
        line = _("{line}, {tokens} BCDice-API token(s) ended").format(line=line, tokens=tokens)
    say(line)

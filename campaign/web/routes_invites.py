"""Seats from the page: the GM makes, lists and revokes invites (the `campaign invite`
services), and a seated player makes a one-time link that signs a second device into
the same seat.

Each link comes back whole, on the players' address as `campaign serve` printed it,
with its QR code drawn here (segno, SVG as a data: URI the page shows as an image: the
browser runs no QR library and fetches nothing). A code is shown once, in this answer:
only its hash is stored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool

from campaign.errors import BadInput
from campaign.i18n import _
from campaign.web.seats import write_request

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from campaign.services.table.invites import Invited

LOOPBACK = ("127.", "localhost", "[::1]")


def routes() -> list[Route]:
    from starlette.routing import Route

    return [
        Route("/api/invites", invites, methods=["GET", "POST"]),
        Route("/api/invites/revoke", revoke, methods=["POST"]),
        Route("/api/device-link", device_link, methods=["POST"]),
    ]


def players_address(request: Request) -> str:
    """Where the players open the table: `serve --public-url`, else the campaign's
    `public_url` setting as it is now, else the address `serve` printed (the LAN address
    for a wildcard --host), else, for a server on a loopback address, the address this
    browser used (a tunnel's or a proxy's, which no other setting names)."""
    from campaign.services.campaigns.setup import public_url_of

    state = request.app.state
    given: str | None = getattr(state, "public_url", None) or public_url_of(state.db, state.campaign)
    listening: str | None = getattr(state, "listen_url", None)
    if given:
        address = given
    elif listening and not listening.split("://", 1)[-1].startswith(LOOPBACK):
        address = listening
    else:
        address = f"{request.url.scheme}://{request.headers.get('host', request.url.netloc)}/"
    base: str = getattr(state, "base", "")  # "/c/<slug>" when one process serves several
    return address.rstrip("/") + base + "/"


def qr_image(link: str) -> str:
    """The link as a QR code: an SVG data: URI (the page's CSP allows data: images)."""
    import segno

    return str(segno.make(link, error="m").svg_data_uri(scale=4, border=2))


def shown(made: Invited, base: str) -> dict[str, Any]:
    from campaign.services.results import as_json
    from campaign.services.table.invites import join_link

    link = join_link(base, made.join_path)
    return {**as_json(made), "url": link, "qr": qr_image(link)}


def _answer(document: object, status: int = 200) -> Response:
    from starlette.responses import JSONResponse

    from campaign.services.results import as_json

    return JSONResponse(as_json(document), status_code=status, headers={"cache-control": "no-store"})


def _expiry(value: object) -> int:
    """Seconds from the form's `expires` ("7day", "12h"; none: the CLI's default)."""
    from campaign.core.gametime import parse_span
    from campaign.services.table.invites import DEFAULT_EXPIRY

    if value is None or value == "":
        return DEFAULT_EXPIRY
    if not isinstance(value, str) or len(value) > 20:
        raise BadInput(_("expires: a time such as 30min, 12h or 7day"))
    return parse_span(value, "expires").seconds


async def invites(request: Request) -> Response:
    """GET (GM): the invites and sessions, as `invite list --json`. POST (GM) {"player",
    "gm"?, "expires"?}: `campaign invite PLAYER [--gm] [--expires SPAN]`, the link whole."""
    from campaign.services.table.invites import invite, list_invites
    from campaign.web.refusals import Refusal
    from campaign.web.seats import seat_of

    state = request.app.state
    if request.method == "GET":
        seat = seat_of(request)
        if seat is None:
            raise Refusal("no_session")
        if not seat.gm:
            raise Refusal("gm_only")
        return _answer(await run_in_threadpool(list_invites, state.db, state.campaign))
    _seat, body = await write_request(request, frozenset({"player", "gm", "expires", "idempotency_key"}), gm_only=True)
    player, gm = body.get("player"), body.get("gm", False)
    if not isinstance(player, str) or not player.strip() or len(player) > 200:
        raise BadInput(_("player: text of 1 to {limit} characters").format(limit=200))
    if not isinstance(gm, bool):
        raise BadInput(_("{field}: true or false").format(field="gm"))
    seconds = _expiry(body.get("expires"))
    made = await run_in_threadpool(lambda: invite(state.db, state.campaign, player, gm=gm, expires_in=seconds))
    return _answer(shown(made, await run_in_threadpool(players_address, request)), 201)


async def revoke(request: Request) -> Response:
    """(GM) {"player"}: `campaign invite revoke PLAYER`: every session of theirs ends, and
    every unused invite and device link of theirs is cancelled."""
    from campaign.services.table.invites import revoke as revoke_seats

    _seat, body = await write_request(request, frozenset({"player", "idempotency_key"}), gm_only=True)
    player = body.get("player")
    if not isinstance(player, str) or not player.strip() or len(player) > 200:
        raise BadInput(_("player: text of 1 to {limit} characters").format(limit=200))
    state = request.app.state
    return _answer(await run_in_threadpool(revoke_seats, state.db, state.campaign, player))


async def device_link(request: Request) -> Response:
    """(a seat) {}: a one-time link, good for minutes, that signs another device into this
    seat (services.table.invites.device_link)."""
    from campaign.services.table.invites import device_link as make

    seat, _body = await write_request(request, frozenset({"idempotency_key"}))
    state = request.app.state
    made = await run_in_threadpool(make, state.db, state.campaign_id, seat)
    return _answer(shown(made, await run_in_threadpool(players_address, request)), 201)

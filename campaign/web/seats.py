"""Signing in at the table, and the checks every write goes through.

`GET /join/<code>` shows a confirmation page and consumes nothing: chat apps and link
previews fetch links on their own, and must not use up a player's invite. The page's
form POSTs back (`confirm=1`); the invite is consumed and a session cookie set:
HttpOnly (no script reads it), SameSite=Lax (so the invite works when tapped in
Discord or ココフォリア, a cross-site navigation a Strict cookie would not follow, while
cross-site POSTs still carry no cookie), Secure under TLS.

Every write (`write_request`) then needs, in this order: a same-origin Origin header
(or `Sec-Fetch-Site: same-origin`), a live session (401), the session's CSRF token in
`X-CSRF-Token` (403), a place in the session's rate limit (429), a JSON body under
BODY_LIMIT bytes (413) that is an object of known fields (400).
"""

from __future__ import annotations

import hmac
import json
import time
from typing import TYPE_CHECKING, Any

from campaign.i18n import _
from campaign.web.refusals import Refusal

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route
    from starlette.templating import Jinja2Templates

    from campaign.db.models_table import WebInvite
    from campaign.services.table.invites import Seat

BODY_LIMIT = 8 * 1024
COOKIE_MAX_AGE = 90 * 86400
BURST, RATE = 10, 2.0  # a session may make 10 writes at once, then 2 a second


class RateLimit:
    """A token bucket per session: a bounded burst, then a steady rate. Kept in memory
    (one per served campaign, also under `serve --all`): it protects the ledger from a stuck button or a
    script, it is not an accounting of anyone's writes."""

    def __init__(self, burst: int = BURST, rate: float = RATE) -> None:
        self.burst, self.rate = burst, rate
        self._buckets: dict[int, tuple[float, float]] = {}

    def take(self, session_id: int) -> bool:
        now = time.monotonic()
        tokens, since = self._buckets.get(session_id, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - since) * self.rate)
        if tokens < 1:
            self._buckets[session_id] = (tokens, now)
            return False
        self._buckets[session_id] = (tokens - 1, now)
        if len(self._buckets) > 10_000:  # sessions come and go; forget the oldest
            self._buckets.pop(next(iter(self._buckets)))
        return True


def routes() -> list[Route]:
    from starlette.routing import Route

    return [Route("/join/{code}", join, methods=["GET", "POST"]), Route("/api/session", session_info)]


def same_origin(request: Request) -> bool:
    """The request's Origin is this server as the browser addressed it (the Host header,
    already checked against the allowed names, and the scheme)."""
    origin = request.headers.get("origin")
    if origin is None:
        return request.headers.get("sec-fetch-site") == "same-origin"
    host = request.headers.get("host", "")
    return origin.lower() == f"{request.url.scheme}://{host}".lower()


def seat_of(request: Request) -> Seat | None:
    seat: Seat | None = request.scope.get("state", {}).get("seat")
    return seat


async def join(request: Request) -> Response:
    from starlette.concurrency import run_in_threadpool

    from campaign.services.table.invites import code_in, opened_invite
    from campaign.services.table.invites import join as join_seat

    state = request.app.state
    code = code_in(request.path_params["code"])
    if request.method == "GET":
        invite, status = await run_in_threadpool(opened_invite, state.db, state.campaign_id, code)
        if invite is None or status != "pending":
            return _join_page(request, None, 404 if status == "unknown" else 410, message=_cannot_join(status))
        return _join_page(request, invite, 200)
    if not same_origin(request):
        return _join_page(request, None, 403, message=Refusal("origin").message)
    try:  # a one-field form: parsed here (Starlette's form parser needs python-multipart)
        from urllib.parse import parse_qs

        form = {key: values[-1] for key, values in parse_qs((await _body(request)).decode("ascii")).items()}
    except (Refusal, UnicodeDecodeError):
        form = {}
    if form.get("confirm") != "1":
        return _join_page(request, None, 400, message=_("confirm=1 is missing"))
    from campaign.errors import CampaignError

    try:
        joined = await run_in_threadpool(join_seat, state.db, state.campaign_id, code)
    except CampaignError:
        status = (await run_in_threadpool(opened_invite, state.db, state.campaign_id, code))[1]
        return _join_page(request, None, 404 if status == "unknown" else 410, message=_cannot_join(status))
    from starlette.responses import RedirectResponse

    # Under `serve --all` the session is the campaign's alone: the browser sends it to
    # /c/<slug>/ only (campaign.web.multi), and a cookie of one campaign carried to
    # another opens no seat there (services.table.invites.seat_for: by campaign id).
    base = state.base
    response = RedirectResponse(base + "/", status_code=303, headers={"cache-control": "no-store"})
    response.set_cookie(
        "campaign_session",
        joined.token,
        max_age=COOKIE_MAX_AGE,
        path=base + "/",
        httponly=True,
        samesite="lax",
        secure=state.secure_cookie or request.url.scheme == "https",  # TLS here or at a trusted proxy
    )
    return response


def _cannot_join(status: str) -> str:
    """Why an invite link opens no seat, so the player knows whether to ask for a new one
    or to check the link."""
    return {
        "used": lambda: _("This invite has been used already: ask the GM for a new one."),
        "expired": lambda: _("This invite has expired: ask the GM for a new one."),
        "revoked": lambda: _("This invite was revoked: ask the GM for a new one."),
    }.get(status, lambda: _("No such invite: check that the whole link was copied, or ask the GM for a new one."))()


def _join_page(request: Request, invite: WebInvite | None, status: int, message: str | None = None) -> Response:
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(
        request,
        "join.html",
        {"invite": invite, "message": message, "status": status},
        status_code=status,
        headers={"cache-control": "no-store"},
    )


def session_info(request: Request) -> Response:
    """{"player", "gm", "csrf", "session"}: who this browser is, and the token its
    writes must carry; 401 without a session."""
    from starlette.responses import JSONResponse

    seat = seat_of(request)
    if seat is None:
        raise Refusal("no_session")
    return JSONResponse(
        {"player": seat.player, "gm": seat.gm, "csrf": request.scope["state"]["csrf"], "session": seat.session_id},
        headers={"cache-control": "no-store"},
    )


async def write_request(
    request: Request, fields: frozenset[str], *, gm_only: bool = False
) -> tuple[Seat, dict[str, Any]]:
    """The seat and JSON body of a write, after every check of the module docstring."""
    if not same_origin(request):
        raise Refusal("origin")
    seat = seat_of(request)
    if seat is None:
        raise Refusal("other_campaign" if await _seated_elsewhere(request) else "no_session")
    given = request.headers.get("x-csrf-token", "")
    expected = request.scope["state"]["csrf"]
    if not hmac.compare_digest(given.encode("latin-1", "replace"), expected.encode("ascii")):
        raise Refusal("csrf")
    if gm_only and not seat.gm:
        raise Refusal("gm_only")
    if not request.app.state.rate_limit.take(seat.session_id):
        raise Refusal("rate_limited")
    body = await _body(request)
    if not body.strip():
        return seat, {}
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise Refusal("content_type")
    try:
        document = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise Refusal("bad_json") from None
    if not isinstance(document, dict):
        raise Refusal("bad_json")
    unknown = sorted(set(document) - fields)
    if unknown:
        raise Refusal("unknown_field", ", ".join(unknown)[:200])
    return seat, document


async def _seated_elsewhere(request: Request) -> bool:
    """Whether the request's session cookie is a live session of another campaign of
    the database (one process serving several, campaign.web.multi)."""
    from starlette.concurrency import run_in_threadpool

    from campaign.services.table.invites import session_campaign
    from campaign.web.security import SESSION_COOKIE

    token = request.cookies.get(SESSION_COOKIE)
    if not token:
        return False
    state = request.app.state
    found = await run_in_threadpool(session_campaign, state.db, token)
    return found is not None and found != state.campaign_id


async def _body(request: Request) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > BODY_LIMIT):
        raise Refusal("too_large")
    import anyio

    from campaign.web.serving import BODY_TIMEOUT

    chunks, size = [], 0
    try:
        with anyio.fail_after(BODY_TIMEOUT):  # a client that trickles its body holds a worker no longer
            async for chunk in request.stream():
                size += len(chunk)
                if size > BODY_LIMIT:
                    raise Refusal("too_large")
                chunks.append(chunk)
    except TimeoutError:
        raise Refusal("slow_body") from None
    return b"".join(chunks)

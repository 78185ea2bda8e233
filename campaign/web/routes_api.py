"""The JSON and event-stream endpoints: the chain for in-browser verification, the
seal heads, and the live feed. All read-only (GET)."""

from __future__ import annotations

from typing import TYPE_CHECKING, overload

from campaign.errors import BadInput

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route


def routes() -> list[Route]:
    from starlette.routing import Route

    return [Route("/api/chain", chain), Route("/api/seals", seals), Route("/api/feed", feed)]


SEQ_DIGITS = 10  # a seq fits in the ledger's 32-bit column: INT_MAX has 10 digits


def _seq_text(text: str) -> int | None:
    """A seq as a header or parameter spells it (ASCII digits, at most INT_MAX), else None.
    Checked before int(): a number of thousands of digits costs int() time, and beyond
    4300 it raises (the 500 a long Last-Event-ID used to give)."""
    from campaign.services.ledger.history import INT_MAX

    if not 0 < len(text) <= SEQ_DIGITS or not text.isascii() or not text.isdigit():
        return None
    value = int(text)
    return value if value <= INT_MAX else None


@overload
def query_int(request: Request, name: str, default: int) -> int: ...
@overload
def query_int(request: Request, name: str, default: None) -> int | None: ...
def query_int(request: Request, name: str, default: int | None) -> int | None:
    """A whole-number query parameter (ASCII digits), else `default`; anything else is
    malformed input."""
    text = request.query_params.get(name, "").strip()
    if not text:
        return default
    try:
        if not text.isascii():  # int() would take other scripts' digits
            raise ValueError(text)
        return int(text)
    except ValueError:
        shown = text if len(text) <= 24 else text[:24] + "…"
        raise BadInput(f"{name}: {shown!r} is not a whole number") from None


def chain(request: Request) -> Response:
    """{"campaign", "genesis", "entries": [{"seq", "kind", "prev_hash", "hash", "record"}],
    "next"}: `record` is the exact canonical JSON text that was hashed."""
    from starlette.responses import JSONResponse

    from campaign.services.ledger.browse import chain_slice
    from campaign.services.results import as_json

    first, last = query_int(request, "from", 1), query_int(request, "to", None)
    return JSONResponse(
        as_json(chain_slice(request.app.state.db, request.app.state.campaign, first, last)),
        headers={"cache-control": "no-store"},
    )


def seals(request: Request) -> Response:
    from starlette.responses import JSONResponse

    from campaign.services.ledger.browse import seals as seal_heads
    from campaign.services.results import as_json

    return JSONResponse(
        {"seals": as_json(seal_heads(request.app.state.db, request.app.state.campaign))},
        headers={"cache-control": "no-store"},
    )


async def feed(request: Request) -> Response:
    """Server-Sent Events from seq `after` on (the Last-Event-ID of a reconnecting
    EventSource wins; neither given: from the present head)."""
    from starlette.responses import StreamingResponse

    from campaign.services.ledger.history import INT_MAX

    state = request.app.state
    after = query_int(request, "after", None)
    if after is not None and after > INT_MAX:
        raise BadInput(f"after: {after} is beyond any entry (at most {INT_MAX})")
    # The id of the last event a reconnecting EventSource saw; anything else (not a seq,
    # out of range, thousands of digits) is as if it sent none.
    last_id = _seq_text(request.headers.get("last-event-id", "").strip())
    if last_id is not None:
        after = last_id
    if after is None:
        after = await state.feed.head()
    return StreamingResponse(
        state.feed.stream(max(after, 0)),
        media_type="text/event-stream",
        headers={"cache-control": "no-store", "x-accel-buffering": "no"},
    )

"""The JSON and event-stream endpoints: the chain for in-browser verification, the
seal heads, and the live feed. All read-only (GET)."""

from __future__ import annotations

from campaign.errors import BadInput


def routes():
    from starlette.routing import Route

    return [
        Route("/api/chain", chain),
        Route("/api/seals", seals),
        Route("/api/feed", feed),
    ]


def _int(request, name: str, default: int | None) -> int | None:
    text = request.query_params.get(name, "").strip()
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        raise BadInput(f"{name}: {text!r} is not a whole number") from None


def chain(request):
    """{"campaign", "genesis", "entries": [{"seq", "kind", "prev_hash", "hash", "record"}],
    "next"}: `record` is the exact canonical JSON text that was hashed."""
    from starlette.responses import JSONResponse

    from campaign.services.browse import chain_slice
    from campaign.services.results import as_json

    first, last = _int(request, "from", 1), _int(request, "to", None)
    return JSONResponse(as_json(chain_slice(request.app.state.db, request.app.state.campaign, first, last)),
                        headers={"cache-control": "no-store"})


def seals(request):
    from starlette.responses import JSONResponse

    from campaign.services.browse import seals as seal_heads
    from campaign.services.results import as_json

    return JSONResponse({"seals": as_json(seal_heads(request.app.state.db, request.app.state.campaign))},
                        headers={"cache-control": "no-store"})


async def feed(request):
    """Server-Sent Events from seq `after` on (the Last-Event-ID of a reconnecting
    EventSource wins; neither given: from the present head)."""
    from starlette.responses import StreamingResponse

    state = request.app.state
    after = _int(request, "after", None)
    last_id = request.headers.get("last-event-id", "").strip()
    if last_id.isdigit():
        after = int(last_id)
    if after is None:
        after = await state.feed.head()
    return StreamingResponse(state.feed.stream(max(after, 0)), media_type="text/event-stream",
                             headers={"cache-control": "no-store", "x-accel-buffering": "no"})

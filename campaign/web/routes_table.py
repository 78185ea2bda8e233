"""The table's write API: players' rolls, the GM's calls and their answers, void requests.

Every handler goes through seats.write_request (Origin, session, CSRF, rate, body) and
then one service in a worker thread, with the actor taken from the session. Writes
answer 201 with the entry; a retried request (same idempotency key) answers 200 with
the entry the first one made.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from starlette.concurrency import run_in_threadpool

from campaign.i18n import _
from campaign.web.refusals import Refusal
from campaign.web.seats import seat_of, write_request

if TYPE_CHECKING:
    from starlette.datastructures import State
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    from campaign.services.table.invites import Seat
    from campaign.services.table.writes import SeatActor


def routes() -> list[Route]:
    from starlette.routing import Route

    return [
        Route("/api/table", table, methods=["GET"]),
        Route("/api/table/entries", table_entries, methods=["GET"]),
        Route("/api/rolls", post_roll, methods=["POST"]),
        Route("/api/calls", calls, methods=["GET", "POST"]),
        Route("/api/calls/{call_id:int}/roll", roll_call, methods=["POST"]),
        Route("/api/calls/{call_id:int}/cancel", cancel_call, methods=["POST"]),
        Route("/api/void-requests", void_requests, methods=["GET", "POST"]),
        Route("/api/void-requests/{seq:int}/approve", approve_void_request, methods=["POST"]),
        Route("/api/void-requests/{seq:int}/refuse", refuse_void_request, methods=["POST"]),
    ]


def _json(document: object, status: int = 200) -> JSONResponse:
    from starlette.responses import JSONResponse

    from campaign.services.results import as_json

    return JSONResponse(as_json(document), status_code=status, headers={"cache-control": "no-store"})


async def table(request: Request) -> Response:
    """What the table pages show (campaign.web.table_state), for this session."""
    from campaign.web.table_state import table_state

    state = request.app.state
    seat = seat_of(request)

    def for_seat() -> dict[str, object]:
        shared = state.head_state.at_head()[1]["table"]  # computed once per head for every page
        return table_state(shared, state.db, state.campaign, seat)

    return _json(await run_in_threadpool(for_seat))


GAP_LIMIT = 50  # entries a gap answer holds at most: the newest of the gap (the page keeps 50)
GAP_BYTES = 48 * 1024  # and its size: every answer stays under the pages' 64 KB (docs/web.md)


async def table_entries(request: Request) -> Response:
    """{"entries": [...]}: the entries strictly between `after` and `before`, newest first,
    as the table pages list them (the newest GAP_LIMIT of them): what a page fetches when
    the seqs of its entry events jump."""
    from campaign.services.ledger.browse import entries_after
    from campaign.web.routes_api import query_int
    from campaign.web.table_state import entry_item

    state = request.app.state
    after, before = max(query_int(request, "after", 0), 0), query_int(request, "before", 0)
    start = max(after, before - 1 - GAP_LIMIT)

    def between() -> list[dict[str, object]]:
        found = entries_after(state.db, state.campaign_id, start, limit=max(0, min(GAP_LIMIT, before - 1 - start)))
        items: list[dict[str, object]] = []
        size = 0
        for entry in reversed(found):  # newest first, until the answer's budget is spent
            if entry["seq"] >= before:
                continue
            item = entry_item(entry)
            size += len(json.dumps(item, ensure_ascii=False).encode("utf-8"))
            if items and size > GAP_BYTES:
                break  # the page lists the newest few: older big rolls are on their entry pages
            items.append(item)
        return items

    return _json({"entries": await run_in_threadpool(between) if before > after + 1 else []})


async def post_roll(request: Request) -> Response:
    """{"command", "character", "idempotency_key", "share"?} -> the entry (server dice, actor =
    session; derived from the committed seed and the share while one is open), with the
    share recorded and every entry the request wrote (`entries`: seq, dice, total,
    outcome, fair) for the player's receipt."""
    from campaign.services.table.writes import seat_roll

    seat, body = await write_request(request, frozenset({"command", "character", "idempotency_key", "share"}))
    state = request.app.state
    rolled = await run_in_threadpool(
        seat_roll,
        state.db,
        state.campaign_id,
        state.campaign,
        seat,
        body.get("command"),
        body.get("character"),
        body.get("idempotency_key"),
        state.dice(),
        body.get("share"),
    )
    return _json(rolled, 200 if rolled.replayed else 201)


async def calls(request: Request) -> Response:
    """GET: the session's pending calls (the GM's: all). POST (GM): make a call."""
    from campaign.services.table.calls import list_calls, make_call, make_calls

    state = request.app.state
    if request.method == "GET":
        seat = seat_of(request)
        if seat is None:
            raise Refusal("no_session")
        player = None if seat.gm else seat.player_id  # narrowed here: the lambda would not see it
        found = await run_in_threadpool(lambda: list_calls(state.db, state.campaign, player=player))
        return _json({"calls": found})
    seat, body = await write_request(
        request, frozenset({"kind", "character", "characters", "params", "reason"}), gm_only=True
    )
    params = body.get("params") or {}
    if (
        not isinstance(params, dict)
        or not isinstance(body.get("kind"), str)
        or not isinstance(body.get("character", ""), str)
    ):
        raise Refusal("bad_input", _("kind and character are text, params an object"))
    if body["kind"] == "reunion":  # `scenario end --call`: the open scenario's missing characters
        from campaign.services.table.calls import call_scenario_end

        made = await run_in_threadpool(
            lambda: call_scenario_end(
                state.db,
                state.campaign,
                seat_actor_name(state, seat),
                params.get("award"),
                params.get("elapsed"),
                searchers=params.get("searchers") is True,
                npcs=params.get("npcs") is True,
            )
        )
        return _json(made, 201)
    from campaign.services.results import as_json
    from campaign.services.table.calls import prompt_of

    if "characters" in body or not body.get("character"):  # several at once; none named: everyone taking part
        names = body.get("characters") or []
        if not isinstance(names, list) or not all(isinstance(name, str) for name in names) or len(names) > 50:
            raise Refusal("bad_input", _("characters: a list of names"))
        several = await run_in_threadpool(
            lambda: make_calls(
                state.db, state.campaign, seat_actor_name(state, seat), body["kind"], names, params, body.get("reason")
            )
        )
        shown = [{**as_json(made), "prompt": prompt_of(made.kind, made.character, made.params)} for made in several]
        return _json({"calls": shown}, 201)
    made = await run_in_threadpool(
        lambda: make_call(
            state.db,
            state.campaign,
            seat_actor_name(state, seat),
            body["kind"],
            body["character"],
            params,
            body.get("reason"),
        )
    )
    # the GM's page shows the prompt: in the request's language, as the call list's is (table_state)
    return _json({**as_json(made), "prompt": prompt_of(made.kind, made.character, made.params)}, 201)


async def roll_call(request: Request) -> Response:
    """{"idempotency_key", "share"?} -> 201 and the entry that answers the call."""
    from campaign.services.table.calls import roll_call as roll
    from campaign.services.table.writes import entry_roll, idempotency_key, reunion_roll

    seat, body = await write_request(request, frozenset({"idempotency_key", "share"}))
    key = idempotency_key(body.get("idempotency_key"))
    state, call_id = request.app.state, request.path_params["call_id"]
    done = await run_in_threadpool(
        lambda: roll(
            state.db,
            state.campaign_id,
            state.campaign,
            call_id,
            seat.player,
            state.dice(),
            seat=seat,
            key=key,
            share=body.get("share"),
        )
    )
    span = (state.campaign_id, done.last_seq or done.seq)
    if done.call.kind == "reunion":  # the player's own die, not the scenario's end
        rolled = await run_in_threadpool(
            lambda: reunion_roll(
                state.db, state.campaign_id, state.campaign, seat, done.seq, span[1], replayed=done.replayed
            )
        )
    else:
        rolled = await run_in_threadpool(
            lambda: entry_roll(state.db, state.campaign, seat, done.seq, replayed=done.replayed, span=span)
        )
    from campaign.services.results import as_json

    return _json({**as_json(rolled), "call_id": done.call.call_id}, 200 if done.replayed else 201)


async def cancel_call(request: Request) -> Response:
    from campaign.services.table.calls import cancel_call as cancel

    seat, _ = await write_request(request, frozenset(), gm_only=True)
    state = request.app.state
    done = await run_in_threadpool(cancel, state.db, state.campaign, request.path_params["call_id"], seat.player)
    return _json(done)


async def void_requests(request: Request) -> Response:
    """GET: the open void requests. POST {"seq", "reason"}: ask the GM to void an entry of
    one's own (a `void_request` entry)."""
    from campaign.services.disputes.answers import list_requests
    from campaign.services.table.writes import request_own_void

    if request.method == "GET":
        if seat_of(request) is None:
            raise Refusal("no_session")
        state = request.app.state
        return _json({"requests": await run_in_threadpool(list_requests, state.db, state.campaign)})

    seat, body = await write_request(request, frozenset({"seq", "reason", "idempotency_key"}))
    state = request.app.state
    made = await run_in_threadpool(
        request_own_void,
        state.db,
        state.campaign_id,
        state.campaign,
        seat,
        body.get("seq"),
        body.get("reason"),
        body.get("idempotency_key"),
    )
    return _json(made, 200 if made.replayed else 201)


async def approve_void_request(request: Request) -> Response:
    from campaign.services.disputes.answers import requests_service

    seat, _ = await write_request(request, frozenset(), gm_only=True)
    state = request.app.state
    done = await run_in_threadpool(
        lambda: requests_service().approve(
            state.db, state.campaign, seat_actor_name(state, seat), request.path_params["seq"]
        )
    )
    return _json(done, 201)


async def refuse_void_request(request: Request) -> Response:
    """(GM) {"reason"}: refuse the request with a `void_refusal` entry."""
    from campaign.services.disputes.answers import refuse

    seat, body = await write_request(request, frozenset({"reason"}), gm_only=True)
    state = request.app.state
    done = await run_in_threadpool(
        lambda: refuse(
            state.db, state.campaign, seat_actor_name(state, seat), request.path_params["seq"], body.get("reason") or ""
        )
    )
    return _json(done, 201)


def seat_actor_name(state: State, seat: Seat) -> SeatActor:
    """The actor a GM seat's write records (in a worker thread: it may ask the database)."""
    from campaign.services.table.writes import seat_actor

    return seat_actor(state.db, seat.player, {"session": seat.session_id})

"""The GM page's actions: the evening's GM commands from the browser.

`POST /api/gm/<action>` with a JSON body, GM seats only (seats.write_request checks
Origin, session, CSRF, rate and fields first). Each action reads its fields, then calls
the same service as the CLI command it stands for (named in ACTIONS), with the GM's seat
as actor, so every refusal is the CLI's, in the reader's language, with nothing written.
The service writes through a GuardedDatabase: a retried tap (the same idempotency key)
answers 200 with the entries the first made, never a second write.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool

from campaign.errors import BadInput
from campaign.i18n import _
from campaign.web.refusals import Refusal
from campaign.web.seats import write_request

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from campaign.core.dice_source import DiceSource
    from campaign.db.database import Database

TEXT_LIMIT = 200  # a name, a reason, a title: as the CLI's clean_text/clean_name bound them
LIST_LIMIT = 50  # participants, award recipients, search parties


def routes() -> list[Route]:
    from starlette.routing import Route

    return [Route("/api/gm/{action}", gm_action, methods=["POST"])]


@dataclass(frozen=True, slots=True)
class Call:
    """What an action's service needs besides its fields."""

    db: Database
    campaign: str
    actor: Any  # a SeatActor: the GM's seat, recorded as the entry's actor
    dice: DiceSource


@dataclass(frozen=True, slots=True)
class Action:
    """An action's fields (besides idempotency_key) and the service call it makes."""

    fields: frozenset[str]
    run: Callable[[Call, Mapping[str, Any]], object]


# --- reading the fields: one line naming the field when it is not what it must be ----------


def _text(body: Mapping[str, Any], field: str, *, required: bool = True) -> str | None:
    value = body.get(field)
    if value is None or (isinstance(value, str) and not value.strip() and not required):
        if required:
            raise BadInput(_("{field}: required").format(field=field))
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > TEXT_LIMIT:
        raise BadInput(_("{field}: text of 1 to {limit} characters").format(field=field, limit=TEXT_LIMIT))
    return value.strip()


def _number(body: Mapping[str, Any], field: str, *, required: bool = True) -> int | None:
    value = body.get(field)
    if value is None or value == "":
        if required:
            raise BadInput(_("{field}: required").format(field=field))
        return None
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        value = int(value.strip())
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadInput(_("{field}: a whole number").format(field=field))
    return value


def _flag(body: Mapping[str, Any], field: str) -> bool:
    value = body.get(field, False)
    if not isinstance(value, bool):
        raise BadInput(_("{field}: true or false").format(field=field))
    return value


def _names(body: Mapping[str, Any], field: str) -> list[str]:
    value = body.get(field) or []
    if not isinstance(value, list) or len(value) > LIST_LIMIT:
        raise BadInput(_("{field}: a list of names").format(field=field))
    return [name for name in (_text({field: item}, field) for item in value) if name]


def _pairs(body: Mapping[str, Any], field: str) -> list[tuple[str, str]]:
    """[[searcher, target], ...]: the search parties a scenario starts with."""
    value = body.get(field) or []
    if not isinstance(value, list) or len(value) > LIST_LIMIT:
        raise BadInput(_("{field}: a list of [searcher, missing character] pairs").format(field=field))
    pairs = []
    for item in value:
        if not isinstance(item, list) or len(item) != 2:
            raise BadInput(_("{field}: a list of [searcher, missing character] pairs").format(field=field))
        searcher, target = (_text({field: part}, field) for part in item)
        assert searcher is not None and target is not None  # required above
        pairs.append((searcher, target))
    return pairs


# --- the actions: each one CLI command's service -----------------------------------------


def _scenario_start(call: Call, body: Mapping[str, Any]) -> object:
    """`scenario start TITLE --with CHAR --search SEARCHER=MISSING`."""
    from campaign.services.scenarios.runs import start_scenario

    title = _text(body, "title")
    assert title is not None
    return start_scenario(call.db, call.campaign, title, call.actor, _names(body, "with"), _pairs(body, "search"))


def _scenario_end(call: Call, body: Mapping[str, Any]) -> object:
    """`scenario end --award N --searchers --npcs --elapsed SPAN`, the reunion checks rolled
    with the server's dice; with `call`, `scenario end --call` (the missing characters'
    player taps the reunion)."""
    award = _number(body, "award", required=False)
    searchers, npcs = _flag(body, "searchers"), _flag(body, "npcs")
    elapsed = _text(body, "elapsed", required=False)
    if (searchers or npcs) and award is None:
        raise BadInput(_("--searchers and --npcs say who gets the award: give it with --award N"))
    if _flag(body, "call"):
        from campaign.services.table.calls import call_scenario_end

        return call_scenario_end(call.db, call.campaign, call.actor, award, elapsed, searchers=searchers, npcs=npcs)
    from campaign.services.scenarios.runs import end_scenario

    return end_scenario(
        call.db, call.campaign, call.actor, [], call.dice, award, elapsed=elapsed, searchers=searchers, npcs=npcs
    )


def _missing_mark(call: Call, body: Mapping[str, Any]) -> object:
    """`missing mark CHAR --reason TEXT`."""
    from campaign.services.scenarios.missing import mark_missing

    name = _text(body, "character")
    assert name is not None
    return mark_missing(call.db, call.campaign, name, call.actor, reason=_text(body, "reason", required=False))


def _pool(heal: bool) -> Callable[[Call, Mapping[str, Any]], object]:
    """`char damage|heal CHAR HP|FP N --reason TEXT`."""

    def run(call: Call, body: Mapping[str, Any]) -> object:
        from campaign.services.characters.pools import change_pool

        name, pool, amount = _text(body, "character"), _text(body, "pool"), _number(body, "amount")
        assert name is not None and pool is not None and amount is not None
        reason = _text(body, "reason", required=False)
        return change_pool(call.db, call.campaign, call.actor, name, pool, amount, heal=heal, reason=reason)

    return run


def _condition_add(call: Call, body: Mapping[str, Any]) -> object:
    """`condition add CHAR NAME --lasts SPAN --reason TEXT`."""
    from campaign.services.characters.conditions import add_condition

    name, condition = _text(body, "character"), _text(body, "condition")
    assert name is not None and condition is not None
    return add_condition(
        call.db,
        call.campaign,
        call.actor,
        name,
        condition,
        lasts=_text(body, "lasts", required=False),
        reason=_text(body, "reason", required=False),
    )


def _condition_clear(call: Call, body: Mapping[str, Any]) -> object:
    """`condition clear CHAR NAME --reason TEXT`."""
    from campaign.services.characters.conditions import clear_condition

    name, condition = _text(body, "character"), _text(body, "condition")
    assert name is not None and condition is not None
    return clear_condition(
        call.db, call.campaign, call.actor, name, condition, reason=_text(body, "reason", required=False)
    )


def _trait_rename(call: Call, body: Mapping[str, Any]) -> object:
    """`trait rename CHAR OLD NEW`: naming the placeholder a fright check left."""
    from campaign.services.characters.traits import rename_trait

    name, old, new = _text(body, "character"), _text(body, "trait"), _text(body, "name")
    assert name is not None and old is not None and new is not None
    return rename_trait(
        call.db, call.campaign, call.actor, name, old, new, reason=_text(body, "reason", required=False)
    )


def _award(call: Call, body: Mapping[str, Any]) -> object:
    """`award N --to NAME,NAME --reason TEXT`."""
    from campaign.services.characters.lifecycle import award

    cp = _number(body, "cp")
    assert cp is not None
    return award(call.db, call.campaign, cp, _names(body, "to"), call.actor, _text(body, "reason", required=False))


def _void(call: Call, body: Mapping[str, Any]) -> object:
    """`history void SEQ --reason TEXT` (one entry, no cascade: the page shows what depends
    on it in the refusal, as the CLI does)."""
    from campaign.services.disputes.voids import void

    seq, reason = _number(body, "seq"), _text(body, "reason")
    assert seq is not None and reason is not None
    return void(call.db, call.campaign, call.actor, seq, reason)


def _settings(call: Call, body: Mapping[str, Any]) -> object:
    """`settings KEY=VALUE ...`."""
    from campaign.services.campaigns.setup import settings

    changes = body.get("changes")
    if not isinstance(changes, dict) or not changes or len(changes) > LIST_LIMIT:
        raise BadInput(_("changes: an object of setting = value"))
    texts = {}
    for key, value in changes.items():
        texts[_text({"changes": key}, "changes") or ""] = _text({"changes": str(value)}, "changes") or ""
    return settings(call.db, call.campaign, call.actor, texts, _text(body, "reason", required=False))


ACTIONS: dict[str, Action] = {
    "scenario-start": Action(frozenset({"title", "with", "search"}), _scenario_start),
    "scenario-end": Action(frozenset({"award", "searchers", "npcs", "elapsed", "call"}), _scenario_end),
    "missing-mark": Action(frozenset({"character", "reason"}), _missing_mark),
    "damage": Action(frozenset({"character", "pool", "amount", "reason"}), _pool(heal=False)),
    "heal": Action(frozenset({"character", "pool", "amount", "reason"}), _pool(heal=True)),
    "condition-add": Action(frozenset({"character", "condition", "lasts", "reason"}), _condition_add),
    "condition-clear": Action(frozenset({"character", "condition", "reason"}), _condition_clear),
    "trait-rename": Action(frozenset({"character", "trait", "name", "reason"}), _trait_rename),
    "award": Action(frozenset({"cp", "to", "reason"}), _award),
    "void": Action(frozenset({"seq", "reason"}), _void),
    "settings": Action(frozenset({"changes", "reason"}), _settings),
}


def run_action(
    db: Database, campaign_id: int, campaign: str, seat: Any, name: str, body: Mapping[str, Any], dice: DiceSource
) -> tuple[bool, dict[str, Any]]:
    """(replayed, the answer) of one action, in a worker thread: the service writes through
    a GuardedDatabase keyed by the request's idempotency key."""
    from campaign.services.results import as_json
    from campaign.services.table.writes import GuardedDatabase, Replayed, idempotency_key, seat_actor

    key = idempotency_key(body.get("idempotency_key"))
    actor = seat_actor(db, seat.player, {"session": seat.session_id})
    guarded = GuardedDatabase(db, campaign_id, seat, key, route=f"gm/{name}")
    try:
        result = ACTIONS[name].run(Call(guarded, campaign, actor, dice), body)
    except Replayed as done:
        return True, {"action": name, "seq": done.first_seq, "last_seq": done.last_seq}
    answer = as_json(result)
    if name == "scenario-end" and not body.get("call"):  # the end reveals the seed, as `scenario end` does
        from campaign.services.fair.seeds import reveal_seed

        revealed = reveal_seed(db, campaign, actor, answer["scenario"]["number"], quiet=True)
        answer = {**answer, "seed_reveal": None if revealed is None else as_json(revealed)}
    return False, {"action": name, "result": answer}


async def gm_action(request: Request) -> Response:
    from starlette.responses import JSONResponse

    name = request.path_params["action"]
    if name not in ACTIONS:
        raise Refusal("not_found", name[:50])
    seat, body = await write_request(request, ACTIONS[name].fields | {"idempotency_key"}, gm_only=True)
    state = request.app.state
    replayed, answer = await run_in_threadpool(
        run_action, state.db, state.campaign_id, state.campaign, seat, name, body, state.dice()
    )
    return JSONResponse(
        {**answer, "replayed": replayed}, status_code=200 if replayed else 201, headers={"cache-control": "no-store"}
    )

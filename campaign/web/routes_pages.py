"""The HTML pages: overview, characters, missing board, scenarios, history, entry, luck.

Handlers are plain functions (Starlette runs them in its thread pool): parse the query,
call a service, render a template. Empty form fields mean "no filter".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from campaign.errors import BadInput
from campaign.i18n import _

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route
    from starlette.templating import Jinja2Templates

    from campaign.db.database import Database

HISTORY_FILTERS = ("char", "player", "actor", "kind", "scenario", "outcome", "since", "until")


def routes() -> list[Route]:
    from starlette.routing import Route

    return [
        Route("/", home),
        Route("/overview", overview),
        Route("/characters", characters),
        Route("/characters/{name:path}", character),
        Route("/missing", missing),
        Route("/scenarios", scenarios),
        Route("/scenarios/{number:int}", scenario),
        Route("/history", history),
        Route("/entries/{seq:int}", entry),
        Route("/luck", luck),
    ]


def _render(request: Request, template: str, **context: Any) -> Response:
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(request, template, context)


def _ctx(request: Request) -> tuple[Database, str]:
    return request.app.state.db, request.app.state.campaign


def _int(request: Request, name: str) -> int | None:
    text = request.query_params.get(name, "").strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise BadInput(_("{name}: {text!r} is not a whole number").format(name=name, text=text)) from None


def _text(request: Request, name: str) -> str | None:
    """A filter as typed; NUL (which no name holds, and PostgreSQL refuses in a query
    parameter) is malformed input, as the CLI's argv could never carry it."""
    text = request.query_params.get(name, "").strip()
    if "\x00" in text:
        raise BadInput(_("{name}: contains a NUL character").format(name=name))
    return text or None


def home(request: Request) -> Response:
    """A seated player's or GM's home is the table page (static/table.js fills it from
    /api/table); a spectator's, the overview."""
    seat = request.scope.get("state", {}).get("seat")
    if seat is not None:
        from campaign.services.table.writes import ruleset_of

        return _render(request, "table.html", seat=seat, ruleset=ruleset_of(*_ctx(request)))
    return overview(request)


def overview(request: Request) -> Response:
    from campaign.services.characters.roster import list_characters
    from campaign.services.ledger.browse import history_page
    from campaign.services.ledger.history import HistoryFilter
    from campaign.services.scenarios.missing import list_missing

    db, name = _ctx(request)
    latest = history_page(db, name, HistoryFilter(), size=10).entries
    return _render(
        request,
        "index.html",
        characters=list_characters(db, name, include_gone=True),
        missing=list_missing(db, name),
        latest=latest,
        head=latest[0]["seq"] if latest else 0,
    )


def characters(request: Request) -> Response:
    from campaign.services.characters.roster import list_characters

    db, name = _ctx(request)
    return _render(request, "characters.html", characters=list_characters(db, name, include_gone=True))


def character(request: Request) -> Response:
    from campaign.services.characters.roster import show_character
    from campaign.services.ledger.browse import source_kinds

    db, name = _ctx(request)
    view = show_character(db, name, request.path_params["name"])
    kinds = source_kinds(db, name, [t.source_seq for t in view.traits] + [c.source_seq for c in view.conditions])
    return _render(request, "character.html", c=view, kinds=kinds)


def missing(request: Request) -> Response:
    from campaign.services.scenarios.missing import list_missing

    db, name = _ctx(request)
    return _render(request, "missing.html", missing=list_missing(db, name))


def scenarios(request: Request) -> Response:
    from campaign.services.scenarios.runs import list_scenarios

    db, name = _ctx(request)
    return _render(request, "scenarios.html", scenarios=list_scenarios(db, name))


def scenario(request: Request) -> Response:
    from campaign.services.ledger.browse import scenario_by_number

    db, name = _ctx(request)
    return _render(request, "scenario.html", s=scenario_by_number(db, name, request.path_params["number"]))


def history(request: Request) -> Response:
    from urllib.parse import urlencode

    from campaign.services.ledger.browse import history_page
    from campaign.services.ledger.history import KINDS, OUTCOMES, HistoryFilter

    db, name = _ctx(request)
    given = {key: _text(request, key) for key in HISTORY_FILTERS}
    flt = HistoryFilter(
        character=given["char"],
        player=given["player"],
        actor=given["actor"],
        kind=given["kind"],
        scenario=_int(request, "scenario"),
        outcome=given["outcome"],
        since=given["since"],
        until=given["until"],
    )
    before = _int(request, "before")
    page = history_page(db, name, flt, before=before)
    kept = [(key, value) for key, value in given.items() if value is not None]
    older = (
        None
        if page.older is None
        else request.app.state.base + "/history?" + urlencode([*kept, ("before", page.older)])
    )
    filtered = bool(kept)
    entries = page.entries
    # The feed sends every new entry: only the unfiltered first page may take them all.
    live = not filtered and before is None
    return _render(
        request,
        "history.html",
        entries=entries,
        given=given,
        kinds=KINDS,
        outcomes=OUTCOMES,
        older=older,
        newest=request.app.state.base + "/history" + ("?" + urlencode(kept) if kept else ""),
        paged=before is not None,
        live=live,
        head=entries[0]["seq"] if entries else 0,
        from_seq=entries[-1]["seq"] if entries else 1,
    )


def entry(request: Request) -> Response:
    import json

    from campaign.services.ledger.browse import chain_slice
    from campaign.services.ledger.history import show_entry

    db, name = _ctx(request)
    seq = request.path_params["seq"]
    view = show_entry(db, name, seq)
    from campaign.web.present import RECORD_SHOWN

    # The record as hashed (not the view of it), indented for reading; a big roll's only
    # in part, the whole of it behind a link to /api/chain (the page stays bounded).
    stored = chain_slice(db, name, seq, seq).entries[0].record
    record = json.dumps(json.loads(stored), ensure_ascii=False, indent=2, sort_keys=True)
    whole = len(record) <= RECORD_SHOWN
    if not whole:
        record = stored[:RECORD_SHOWN] + "…"
    return _render(request, "entry.html", e=view, record=record, whole=whole)


def luck(request: Request) -> Response:
    from campaign.services.ledger.history import HistoryFilter

    db, name = _ctx(request)
    char = _text(request, "char")
    # A tally the server keeps (services.ledger.luck_kept), not a re-tally of the ledger per request.
    report = request.app.state.luck.report(db, name, HistoryFilter(character=char, limit=None))
    return _render(request, "luck.html", report=report, char=char)

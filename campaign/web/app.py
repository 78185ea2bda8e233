"""The ASGI application of `campaign serve`: create_app() wires routes, templates,
static files, the token guard and the live feed around one opened database.

Every request reads through the services layer in its own short read transaction
(services open and close a session each call), so a page never holds the database
while a browser is slow, and the CLI can commit between two page loads.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import threading

    from starlette.templating import Jinja2Templates

    from campaign.core.dice_source import DiceSource
    from campaign.db.database import Database
    from campaign.projection.views import CharacterSheet
    from campaign.web.feed import HeadsProbe
    from campaign.web.feed_listen import SharedListener
    from campaign.web.security import Guard

HERE = Path(__file__).parent


def make_templates() -> Jinja2Templates:
    """Jinja2 with autoescape on for .html: every name and reason is text, never markup.
    `_()` in a template is the catalog's (campaign.i18n, the request's language); times
    are shown in the request's zone (present.page_zone: the campaign's `timezone` as the
    request began, else the server's), named on the page."""
    import json

    import jinja2
    from markupsafe import Markup
    from starlette.templating import Jinja2Templates

    from campaign import i18n, labels
    from campaign.core.text_rule import visible
    from campaign.web import present
    from campaign.web.script_messages import script_messages

    def with_code(message: str, **codes: str) -> Markup:
        """A translated message with commands, as typed, in <code> (never translated)."""
        return Markup.escape(message).format(**{key: Markup("<code>{}</code>").format(v) for key, v in codes.items()})

    def shown(value: object) -> object:
        """Text a page shows: bidi controls and U+2028/2029 as escapes (core.text_rule), as
        the terminal shows them; markup the templates built passes as it is."""
        if isinstance(value, str) and not isinstance(value, Markup):
            return visible(value)
        return value

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=jinja2.select_autoescape(["html", "svg"], default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        finalize=shown,
    )
    env.filters.update(
        roll_text=present.roll_text,
        kind_text=present.kind_text,
        short_time=lambda at: present.short_time(at, present.page_zone()),
        local_time=lambda at: present.local_time(at, present.page_zone()),
        outcome_label=present.outcome_text,
        status_text=present.status_text,
        condition_text=present.condition_text,
        category_text=present.category_text,
        duration_text=present.duration_text,
        source_text=present.source_text,
        reason_text=labels.reason_label,
        stat_text=labels.sheet_stat_label,
        family_text=present.family_text,
    )
    env.globals.update(
        commitment=present.commitment,
        bars=present.bars,
        percent=present.percent,
        _=i18n._,
        kind_label=present.kind_word,
        luck_note=present.luck_note,
        page_language=i18n.language,
        time_zone=lambda: present.zone_label(present.page_zone()),
        zone_setting=lambda: present.page_zone() or "",
        with_code=with_code,
        dice_shown=present.DICE_SHOWN,  # faces an entry page lists (the page stays bounded)
        list_separator=lambda: i18n.pick("、", ", "),  # the scripts show times in it (else the browser's zone)
        # the scripts' messages, in this page's language, from the same catalog (static/*.js read them)
        script_messages=lambda: Markup(json.dumps(script_messages(), ensure_ascii=False).replace("<", "\\u003c")),
    )
    return Jinja2Templates(env=env)


def overview_parts(
    templates: Jinja2Templates, db: Database, campaign_name: str, characters: list[CharacterSheet]
) -> dict[str, str]:
    """The overview's characters and missing board as the page renders them (same
    partials, same escaping), for the feed's `state` event: live.js swaps them in."""
    from campaign.services.scenarios.missing import list_missing

    env = templates.env
    context = {"characters": characters, "missing": list_missing(db, campaign_name)}
    return {
        "characters": env.get_template("_overview_characters.html").render(context),
        "missing": env.get_template("_overview_missing.html").render(context),
    }


def create_app(
    db_url: str,
    campaign_name: str | None,
    token: str | None = None,
    *,
    secure_cookie: bool = False,
    hosts: tuple[str, ...] = (),
    rate: tuple[int, float] | None = None,
    dice: Callable[[], DiceSource] | None = None,
    public_url: str | None = None,
    listen_url: str | None = None,
) -> Guard:
    """The application for one campaign of the database at `db_url`.

    `campaign_name` None means "the only campaign there is", as in the CLI. With a
    `token`, every request must carry it or a session (see campaign.web.security).
    `hosts`: the host names answered besides IP addresses and localhost (DNS
    rebinding); `rate`: (burst, per second) of each session's writes; `dice`: makes
    the dice source of each player's roll (tests give fixed faces; else ServerDice);
    `public_url` (`serve --public-url`) and `listen_url` (the address `serve` printed):
    the players' address invite links are made on (campaign.web.routes_invites).
    """
    from campaign.db.database import Database
    from campaign.services.ledger.browse import campaign_identity

    db = Database(db_url, read_only_ok=True)  # a full disk or a read-only file: pages still read
    campaign_id, name = campaign_identity(db, campaign_name)
    return campaign_app(
        db,
        campaign_id,
        name,
        token,
        secure_cookie=secure_cookie,
        hosts=hosts,
        rate=rate,
        dice=dice,
        public_url=public_url,
        listen_url=listen_url,
    )


def campaign_app(
    db: Database,
    campaign_id: int,
    name: str,
    token: str | None = None,
    *,
    base: str = "",
    shared: SharedListener | None = None,
    probe: HeadsProbe | None = None,
    secure_cookie: bool = False,
    hosts: tuple[str, ...] = (),
    rate: tuple[int, float] | None = None,
    dice: Callable[[], DiceSource] | None = None,
    public_url: str | None = None,
    listen_url: str | None = None,
) -> Guard:
    """The application of one campaign over an opened database (create_app's options).

    `base`: the path the campaign is served under ("/c/<slug>" when one process serves
    several, campaign.web.multi; "" alone): the templates' `url()` and the redirects
    put it before every path, the session cookie is scoped to it. `shared`: the
    process's one LISTEN connection (PostgreSQL) its feed shares with the others;
    `probe`: the heads of every campaign's open pages read at once (campaign.web.feed)."""
    from sqlalchemy.exc import DBAPIError
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.routing import Mount
    from starlette.staticfiles import StaticFiles

    from campaign.errors import CampaignError
    from campaign.services.ledger.luck_kept import KeptTallies
    from campaign.services.table.invites import Seat
    from campaign.web import gm_actions, routes_api, routes_bcdice, routes_invites, routes_pages, routes_table, seats
    from campaign.web.errors import campaign_error, database_error, http_error
    from campaign.web.feed import Feed, NudgeOnWrite
    from campaign.web.head_state import HeadState
    from campaign.web.refusals import Refusal, json_refusal
    from campaign.web.security import Guard
    from campaign.web.table_state import entry_item

    templates = make_templates()
    templates.env.globals["campaign_name"] = name
    templates.env.globals["campaign_base"] = base  # <meta name="campaign-base"> when not ""
    templates.env.globals["url"] = lambda path: base + path  # a page's links under `base`
    # A template's macros are attributes Jinja2 makes as it loads it (untyped by nature).
    row_macro = templates.env.get_template("macros.html").module.entry_row  # type: ignore[attr-defined]

    from sqlalchemy.exc import SQLAlchemyError
    from starlette.middleware import Middleware
    from starlette.middleware.gzip import GZipMiddleware

    from campaign import i18n
    from campaign.services.ledger.browse import PageFacts, page_facts, read_page_facts
    from campaign.services.table.invites import read_seat
    from campaign.web import present
    from campaign.web.language import page_language

    known = page_facts(db, campaign_id)  # a request whose own read fails shows the last read

    def facts_and_seat(scope: Any, token: str | None) -> tuple[PageFacts, Seat | None]:
        """The campaign's settings a page speaks by (campaign.web.language: CAMPAIGN_LANG,
        the campaign's setting, the browser's Accept-Language, the ruleset) and the zone
        its times are in, as they are now, so `campaign settings lang=en` shows on the next
        page without a restart; and the seat of the session cookie. One transaction for
        both: every request asks them. A file has no words: no facts read for it."""
        nonlocal known
        wants_facts = not scope["path"].startswith("/static/")
        if not wants_facts and not token:
            return known, None
        try:
            with db.read() as session:
                if wants_facts:
                    known = read_page_facts(session, campaign_id)
                return known, (read_seat(session, campaign_id, token) if token else None)
        except SQLAlchemyError as exc:
            # A role the database refuses the seats (a server started on a player's role)
            # has no sessions, and is no crash; the database away: the page's own read says so.
            if token and getattr(getattr(exc, "orig", None), "sqlstate", None) != "42501":
                raise
            return known, None

    def speaking(scope: Any, facts: object) -> None:
        """Each request in its page's language and its times in the campaign's zone.
        campaign.i18n and present hold them in context variables, so the worker threads
        of sync endpoints read them too."""
        told = facts if isinstance(facts, PageFacts) else known
        headers = scope.get("headers", ())
        accept = next((value.decode("latin-1") for key, value in headers if key == b"accept-language"), None)
        i18n.use(page_language(told.lang, told.ruleset, accept))
        present.use_zone(told.zone)

    app = Starlette(
        # GZip: never the stream; NudgeOnWrite: a write here reaches open pages at once
        middleware=[Middleware(NudgeOnWrite), Middleware(GZipMiddleware, minimum_size=1024)],
        routes=[
            *routes_pages.routes(),
            *routes_api.routes(),
            *seats.routes(),
            *routes_table.routes(),
            *routes_invites.routes(),
            *gm_actions.routes(),
            *routes_bcdice.routes(),
            Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        ],
        exception_handlers={
            CampaignError: campaign_error,
            HTTPException: http_error,
            DBAPIError: database_error,
            Refusal: lambda request, exc: json_refusal(exc),
        },
    )
    app.state.db = db
    app.state.campaign = name
    app.state.campaign_id = campaign_id
    app.state.base = base
    app.state.secure_cookie = secure_cookie
    app.state.public_url, app.state.listen_url = public_url, listen_url
    app.state.rate_limit = seats.RateLimit(*(rate or (seats.BURST, seats.RATE)))
    if dice is None:
        from campaign.core.dice_source import ServerDice as dice
    app.state.dice = dice
    # `serve --dice` (tests): every page says the dice are fixed, as the ledger does (typed)
    templates.env.globals["typed_dice"] = getattr(dice, "kind", None) == "manual"
    app.state.templates = templates
    app.state.luck = KeptTallies()  # the luck page's tally, kept in step with the ledger
    # the state every page shows alike, once per head (the feed's `state` event, /api/table)
    app.state.head_state = HeadState(
        db, campaign_id, name, lambda characters: overview_parts(templates, db, name, characters)
    )
    app.state.feed = Feed(
        db, campaign_id, lambda entry: str(row_macro(entry)), app.state.head_state.at_head, entry_item, shared, probe
    )
    return Guard(
        app, token, secure_cookie=secure_cookie, hosts=hosts, read_of=facts_and_seat, language_of=speaking, base=base
    )


def warm_up(guard: Guard) -> threading.Thread:
    """Build, in a background thread, what the first request of a page would otherwise
    build: the luck page's tally (a full pass over the ledger and the scipy import,
    seconds at 100,000 entries) and the state every table page starts from. A request
    that comes meanwhile waits for the same work (KeptTallies' lock) instead of doing it
    again. A failure here is the page's own to report: logged, never raised."""
    import logging
    import threading

    from starlette.applications import Starlette

    from campaign.services.ledger.history import HistoryFilter

    inner = guard.app
    assert isinstance(inner, Starlette)  # create_app's guard wraps its application
    state = inner.state

    def warm() -> None:
        try:
            state.luck.report(state.db, state.campaign, HistoryFilter(limit=None))
            state.head_state.at_head()
        except Exception:  # the database away at start: the first page says so itself
            logging.getLogger("uvicorn.error").warning("warm-up at start failed", exc_info=True)

    thread = threading.Thread(target=warm, name="warm-up", daemon=True)
    thread.start()
    return thread

"""One process serving several campaigns of one database: `campaign serve --all`.

Every campaign of the database lives in one `campaigns` table (SQLite file or
PostgreSQL database alike), so one opened Database (one engine, one bounded pool of
connections) serves them all; each campaign is served under its own path,
`/c/<slug>/`, by the same application `campaign serve` runs for one campaign
(campaign.web.app.campaign_app) with that base before its links, its redirects and its
session cookie's path. `/` lists the campaigns (behind the read token when one is in
force: for the GM), `/static/` is shared.

A campaign's application is built on its first request, not at start: a database of a
thousand campaigns costs nothing for those nobody opens. On PostgreSQL the feeds of all
campaigns share one LISTEN connection (campaign.web.feed_listen.SharedListener).

Connections per process: the engine's pool (SQLAlchemy's default, 5 kept and 10 more
at a burst, so at most 15) plus, on PostgreSQL, the one LISTEN connection: 16 however
many campaigns are served or pages are open (docs/web.md).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from campaign.errors import RuleRefused
from campaign.i18n import _

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.types import Receive, Scope, Send

    from campaign.core.dice_source import DiceSource
    from campaign.db.database import Database
    from campaign.web.feed_listen import SharedListener
    from campaign.web.security import Guard

PREFIX = "/c/"


@dataclass(frozen=True, slots=True)
class Served:
    """A campaign as the server serves it: its slug (the path part) and where."""

    slug: str
    campaign_id: int
    name: str
    ruleset: str

    @property
    def shown(self) -> str:
        """The campaign's path as a person reads it (/c/霧の館/)."""
        return PREFIX + self.slug + "/"

    @property
    def base(self) -> str:
        """The campaign's path on the server, percent-encoded, without the last slash."""
        return PREFIX + quote(self.slug, safe="")


def slug_of(name: str, campaign_id: int) -> str:
    """The path part of a campaign's name: NFKC, case-folded, every run of characters
    that are not letters or digits (in any script: 霧の館 stays 霧の館) one hyphen.
    A name with no letter or digit at all is `campaign-<id>`."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    slug = re.sub(r"[\W_]+", "-", folded).strip("-")
    return slug or f"campaign-{campaign_id}"


def served_campaigns(db: Database, names: list[str] | None) -> list[Served]:
    """The campaigns to serve, by name (`--campaigns`) or all of the database's, each
    with its slug. Refused in one line: no campaign, an unknown name, or two campaigns
    whose names give one slug (one path cannot serve two)."""
    from sqlalchemy import select

    from campaign.db.models import Campaign
    from campaign.services.common import campaign_named

    with db.read() as session:
        if names is None:
            rows = [(c.id, c.name, c.ruleset) for c in session.scalars(select(Campaign).order_by(Campaign.id))]
        else:
            rows = []
            for name in names:
                campaign = campaign_named(session, name)
                if all(row[0] != campaign.id for row in rows):
                    rows.append((campaign.id, campaign.name, campaign.ruleset))
    if not rows:
        raise RuleRefused(_("no campaign yet: create one with `campaign init NAME`"))
    served: dict[str, Served] = {}
    for campaign_id, name, ruleset in rows:
        slug = slug_of(name, campaign_id)
        if slug in served:
            raise RuleRefused(
                _(
                    "campaigns {first!r} and {second!r} would both be served at {path}: "
                    "name the ones to serve with --campaigns, leaving one of them out"
                ).format(first=served[slug].name, second=name, path=PREFIX + slug + "/")
            )
        served[slug] = Served(slug, campaign_id, name, ruleset)
    return list(served.values())


class Campaigns:
    """The ASGI application of `serve --all`: `/c/<slug>/...` to that campaign's
    application (the path below its base, as if served alone), anything else to the
    front (the list, the static files, 404 in the reader's language)."""

    def __init__(
        self,
        db: Database,
        served: list[Served],
        build: Callable[[Served], Guard],
        front: Guard,
        shared: SharedListener | None,
    ) -> None:
        self.db = db
        self.served = served
        self.by_slug = {one.slug: one for one in served}
        self.front = front
        self.shared = shared
        self._build = build
        self._apps: dict[str, Guard] = {}
        self._lock: Any = None  # an anyio.Lock, made on the event loop

    async def app_for(self, served: Served) -> Guard:
        """The campaign's application, built once, on its first request (in a worker
        thread: building it reads the campaign)."""
        import anyio
        import anyio.to_thread

        app = self._apps.get(served.slug)
        if app is None:
            if self._lock is None:
                self._lock = anyio.Lock()
            async with self._lock:
                app = self._apps.get(served.slug)
                if app is None:
                    app = self._apps[served.slug] = await anyio.to_thread.run_sync(self._build, served)
        return app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(PREFIX):
            slug, slash, rest = scope["path"][len(PREFIX) :].partition("/")
            served = self.by_slug.get(slug)
            if served is not None and slash:
                app = await self.app_for(served)
                # the campaign's application sees its own paths (its Guard puts the base
                # back before a redirect); raw_path would still hold the base
                inner = {key: value for key, value in scope.items() if key != "raw_path"}
                inner["path"] = "/" + rest
                await app(inner, receive, send)
                return
        if scope["type"] == "http" and scope["path"].startswith(("/join/", "/bcdice/")):
            served = await self._owner(scope["path"])
            if served is not None:  # answered as that campaign (its page, its cookie's path)
                await (await self.app_for(served))(scope, receive, send)
                return
        await self.front(scope, receive, send)

    async def _owner(self, path: str) -> Served | None:
        """The served campaign of the invite code or bot token in a path as the CLI
        prints it (`/join/<code>`, `/bcdice/<token>/...`, without a campaign's base)."""
        import anyio.to_thread

        from campaign.services.bridges.bcdice_api import token_campaign
        from campaign.services.table.invites import invite_campaign

        kind, _slash, rest = path[1:].partition("/")
        secret = rest.split("/", 1)[0]
        find = invite_campaign if kind == "join" else token_campaign
        campaign_id = await anyio.to_thread.run_sync(find, self.db, secret)
        return next((one for one in self.served if one.campaign_id == campaign_id), None)

    def close(self) -> None:
        if self.shared is not None:
            self.shared.close()
        self.db.close()


def create_multi_app(
    db_url: str,
    names: list[str] | None,
    token: str | None = None,
    *,
    secure_cookie: bool = False,
    hosts: tuple[str, ...] = (),
    rate: tuple[int, float] | None = None,
    dice: Callable[[], DiceSource] | None = None,
    public_url: str | None = None,
) -> Campaigns:
    """Every campaign of the database at `db_url` (or those `names` gives), each under
    /c/<slug>/; the options are create_app's, for every campaign alike (one read token
    for the whole server)."""
    from campaign.db.database import Database
    from campaign.web.app import campaign_app, warm_up
    from campaign.web.feed import HeadsProbe
    from campaign.web.feed_listen import SharedListener

    db = Database(db_url, read_only_ok=True)
    try:
        served = served_campaigns(db, names)
    except BaseException:
        db.close()
        raise
    shared = SharedListener(db.url) if db.dialect == "postgresql" else None
    probe = HeadsProbe(db)  # one read of every open campaign's head per wake-up or poll

    def build(one: Served) -> Guard:
        guard = campaign_app(
            db,
            one.campaign_id,
            one.name,
            token,
            base=one.base,
            shared=shared,
            probe=probe,
            secure_cookie=secure_cookie,
            hosts=hosts,
            rate=rate,
            dice=dice,
            public_url=public_url,
        )
        warm_up(guard)  # its luck tally and table state, while its first page is answered
        return guard

    return Campaigns(db, served, build, front_app(served, token, secure_cookie, hosts), shared)


def front_app(served: list[Served], token: str | None, secure_cookie: bool, hosts: tuple[str, ...]) -> Guard:
    """`/`: the list of campaigns; `/c/<slug>`: to `/c/<slug>/`; `/static/`: the
    package's files; anything else 404, in the reader's language (the browser's, else
    Japanese for Japanese rulesets, as a campaign's page)."""
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.responses import RedirectResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    from campaign import i18n
    from campaign.web.app import HERE, make_templates
    from campaign.web.language import page_language
    from campaign.web.security import Guard

    templates = make_templates()
    by_slug = {one.slug: one for one in served}
    ruleset = served[0].ruleset if served else None

    def page(request: Request, status: int) -> Response:
        return templates.TemplateResponse(
            request,
            "campaigns.html",
            {"campaigns": served if status == 200 else [], "status": status},
            status_code=status,
            headers={"cache-control": "no-store"},
        )

    def index(request: Request) -> Response:
        return page(request, 200)

    def to_base(request: Request) -> Response:
        one = by_slug.get(request.path_params["slug"])
        if one is None:
            return page(request, 404)
        query = request.url.query
        return RedirectResponse(one.base + "/" + ("?" + query if query else ""), status_code=308)

    async def not_found(request: Request, exc: Exception) -> Response:
        return page(request, 404 if not isinstance(exc, HTTPException) else exc.status_code)

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/c/{slug}", to_base),
            Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        ],
        exception_handlers={HTTPException: not_found},
    )
    app.router.redirect_slashes = False  # /c/unknown/ is 404 at once, not a redirect to one

    def speaking(scope: Scope, facts: object) -> None:
        headers = scope.get("headers", ())
        accept = next((value.decode("latin-1") for key, value in headers if key == b"accept-language"), None)
        i18n.use(page_language(None, ruleset, accept))

    return Guard(app, token, secure_cookie=secure_cookie, hosts=hosts, language_of=speaking)

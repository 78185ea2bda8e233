"""Error pages: a refused or malformed request gets the CLI's one line, in a page.

BadInput (a filter the CLI would refuse with exit 2) is 400, NotFound 404, anything
else a rule refused 409. The message is escaped like every other text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from campaign.errors import BadInput, NotFound
from campaign.i18n import N_, _

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.templating import Jinja2Templates

_STATUS = ((BadInput, 400), (NotFound, 404))


def _page(request: Request, status: int, message: str) -> Response:
    templates: Jinja2Templates = request.app.state.templates
    if request.url.path.startswith("/api/"):
        from starlette.responses import JSONResponse

        return JSONResponse({"error": message, "code": _CODES.get(status, "refused")}, status_code=status)
    return templates.TemplateResponse(request, "error.html", {"status": status, "message": message}, status_code=status)


_CODES = {400: "bad_input", 404: "not_found", 405: "method", 409: "refused"}


def campaign_error(request: Request, exc: Exception) -> Response:
    if request.url.path.startswith("/api/"):  # the table API's shape: Japanese first, with a code
        from campaign.web.refusals import from_campaign_error, json_refusal

        return json_refusal(from_campaign_error(exc))
    status = next((code for kind, code in _STATUS if isinstance(exc, kind)), 409)
    from campaign.refusal_words import refusal_text

    return _page(request, status, refusal_text(exc))


def http_error(request: Request, exc: Exception) -> Response:
    from starlette.exceptions import HTTPException

    assert isinstance(exc, HTTPException)  # registered for it (Starlette types a handler's exc as Exception)
    messages = {404: N_("Page not found"), 405: N_("Method not allowed"), 403: N_("Forbidden")}
    shown = _(messages[exc.status_code]) if exc.status_code in messages else exc.detail
    return _page(request, exc.status_code, shown)


def _machine_trouble(request: Request, exc: Exception) -> str | None:
    """The one line for a full disk or a read-only database (campaign.db.storage: an
    SQLite file, or a PostgreSQL server), else None."""
    from campaign.db.storage import machine_trouble, server_trouble

    if not getattr(getattr(exc, "orig", None), "sqlite_errorname", None):
        return server_trouble(exc)
    from campaign.db.engine import sqlite_path

    return machine_trouble(sqlite_path(request.app.state.db.url), exc)


def database_error(request: Request, exc: Exception) -> Response:
    """A full disk or a read-only file is a 503 saying so (a read still works: the
    database opens read-only, campaign.db.storage); a permission the database refused
    (SQLSTATE 42501: a grant, row-level security, the group-mode actor trigger) is a
    refusal like any other; anything else stays a 500."""
    original = getattr(exc, "orig", None)
    trouble = _machine_trouble(request, exc)
    if trouble is not None:  # a full disk or a read-only file: said in one line, nothing written
        if request.url.path.startswith("/api/"):
            from campaign.web.refusals import Refusal, json_refusal

            return json_refusal(Refusal("storage", trouble))
        return _page(request, 503, trouble)
    if getattr(original, "sqlstate", None) != "42501":
        raise exc
    message = str(original).splitlines()[0] if str(original) else "permission denied"
    shown = _("refused by the database: {message}").format(message=message)
    if request.url.path.startswith("/api/"):
        from campaign.web.refusals import Refusal, json_refusal

        return json_refusal(Refusal("refused", shown))
    return _page(request, 403, shown)

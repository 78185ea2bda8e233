"""Error pages: a refused or malformed request gets the CLI's one line, in a page.

BadInput (a filter the CLI would refuse with exit 2) is 400, NotFound 404, anything
else a rule refused 409. The message is escaped like every other text.
"""

from __future__ import annotations

from campaign.errors import BadInput, NotFound

_STATUS = ((BadInput, 400), (NotFound, 404))


def _page(request, status: int, message: str):
    templates = request.app.state.templates
    if request.url.path.startswith("/api/"):
        from starlette.responses import JSONResponse

        return JSONResponse({"error": message}, status_code=status)
    return templates.TemplateResponse(request, "error.html", {"status": status, "message": message},
                                      status_code=status)


def campaign_error(request, exc):
    status = next((code for kind, code in _STATUS if isinstance(exc, kind)), 409)
    return _page(request, status, str(exc))


def http_error(request, exc):
    messages = {404: "ページが見つかりません / Not found", 405: "読み取り専用です / Read only"}
    return _page(request, exc.status_code, messages.get(exc.status_code, exc.detail))

"""Every refusal of the table server's API as one JSON shape: {"error", "code"}.

`error` is in the request's language (campaign.web.language), with the service's own
one line when a service refused; `code` is stable for scripts and tests.
A refusal is raised before anything is written, or from inside the write transaction,
which then rolls back: a refused request changes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from campaign.errors import BadInput, NotFound
from campaign.i18n import N_, _

if TYPE_CHECKING:
    from starlette.responses import JSONResponse

MESSAGES = {
    "no_session": (401, N_("not signed in: open the invite link the GM sent you")),
    "origin": (403, N_("writes from another site are refused")),
    "csrf": (403, N_("the CSRF token is missing or wrong")),
    "host": (421, N_("this host name is not served here")),
    "rate_limited": (429, N_("too many requests: wait a moment and try again")),
    "too_large": (413, N_("the request is too large")),
    "content_type": (415, N_("send application/json")),
    "bad_json": (400, N_("not a JSON object")),
    "unknown_field": (400, N_("a field is not accepted")),
    "not_yours": (403, N_("not your character")),
    "other_campaign": (403, N_("this sign-in is for another campaign: open this campaign's own invite link")),
    "gm_only": (403, N_("only the GM may do this")),
    "not_your_call": (403, N_("this call is not yours")),
    "not_found": (404, N_("not found")),
    "bad_input": (400, N_("malformed input")),
    "refused": (409, N_("refused by a rule")),
    "key_reused": (409, N_("this idempotency key was used for another request")),
    "slow_body": (408, N_("the request's body came too slowly")),
    "busy": (503, N_("the server has as many connections open as it can hold: try again in a moment")),
    "storage": (503, N_("the server cannot write now")),
}


def message(code: str) -> tuple[int, str]:
    """(status, the refusal's words in the request's language) of a code."""
    status, words = MESSAGES[code]
    return status, _(words)


class Refusal(Exception):
    def __init__(self, code: str, detail: str | None = None) -> None:
        self.code = code
        self.status, words = message(code)
        self.message = _("{refusal}: {detail}").format(refusal=words, detail=detail) if detail else words
        super().__init__(self.message)


def response(code: str, detail: str | None = None) -> JSONResponse:
    refusal = Refusal(code, detail)
    return json_refusal(refusal)


def json_refusal(refusal: Refusal) -> JSONResponse:
    from starlette.responses import JSONResponse

    return JSONResponse(
        {"error": refusal.message, "code": refusal.code},
        status_code=refusal.status,
        headers={"cache-control": "no-store"},
    )


def from_campaign_error(exc: Exception) -> Refusal:
    """A service's refusal as an API refusal, its line in the request's language (as the CLI prints it)."""
    from campaign.refusal_words import refusal_text
    from campaign.services.table.calls import NotYourCall
    from campaign.services.table.writes import KeyReused, NotYours

    text = refusal_text(exc)
    if isinstance(exc, NotYours):
        return Refusal("not_yours", text)
    if isinstance(exc, NotYourCall):
        return Refusal("not_your_call", text)
    if isinstance(exc, BadInput):
        return Refusal("bad_input", text)
    if isinstance(exc, NotFound):
        return Refusal("not_found", text)
    if isinstance(exc, KeyReused):
        return Refusal("key_reused", text)
    return Refusal("refused", text)

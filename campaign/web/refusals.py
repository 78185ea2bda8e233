"""Every refusal of the table server's API as one JSON shape: {"error", "code"}.

`error` is Japanese first (the players' language), the English after a slash, and the
service's own one line when a service refused; `code` is stable for scripts and tests.
A refusal is raised before anything is written, or from inside the write transaction,
which then rolls back: a refused request changes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from campaign.errors import BadInput, NotFound

if TYPE_CHECKING:
    from starlette.responses import JSONResponse

MESSAGES = {
    "no_session": (
        401,
        "ログインしていません。GMから届いた招待リンクを開いてください / not signed in: open the "
        "invite link the GM sent you",
    ),
    "origin": (403, "別のサイトからの書き込みは受け付けません / writes from another origin are refused"),
    "csrf": (403, "CSRFトークンがないか、正しくありません / missing or wrong CSRF token"),
    "host": (421, "このホスト名では受け付けません / this host name is not served here"),
    "rate_limited": (429, "操作が速すぎます。少し待ってからもう一度どうぞ / too many requests, wait a moment"),
    "too_large": (413, "リクエストが大きすぎます / request too large"),
    "content_type": (415, "Content-Type は application/json にしてください / send application/json"),
    "bad_json": (400, "JSON として読めません / not a JSON object"),
    "unknown_field": (400, "受け付けない項目があります / field not accepted"),
    "not_yours": (403, "自分のキャラクターではありません / not your character"),
    "gm_only": (403, "GMだけができる操作です / only the GM may do this"),
    "not_your_call": (403, "あなたへの呼び出しではありません / this call is not yours"),
    "not_found": (404, "見つかりません / not found"),
    "bad_input": (400, "入力が正しくありません / malformed input"),
    "refused": (409, "ルールにより受け付けられません / refused by a rule"),
}


class Refusal(Exception):
    def __init__(self, code: str, detail: str | None = None) -> None:
        self.code = code
        self.status, message = MESSAGES[code]
        self.message = f"{message}: {detail}" if detail else message
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
    """A service's refusal (its message is the CLI's English line) as an API refusal."""
    from campaign.services.calls import NotYourCall
    from campaign.services.table_writes import NotYours

    if isinstance(exc, NotYours):
        return Refusal("not_yours", str(exc))
    if isinstance(exc, NotYourCall):
        return Refusal("not_your_call", str(exc))
    if isinstance(exc, BadInput):
        return Refusal("bad_input", str(exc))
    if isinstance(exc, NotFound):
        return Refusal("not_found", str(exc))
    return Refusal("refused", str(exc))

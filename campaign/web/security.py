"""The read token and the security headers, as one ASGI middleware around every route.

Why a token at all: with `--host` the pages are reachable by anyone on the network (a
café's Wi-Fi, a convention hall), and a campaign's history is the group's business. The
token travels once in the link (`?token=...`); the server answers with an HttpOnly,
SameSite=Strict cookie and a redirect to the same URL without it, so the token does not
stay in the address bar, the browser history or a screenshot. Referrer-Policy
no-referrer keeps it out of any Referer header too. Tokens are compared with
hmac.compare_digest, which takes the same time whatever prefix matched.
"""

from __future__ import annotations

import hmac
from http.cookies import SimpleCookie
from urllib.parse import parse_qsl, urlencode

COOKIE = "campaign_token"

SECURITY_HEADERS = [
    (b"content-security-policy",
     b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]

UNAUTHORIZED_PAGE = (
    "<!doctype html><html lang=\"ja\"><head><meta charset=\"utf-8\">"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>401</title></head>"
    "<body><h1>401 合言葉が必要です / Token required</h1>"
    "<p>GMから受け取ったリンク（?token=…）で開いてください。"
    " Open the link with ?token=… that the GM gave you.</p></body></html>"
).encode("utf-8")


class Guard:
    """Adds the security headers to every HTTP response and, when a token is in force,
    lets through only requests that carry it (query once, then the cookie)."""

    def __init__(self, app, token: str | None, secure_cookie: bool = False) -> None:
        self.app = app
        self.token = token.encode("utf-8") if token else None
        self.secure_cookie = secure_cookie

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        if self.token is None:
            await self.app(scope, receive, send_with_headers)
            return
        # latin-1 both ways keeps every byte of the other parameters as it came
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True,
                          encoding="latin-1")
        given = [value for key, value in query if key == "token"]
        if given:
            if self._matches(given[-1]):
                await self._set_cookie_and_redirect(scope, query, send_with_headers)
            else:
                await self._refuse(send_with_headers)
            return
        if self._matches(_cookie(scope)):
            await self.app(scope, receive, send_with_headers)
        else:
            await self._refuse(send_with_headers)

    def _matches(self, given: str | None) -> bool:
        if given is None:
            return False
        return hmac.compare_digest(given.encode("latin-1"), self.token)

    async def _set_cookie_and_redirect(self, scope, query, send) -> None:
        rest = urlencode([(key, value) for key, value in query if key != "token"], encoding="latin-1")
        from urllib.parse import quote

        # The path as the browser sent it (percent-encoded), so a Location header stays ASCII.
        raw = scope.get("raw_path")
        path = raw.decode("latin-1") if raw else quote(scope["path"])
        location = _on_this_server(scope.get("root_path", "") + path)
        if rest:
            location += "?" + rest
        cookie = f"{COOKIE}={self.token.decode('utf-8')}; Path=/; HttpOnly; SameSite=Strict"
        if self.secure_cookie:
            cookie += "; Secure"
        await send({"type": "http.response.start", "status": 303, "headers": [
            (b"location", location.encode("latin-1")), (b"set-cookie", cookie.encode("utf-8")),
            (b"cache-control", b"no-store"), (b"content-length", b"0")]})
        await send({"type": "http.response.body", "body": b""})

    async def _refuse(self, send) -> None:
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", b"text/html; charset=utf-8"), (b"cache-control", b"no-store"),
            (b"content-length", str(len(UNAUTHORIZED_PAGE)).encode())]})
        await send({"type": "http.response.body", "body": UNAUTHORIZED_PAGE})


def _on_this_server(path: str) -> str:
    """The redirect's target as a path on this server, whatever the request's path held.

    A browser reads `//evil.example/` (and `/\\evil.example/`, backslashes counting as
    slashes) in a Location header as another host: a link `//evil.example/?token=...`
    would send the reader, cookie set, off to it. So the path starts with exactly one
    slash, and anything that is not printable ASCII is percent-encoded."""
    from urllib.parse import quote

    path = "/" + path.lstrip("/\\")
    return quote(path, safe="/%:@!$&'()*+,;=-._~", encoding="latin-1")


def _cookie(scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"cookie":
            jar = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # a malformed Cookie header is no token
                return None
            if COOKIE in jar:
                return jar[COOKIE].value
    return None

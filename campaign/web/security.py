"""The read token and the security headers, as one ASGI middleware around every route.

Why a token at all: with `--host` the pages are reachable by anyone on the network (a
café's Wi-Fi, a convention hall), and a campaign's history is the group's business. The
token travels once in the link (`?token=...`); the server answers with an HttpOnly,
SameSite=Strict cookie and a redirect to the same URL without it, so the token does not
stay in the address bar, the browser history or a screenshot. Referrer-Policy
no-referrer keeps it out of any Referer header too. Tokens are compared with
hmac.compare_digest, which takes the same time whatever prefix matched.

A seated player (a session cookie from an invite, campaign.services.table.invites) needs no
read token: the session is the stronger credential. `/join/...` is open to everyone,
since the invite code in the path is the credential there, and so is `/static/...`;
so is `/bcdice/<token>/` (campaign.web.routes_bcdice), the BCDice-API for dice bots.

Host names: a server on 127.0.0.1 is still reachable from any web page through DNS
rebinding (evil.example resolves to 127.0.0.1 after the page loaded), and the page's
requests then carry `Host: evil.example`. So only IP literals (no name to rebind),
`localhost` and the names given with `serve --allow-host` are answered; anything else
gets 421. Referrer-Policy is same-origin, not no-referrer: under no-referrer browsers
send `Origin: null` with a same-origin POST, and the write checks need its Origin.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Callable, Iterable
from http.cookies import SimpleCookie
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from campaign.services.table.invites import Seat

COOKIE = "campaign_token"
SESSION_COOKIE = "campaign_session"
# Open without the read token: the invite is the credential of /join/, and the static
# files (the stylesheet, the scripts, the icon) are the package's own, no campaign data,
# so a player's first page, the confirmation, is styled like the rest.
OPEN_PATHS = ("/join/", "/static/", "/bcdice/")

SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]


def unauthorized_page() -> bytes:
    """The 401 page of a request without the token, in the request's language."""
    from html import escape

    from campaign.i18n import _, language

    title = escape(_("Token required"))
    how = escape(_("Open the invite link (/join/…) or the spectator link (?token=…) the GM gave you."))
    return (
        f'<!doctype html><html lang="{language()}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><title>401</title></head>'
        f"<body><h1>401 {title}</h1><p>{how}</p></body></html>"
    ).encode()


class Guard:
    """Adds the security headers to every HTTP response and, when a token is in force,
    lets through only requests that carry it (query once, then the cookie)."""

    def __init__(
        self,
        app: ASGIApp,
        token: str | None,
        secure_cookie: bool = False,
        *,
        hosts: Iterable[str] = (),
        read_of: Callable[[Scope, str | None], tuple[object, Seat | None]] | None = None,
        language_of: Callable[[Scope, object], None] | None = None,
        base: str = "",
    ) -> None:
        self.app = app
        self.base = base  # the path the app is served under (campaign.web.multi), before its redirects
        # read_of: what a request's language is read from (campaign.web.app: the campaign's
        # settings) and the seat of its session cookie, read together in one worker thread;
        # then language_of sets the request's language from the first, before any answer
        # (its own refusals speak it too).
        self.read_of, self.language_of = read_of, language_of
        self.token = token.encode("utf-8") if token else None
        self.secure_cookie = secure_cookie
        # the allowed names as host_name reads a Host header: `--allow-host Table.Local.` is table.local
        self.hosts = frozenset(["localhost", *filter(None, map(host_name, hosts))])

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        seated = await self._read(scope)
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        if not host_allowed(_header(scope, b"host"), self.hosts):
            if scope["path"].startswith("/bcdice/"):  # a dice bot shows no status but 400 without its URL
                from campaign.web.routes_bcdice import refusal

                await refusal("host not allowed")(scope, receive, send_with_headers)
                return
            await _send_json(send_with_headers, "host")
            return
        if not seated and self.token is not None and not scope["path"].startswith(OPEN_PATHS):
            await self._check_token(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    async def _read(self, scope: Scope) -> bool:
        """Set the request's language, and put its seat (or None) and its CSRF token into
        the request state (an HTTP request only); whether it has a seat. What both need
        from the database is read in one worker thread: each hop to a thread and back
        costs a request under load as much as a small read."""
        import anyio.to_thread

        from campaign.services.table.invites import csrf_token

        token = _cookie(scope, SESSION_COOKIE) if scope["type"] == "http" else None
        if scope["type"] == "http" and self.read_of is not None:
            facts, seat = await anyio.to_thread.run_sync(self.read_of, scope, token)
        else:
            facts, seat = None, None
        if self.language_of is not None:
            self.language_of(scope, facts)
        if scope["type"] == "http":
            state = scope.setdefault("state", {})
            state["seat"], state["csrf"] = seat, (csrf_token(token) if seat is not None and token else None)
        return seat is not None

    async def _check_token(self, scope: Scope, receive: Receive, send_with_headers: Send) -> None:
        # latin-1 both ways keeps every byte of the other parameters as it came
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True, encoding="latin-1")
        given = [value for key, value in query if key == "token"]
        if given:
            if self._matches(given[-1]):
                await self._set_cookie_and_redirect(scope, query, send_with_headers)
            else:
                await self._refuse(scope, send_with_headers)
            return
        if self._matches(_cookie(scope, COOKIE)):
            await self.app(scope, receive, send_with_headers)
        else:
            await self._refuse(scope, send_with_headers)

    def _matches(self, given: str | None) -> bool:
        if given is None or self.token is None:  # (without a token nothing asks)
            return False
        return hmac.compare_digest(given.encode("latin-1"), self.token)

    async def _set_cookie_and_redirect(self, scope: Scope, query: list[tuple[str, str]], send: Send) -> None:
        assert self.token is not None  # only a request that carried the token gets here
        rest = urlencode([(key, value) for key, value in query if key != "token"], encoding="latin-1")
        from urllib.parse import quote

        # The path as the browser sent it (percent-encoded), so a Location header stays ASCII.
        raw = scope.get("raw_path")
        path = raw.decode("latin-1") if raw else quote(scope["path"])
        location = _on_this_server(scope.get("root_path", "") + self.base + path)
        if rest:
            location += "?" + rest
        cookie = f"{COOKIE}={self.token.decode('utf-8')}; Path=/; HttpOnly; SameSite=Strict"
        if self.secure_cookie or scope.get("scheme") == "https":  # TLS here or at a trusted proxy
            cookie += "; Secure"
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", location.encode("latin-1")),
                    (b"set-cookie", cookie.encode("utf-8")),
                    (b"cache-control", b"no-store"),
                    (b"content-length", b"0"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})

    async def _refuse(self, scope: Scope, send: Send) -> None:
        if scope["path"].startswith("/api/"):
            await _send_json(send, "no_session")
            return
        page = unauthorized_page()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"text/html; charset=utf-8"),
                    (b"cache-control", b"no-store"),
                    (b"content-length", str(len(page)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": page})


def _on_this_server(path: str) -> str:
    """The redirect's target as a path on this server, whatever the request's path held.

    A browser reads `//evil.example/` (and `/\\evil.example/`, backslashes counting as
    slashes) in a Location header as another host: a link `//evil.example/?token=...`
    would send the reader, cookie set, off to it. So the path starts with exactly one
    slash, and anything that is not printable ASCII is percent-encoded."""
    from urllib.parse import quote

    path = "/" + path.lstrip("/\\")
    return quote(path, safe="/%:@!$&'()*+,;=-._~", encoding="latin-1")


def _cookie(scope: Scope, wanted: str) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"cookie":
            jar = SimpleCookie()
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # a malformed Cookie header is no token
                return None
            if wanted in jar:
                return jar[wanted].value
    return None


def _header(scope: Scope, wanted: bytes) -> str | None:
    name: bytes
    value: bytes
    for name, value in scope.get("headers", []):
        if name == wanted:
            return value.decode("latin-1")
    return None


def host_name(host: str | None) -> str | None:
    """The name part of a Host header ("[::1]:8000" -> "::1", "Table.local." -> "table.local")."""
    if not host:
        return None
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        return host[1:end] if end > 0 else None
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    # one root dot is the same name (`localhost.`); two are no DNS name at all
    return (name[:-1] if name.endswith(".") else name) or None


def host_allowed(host: str | None, names: frozenset[str]) -> bool:
    name = host_name(host)
    if name is None:
        return False
    try:
        ipaddress.ip_address(name)
        return True  # an address names no DNS record an attacker could rebind
    except ValueError:
        return name in names


async def _send_json(send: Send, code: str) -> None:
    import json

    from campaign.web.refusals import message as refusal_message

    status, message = refusal_message(code)
    body = json.dumps({"error": message, "code": code}, ensure_ascii=False).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"cache-control", b"no-store"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})

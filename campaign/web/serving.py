"""How `campaign serve` listens: the socket and the HTTP server's settings.

Kept apart from the command (campaign.cli.serve parses options and prints the URL) so
the tests and the load harness (tests/perf/table_load.py) serve exactly as the command
does: a harness with its own socket measured its own settings, not the product's.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import uvicorn

from campaign.errors import RuleRefused
from campaign.i18n import _

BACKLOG = 1024  # connections the kernel queues before accept: a burst of phones at once


def listening_socket(host: str, port: int) -> socket.socket:
    """A bound, listening TCP socket for `host`:`port` (0 picks a free port), bound here
    so the caller can print the port before the server starts.

    Created with proto IPPROTO_TCP, not 0: asyncio turns Nagle's algorithm off
    (TCP_NODELAY) only on sockets whose proto says TCP, and accepted sockets inherit the
    listener's. With Nagle on, every response written as headers then body waited for
    the client's delayed ACK: a floor of about 40 ms under each answer, a static file's
    too."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise RuleRefused(
            _("cannot listen on {host}:{port}: {problem}").format(host=host, port=port, problem=exc.strerror)
        ) from None
    sock.listen(BACKLOG)
    sock.set_inheritable(True)
    return sock


HEADER_TIMEOUT = 10.0  # seconds a connection may take to send a request's headers
BODY_TIMEOUT = 10.0  # seconds a write's body may take to arrive (campaign.web.seats)
KEEP_ALIVE = 5  # seconds an idle kept-alive connection stays open (uvicorn's default)
CONNECTION_CAP = 2000  # open connections at most, when the open-file limit allows
FILE_HEADROOM = 100  # descriptors kept for the database, the log, the static files
LOG_EVERY = 60.0  # seconds: one log line per cause and minute


def raise_open_files(wanted: int = CONNECTION_CAP + FILE_HEADROOM) -> int:
    """Raise this process's soft open-file limit towards `wanted` (never past the hard
    limit); the limit now. Debian's soft default, 1024, let about a thousand half-open
    connections stop the server: each accept() then failed, logged each time."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if target > soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return int(soft)


def connection_cap() -> int:
    """How many connections the server keeps open: CONNECTION_CAP, or fewer when the
    open-file limit (raised first) leaves less, with room for the server's own files."""
    return max(16, min(CONNECTION_CAP, raise_open_files() - FILE_HEADROOM))


class OncePerMinute:
    """A logging filter: one record per cause (logger, message template, exception type)
    and LOG_EVERY seconds; the next one says how many were left out. A thousand hostile
    connections failing alike wrote 90 MB of log in 40 seconds, one record each."""

    def __init__(self, every: float = LOG_EVERY) -> None:
        self.every = every
        self._last: dict[tuple[str, object, str], tuple[float, int]] = {}

    def filter(self, record: object) -> bool:
        import logging
        import time

        assert isinstance(record, logging.LogRecord)
        kind = type(record.exc_info[1]).__name__ if record.exc_info and record.exc_info[1] else ""
        cause = (record.name, record.msg, kind)
        now = time.monotonic()
        last, left_out = self._last.get(cause, (-self.every, 0))
        if now - last < self.every:
            self._last[cause] = (last, left_out + 1)
            return False
        if left_out:
            record.msg = f"{record.msg} ({left_out} more like this in the last minute, not logged)"
        self._last[cause] = (now, 0)
        if len(self._last) > 1000:  # causes are few; a flood of distinct ones forgets the oldest
            self._last.pop(next(iter(self._last)))
        return True


LIMIT = OncePerMinute()  # one per process: a second server in it shares the minute


def limit_logs() -> None:
    """Once per cause and minute on the loggers a flood of bad connections writes to."""
    import logging

    for name in ("asyncio", "uvicorn.error", "uvicorn"):
        logging.getLogger(name).addFilter(LIMIT)  # (adding it again changes nothing)


def _protocol_base() -> tuple[type, Callable[[Any], bool]]:
    """uvicorn's protocol class to build on, and how to tell that one of its connections
    is between requests (no request's headers received, none being answered)."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        # httptools makes a request's cycle when its headers are complete
        return HttpToolsProtocol, lambda protocol: protocol.cycle is None or protocol.cycle.response_complete
    except ImportError:  # uvicorn without httptools
        import h11
        from uvicorn.protocols.http.h11_impl import H11Protocol

        return (
            H11Protocol,
            lambda protocol: (
                protocol.conn.their_state is h11.IDLE and (protocol.cycle is None or protocol.cycle.response_complete)
            ),
        )


def http_protocol(cap: int) -> type:
    """uvicorn's HTTP/1.1 protocol with a header timeout and a cap on open connections:
    on httptools (C, llhttp) when it is installed, else on h11 (pure Python). httptools
    parses a request and writes its answer in about a millisecond less on this project's
    2-core machines, most of what the server adds to a lone player's roll beyond the roll
    (docs/performance-notes.md, "Where a server roll's time goes").

    uvicorn times out an idle kept-alive connection, but not one that opened and never
    finished its headers: such connections held the server's descriptors for ever. Here
    a connection has HEADER_TIMEOUT seconds from its first byte (or from opening) to send
    a request's headers. At the cap, a new connection takes the place of the longest
    waiting one that never sent a whole request (a half-open one), else of the longest
    idle kept-alive one (a page's open feed or a request being answered is never cut);
    with none such it is answered 503 (`busy`) and closed."""
    Base, between_requests = _protocol_base()

    class Capped(Base):  # type: ignore[valid-type,misc]
        def connection_made(self, transport):  # type: ignore[no-untyped-def]
            super().connection_made(transport)
            self.opened_at = self.loop.time()
            self.requests = 0  # requests whose headers came: a half-open connection has none
            self.header_timer: asyncio.TimerHandle | None = None
            if len(self.connections) > cap and not self._make_room():
                self._refuse()
                return
            self._watch_headers()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch_headers()

        def connection_lost(self, exc: Exception | None) -> None:
            if getattr(self, "header_timer", None) is not None:
                self.header_timer.cancel()  # type: ignore[union-attr]
            super().connection_lost(exc)

        def waiting(self) -> bool:
            """Between requests: no request's headers received, none being answered."""
            return between_requests(self)

        def _watch_headers(self) -> None:
            if self.waiting() and self.header_timer is None and not self.transport.is_closing():
                self.header_timer = self.loop.call_later(HEADER_TIMEOUT, self._headers_late)
            elif not self.waiting() and self.header_timer is not None:
                self.header_timer.cancel()
                self.header_timer = None
                self.requests += 1

        def _headers_late(self) -> None:
            self.header_timer = None
            if self.waiting():
                self.transport.close()

        def _make_room(self) -> bool:
            waiting = [c for c in self.connections if c is not self and isinstance(c, Capped) and c.waiting()]
            if not waiting:
                return False
            # first those that never sent a whole request, then idle kept-alive ones (a
            # browser opens a new connection for its next request), oldest first
            oldest = min(waiting, key=lambda c: (c.requests > 0, c.opened_at))
            oldest.transport.close()
            self.connections.discard(oldest)
            self.logger.warning("connection cap (%d) reached: the longest waiting connections are closed", cap)
            return True

        def _refuse(self) -> None:
            import json

            from campaign.web.refusals import message

            status, words = message("busy")
            body = json.dumps({"error": words, "code": "busy"}, ensure_ascii=False).encode()
            head = (
                f"HTTP/1.1 {status} Service Unavailable\r\ncontent-type: application/json\r\n"
                f"retry-after: 5\r\nconnection: close\r\ncontent-length: {len(body)}\r\n\r\n"
            )
            self.transport.write(head.encode("ascii") + body)
            self.transport.close()
            self.connections.discard(self)
            self.logger.warning("connection cap (%d) reached with every connection busy: 503", cap)

    return Capped


def forwarded_allow(given: list[str]) -> list[str]:
    """The addresses `serve --forwarded-allow-ips` names, each an IP address, a network
    (10.0.0.0/8) or `*`, commas allowed between them; one clear line for anything else."""
    import ipaddress

    from campaign.errors import BadInput

    addresses = [part.strip() for value in given for part in value.split(",") if part.strip()]
    for address in addresses:
        if address == "*":
            continue
        try:
            ipaddress.ip_network(address, strict=False)
        except ValueError:
            words = _("--forwarded-allow-ips: {address} is no IP address or network (e.g. 127.0.0.1, 10.0.0.0/8, *)")
            raise BadInput(words.format(address=address)) from None
    return addresses


def server_config(app: Any, *, forwarded_allow_ips: Sequence[str] = (), **options: Any) -> uvicorn.Config:
    """The uvicorn.Config every server of `campaign serve` runs with (the command, the
    tests, the load harness): quiet logs limited per cause, HTTP/1.1 with the header
    timeout and the connection cap, kept-alive connections closed after KEEP_ALIVE.

    X-Forwarded-Proto and X-Forwarded-For are read only from a connection whose address
    is in `forwarded_allow_ips` (a reverse proxy on this machine or the LAN: see
    docs/hosting.md); from any other, and from every one when none is given, they are
    ignored. uvicorn's own default trusts 127.0.0.1, where any local program could then
    claim https and another client's address."""
    import uvicorn

    limit_logs()
    return uvicorn.Config(
        app,
        http=http_protocol(connection_cap()),
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_keep_alive=KEEP_ALIVE,
        timeout_graceful_shutdown=1,
        proxy_headers=bool(forwarded_allow_ips),
        forwarded_allow_ips=list(forwarded_allow_ips) or None,
        **options,
    )

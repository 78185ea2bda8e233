"""How `campaign serve` listens: the socket and the HTTP server's settings.

Kept apart from the command (campaign.cli.serve parses options and prints the URL) so
the tests and the load harness (tests/perf/table_load.py) serve exactly as the command
does: a harness with its own socket measured its own settings, not the product's.
"""

from __future__ import annotations

import socket

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

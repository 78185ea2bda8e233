"""`campaign serve`: the table's web page (pages, live feed, chain for verification).

The web stack (Starlette, Jinja2, uvicorn: the optional extra `campaign[web]`) is
imported inside the command, so no other command's start-up pays for it.

The socket is bound here, before uvicorn starts, so `--port 0` can print the port the
system picked: the first line on stdout is the URL (with `?token=` when one is in
force), flushed at once, which is what a script or a test reads to find the server.
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from campaign.cli.context import state
from campaign.cli.output import JsonOption
from campaign.errors import BadInput, RuleRefused
from campaign.i18n import _

if TYPE_CHECKING:
    import socket

    from campaign.core.dice_source import DealtFaces
    from campaign.web.security import Guard


LOCAL = "127.0.0.1"
TOKEN_ENV = "CAMPAIGN_WEB_TOKEN"
TOKEN_FILE_LIMIT = 4096  # bytes read from --token-file: a token is at most 200 characters
_TOKEN = re.compile(r"[A-Za-z0-9_\-.~]{8,200}")


def serve(
    ctx: typer.Context,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Address to listen on (default 127.0.0.1, this machine only). "
            "Any other address (0.0.0.0 for the table's LAN) requires a read token.",
        ),
    ] = LOCAL,
    port: Annotated[int, typer.Option("--port", help="Port to listen on; 0 picks a free one.")] = 8000,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            envvar=TOKEN_ENV,
            help="The read token (8+ letters, digits, "
            "-_.~). With --host and no token, one is generated and printed once. On the "
            "command line every user of the machine can read it (ps): prefer --token-file "
            f"or {TOKEN_ENV}.",
        ),
    ] = None,
    token_file: Annotated[
        str | None, typer.Option("--token-file", help="Read the token from this file (its first line).")
    ] = None,
    tls_cert: Annotated[
        str | None, typer.Option("--tls-cert", help="PEM certificate: serve HTTPS (gives phones WebCrypto).")
    ] = None,
    tls_key: Annotated[str | None, typer.Option("--tls-key", help="PEM private key of --tls-cert.")] = None,
    allow_host: Annotated[
        list[str],
        typer.Option(
            "--allow-host",
            help="A host name the server answers to, besides IP "
            "addresses and localhost (repeatable; e.g. gm-laptop.local). Other "
            "names are refused: DNS rebinding.",
        ),
    ] = [],
    public_url: Annotated[
        str | None,
        typer.Option(
            "--public-url",
            help="The address the players open (https://table.example/), printed instead of "
            "the listening address; the campaign's `public_url` setting when not given.",
        ),
    ] = None,
    every: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Serve every campaign of the database, each under /c/<slug>/, with their list at / (for the GM).",
        ),
    ] = False,
    campaigns: Annotated[
        list[str],
        typer.Option(
            "--campaigns",
            help="Serve these campaigns (comma-separated or repeated), each under /c/<slug>/, like --all.",
        ),
    ] = [],
    forwarded_allow_ips: Annotated[
        list[str],
        typer.Option(
            "--forwarded-allow-ips",
            help="The reverse proxy's address (an IP, a network like 10.0.0.0/8, or *; "
            "repeatable or comma-separated): X-Forwarded-Proto and X-Forwarded-For are "
            "believed from it and ignored from every other address. None by default.",
        ),
    ] = [],
    fixed_dice: Annotated[
        str | None,
        typer.Option(
            "--dice",
            hidden=True,
            help="Tests only: the faces every roll of the server takes, in order (e.g. 3,5,6), recorded as "
            "typed dice (never the server's, never provable); on 127.0.0.1 only.",
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Serve the campaign as the table's web page: overview, characters, missing board,
    scenarios, history with a live feed, entries with their hashes, luck charts; players
    signed in with `campaign invite` roll with the server's dice and answer the GM's calls.

    Prints the URL on the first line. Stop with Ctrl-C.

    With --host 0.0.0.0 the URL printed names this machine's LAN address, which a
    phone on the same network can open.

    With --all (or --campaigns A,B) one process serves several campaigns of the
    database, each under its own path /c/<slug>/ (its name, lower case, with hyphens);
    the first line is then the list's URL. Two names giving one slug are refused.

    Example: campaign serve --host 0.0.0.0 --port 8000
    """
    if not 0 <= port <= 65535:
        raise BadInput(_("--port must be 0..65535, not {port}").format(port=port))
    if (tls_cert is None) != (tls_key is None):
        raise BadInput(_("--tls-cert and --tls-key go together"))
    token = _token(ctx, token, token_file)
    from campaign.web.serving import forwarded_allow

    proxies = forwarded_allow(forwarded_allow_ips)
    if token is not None and not _TOKEN.fullmatch(token):
        raise BadInput(_("--token must be 8 to 200 letters, digits or -_.~"))
    if host != LOCAL and token is None:
        import secrets

        token = secrets.token_urlsafe(24)
    try:
        import uvicorn  # noqa: F401

        from campaign.web.app import create_app
    except ImportError as exc:
        raise RuleRefused(
            _("the web page needs the `web` extra ({module} is missing): pip install 'campaign[web]'").format(
                module=exc.name
            )
        ) from None

    from campaign.services.table.invites import clean_public_url

    given = None if public_url is None else clean_public_url(public_url, "--public-url")
    names = [name.strip() for entry in campaigns for name in entry.split(",") if name.strip()]
    if every and names:
        raise BadInput(_("--all serves every campaign: give it or --campaigns, not both"))
    if every or names:
        if fixed_dice is not None:
            _dealt(fixed_dice, host, given, tls_cert, proxies, several=True)  # refused: a test serves one campaign
        _serve_several(
            ctx, None if every else names, host, port, token, tls_cert, tls_key, allow_host, given, json_out, proxies
        )
        return
    s = state(ctx)
    db_url, campaign = s.db.url, s.campaign  # refuses a missing database, like every reader
    public_url = given
    if public_url is None:
        from campaign.services.campaigns.setup import public_url_of

        public_url = public_url_of(s.db, campaign)
    dealt = None if fixed_dice is None else _dealt(fixed_dice, host, public_url, tls_cert, proxies)
    s.close()
    hosts = tuple(name.strip().lower().rstrip(".") for name in allow_host if name.strip())
    from campaign.web.serving import listening_socket

    sock = listening_socket(host, port)
    listening = _base(host, sock.getsockname()[1], tls_cert is not None)
    try:
        app = create_app(
            db_url,
            campaign,
            token,
            secure_cookie=tls_cert is not None,
            hosts=hosts,
            public_url=given,
            listen_url=listening,
            dice=dealt,
        )
    except BaseException:
        sock.close()
        raise
    url = _url(public_url or listening, token)
    if json_out:
        import json

        sys.stdout.write(json.dumps({"url": url, "host": host, "port": sock.getsockname()[1], "token": token}) + "\n")
    else:
        sys.stdout.write(url + "\n")
    sys.stdout.flush()
    _run(app, sock, tls_cert, tls_key, proxies)


def _serve_several(
    ctx: typer.Context,
    names: list[str] | None,
    host: str,
    port: int,
    token: str | None,
    tls_cert: str | None,
    tls_key: str | None,
    allow_host: list[str],
    public_url: str | None,
    json_out: bool,
    proxies: list[str],
) -> None:
    """`serve --all` / `--campaigns`: the campaigns checked (a slug clash is refused
    before anything listens), then the list's URL on the first line, each campaign's
    after it."""
    from campaign.web.multi import create_multi_app
    from campaign.web.serving import listening_socket

    s = state(ctx)
    db_url = s.db.url  # refuses a missing database, like every reader
    s.close()
    hosts = tuple(name.strip().lower().rstrip(".") for name in allow_host if name.strip())
    app = create_multi_app(db_url, names, token, secure_cookie=tls_cert is not None, hosts=hosts, public_url=public_url)
    try:
        sock = listening_socket(host, port)
    except BaseException:
        app.close()
        raise
    base = public_url or _base(host, sock.getsockname()[1], tls_cert is not None)
    url = _url(base, token)
    if json_out:
        import json

        listed = [{"name": one.name, "slug": one.slug, "url": base + one.base.lstrip("/") + "/"} for one in app.served]
        sys.stdout.write(
            json.dumps(
                {"url": url, "host": host, "port": sock.getsockname()[1], "token": token, "campaigns": listed},
                ensure_ascii=False,
            )
            + "\n"
        )
    else:
        sys.stdout.write(url + "\n")
        for one in app.served:
            sys.stdout.write(f"  {one.name}: {base}{one.base.lstrip('/')}/\n")
    sys.stdout.flush()
    import uvicorn

    from campaign.web.serving import server_config

    server = uvicorn.Server(server_config(app, ssl_certfile=tls_cert, ssl_keyfile=tls_key, forwarded_allow_ips=proxies))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        app.close()


def _token(ctx: typer.Context, given: str | None, path: str | None) -> str | None:
    """The token from --token-file, CAMPAIGN_WEB_TOKEN or --token; a token typed on the
    command line is in every process listing (ps, /proc/PID/cmdline), so that one is
    accepted with a warning."""
    if path is not None:
        from campaign.cli.transfer import os_problem

        if given is not None:
            raise BadInput(
                _("give the token once: --token-file or --token / {variable}, not both").format(variable=TOKEN_ENV)
            )
        try:
            with open(path, "rb") as source:
                lines = source.read(TOKEN_FILE_LIMIT).decode("utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise BadInput(
                _("--token-file: cannot read {file}: {problem}").format(
                    file=path, problem=os_problem(exc) if isinstance(exc, OSError) else exc
                )
            ) from None
        if not lines or not lines[0].strip():
            raise BadInput(_("--token-file: {file} is empty (the token goes on its first line)").format(file=path))
        return lines[0].strip()
    if given is not None and getattr(ctx.get_parameter_source("token"), "name", None) == "COMMANDLINE":
        from campaign.cli.output import warn

        warn(
            _(
                "warning: a --token on the command line can be read by every user of this machine (ps); "
                "use --token-file FILE or {variable} instead"
            ).format(variable=TOKEN_ENV)
        )
    return given


LOOPBACK = ("127.0.0.1", "::1", "localhost")


def _dealt(
    faces: str, host: str, public_url: str | None, tls_cert: str | None, proxies: list[str], several: bool = False
) -> DealtFaces:
    """`serve --dice`: the faces every roll of this server takes (a test's fixed dice), as
    the typed dice they are. Refused for a server players could reach as a real table:
    another address than this machine's, a public URL, TLS, a proxy, several campaigns."""
    from campaign.cli.output import warn
    from campaign.core.dice_source import DealtFaces, ManualDice

    if host not in LOOPBACK or public_url or tls_cert or proxies or several:
        raise BadInput(
            _(
                "--dice fixes every roll of the server, for tests: only on 127.0.0.1, without --host, "
                "--public-url (or the public_url setting), --tls-cert, --forwarded-allow-ips, --all or --campaigns"
            )
        )
    dealt = DealtFaces(ManualDice.parse(faces).faces)
    warn(
        _(
            "fixed dice: every roll of this server takes the next of the {count} faces given, "
            "recorded as typed dice (tests only)"
        ).format(count=len(dealt.faces))
    )
    return dealt


def _base(host: str, port: int, tls: bool) -> str:
    """The address to print for a listening socket: a wildcard (0.0.0.0, ::) is no
    address a phone can open, so this machine's LAN address stands in for it."""
    if host in ("0.0.0.0", "::", ""):
        host = lan_address()
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if tls else 'http'}://{shown}:{port}/"


def lan_address() -> str:
    """This machine's address on its network: the source address the kernel would pick for
    a datagram socket connected to a documentation address (RFC 5737). Connecting a UDP
    socket only consults the routing table: nothing is sent. 127.0.0.1 without a network."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            address: str = probe.getsockname()[0]
        except OSError:
            return LOCAL
    return address if address != "0.0.0.0" else LOCAL


def _url(base: str, token: str | None) -> str:
    return base + (f"?token={token}" if token else "")


def _run(app: Guard, sock: socket.socket, tls_cert: str | None, tls_key: str | None, proxies: list[str]) -> None:
    import uvicorn

    from campaign.web.app import warm_up
    from campaign.web.serving import server_config

    server = uvicorn.Server(server_config(app, ssl_certfile=tls_cert, ssl_keyfile=tls_key, forwarded_allow_ips=proxies))
    warm_up(app)  # the luck tally and the table state, while the first browser is on its way
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        from starlette.applications import Starlette

        inner = app.app
        assert isinstance(inner, Starlette)  # create_app's guard wraps its application
        inner.state.db.close()  # SQLite checkpoints its log when the last connection closes

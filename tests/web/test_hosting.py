"""docs/hosting.md, run: its `serve` lines start, and its nginx site, word for word but
for the ports and a self-signed certificate, fronts two `campaign serve` processes on one
PostgreSQL database (Debian's nginx, started here as the current user on loopback, its
pid, logs and temp files in a temporary folder; round-robin, no sticky sessions).

Through it and around it: the token's cookie is Secure (nginx's X-Forwarded-Proto, from
an address in --forwarded-allow-ips), a player joins over HTTPS, rolls posted to either
process (through nginx or straight) reach every open feed in order with none missing, and
one idempotency key sent to both processes at once makes one entry. X-Forwarded-Proto and
X-Forwarded-For count only from the addresses given. Every wait is on a condition with a
deadline, never a fixed sleep.
"""

from __future__ import annotations

import json
import queue
import re
import shlex
import shutil
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.cli.conftest import Cli, gurps_setup, sqlite_gurps, template_db  # noqa: F401 (fixtures)
from tests.conftest import party_copy
from tests.nginx import DEADLINE, DOC, NGINX, Nginx, for_test, nginx_serve_args, wait_until
from tests.web.test_serve import Server

TOKEN = "hosting-test-token-0123456789"


def doc_serve_lines() -> list[list[str]]:
    """Every `campaign … serve …` command of docs/hosting.md's code blocks (the systemd
    unit's ExecStart too), as the arguments after `serve`."""
    text = DOC.read_text(encoding="utf-8")
    lines = []
    for block in re.findall(r"```[a-z]*\n(.*?)\n```", text, re.S):
        for line in block.splitlines():
            words = shlex.split(line.removeprefix("ExecStart="))
            if words and words[0].endswith("campaign") and "serve" in words:
                assert words[1] == "--db", line  # the database is the test's
                lines.append(words[words.index("serve") + 1 :])
    return lines


def port_of(server: Server) -> int:
    found = re.match(r"https?://[^/]*:(\d+)/", server.first_line)
    assert found, server.first_line
    return int(found.group(1))


class Feed:
    """A page's live feed read in a thread: the seq of every `entry` event, in order."""

    def __init__(self, url: str, headers: dict[str, str], verify: bool = True) -> None:
        self.seqs: list[int] = []
        self.problems: queue.Queue = queue.Queue()
        self.opened = threading.Event()
        self.closed = False
        threading.Thread(target=self._read, args=(url, headers, verify), daemon=True).start()
        assert self.opened.wait(DEADLINE), f"the feed {url} never answered"

    def _read(self, url: str, headers: dict[str, str], verify: bool) -> None:
        try:
            with httpx.stream("GET", url, headers=headers, timeout=DEADLINE * 2, verify=verify) as response:
                if response.status_code != 200:
                    self.problems.put(f"{url}: {response.status_code}")
                self.opened.set()
                event = None
                for line in response.iter_lines():
                    if self.closed:
                        return
                    if line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("data: ") and event == "entry":
                        self.seqs.append(json.loads(line[6:])["seq"])
        except Exception as exc:  # noqa: BLE001 - the test's next check says it
            self.problems.put(f"{url}: {exc!r}")
            self.opened.set()

    def has(self, seqs: list[int]) -> bool:
        assert self.problems.empty(), self.problems.get()
        return len(self.seqs) >= len(seqs)


@pytest.fixture
def party(request, pg_cluster):
    name = f"hosting_{id(request)}"
    url = pg_cluster.create_database(name, template="campaign_template")
    party_copy(request, "gurps", url, lambda db: gurps_setup(Cli(db)), campaign="テスト卓")
    yield url
    pg_cluster.drop_database(name)


@pytest.fixture
def token_file(tmp_path):
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    return path


def _cookie(response: httpx.Response, name: str) -> tuple[str, str]:
    """(value, attributes) of the Set-Cookie named `name`."""
    for header in response.headers.get_list("set-cookie"):
        if header.startswith(name + "="):
            value, _, attributes = header[len(name) + 1 :].partition(";")
            return value, attributes
    raise AssertionError(f"no {name} cookie in {response.headers}")


def _head(url: str) -> int:
    return Cli(url).json("history", "--limit", "1")[0]["seq"]


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_every_serve_line_of_the_doc_starts(db_url, token_file):
    Cli(db_url).run("init", "卓")
    lines = doc_serve_lines()
    assert len(lines) >= 6  # LAN, Caddy, nginx (two), tunnel, systemd
    for args in lines:
        server = Server(db_url, *for_test(args, token_file))
        try:
            shown = server.first_line
            assert shown.endswith(f"?token={TOKEN}"), shown
            if "--public-url" in args:
                assert shown.startswith(args[args.index("--public-url") + 1]), shown
            else:
                assert shown.startswith("http://127.0.0.1:"), shown
                answer = httpx.get(shown, timeout=30)
                assert answer.status_code == 303 and answer.headers["location"] == "/"
        finally:
            server.stop()


@pytest.mark.slow
@pytest.mark.postgres
def test_two_processes_behind_the_docs_nginx(party, token_file, tmp_path):
    if not Path(NGINX).is_file():
        pytest.skip("Debian's nginx is not installed (.ci/run installs it)")
    nginx_args = nginx_serve_args(token_file)
    cli = Cli(party)
    first, second = Server(party, *nginx_args[0]), Server(party, *nginx_args[1])
    folder = tmp_path / "nginx"
    folder.mkdir()
    proxy = None
    feeds: list[Feed] = []
    try:
        a, b = port_of(first), port_of(second)
        proxy = Nginx(folder, (a, b))
        site = f"table.example:{proxy.https_port}"
        origin = f"https://{site}"
        https = httpx.Client(
            base_url=f"https://127.0.0.1:{proxy.https_port}", verify=False, timeout=30, headers={"host": site}
        )

        # plain HTTP is sent to HTTPS
        moved = httpx.get(f"http://127.0.0.1:{proxy.http_port}/history", headers={"host": "table.example"})
        assert (moved.status_code, moved.headers["location"]) == (301, "https://table.example/history")
        # the token link: the cookie is Secure, since nginx said https from a trusted address
        linked = https.get(f"/?token={TOKEN}")
        assert (linked.status_code, linked.headers["location"]) == (303, "/")
        assert "Secure" in _cookie(linked, "campaign_token")[1]
        # a player joins over HTTPS: the write's https Origin is this server's own
        invite = cli.json("invite", "Aki")["join_path"]
        assert https.get(invite).status_code == 200
        joined = https.post(invite, data={"confirm": "1"}, headers={"origin": origin})
        assert joined.status_code == 303, joined.text
        session, attributes = _cookie(joined, "campaign_session")
        assert "Secure" in attributes
        cookie = {"cookie": f"campaign_session={session}"}
        csrf = https.get("/api/session", headers=cookie).json()["csrf"]

        head = _head(party)
        pages = {
            "nginx 1": (f"https://127.0.0.1:{proxy.https_port}", site),
            "nginx 2": (f"https://127.0.0.1:{proxy.https_port}", site),
            "process A": (f"http://127.0.0.1:{a}", f"127.0.0.1:{a}"),
            "process B": (f"http://127.0.0.1:{b}", f"127.0.0.1:{b}"),
        }
        feeds = [
            Feed(f"{base}/api/feed?after={head}", {**cookie, "host": host}, verify=False)
            for base, host in pages.values()
        ]
        posted: list[int] = []
        keys = iter(range(10**6))

        def roll(where: str, command: str, key: str | None = None) -> httpx.Response:
            base, host = pages[where]
            own_origin = origin if where.startswith("nginx") else base
            body = {"command": command, "character": "鈴音", "idempotency_key": key or f"hosting{next(keys):06d}"}
            headers = {**cookie, "host": host, "origin": own_origin, "x-csrf-token": csrf}
            return httpx.post(f"{base}/api/rolls", json=body, headers=headers, verify=False, timeout=30)

        # a burst, through nginx (round-robin) and straight to each process in turn
        for i in range(12):
            answer = roll(("nginx 1", "process A", "process B")[i % 3], f"{i % 3 + 1}D6")
            assert answer.status_code == 201, answer.text
            posted.append(answer.json()["seq"])
        assert posted == list(range(head + 1, head + 13))
        for name, feed in zip(pages, feeds, strict=True):
            wait_until(lambda feed=feed: feed.has(posted), f"every roll on {name}'s feed")
            assert feed.seqs[: len(posted)] == posted, name  # in order, none missing

        # one idempotency key sent to both processes at once: one entry, both answer it
        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(lambda where: roll(where, "3D6", key="samekey-both"), ["process A", "process B"]))
        assert sorted(answer.status_code for answer in answers) == [200, 201], [a.text for a in answers]
        assert answers[0].json()["seq"] == answers[1].json()["seq"] == head + 13
        again = roll("nginx 1", "3D6", key="samekey-both")
        assert (again.status_code, again.json()["seq"]) == (200, head + 13)
        assert _head(party) == head + 13
        for name, feed in zip(pages, feeds, strict=True):
            wait_until(lambda feed=feed: feed.has([*posted, head + 13]), f"the keyed roll on {name}'s feed")
            assert feed.seqs == [*posted, head + 13], name
    finally:
        for feed in feeds:
            feed.closed = True
        if proxy is not None:
            proxy.stop()
        first.stop()
        second.stop()
        shutil.rmtree(folder, ignore_errors=True)
    assert cli.json("history", "verify")["ok"]


def test_forwarded_proto_counts_only_from_the_allowed_addresses(sqlite_gurps, token_file):
    cli = sqlite_gurps
    db_url = cli.db
    trusting = Server(db_url, "--forwarded-allow-ips", "127.0.0.1", "--token-file", str(token_file))
    plain = Server(db_url, "--token-file", str(token_file))
    try:
        for server, from_address, believed in [
            (trusting, "127.0.0.1", True),
            (trusting, "127.0.0.2", False),  # another address on loopback: not the proxy
            (plain, "127.0.0.1", False),  # no --forwarded-allow-ips: nobody is believed
        ]:
            port = port_of(server)
            client = httpx.Client(
                base_url=f"http://127.0.0.1:{port}",
                transport=httpx.HTTPTransport(local_address=from_address),
                headers={"x-forwarded-proto": "https", "x-forwarded-for": "203.0.113.7"},
                timeout=30,
            )
            linked = client.get(f"/?token={TOKEN}")
            assert linked.status_code == 303
            assert ("Secure" in _cookie(linked, "campaign_token")[1]) is believed, (from_address, believed)
            invite = cli.json("invite", "Aki")["join_path"]
            joined = client.post(invite, data={"confirm": "1"}, headers={"origin": f"https://127.0.0.1:{port}"})
            assert joined.status_code == (303 if believed else 403), (from_address, joined.text)
            client.close()
    finally:
        trusting.stop()
        plain.stop()


def test_forwarded_for_counts_only_from_the_allowed_addresses():
    """uvicorn's middleware as server_config sets it: the client address and scheme are
    rewritten for a request from an allowed address, left alone for any other."""
    import asyncio

    from campaign.web.serving import server_config

    seen: list[tuple[object, object]] = []

    async def app(scope, receive, send):
        seen.append((scope["client"], scope["scheme"]))

    headers = [(b"x-forwarded-for", b"203.0.113.7"), (b"x-forwarded-proto", b"https")]
    for allowed, client, expected in [
        (["127.0.0.1"], ("127.0.0.1", 5000), (("203.0.113.7", 0), "https")),
        (["10.0.0.0/8"], ("10.1.2.3", 5000), (("203.0.113.7", 0), "https")),
        (["127.0.0.1"], ("127.0.0.2", 5000), (("127.0.0.2", 5000), "http")),
        ([], ("127.0.0.1", 5000), (("127.0.0.1", 5000), "http")),
    ]:
        config = server_config(app, forwarded_allow_ips=allowed)
        config.load()
        scope = {"type": "http", "client": client, "scheme": "http", "headers": headers}
        asyncio.run(config.loaded_app(scope, None, None))
        assert seen.pop() == expected, (allowed, client)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_bad_forwarded_address_is_one_line(db_url):
    Cli(db_url).run("init", "卓")
    from tests.web.test_serve import CLI

    done = subprocess.run(
        [*CLI, "--db", db_url, "--lang", "en", "serve", "--port", "0", "--forwarded-allow-ips", "127.0.0.1,proxy"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "error: --forwarded-allow-ips: proxy is no IP address or network (e.g. 127.0.0.1, 10.0.0.0/8, *)"
    ]

"""The table-server load row (docs/performance.md): C campaigns x P players, each player rolling once
a second through the HTTP API (`POST /api/rolls`, signed in from an invite like a phone)
for S seconds against one uvicorn server, with one feed client (SSE) per campaign.

What it reports: errors (any answer but 201, or a failed request), lost entries (rolls
answered 201 whose entry is not in the ledger afterwards, counted in the database), the
p50/p95 roll latency as a ratio to a `campaign shell` roll measured in the same run,
and the p95 of SSE delivery (from a roll's POST being sent to its entry's event reaching
the campaign's feed client).

The server runs in its own process (the clients would otherwise share its GIL): one
uvicorn serving every campaign's app, each under its own path prefix (`/c1/...`) and on
its own SQLite file (two apps over one SQLite file in one process answered "disk I/O
error" under this load: see docs/performance-notes.md).

    python -m tests.perf.table_load --campaigns 5 --players 4 --seconds 60
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

# The server process (argv: port file, then db and campaign name of each): campaign i's app under /c<i>.
SERVER = r"""
import sys, warnings
warnings.simplefilter("ignore")
import uvicorn
from campaign.web.app import create_app
from campaign.web.serving import listening_socket, server_config
port_file, pairs = sys.argv[1], sys.argv[2:]
apps = {f"c{i // 2 + 1}": create_app(pairs[i], pairs[i + 1], None) for i in range(0, len(pairs), 2)}

async def dispatch(scope, receive, send):
    prefix, _, rest = scope["path"].lstrip("/").partition("/")
    app = apps.get(prefix)
    if app is None or scope["type"] not in ("http", "websocket"):
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    path = "/" + rest
    await app({**scope, "path": path, "raw_path": path.encode()}, receive, send)

sock = listening_socket("127.0.0.1", 0)  # as `campaign serve` listens
with open(port_file, "w") as out:
    out.write(str(sock.getsockname()[1]))
uvicorn.Server(server_config(dispatch)).run(sockets=[sock])  # as `campaign serve` runs
"""


@dataclass
class LoadResult:
    campaigns: int
    players: int
    seconds: float
    rolls: int  # answered 201
    errors: list[str]
    lost: int  # answered 201, not in the ledger afterwards
    latencies: list[float]  # seconds per roll (POST sent to answer read)
    deliveries: list[float]  # seconds from a roll's POST sent to its event at the feed client
    undelivered: int  # rolls answered 201 whose event never reached the feed client
    shell_rolls: list[float] = field(default_factory=list)  # seconds per `roll` inside `campaign shell`

    def summary(self) -> dict[str, float | int]:
        p = _percentile
        shell = statistics.median(self.shell_rolls) if self.shell_rolls else float("nan")
        shell_p95 = p(self.shell_rolls, 95) if self.shell_rolls else float("nan")
        return {
            "rolls": self.rolls,
            "errors": len(self.errors),
            "lost": self.lost,
            "undelivered": self.undelivered,
            "p50_ms": p(self.latencies, 50) * 1000,
            "p95_ms": p(self.latencies, 95) * 1000,
            "shell_ms": shell * 1000,
            "p50_ratio": p(self.latencies, 50) / shell,
            "p95_ratio": p(self.latencies, 95) / shell,
            "shell_p95_ms": shell_p95 * 1000,
            "p95_to_shell_p95": p(self.latencies, 95) / shell_p95,
            "p99_ms": p(self.latencies, 99) * 1000,
            "sse_p95_ms": p(self.deliveries, 95) * 1000,
        }


def _percentile(values: list[float], pct: int) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * pct / 100))]


def _campaign_command() -> list[str]:
    return [sys.executable, "-c", "from campaign.cli.app import main; main()"]


def _setup(dbs: dict[str, Path], players: int, env: dict[str, str]) -> dict[str, list[tuple[str, str]]]:
    """Each campaign with its players, a PC each and an invite each, typed into one
    `campaign shell` per campaign; returns {campaign: [(character, join path)]}."""
    seats: dict[str, list[tuple[str, str]]] = {}
    for name, db in dbs.items():
        lines = [f"init '{name}'"]
        for p in range(1, players + 1):
            lines += [
                f"player add P{p}",
                f"char add PC{p} --player P{p} --stat Will=11 --stat HT=11 --cp 100",
                f"invite P{p} --json",
            ]
        done = subprocess.run(
            [*_campaign_command(), "--db", str(db), "shell"],
            input="\n".join(lines) + "\n",
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        joins = [json.loads(line)["join_path"] for line in done.stdout.splitlines() if '"join_path"' in line]
        if len(joins) != players:
            raise RuntimeError(
                f"setup of {name} made {len(joins)} invites: {done.stdout[-1000:]} {done.stderr[-1000:]}"
            )
        seats[name] = [(f"PC{p}", joins[p - 1]) for p in range(1, players + 1)]
    return seats


def _shell_roll_times(db: Path, name: str, rolls: int, env: dict[str, str], workdir: Path) -> list[float]:
    """Seconds per roll typed into one `campaign shell` (no start-up), the baseline."""
    timings = workdir / "shell-timings.txt"
    # The players' own line for the first player's character (every setup here seats PC1 in
    # the first campaign): the server's roll and the baseline do the same rules work, so
    # their ratio is what the server adds (its HTTP, its seat and key checks, its answer).
    script = "roll 3D6<=12 回避 --char PC1\n" * rolls
    subprocess.run(
        [*_campaign_command(), "--db", str(db), "-c", name, "shell", "--timings", str(timings)],
        input=script,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return [float(line.split()[0]) / 1000 for line in timings.read_text().splitlines()][5:]


class _Player(threading.Thread):
    def __init__(
        self,
        base: str,
        character: str,
        join_path: str,
        until: float,
        sent: dict[int, float],
        result: LoadResult,
        lock: threading.Lock,
        host: str | None = None,
    ) -> None:
        super().__init__(daemon=True)
        import httpx

        # Through a proxy (host given): its Host header, its self-signed certificate, and the
        # origin the page would have there.
        headers = {"host": host} if host else {}
        self.http = httpx.Client(
            base_url=base, timeout=30, follow_redirects=False, headers=headers, verify=host is None
        )
        self.base, self.character, self.join_path, self.until = base, character, join_path, until
        self.sent, self.result, self.lock = sent, result, lock
        self.origin = f"https://{host}" if host else "/".join(base.split("/")[:3])  # scheme://host:port

    def sign_in(self) -> None:
        answer = self.http.post(self.join_path.lstrip("/"), data={"confirm": "1"}, headers={"origin": self.origin})
        if answer.status_code != 303:
            raise RuntimeError(f"join {self.join_path}: {answer.status_code} {answer.text[:300]}")
        self.csrf = self.http.get("api/session").json()["csrf"]
        # One roll before the clock starts (the server's first roll imports the dice engine);
        # its entry is still counted among those that must be in the ledger.
        warm = self.http.post(
            "api/rolls",
            json={
                "command": "3D6",
                "character": self.character,
                "idempotency_key": f"warm-{self.character}-{id(self)}",
            },
            headers={"origin": self.origin, "x-csrf-token": self.csrf},
        )
        if warm.status_code != 201:
            raise RuntimeError(f"warm-up roll: {warm.status_code} {warm.text[:300]}")
        with self.lock:
            self.sent[warm.json()["seq"]] = -1.0  # in the ledger count, not in the delivery times

    def run(self) -> None:
        """Roll once a second over one kept-alive connection of the standard library's
        http.client: the phone's part of a roll costs about what a browser's would, where
        httpx spent a millisecond of this process's GIL per request, shared by 20 players."""
        import http.client
        import ssl
        from urllib.parse import urlsplit

        url = urlsplit(self.base)
        prefix = url.path.rstrip("/") + "/"
        cookie = "; ".join(f"{name}={value}" for name, value in self.http.cookies.items())
        headers = {
            "origin": self.origin,
            "x-csrf-token": self.csrf,
            "content-type": "application/json",
            "cookie": cookie,
            **({"host": self.http.headers["host"]} if "host" in self.http.headers else {}),
        }

        def connect() -> http.client.HTTPConnection:
            if url.scheme == "https":  # through the proxy: its self-signed certificate
                return http.client.HTTPSConnection(
                    url.hostname or "", url.port, timeout=30, context=ssl._create_unverified_context()
                )
            return http.client.HTTPConnection(url.hostname or "", url.port, timeout=30)

        connection = connect()
        key = 0
        next_at = time.monotonic() + random.random()  # players do not tap in step
        while next_at < self.until:
            time.sleep(max(0.0, next_at - time.monotonic()))
            key += 1
            body = json.dumps(
                {
                    "command": "3D6<=12 回避",
                    "character": self.character,
                    "idempotency_key": f"{self.character}-{key}-{id(self)}",
                }
            ).encode()
            start = time.perf_counter()
            status, text = 0, ""
            for _attempt in (1, 2):  # a kept-alive connection the server closed: once more, same key
                try:
                    connection.request("POST", prefix + "api/rolls", body=body, headers=headers)
                    response = connection.getresponse()
                    status, text = response.status, response.read().decode("utf-8", "replace")
                    break
                except Exception as exc:  # a failed request is an error of the row, not of the harness
                    connection.close()
                    connection = connect()
                    status, text = 0, repr(exc)
                    if not isinstance(exc, (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError)):
                        break
            took = time.perf_counter() - start
            ok = status == 201
            with self.lock:
                if ok:
                    self.result.rolls += 1
                    self.result.latencies.append(took)
                    self.sent[json.loads(text)["seq"]] = start
                else:
                    self.result.errors.append(f"{status} {text[:200]}")
            next_at += 1.0
        connection.close()
        self.http.close()


class _FeedClient(threading.Thread):
    """One campaign's SSE client: when each entry's event arrived (perf_counter)."""

    def __init__(self, base: str, after: int, token: str | None = None) -> None:
        super().__init__(daemon=True)
        self.base, self.after, self.token = base, after, token
        self.arrived: dict[int, float] = {}
        self.order: list[int] = []  # every entry event's seq, as it came
        self.stop = threading.Event()
        self.ready = threading.Event()
        self.failed = ""  # why the page stopped reading, if it did

    def run(self) -> None:
        try:
            self._read()
        except Exception as exc:  # noqa: BLE001 - the row counts it as an error
            self.failed = repr(exc)
            self.ready.set()

    def _read(self) -> None:
        import httpx

        with httpx.Client(base_url=self.base, timeout=httpx.Timeout(5.0, read=2.0)) as http:
            if self.token:  # a private server: the page opened from the read token's link first
                linked = http.get(f"?token={self.token}")
                if linked.status_code != 303:
                    raise RuntimeError(f"the token link: {linked.status_code} {linked.text[:300]}")
            while not self.stop.is_set():
                try:
                    with http.stream("GET", f"api/feed?after={self.after}") as events:
                        if events.status_code != 200:
                            raise RuntimeError(f"the feed: {events.status_code}")
                        self.ready.set()
                        seq = None
                        for line in events.iter_lines():
                            if line.startswith("id: "):
                                seq = int(line[4:])
                            elif line.startswith("event: entry") and seq is not None:
                                self.arrived.setdefault(seq, time.perf_counter())
                                self.order.append(seq)
                                self.after = max(self.after, seq)
                            if self.stop.is_set():
                                return
                except httpx.ReadTimeout:
                    continue  # no event for a while: reconnect from the last seen


# The page readers of the proxied row in a process of their own (argv: JSON list of
# [base, after, token]): "ready" once every feed answered, then, at a line on stdin,
# what each page was sent as JSON. Sharing the harness's process with hundreds of player
# threads, they would measure its GIL rather than the servers' feed.
PAGES = r"""
import json, sys
from tests.perf.table_load import _FeedClient
clients = [_FeedClient(base, after, token) for base, after, token in json.loads(sys.argv[1])]
for client in clients:
    client.start()
for client in clients:
    client.ready.wait(60)
print("ready", flush=True)
sys.stdin.readline()
for client in clients:
    client.stop.set()
got = [{"arrived": dict(client.arrived), "order": list(client.order), "failed": client.failed} for client in clients]
print(json.dumps(got), flush=True)
"""


class _Page:
    """A page read in the PAGES process, as _delivered reads a _FeedClient."""

    def __init__(self, got: dict) -> None:
        self.arrived = {int(seq): at for seq, at in got["arrived"].items()}
        self.order: list[int] = got["order"]
        self.failed: str = got["failed"]
        self.stop = threading.Event()


class _PageProcess:
    """The page readers' process (perf_counter is CLOCK_MONOTONIC on Linux: its times
    compare with the harness's)."""

    def __init__(self, pages: list[tuple[str, int, str | None]], env: dict[str, str]) -> None:
        root = str(Path(__file__).resolve().parents[2])
        self.proc = subprocess.Popen(
            [sys.executable, "-c", PAGES, json.dumps(pages)],
            env={**env, "PYTHONPATH": root},
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != "ready":
            self.proc.kill()
            raise RuntimeError("the page readers did not start")

    def pages(self) -> list[_Page]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("stop\n")
        self.proc.stdin.flush()
        got = json.loads(self.proc.stdout.readline())
        self.stop()
        return [_Page(one) for one in got]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(30)


def run_load(
    campaigns: int = 5,
    players: int = 4,
    seconds: float = 60.0,
    workdir: Path | None = None,
    shell_rolls: int = 100,
    pages: int = 1,
) -> LoadResult:
    """`pages` feed clients per campaign (open table pages). One campaign is served by
    `campaign serve` itself (the product's command, its socket and settings); several by
    the SERVER dispatcher above, each under /c<i>/."""
    own = workdir is None
    work = Path(tempfile.mkdtemp(prefix="campaign-load-")) if workdir is None else workdir
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(work / "config"),
        "XDG_DATA_HOME": str(work / "data"),
        "XDG_STATE_HOME": str(work / "state"),
    }
    names = [f"卓{i}" for i in range(1, campaigns + 1)]
    dbs = {name: work / f"table{i}.db" for i, name in enumerate(names, 1)}
    seats = _setup(dbs, players, env)
    server, bases = _start_server(work, dbs, env)
    result = LoadResult(campaigns, players, seconds, 0, [], 0, [], [], 0)
    sent: dict[str, dict[int, float]] = {name: {} for name in names}
    readers: _PageProcess | None = None
    try:
        _warmed(bases.values())
        heads = _heads(dbs)
        # The pages read in a process of their own, as the phones would: in this one they
        # would take the GIL from the players' threads and time the harness, not the server.
        readers = _PageProcess([(bases[name], heads[name], None) for name in names for _ in range(pages)], env)
        _roll_for(seconds, [(bases[name], seat, sent[name]) for name in names for seat in seats[name]], result)
        time.sleep(2.0)  # let the feeds deliver the last events
        read = readers.pages()
        for i, name in enumerate(names):
            _delivered(read[i * pages : (i + 1) * pages], sent[name], heads[name], result)
    finally:
        if readers is not None:
            readers.stop()
        server.terminate()
        server.wait(30)
    after = _heads(dbs)
    result.lost = sum(len(sent[name]) for name in names) - sum(
        _entries_among(dbs[name], name, sent[name]) for name in names
    )
    if after and sum(after.values()) < sum(heads.values()) + result.rolls:
        result.errors.append(f"ledger heads {after} hold fewer than {result.rolls} new entries")
    result.shell_rolls = _shell_roll_times(dbs[names[0]], names[0], shell_rolls, env, work)
    if own:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return result


def _start_server(work: Path, dbs: dict[str, Path], env: dict[str, str]) -> tuple[subprocess.Popen, dict[str, str]]:
    """The server process and each campaign's base URL (ending in /)."""
    log = open(work / "server.log", "w")
    if len(dbs) == 1:
        ((name, db),) = dbs.items()
        server = subprocess.Popen(
            [*_campaign_command(), "--db", str(db), "-c", name, "serve", "--port", "0"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
        assert server.stdout is not None
        url = server.stdout.readline().strip()  # the first line is the URL, printed once listening
        if not url.startswith("http://"):
            server.kill()
            raise RuntimeError(f"the server did not start: {(work / 'server.log').read_text()[-2000:]}")
        return server, {name: url}
    port_file = work / "port"
    pairs = [str(x) for name, db in dbs.items() for x in (db, name)]
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(port_file), *pairs], env=env, stdout=subprocess.DEVNULL, stderr=log
    )
    deadline = time.monotonic() + 60
    while not port_file.exists() or not port_file.read_text():
        if server.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the server did not start: {(work / 'server.log').read_text()[-2000:]}")
        time.sleep(0.05)
    root = f"http://127.0.0.1:{port_file.read_text()}"
    return server, {name: f"{root}/c{i}/" for i, name in enumerate(dbs, 1)}


def _warmed(bases: Iterable[str]) -> None:
    """Wait until each server has warmed what a start builds in the background (the luck
    tally, its scipy import: campaign.web.app.warm_up): the first luck page waits for that
    work, so it answers once it is done. The row measures a table in play; the first
    minute after a start is the `luck_first` row's."""
    import httpx

    for base in bases:
        answer = httpx.get(base + "luck", timeout=300)
        if answer.status_code != 200:
            raise RuntimeError(f"{base}luck: {answer.status_code} {answer.text[:300]}")


def _roll_for(
    seconds: float,
    seats: list[tuple[str, tuple[str, str], dict[int, float]]],
    result: LoadResult,
    host: str | None = None,
) -> None:
    """Every seat signed in, then rolling once a second for `seconds` (`host`: through
    the proxy answering for that name)."""
    lock = threading.Lock()
    threads = [_Player(base, character, join, 0.0, sent, result, lock, host) for base, (character, join), sent in seats]
    for player in threads:
        player.sign_in()
    until = time.monotonic() + seconds
    for player in threads:
        player.until = until
        player.start()
    for player in threads:
        player.join()


def _delivered(clients: list[_FeedClient] | list[_Page], sent: dict[int, float], head: int, result: LoadResult) -> None:
    """Each page's delivery times, its missing rolls, and whether its entries came in order
    with no gap (every seq after the head it opened at, once)."""
    for client in clients:
        client.stop.set()
        if client.failed:
            result.errors.append(f"a page stopped reading: {client.failed}")
        for seq, start in sent.items():
            if start < 0:
                continue
            if seq in client.arrived:
                result.deliveries.append(max(0.0, client.arrived[seq] - start))
            else:
                result.undelivered += 1
        if client.order != list(range(head + 1, head + 1 + len(client.order))):
            result.errors.append(f"a page's entries came out of order or with a gap: {client.order[:50]}")


def _heads(dbs: dict[str, Path]) -> dict[str, int]:
    return {name: _head(db, name) for name, db in dbs.items()}


def _head(db: Path, name: str) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT coalesce(max(seq), 0) FROM ledger JOIN campaigns c ON c.id = campaign_id WHERE c.name = ?", (name,)
        ).fetchone()[0]


def _entries_among(db: Path, name: str, seqs: dict[int, float]) -> int:
    """How many of `seqs` are rolls in the campaign's ledger (an entry answered 201 is there)."""
    if not seqs:
        return 0
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT seq FROM ledger JOIN campaigns c ON c.id = campaign_id WHERE c.name = ? AND kind = 'roll'", (name,)
        ).fetchall()
    return len(set(seqs) & {seq for (seq,) in rows})


@dataclass
class ManyResult:
    """`serve --all` under load: the load's figures, and what the server held."""

    load: LoadResult
    campaigns: int  # campaigns in the database
    active: int  # campaigns whose players rolled
    setup_seconds: float  # making the campaigns and their seats
    rss_mb: float  # the server's resident memory at the end of the load
    connections: int  # PostgreSQL: the server's connections (pg_stat_activity) at the end; -1 on SQLite


def run_load_all(
    campaigns: int = 200,
    active: int = 10,
    players: int = 4,
    seconds: float = 60.0,
    workdir: Path | None = None,
    backend: str = "sqlite",
    shell_rolls: int = 100,
) -> ManyResult:
    """`campaign serve --all` over one database of `campaigns` campaigns: `players`
    players in each of the first `active` rolling once a second for `seconds`, one open
    page (SSE) on each active campaign. On PostgreSQL a throwaway cluster is started."""
    own = workdir is None
    work = Path(tempfile.mkdtemp(prefix="campaign-many-")) if workdir is None else workdir
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(work / "config"),
        "XDG_DATA_HOME": str(work / "data"),
        "XDG_STATE_HOME": str(work / "state"),
    }
    cluster = None
    if backend == "postgres":
        from tests.pgcluster import Cluster

        cluster = Cluster().start()
        db = cluster.create_database("many")
        served = db + ("&" if "?" in db else "?") + "application_name=serve_all_bench"
    else:
        db = served = str(work / "many.db")
    try:
        names = [f"卓{i:04d}" for i in range(1, campaigns + 1)]
        started = time.perf_counter()
        seats = _setup_one(db, names, names[:active], players, env)
        setup = time.perf_counter() - started
        log = open(work / "server.log", "w")
        server = subprocess.Popen(
            [*_campaign_command(), "--db", served, "serve", "--all", "--port", "0"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
        assert server.stdout is not None
        root = server.stdout.readline().strip().rstrip("/")
        if not root.startswith("http://"):
            server.kill()
            raise RuntimeError(f"the server did not start: {(work / 'server.log').read_text()[-2000:]}")
        from urllib.parse import quote

        from campaign.web.multi import slug_of

        bases = {name: f"{root}/c/{quote(slug_of(name, 0))}/" for name in names[:active]}
        result = LoadResult(active, players, seconds, 0, [], 0, [], [], 0)
        sent: dict[str, dict[int, float]] = {name: {} for name in bases}
        rss, connections = 0.0, -1
        readers: _PageProcess | None = None
        try:
            heads = {name: _head_any(db, name) for name in bases}
            readers = _PageProcess([(bases[name], heads[name], None) for name in bases], env)
            _roll_for(seconds, [(bases[name], seat, sent[name]) for name in bases for seat in seats[name]], result)
            rss = _rss_mb(server.pid)
            if cluster is not None:
                connections = _pg_connections(db)
            time.sleep(2.0)
            for name, page in zip(bases, readers.pages(), strict=True):
                _delivered([page], sent[name], heads[name], result)
        finally:
            if readers is not None:
                readers.stop()
            server.terminate()
            server.wait(30)
        result.lost = sum(len(sent[name]) for name in bases) - sum(_entries_any(db, name, sent[name]) for name in bases)
        result.shell_rolls = _shell_roll_times(db, names[0], shell_rolls, env, work)  # type: ignore[arg-type]
        return ManyResult(result, campaigns, active, setup, rss, connections)
    finally:
        if cluster is not None:
            cluster.stop()
        if own:
            import shutil

            shutil.rmtree(work, ignore_errors=True)


def _setup_one(
    db: str, names: list[str], active: list[str], players: int, env: dict[str, str]
) -> dict[str, list[tuple[str, str]]]:
    """Every campaign in one database, typed into one `campaign shell`; the active ones
    with their players, a PC each and an invite each."""
    lines = []
    for name in names:
        lines.append(f"init '{name}'")
        if name in active:
            for p in range(1, players + 1):
                lines += [
                    f"player add P{p}",
                    f"char add PC{p} --player P{p} --stat Will=11 --stat HT=11 --cp 100",
                    f"invite P{p} --json",
                ]
    done = subprocess.run(
        [*_campaign_command(), "--db", db, "shell"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    joins = [json.loads(line)["join_path"] for line in done.stdout.splitlines() if '"join_path"' in line]
    if len(joins) != players * len(active):
        raise RuntimeError(f"setup made {len(joins)} invites: {done.stdout[-1000:]} {done.stderr[-1000:]}")
    return {
        name: [(f"PC{p}", joins[i * players + p - 1]) for p in range(1, players + 1)] for i, name in enumerate(active)
    }


def _rows(db: str, sql: str, name: str) -> list[tuple[int]]:
    if db.startswith("postgresql"):
        import psycopg
        from sqlalchemy.engine import make_url

        dsn = make_url(db).set(drivername="postgresql").render_as_string(hide_password=False)
        with psycopg.connect(dsn) as conn:
            return [tuple(row) for row in conn.execute(sql.replace("?", "%s"), (name,)).fetchall()]
    with sqlite3.connect(db) as conn:
        return conn.execute(sql, (name,)).fetchall()


def _head_any(db: str, name: str) -> int:
    rows = _rows(
        db, "SELECT coalesce(max(seq), 0) FROM ledger JOIN campaigns c ON c.id = campaign_id WHERE c.name = ?", name
    )
    return int(rows[0][0])


def _entries_any(db: str, name: str, seqs: dict[int, float]) -> int:
    if not seqs:
        return 0
    rows = _rows(
        db, "SELECT seq FROM ledger JOIN campaigns c ON c.id = campaign_id WHERE c.name = ? AND kind = 'roll'", name
    )
    return len(set(seqs) & {seq for (seq,) in rows})


def _rss_mb(pid: int) -> float:
    """A process's resident memory (VmRSS), MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _pg_connections(db: str) -> int:
    import psycopg
    from sqlalchemy.engine import make_url

    dsn = make_url(db).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'serve_all_bench'"
        ).fetchone()
    return int(row[0]) if row else 0


@dataclass
class ProxiedResult:
    """`serve --all` in two processes behind nginx under load: the load's figures, and
    what each server held."""

    load: LoadResult
    campaigns: int  # campaigns in the database
    active: int  # campaigns whose players rolled
    pages: int  # open pages (feed clients), half straight on each process
    setup_seconds: float  # making the campaigns and their seats
    rss_mb: list[float]  # each server's resident memory at the end of the load
    connections: int  # both servers' PostgreSQL connections (pg_stat_activity) at the end


def run_load_proxied(
    campaigns: int = 1000,
    active: int = 50,
    players: int = 200,
    seconds: float = 60.0,
    workdir: Path | None = None,
    db: str | None = None,
    watched: int = 3,
    shell_rolls: int = 100,
) -> ProxiedResult:
    """Two `campaign serve --all` processes on one PostgreSQL database of `campaigns`
    campaigns, started with docs/hosting.md's nginx lines, behind Debian's nginx with
    that page's site (tests.nginx, as tests/web/test_hosting.py runs it): `players`
    players spread over the first `active` campaigns, signed in from their invites and
    rolling once a second for `seconds` over HTTPS through nginx (round-robin, so each
    process answers about half), and on each of the first `watched` campaigns one page
    straight on each process, so that every page is sent the rolls the other process
    answered. `db`: an empty PostgreSQL database; without it a throwaway cluster is
    started."""
    from urllib.parse import quote

    from campaign.web.multi import slug_of
    from tests.nginx import Nginx, nginx_serve_args

    if players < active:
        raise ValueError(f"{players} players cannot fill {active} campaigns")
    own = workdir is None
    work = Path(tempfile.mkdtemp(prefix="campaign-proxied-")) if workdir is None else workdir
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(work / "config"),
        "XDG_DATA_HOME": str(work / "data"),
        "XDG_STATE_HOME": str(work / "state"),
    }
    cluster = None
    if db is None:
        from tests.pgcluster import Cluster

        cluster = Cluster().start()
        db = cluster.create_database("proxied")
    served = db + ("&" if "?" in db else "?") + "application_name=serve_all_bench"
    servers: list[subprocess.Popen] = []
    proxy = None
    readers: _PageProcess | None = None
    try:
        try:
            names = [f"卓{i:04d}" for i in range(1, campaigns + 1)]
            started = time.perf_counter()
            # players spread evenly: the first (players % active) campaigns have one more
            counts = [players // active + (i < players % active) for i in range(active)]
            seats = _setup_uneven(db, names, dict(zip(names[:active], counts, strict=True)), env)
            setup = time.perf_counter() - started
            token_file = work / "token"
            token = f"bench-token-{random.getrandbits(128):032x}"
            token_file.write_text(token + "\n")
            ports = []
            for i, args in enumerate(nginx_serve_args(token_file)):
                server = subprocess.Popen(
                    [*_campaign_command(), "--db", served, "serve", "--all", *args],
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=open(work / f"server{i + 1}.log", "w"),
                    text=True,
                )
                servers.append(server)
                assert server.stdout is not None
                first = server.stdout.readline().strip()  # the URL, printed once listening
                found = re.match(r"https?://[^/]*:(\d+)/", first)
                if not found:
                    log = (work / f"server{i + 1}.log").read_text()[-2000:]
                    raise RuntimeError(f"server {i + 1} did not start: {log}")
                ports.append(int(found.group(1)))
            folder = work / "nginx"
            folder.mkdir(exist_ok=True)
            proxy = Nginx(folder, (ports[0], ports[1]))
            host = f"table.example:{proxy.https_port}"
            slugs = {name: quote(slug_of(name, 0)) for name in names[:active]}
            through = {name: f"https://127.0.0.1:{proxy.https_port}/c/{slug}/" for name, slug in slugs.items()}
            result = LoadResult(active, players, seconds, 0, [], 0, [], [], 0)
            sent: dict[str, dict[int, float]] = {name: {} for name in through}
            heads = {name: _head_any(db, name) for name in through}
            watched_names = names[: min(watched, active)]
            readers = _PageProcess(
                [
                    (f"http://127.0.0.1:{port}/c/{slugs[name]}/", heads[name], token)
                    for name in watched_names
                    for port in ports
                ],
                env,
            )
            _roll_for(
                seconds, [(through[name], seat, sent[name]) for name in through for seat in seats[name]], result, host
            )
            rss = [_rss_mb(server.pid) for server in servers]
            connections = _pg_connections(db)
            time.sleep(2.0)  # let the feeds deliver the last events
            pages = readers.pages()
            for i, name in enumerate(watched_names):
                _delivered(pages[i * len(ports) : (i + 1) * len(ports)], sent[name], heads[name], result)
            for i, server in enumerate(servers):
                if server.poll() is not None:
                    result.errors.append(f"server {i + 1} stopped: {(work / f'server{i + 1}.log').read_text()[-500:]}")
        finally:
            if readers is not None:
                readers.stop()
            if proxy is not None:
                proxy.stop()
            for server in servers:
                server.terminate()
                server.wait(30)
        result.lost = sum(len(sent[name]) for name in through) - sum(
            _entries_any(db, name, sent[name]) for name in through
        )
        if shell_rolls:
            result.shell_rolls = _shell_roll_times(db, names[0], shell_rolls, env, work)  # type: ignore[arg-type]
        return ProxiedResult(result, campaigns, active, len(pages), setup, rss, connections)
    finally:
        if cluster is not None:
            cluster.stop()
        if own:
            import shutil

            shutil.rmtree(work, ignore_errors=True)


def _setup_uneven(
    db: str, names: list[str], seated: dict[str, int], env: dict[str, str]
) -> dict[str, list[tuple[str, str]]]:
    """Every campaign in one database, typed into one `campaign shell`; those of `seated`
    with that many players, a PC each and an invite each."""
    lines = []
    for name in names:
        lines.append(f"init '{name}'")
        for p in range(1, seated.get(name, 0) + 1):
            lines += [
                f"player add P{p}",
                f"char add PC{p} --player P{p} --stat Will=11 --stat HT=11 --cp 100",
                f"invite P{p} --json",
            ]
    done = subprocess.run(
        [*_campaign_command(), "--db", db, "shell"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    joins = iter(json.loads(line)["join_path"] for line in done.stdout.splitlines() if '"join_path"' in line)
    seats = {name: [(f"PC{p}", next(joins, "")) for p in range(1, count + 1)] for name, count in seated.items()}
    if any(join == "" for chairs in seats.values() for _, join in chairs) or next(joins, None) is not None:
        raise RuntimeError(f"setup made the wrong number of invites: {done.stdout[-1000:]} {done.stderr[-1000:]}")
    return seats


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--campaigns", type=int, default=5)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--pages", type=int, default=1, help="open table pages (feed clients) per campaign")
    parser.add_argument("--all", type=int, default=0, help="serve --all over one database of this many campaigns")
    parser.add_argument("--backend", default="sqlite", choices=["sqlite", "postgres"], help="with --all")
    parser.add_argument(
        "--proxied",
        type=int,
        default=0,
        help="two `serve --all` processes behind nginx on a PostgreSQL database of this many campaigns "
        "(--campaigns: how many have players; --players: players in all)",
    )
    args = parser.parse_args(argv)
    if args.proxied:
        got = run_load_proxied(args.proxied, args.campaigns, args.players, args.seconds)
        print(
            json.dumps(
                {
                    **got.load.summary(),
                    "campaigns": got.campaigns,
                    "active": got.active,
                    "pages": got.pages,
                    "setup_s": round(got.setup_seconds, 1),
                    "rss_mb": [round(mb, 1) for mb in got.rss_mb],
                    "connections": got.connections,
                    "first_errors": got.load.errors[:5],
                },
                indent=2,
            )
        )
        return 0 if not got.load.errors and not got.load.lost and not got.load.undelivered else 1
    if args.all:
        many = run_load_all(args.all, args.campaigns, args.players, args.seconds, backend=args.backend)
        print(
            json.dumps(
                {
                    **many.load.summary(),
                    "campaigns": many.campaigns,
                    "active": many.active,
                    "setup_s": round(many.setup_seconds, 1),
                    "rss_mb": round(many.rss_mb, 1),
                    "connections": many.connections,
                    "first_errors": many.load.errors[:5],
                },
                indent=2,
            )
        )
        return 0 if not many.load.errors and not many.load.lost else 1
    result = run_load(args.campaigns, args.players, args.seconds, pages=args.pages)
    print(json.dumps({**result.summary(), "first_errors": result.errors[:5]}, indent=2))
    return 0 if not result.errors and not result.lost else 1


if __name__ == "__main__":
    sys.exit(main())

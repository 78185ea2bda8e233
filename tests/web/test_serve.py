"""`campaign serve` as a real process: the URL on the first line, 127.0.0.1 by default,
a token with --host, and the live feed noticing a roll committed by another process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import httpx
import pytest

from tests.cli.conftest import Cli

CLI = [sys.executable, "-c", "from campaign.cli.app import main; main()"]
START_TIMEOUT = 90  # seconds: imports on a busy 2-core machine


class Server:
    """A `campaign serve` subprocess; stopped by its pid when the test ends."""

    def __init__(self, db: str, *args: str) -> None:
        self.proc = subprocess.Popen(
            [*CLI, "--db", db, "serve", "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "COLUMNS": "200"},
        )
        first: list[str] = []
        reader = threading.Thread(target=lambda: first.append(self.proc.stdout.readline()), daemon=True)
        reader.start()
        reader.join(START_TIMEOUT)
        if not first or not first[0].strip():
            self.stop()
            raise AssertionError(f"serve printed no URL: {self.proc.stderr.read()}")
        self.first_line = first[0].strip()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def serve():
    started: list[Server] = []

    def start(db: str, *args: str) -> Server:
        started.append(Server(db, *args))
        return started[-1]

    yield start
    for server in started:
        server.stop()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_serve_prints_its_url_first_and_binds_localhost_by_default(db_url, serve):
    Cli(db_url).run("init", "卓")
    server = serve(db_url)
    assert server.first_line.startswith("http://127.0.0.1:") and server.first_line.endswith("/")
    assert "token" not in server.first_line
    page = httpx.get(server.first_line, timeout=30)
    assert page.status_code == 200 and "卓" in page.text


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_serve_with_host_requires_the_printed_token(db_url, serve):
    Cli(db_url).run("init", "卓")
    server = serve(db_url, "--host", "localhost", "--json")
    started = json.loads(server.first_line)
    token = started["token"]
    assert len(token) >= 32 and started["url"] == f"http://localhost:{started['port']}/?token={token}"
    base = f"http://localhost:{started['port']}/"
    assert httpx.get(base, timeout=30).status_code == 401
    with httpx.Client(timeout=30, follow_redirects=True) as browser:
        page = browser.get(started["url"])
        assert page.status_code == 200 and "卓" in page.text and str(page.url) == base
        assert browser.get(base + "history").status_code == 200  # the cookie now


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_serve_refuses_bad_options_and_a_missing_database(db_url, tmp_path):
    cli = Cli(db_url)
    cli.run("init", "卓")
    assert "--token must be" in cli.error("serve", "--token", "short", code=2)
    assert "--tls-cert and --tls-key go together" in cli.error("serve", "--tls-cert", "x.pem", code=2)
    assert "--port must be" in cli.error("serve", "--port", "70000", code=2)
    missing = Cli(str(tmp_path / "nothing.db"))
    missing.error("serve", code=1)
    assert not (tmp_path / "nothing.db").exists()


def test_a_roll_committed_by_another_process_arrives_on_the_feed(db_url, serve):
    cli = Cli(db_url)
    cli.run("init", "卓")
    head = cli.json("history", "--limit", "1")[0]["seq"]
    server = serve(db_url)
    events: list[dict] = []
    opened = threading.Event()
    failure: list[BaseException] = []

    def listen():
        try:
            with httpx.stream("GET", f"{server.first_line}api/feed?after={head}", timeout=60) as response:
                assert response.headers["content-type"].startswith("text/event-stream")
                event = None
                for line in response.iter_lines():
                    opened.set()
                    if line.startswith("event: "):
                        event = line[len("event: ") :]
                    elif line.startswith("data: ") and event == "entry":
                        events.append(json.loads(line[len("data: ") :]))
                        return
        except BaseException as exc:  # reported by the test thread
            failure.append(exc)
            opened.set()

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    assert opened.wait(60), "the feed never answered"
    rolled = subprocess.run(
        [*CLI, "--db", db_url, "roll", "2D6", "--reason", "<b>見る</b>", "--dice", "3,4", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    seq = json.loads(rolled.stdout)["seq"]
    listener.join(60)
    assert not failure, failure
    assert [event["seq"] for event in events] == [seq]
    row = events[0]["html"]
    assert row.startswith(f'<tr id="entry-{seq}" data-seq="{seq}"') and "2D6 [3,4]=7" in row
    assert "&lt;b&gt;見る&lt;/b&gt;" in row and "<b>" not in row


@pytest.mark.slow  # two fresh interpreters under -X importtime
def test_the_cli_start_up_never_imports_the_web_stack(tmp_path):
    from tests.cli.test_startup import _modules

    for number, args in enumerate((("roll", "3D6"), ("history", "--limit", "5", "--json"))):
        (tmp_path / str(number)).mkdir()
        loaded = _modules(tmp_path / str(number), *args)
        assert not [
            name
            for name in loaded
            if name.split(".")[0] in ("starlette", "jinja2", "uvicorn", "httpx") or name.startswith("campaign.web")
        ], args


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_serve_over_https_with_a_secure_cookie(db_url, serve, tmp_path):
    import shutil

    if shutil.which("openssl") is None:
        pytest.fail("openssl is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    Cli(db_url).run("init", "卓")
    server = serve(db_url, "--host", "localhost", "--tls-cert", str(cert), "--tls-key", str(key), "--json")
    started = json.loads(server.first_line)
    assert started["url"].startswith(f"https://localhost:{started['port']}/?token=")
    with httpx.Client(timeout=30, verify=False) as browser:
        first = browser.get(started["url"])
        assert first.status_code == 303 and "; Secure" in first.headers["set-cookie"]
        assert browser.get(f"https://localhost:{started['port']}/").status_code == 200


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_serve_answers_only_addresses_localhost_and_allowed_host_names(db_url, serve):
    Cli(db_url).run("init", "卓")
    server = serve(db_url, "--allow-host", "Table.Local")
    port = server.first_line.rsplit(":", 1)[1].strip("/")
    for host, status in (
        (f"127.0.0.1:{port}", 200),
        (f"localhost:{port}", 200),
        (f"table.local:{port}", 200),
        (f"evil.example:{port}", 421),
    ):
        answer = httpx.get(server.first_line, headers={"host": host}, timeout=30)
        assert answer.status_code == status, host
    assert httpx.get(server.first_line + "api/session", timeout=30).json()["code"] == "no_session"

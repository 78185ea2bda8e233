"""`campaign serve`'s token out of the process list: read from --token-file or
CAMPAIGN_WEB_TOKEN; a --token typed on the command line works, with a warning, since
every user of the machine can read a process's arguments (ps, /proc/PID/cmdline)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from tests.cli.conftest import Cli

TOKEN = "file-token-0123456789abcdef"
WARNING = (
    "warning: a --token on the command line can be read by every user of this machine (ps); use "
    "--token-file FILE or CAMPAIGN_WEB_TOKEN instead"
)


@pytest.fixture
def served(tmp_path, monkeypatch):
    """serve run in-process up to the point it would start uvicorn; what it would serve."""
    import campaign.cli.serve as serve_module

    started = []

    def run(app, sock, cert, key, proxies):
        started.append(app)
        sock.close()
        app.app.state.db.close()

    monkeypatch.setattr(serve_module, "_run", run)
    cli = Cli(str(tmp_path / "c.db"))
    cli.run("init", "卓")
    return cli, started


def _token_of(app) -> str | None:
    guard = app  # create_app returns the Guard around the Starlette app
    return guard.token.decode() if guard.token else None


def test_the_token_from_a_file(served, tmp_path):
    cli, started = served
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    done = cli.run("serve", "--port", "0", "--host", "localhost", "--token-file", str(token_file), "--json")
    assert json.loads(done.stdout)["token"] == TOKEN and _token_of(started[-1]) == TOKEN
    assert "warning" not in done.stderr


def test_the_token_from_the_environment(served, monkeypatch):
    cli, started = served
    monkeypatch.setenv("CAMPAIGN_WEB_TOKEN", TOKEN)
    done = cli.run("serve", "--port", "0", "--json")
    assert json.loads(done.stdout)["token"] == TOKEN and _token_of(started[-1]) == TOKEN
    assert "warning" not in done.stderr


def test_a_token_on_the_command_line_warns(served):
    cli, started = served
    done = cli.run("serve", "--port", "0", "--token", TOKEN, "--json")
    assert json.loads(done.stdout)["token"] == TOKEN
    assert done.stderr.splitlines() == [WARNING]


def test_bad_token_files_are_one_line(served, tmp_path):
    cli, started = served
    empty = tmp_path / "empty"
    empty.write_text("\n")
    assert "is empty" in cli.error("serve", "--token-file", str(empty), code=2)
    assert "cannot read" in cli.error("serve", "--token-file", str(tmp_path / "missing"), code=2)
    short = tmp_path / "short"
    short.write_text("abc\n")
    assert "--token must be" in cli.error("serve", "--token-file", str(short), code=2)
    both = tmp_path / "both"
    both.write_text(TOKEN)
    assert "not both" in cli.error("serve", "--token-file", str(both), "--token", TOKEN, code=2)
    binary = tmp_path / "binary"
    binary.write_bytes(b"\xff\xfe" * 10)
    assert "cannot read" in cli.error("serve", "--token-file", str(binary), code=2)
    assert started == []


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="no /proc here")
def test_the_served_token_is_not_in_the_process_arguments(tmp_path):
    db = tmp_path / "c.db"
    Cli(str(db)).run("init", "卓")
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from campaign.cli.app import main; main()",
            "--db",
            str(db),
            "serve",
            "--host",
            "localhost",
            "--port",
            "0",
            "--token-file",
            str(token_file),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first: list[str] = []
        reader = threading.Thread(target=lambda: first.append(proc.stdout.readline()), daemon=True)
        reader.start()
        reader.join(90)
        assert first and first[0].strip().endswith(f"?token={TOKEN}"), proc.stderr.read() if proc.poll() else ""
        arguments = Path(f"/proc/{proc.pid}/cmdline").read_bytes().decode()
        assert TOKEN not in arguments and "--token-file" in arguments
        port = first[0].split(":")[2].split("/")[0]
        assert httpx.get(f"http://localhost:{port}/", timeout=30).status_code == 401
        with httpx.Client(timeout=30, follow_redirects=True) as browser:
            assert browser.get(first[0].strip()).status_code == 200
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert os.path.exists(db)

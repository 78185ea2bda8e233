"""Every unusable --db is one line of error (never a traceback, never a hang), and the
message never repeats a password.

A URL refused as it is parsed reaches no server and cannot hang, so those cases run
in-process, through the same command tree and error handling as the console script.
What could hang (a connection attempt) and the console script itself run as real
processes, so a hang is a timeout, not a freeze."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import Cli
from tests.reliability.worker import CAMPAIGN_BIN

SECRET = "hunter2secret"

BAD_URLS = [  # (--db, exit code, a word the message must contain)
    (f"mysql://gm:{SECRET}@localhost/x", 2, "mysql"),
    ("foo://", 2, "foo"),
    (f"foo://gm:{SECRET}@h/x", 2, "foo"),
    (f"postgresql://gm:{SECRET}@localhost:99999/x", 2, "99999"),
    (f"postgresql://gm:{SECRET}@localhost:abc/x", 2, "not a database URL"),
    (f"postgresql+asyncpg://gm:{SECRET}@localhost/x", 2, "asyncpg"),
    (f"pg://gm:{SECRET}@weird@host:x/y", 2, "not a database URL"),
    ("sqlite://user@host/db", 2, "SQLite"),
    ("sqlite://", 2, "in-memory"),
    ("://", 2, "not a database URL"),
]
CONNECTION_REFUSED = (f"postgresql://gm:{SECRET}@127.0.0.1:1/x", 1, "cannot open")  # a real attempt: a real process


def _run(db: str, *args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CAMPAIGN_BIN, "--db", db, *args], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=env
    )


def _assert_one_line(done, code: int, word: str) -> None:
    """`done`: a finished process, or an in-process run (Click's Result)."""
    returncode = done.returncode if isinstance(done, subprocess.CompletedProcess) else done.exit_code
    assert returncode == code, (returncode, done.stderr)
    assert "Traceback" not in done.stderr and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert any(w in lines[0] for w in word.split("|")), lines[0]
    assert SECRET not in done.stderr


@pytest.mark.parametrize(("db", "code", "word"), BAD_URLS)
def test_bad_url_is_one_line_without_password(db, code, word):
    _assert_one_line(Cli(db).run("list", expect=None), code, word)


@pytest.mark.parametrize("command", [("init", "卓"), ("db", "current"), ("db", "path")])
def test_bad_url_every_entry_point(command):
    _assert_one_line(Cli(f"mysql://gm:{SECRET}@localhost/x").run(*command, expect=None), 2, "mysql")


@pytest.mark.parametrize(("db", "code", "word"), [BAD_URLS[0], CONNECTION_REFUSED])
def test_console_script_refuses_in_one_line_and_never_hangs(db, code, word):
    _assert_one_line(_run(db, "list"), code, word)


def test_bad_url_from_the_environment_too():
    env = {**os.environ, "CAMPAIGN_DB": f"foo://gm:{SECRET}@h/x"}
    done = subprocess.run([CAMPAIGN_BIN, "list"], capture_output=True, text=True, timeout=60, env=env)
    _assert_one_line(done, 2, "foo")


@pytest.mark.slow  # 15 console-script runs (~8 s)
def test_files_that_are_not_databases(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    directory = tmp_path / "dir"
    directory.mkdir()
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere" / "x.db")
    cases = [
        ("/dev/null", "regular file"),
        (str(fifo), "regular file"),
        (str(directory), "directory"),
        ("/dev/null/x.db", "cannot"),
        (str(dangling), "cannot create"),
    ]
    for db, word in cases:
        for command in (("list",), ("init", "卓"), ("db", "current")):
            # a path that cannot be created: only `init` tries; reading commands create nothing
            expected = word if command[0] == "init" or not word.startswith("cannot") else word + "|no database at"
            _assert_one_line(_run(db, *command), 1, expected)
    assert Path("/dev/null").is_char_device()
    assert fifo.is_fifo() and list(directory.iterdir()) == []

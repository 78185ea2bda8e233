"""`campaign shell`: many commands in one process on one open database.

Scripted sessions run the real console script with commands on stdin (off a terminal the
shell reads one command per line and prints only their output); completion and history
run it on a pseudo-terminal, where readline is in charge.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from campaign.cli.app import app

CAMPAIGN_BIN = str(Path(sys.executable).with_name("campaign"))
PARTY = [
    "init テスト卓",
    "player add Aki",
    "char add 鈴音 --player Aki --stat IQ=12 --stat HT=11 --stat Will=11 --stat FP=11 --stat HP=11 --cp 100",
]


def _shell(db: Path, lines: list[str], *options: str, after: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """A scripted session: global `options` before `shell`, the shell's own `after` it."""
    return subprocess.run(
        [CAMPAIGN_BIN, "--db", str(db), *options, "shell", *after],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
    )


def _documents(text: str) -> list:
    """The JSON documents printed one after another (a listing may span lines)."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        document, at = decoder.raw_decode(text, at)
        found.append(document)
    return found


def _campaign(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CAMPAIGN_BIN, "--db", str(db), *args], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )


def test_a_scripted_session_runs_every_command_and_survives_errors(tmp_path):
    db = tmp_path / "table.db"
    done = _shell(
        db,
        [
            *PARTY,
            "roll 3D6<=12 --char 鈴音 --dice 3,4,5",
            "roll 3D6<=12 --dice 1,2",  # too few faces: refused, the session goes on
            "nosuch",
            "roll 'unclosed",
            "# a comment line",
            "",
            "roll 2D6+1 --dice 6,6 --json",
            "history --char 鈴音 --json",
        ],
    )
    assert done.returncode == 0, done.stderr
    confirmations = "created campaign テスト卓 (gurps3-ja) and selected it\nadded player Aki\nadded PC 鈴音\n"
    assert done.stdout.startswith(confirmations)  # results on stdout, confirmations too
    first, _, rest = done.stdout[len(confirmations) :].partition("\n")
    assert first == "#4 鈴音: 3D6<=12 → [3,4,5] = 12 → success (margin +0)"
    rolled, history = _documents(rest)  # nothing echoed: only the commands' output
    assert (rolled["seq"], rolled["expression"], rolled["dice"], rolled["total"]) == (5, "2D6+1", [6, 6], 13)
    assert [entry["seq"] for entry in history] == [4, 3]  # the roll for 鈴音, then her creation
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        "error: --dice: not enough faces, need 1 more: 3d6 for the roll 3D6<=12",
        "error: No such command 'nosuch'.",
        "error: No closing quotation: roll 'unclosed",
    ]
    assert "Traceback" not in done.stderr
    # Everything landed in the file given with --db, as a sound chain; no other database was made.
    verify = json.loads(_campaign(db, "history", "verify", "--json").stdout)
    assert verify["ok"] and verify["entries"] == 5 and verify["state"]["ok"]
    assert not (Path(os.environ["XDG_DATA_HOME"]) / "campaign" / "campaign.db").exists()


@pytest.mark.slow  # three console-script runs
def test_exit_status_is_the_last_commands_and_exit_stops_reading(tmp_path):
    db = tmp_path / "table.db"
    assert _shell(db, [*PARTY, "roll 3D6 --dice 9,9,9"]).returncode == 2
    done = _shell(db, ["roll 3D6 --dice 1,1,1", "exit", "roll 3D6 --dice 2,2,2"])
    assert done.returncode == 0 and done.stdout.startswith("#4 3D6 → [1,1,1] = 3")
    assert json.loads(_campaign(db, "history", "verify", "--json").stdout)["entries"] == 4


@pytest.mark.slow  # three console-script runs
def test_global_options_apply_to_every_command_inside(tmp_path):
    db = tmp_path / "two.db"
    assert _shell(db, ["init 第一部", "init 第二部"]).returncode == 0  # init selects 第二部
    done = _shell(
        db,
        ["roll 3D6 --dice 1,2,3 --json", "roll 1D6 --dice 4 --json", "history --json"],
        "-c",
        "第一部",
        "--as",
        "Aki",
    )
    assert done.returncode == 0, done.stderr
    entries = _documents(done.stdout)[-1]
    assert [(e["seq"], e["actor"], e["total"]) for e in entries] == [(3, "Aki", 4), (2, "Aki", 6), (1, "GM", None)]
    other = json.loads(_campaign(db, "-c", "第二部", "history", "--json").stdout)
    assert [e["kind"] for e in other] == ["campaign"]  # nothing rolled in the selected campaign


@pytest.mark.slow  # two console-script runs
def test_shell_json_makes_every_command_print_json(tmp_path):
    db = tmp_path / "table.db"
    assert _shell(db, PARTY).returncode == 0
    done = _shell(
        db,
        ["roll 3D6<=12 --char 鈴音 --dice 1,1,2", "history verify", "char list", "history --limit 1"],
        after=("--json",),
    )
    assert done.returncode == 0, done.stderr
    documents = _documents(done.stdout)
    assert documents[0]["outcome"] == "critical_success" and documents[0]["total"] == 4
    assert documents[1]["ok"] is True and documents[1]["entries"] == 4
    assert [c["name"] for c in documents[2]] == ["鈴音"]
    assert [e["seq"] for e in documents[3]] == [4]


def test_timings_file_has_one_figure_per_command(tmp_path):
    db, timings = tmp_path / "table.db", tmp_path / "timings.txt"
    assert _shell(db, [*PARTY, "roll 3D6", "roll 3D6"], after=("--timings", str(timings))).returncode == 0
    figures = [[float(x) for x in line.split()] for line in timings.read_text().splitlines()]
    assert len(figures) == 5 and all(len(pair) == 2 and pair[0] > 0 and pair[1] >= 0 for pair in figures)


def test_a_bug_prints_a_short_traceback_and_the_session_goes_on(tmp_path, monkeypatch):
    import campaign.services.checks.rolls as rolls

    db = str(tmp_path / "table.db")
    assert CliRunner().invoke(app, ["--db", db, "init", "卓"]).exit_code == 0

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a planted bug")

    monkeypatch.setattr(rolls, "roll", broken)
    result = CliRunner().invoke(app, ["--db", db, "shell"], input="roll 3D6\nhistory --json\n")
    assert result.exit_code == 0
    assert "error: internal error (a bug" in result.stderr
    assert "ZeroDivisionError: a planted bug" in result.stderr and "Traceback" in result.stderr
    assert [e["kind"] for e in json.loads(result.stdout)] == ["campaign"]  # the next command ran


def test_the_session_keeps_one_database_open(tmp_path, monkeypatch):
    """The database is opened once for the whole session, not once per command."""
    from campaign.db import database

    opened = []
    original = database.Database.__init__

    def counting(self, *args, **kwargs):
        opened.append(args)
        original(self, *args, **kwargs)

    monkeypatch.setattr(database.Database, "__init__", counting)
    db = str(tmp_path / "table.db")
    result = CliRunner().invoke(
        app,
        ["--db", db, "shell"],
        input="init 卓\nroll 3D6 --dice 1,1,1 --json\nroll 3D6 --dice 2,2,2 --json\nhistory --json\n",
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("created campaign 卓 (gurps3-ja) and selected it\n")
    assert len(_documents(result.stdout.partition("\n")[2])[-1]) == 3
    assert len(opened) == 1


# --- on a terminal: completion and history (readline) ------------------------------------


class Terminal:
    """The console script on a pseudo-terminal, read until an expected text shows up."""

    def __init__(self, db: Path) -> None:
        env = {**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "TERM": "xterm", "INPUTRC": "/dev/null"}
        # pty.fork makes the terminal the child's controlling terminal, so Ctrl-C is a SIGINT.
        self.pid, self.master = pty.fork()
        if self.pid == 0:  # the child
            os.execve(CAMPAIGN_BIN, [CAMPAIGN_BIN, "--db", str(db), "shell"], env)
        self.seen = b""

    def send(self, text: str) -> None:
        os.write(self.master, text.encode())

    def expect(self, text: str, timeout: float = 30) -> str:
        wanted, deadline = text.encode(), time.monotonic() + timeout
        while wanted not in self.seen:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(
                    f"{text!r} never showed up; the terminal shows {self.seen.decode(errors='replace')!r}"
                )
            ready, _, _ = select.select([self.master], [], [], remaining)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:  # the other side closed
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"{text!r}: the shell ended; it showed {self.seen.decode(errors='replace')!r}")
                self.seen += chunk
        shown, _, self.seen = self.seen.partition(wanted)
        return shown.decode(errors="replace")

    def close(self) -> int:
        """Wait for the shell to leave; its exit status (None if already closed)."""
        if self.master is None:
            return None
        deadline = time.monotonic() + 30
        try:
            while time.monotonic() < deadline:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
                if pid:
                    self.pid = 0
                    return os.waitstatus_to_exitcode(status)
                time.sleep(0.05)
            raise AssertionError("the shell did not leave")
        finally:
            if self.pid:
                os.kill(self.pid, 9)
                os.waitpid(self.pid, 0)
            os.close(self.master)
            self.master = None


@pytest.fixture
def party_db(tmp_path) -> Path:
    db = tmp_path / "table.db"
    assert _shell(db, PARTY).returncode == 0
    return db


@pytest.mark.slow  # two sessions on a pseudo-terminal and two more runs
def test_tab_completes_commands_and_character_names_and_history_persists(party_db):
    from campaign.cli.shell import history_file

    term = Terminal(party_db)
    try:
        term.expect("campaign> ")
        term.send("fri\t")
        term.expect("fright ")  # the command name, completed from the command tree
        term.send("鈴\t")
        term.expect("鈴音 ")  # a character name, read from the database
        term.send("--di\t")
        term.expect("--dice ")  # an option of the command on the line
        term.send("3,3,3 --json\r")
        checked = json.loads(term.expect("campaign> ").strip().splitlines()[-1])
        assert (checked["character"], checked["check"]["dice"], checked["check"]["outcome"]) == (
            "鈴音",
            [3, 3, 3],
            "success",
        )
        term.send("\x04")  # Ctrl-D leaves
        assert term.close() == 0
    except BaseException:
        term.close()
        raise
    assert history_file().read_text(encoding="utf-8").splitlines()[-1] == "fright 鈴音 --dice 3,3,3 --json"

    # A new session recalls the last one's command with the up arrow.
    again = Terminal(party_db)
    try:
        again.expect("campaign> ")
        again.send("\x1b[A")
        again.expect("fright 鈴音 --dice 3,3,3 --json")
        again.send("\r")
        again.expect('"character": "鈴音"')
        again.send("exit\r")
        assert again.close() == 0
    except BaseException:
        again.close()
        raise
    frights = [e for e in json.loads(_campaign(party_db, "history", "--kind", "fright", "--json").stdout)]
    assert len(frights) == 2


@pytest.mark.slow  # a session on a pseudo-terminal and two more runs
def test_ctrl_c_cancels_the_line_not_the_session(party_db):
    term = Terminal(party_db)
    try:
        term.expect("campaign> ")
        term.send("roll 3D6 --dice 6,6,6")
        term.expect("6,6,6")
        time.sleep(0.3)  # let readline go back to waiting for a key
        term.send("\x03")  # Ctrl-C: the half-typed roll is dropped
        try:
            term.expect("campaign> ", timeout=5)
        except AssertionError:
            # CPython's readline loop can miss a SIGINT that lands between drawing a key and
            # waiting for the next one (it checks signals only when its wait is interrupted);
            # a person presses Ctrl-C again, and so does this test.
            term.send("\x03")
            term.expect("campaign> ")
        term.send("roll 1D6 --dice 2\r")
        term.expect("1D6 → [2] = 2")
        term.send("exit\r")
        assert term.close() == 0
    except BaseException:
        term.close()
        raise
    entries = json.loads(_campaign(party_db, "history", "--kind", "roll", "--json").stdout)
    assert [e["expression"] for e in entries] == ["1D6"]


def test_completion_candidates_follow_the_command_tree_and_the_database(party_db):
    """What Tab offers where (in process: the same Completer the terminal test drives)."""
    import typer.main

    from campaign.cli.context import AppState
    from campaign.cli.shell import Session
    from campaign.cli.shell_completion import Completer

    root = typer.main.get_command(app).make_context("campaign", ["--db", str(party_db), "shell"])
    root.obj = AppState(db_option=str(party_db))
    try:
        session = Session(root)
        complete = Completer(session).candidates
        assert complete("", "hi") == ["history"]
        assert complete("history ", "ver") == ["verify"]  # a verb under a noun
        assert complete("history ", "--ch") == ["--char"]  # the noun's own options
        assert complete("roll ", "--") == [
            "--char",
            "--reason",
            "--sorcery",
            "--dice",
            "--physical",
            "--json",
            "--help",
        ]
        assert complete("roll 3D6 --char ", "") == ["鈴音"]  # an option's value
        assert complete("char add 刀矢 --player ", "") == ["Aki"]
        assert complete("table roll ", "FE") == ["FEAR"]
        assert complete("roll --dice ", "") == []  # faces: nothing to offer
        assert complete("shell ", "--") == ["--json", "--help"]  # hidden options stay hidden
        assert session.run("char add '白 狐' --npc --stat Will=10") == 0
        assert complete("fright ", "") == ["'白 狐'", "鈴音"]  # reread after a write, quoted for the line
    finally:
        root.obj.close()


def test_a_session_writes_and_verifies_on_either_backend(db_url):
    """One connection pool for many write transactions, on SQLite and PostgreSQL alike."""
    script = (
        "\n".join(
            [
                *PARTY,
                "roll 3D6<=12 --char 鈴音 --dice 6,6,5",
                "fright 鈴音 --dice 1,2,3",
                "char show 鈴音 --json",
                "history void 4 --yes --reason 振り直し",
                "history verify --json",
            ]
        )
        + "\n"
    )
    result = CliRunner().invoke(app, ["--db", db_url, "shell"], input=script)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(
        "created campaign テスト卓 (gurps3-ja) and selected it\nadded player Aki\n"
        "added PC 鈴音\n#4 鈴音: 3D6<=12 → [6,6,5] = 17 → critical failure (margin -5)\n"
    )
    shown = result.stdout[result.stdout.index('{"name"') :]  # after the roll's and fright's text
    assert "voided #4 (entry #6)\n" in shown  # the void's result, on stdout
    documents = _documents(shown.replace("voided #4 (entry #6)\n", ""))
    assert documents[0]["name"] == "鈴音"
    assert documents[1]["ok"] is True and documents[1]["entries"] == 6 and documents[1]["state"]["ok"]

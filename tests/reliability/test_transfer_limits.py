"""Readers are bounded (campaign.read_limits): import, `import --secrets`, the chat-log
reader and `campaign shell` stop at a limit per line and in all, and JSON nested past
the limit gives one line, never a RecursionError; nothing is written.

`import --secrets /dev/zero` on main read the endless file into memory (13.9 GB in 6 s).
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from campaign import read_limits
from campaign.cli.app import app
from tests import ccfolia_logs
from tests.cli.conftest import Cli
from tests.reliability.worker import CAMPAIGN_BIN

pytestmark = pytest.mark.dialect

DEEP = "[" * 100_000 + "]" * 100_000  # json.loads: RecursionError


@pytest.fixture
def exported(tmp_path) -> tuple[Path, Path]:
    source = Cli(str(tmp_path / "source.db"))
    source.run("init", "上限卓")
    source.run("player", "add", "Aki")
    source.run("char", "add", "鈴音", "--player", "Aki", "--stat", "Will=11")
    source.run("roll", "S3D6<=12", "--char", "鈴音", "--dice", "4,4,4")
    path, secrets = tmp_path / "c.jsonl", tmp_path / "c.secrets.jsonl"
    source.run("export", str(path), "--secrets", str(secrets))
    return path, secrets


def _refused(target: Cli, *argv: str, expected: str) -> str:
    message = target.error(*argv, code=1)
    assert len(message.splitlines()) == 1 and expected in message, message
    assert "nothing imported" in message
    assert target.json("list") == []
    return message


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_secrets_from_dev_zero_end_at_once(db_url, exported):
    path, _ = exported
    started = time.monotonic()
    _refused(
        Cli(db_url),
        "import",
        str(path),
        "--secrets",
        "/dev/zero",
        expected="secrets line 1: longer than 1048576 characters",
    )
    assert time.monotonic() - started < 20


def test_deeply_nested_json_is_one_line(db_url, exported, tmp_path):
    path, secrets = exported
    lines = path.read_text(encoding="utf-8").splitlines()
    deep_file = tmp_path / "deep.jsonl"
    deep_file.write_text("\n".join([lines[0], DEEP, *lines[1:]]) + "\n", encoding="utf-8")
    target = Cli(db_url)
    _refused(target, "import", str(deep_file), expected="line 2: JSON nested more than 64 levels deep")
    header, secret = secrets.read_text(encoding="utf-8").splitlines()
    nested_line, nested_result = tmp_path / "s1.jsonl", tmp_path / "s2.jsonl"
    nested_line.write_text(f'{header}\n{{"type":"secret","x":{DEEP}}}\n', encoding="utf-8")
    _refused(
        target,
        "import",
        str(path),
        "--secrets",
        str(nested_line),
        expected="secrets line 2: JSON nested more than 64 levels deep",
    )
    item = json.loads(secret)
    item["result"] = DEEP  # a JSON text inside a string: parsed only once the line is
    nested_result.write_text(f"{header}\n{json.dumps(item)}\n", encoding="utf-8")
    _refused(target, "import", str(path), "--secrets", str(nested_result), expected="does not match the commitment")


def test_an_import_passing_the_total_limit_is_refused(db_url, exported, monkeypatch, tmp_path):
    path, _ = exported
    size = len(path.read_text(encoding="utf-8"))
    padded = tmp_path / "padded.jsonl"
    padded.write_text(path.read_text(encoding="utf-8") + "\n" * 50, encoding="utf-8")  # blank lines are skipped
    monkeypatch.setattr(read_limits, "EXPORT_CHARS", size + 10)
    _refused(Cli(db_url), "import", str(padded), expected="passes")
    monkeypatch.setattr(read_limits, "EXPORT_CHARS", size)
    assert Cli(db_url).json("import", str(path))["entries"] >= 1  # exactly at the limit: taken


def test_a_chat_log_past_the_size_limit_is_refused(db_url, tmp_path, monkeypatch):
    cli = Cli(db_url)
    cli.run("init", "ログ卓")
    log = tmp_path / "log.txt"
    log.write_text("[main] GM : 2D6 (2D6) ＞ 7[3,4] ＞ 7\n" * 20, encoding="utf-8")
    before = cli.json("history", "--all")
    monkeypatch.setattr(read_limits, "LOG_BYTES", 100)
    message = cli.error("import-log", str(log), "--ccfolia", code=1)
    assert message == f"error: {log} is larger than 100 bytes; nothing recorded"
    assert cli.json("history", "--all") == before


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_chat_log_and_shell_from_dev_zero_end_in_one_line(db_url, monkeypatch, tmp_path):
    cli = Cli(db_url)
    cli.run("init", "零卓")
    monkeypatch.setattr(read_limits, "LOG_BYTES", 1 << 20)
    assert "this is not a ココフォリア export" in cli.error("import-log", "/dev/zero", "--ccfolia", code=2)
    endless = tmp_path / "long.html"  # text that looks like a log, past the limit
    endless.write_text(ccfolia_logs.build([("main", "すずね", "1D6 (1D6) ＞ 3")] * 20_000), encoding="utf-8")
    assert "is larger than 1048576 bytes" in cli.error("import-log", str(endless), "--ccfolia", code=1)
    with open("/dev/zero", "rb") as zero:  # a real process: the test runner would read stdin whole
        result = subprocess.run(
            [CAMPAIGN_BIN, "--db", db_url, "shell"], stdin=zero, capture_output=True, text=True, timeout=60
        )
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip() == "error: shell line 1: longer than 1048576 characters"


def test_a_shell_line_past_the_limit_stops_the_script(db_url):
    cli = Cli(db_url)
    cli.run("init", "長文卓")
    script = "roll 2D6 --dice 1,1\nroll " + "x" * (read_limits.LINE_CHARS + 1) + "\nroll 2D6 --dice 2,2\n"
    result = CliRunner().invoke(app, ["--db", db_url, "shell"], input=script, catch_exceptions=False)
    assert result.exit_code == 1, result.output
    assert result.stderr.strip() == "error: shell line 2: longer than 1048576 characters"
    assert [e["dice"] for e in cli.json("history", "--all") if e["kind"] == "roll"] == [[1, 1]]

"""The README's console lines, pasted in order into a fresh database.

Every `$ campaign ...` line of the README's ```console blocks runs, in order, with the
dice the README gives; each must succeed, or fail with exactly the `error:` line the
README shows under it, and every output line the README shows must be printed (lines
eliding with "…", hashes and JSON documents excepted: those vary by run). The seal's
head, which varies with the time of day, replaces the abbreviated one of the README.

Lines that cannot run here are named with the reason, so a new line is run by default.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from campaign.cli.app import app

README = Path(__file__).resolve().parents[2] / "README.md"
NOT_HERE = {
    "--physical": "asks for each die on a terminal",
    " serve": "starts a web server",
    " shell": "an interactive session on another database",
    "import-log": "needs a ココフォリア log file",
    "end --call": "a player rolls it at the table server (tests/web/test_table_server.py)",
}
HEX = re.compile(r"[0-9a-f]{64}")


def console_lines() -> list[tuple[str, list[str]]]:
    steps: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", README.read_text(encoding="utf-8"), re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif steps:
                steps[-1][1].append(line.rstrip())
    return steps


def _shown(lines: list[str]) -> list[str]:
    return [
        line
        for line in lines
        if line.strip() and "…" not in line and not HEX.fullmatch(line) and not line.startswith(("{", "["))
    ]


def test_the_readme_tour_runs_line_by_line(db_url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # `history proof -o FILE` writes beside it
    head, ran, skipped = None, 0, []
    for command, shown in console_lines():
        words = shlex.split(command, comments=True)
        reason = next((why for flag, why in NOT_HERE.items() if flag in f" {command}"), None)
        if reason is not None or words[0] not in ("campaign", "python"):
            skipped.append(command)
            continue
        if head and "--head" in words:
            words[words.index("--head") + 1] = head
        if words[0] == "python":  # the standalone checker, as a player runs it
            done = subprocess.run([sys.executable, *words[1:]], capture_output=True, text=True, timeout=60)
            code, out, err = done.returncode, done.stdout, done.stderr
        else:
            result = CliRunner().invoke(app, ["--db", db_url, *words[1:]], catch_exceptions=False)
            code, out, err = result.exit_code, result.stdout, result.stderr
        if words[1:3] == ["history", "seal"] and code == 0:
            head = out.split()[0]
        printed = [line.rstrip() for line in (out + err).splitlines()]
        errors = [line for line in shown if line.startswith("error:")]
        assert (code != 0) == bool(errors), f"$ {command}\nexit {code}\n{out}{err}"
        missing = [line for line in _shown(shown) if line not in printed]
        assert not missing, f"$ {command}\nthe README shows lines it did not print: {missing}\n{out}{err}"
        ran += 1
    assert ran == 52 and len(skipped) == 9, (ran, skipped)  # a README line added or dropped: update these

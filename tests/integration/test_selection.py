"""The selection file (`selected.json`): no password in it, private, and safe under
parallel writers (real processes)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from campaign.cli.app import app
from campaign.selection import select_campaign, selected_campaign


def _file(tmp_path: Path) -> Path:
    return tmp_path / "xdg-config" / "campaign" / "selected.json"


def test_password_is_never_stored_and_still_finds_the_choice(tmp_path):
    url = "postgresql+psycopg://gm:hunter2@db.example:5432/table"
    select_campaign(url, "百鬼夜翔")
    text = _file(tmp_path).read_text(encoding="utf-8")
    assert "hunter2" not in text
    assert "gm@db.example:5432/table" in text
    assert selected_campaign(url) == "百鬼夜翔"
    # The same user on the same database with another password: the same selection.
    assert selected_campaign("postgresql+psycopg://gm:other@db.example:5432/table") == "百鬼夜翔"
    assert stat.S_IMODE(_file(tmp_path).stat().st_mode) == 0o600


def test_keys_written_by_an_older_version_are_read_then_scrubbed(tmp_path):
    path = _file(tmp_path)
    path.parent.mkdir(parents=True)
    old_url = "postgresql+psycopg://gm:hunter2@db.example/old"
    path.write_text(json.dumps({old_url: "古い卓", "sqlite:////tmp/a.db": "A"}), encoding="utf-8")
    assert selected_campaign(old_url) == "古い卓"
    select_campaign("sqlite:////tmp/b.db", "B")
    choices = json.loads(path.read_text(encoding="utf-8"))
    assert "hunter2" not in path.read_text(encoding="utf-8")
    assert choices == {
        "sqlite:////tmp/a.db": "A",
        "sqlite:////tmp/b.db": "B",
        "postgresql+psycopg://gm@db.example/old": "古い卓",
    }
    assert selected_campaign(old_url) == "古い卓"


@pytest.mark.postgres
def test_cli_init_against_postgres_with_a_password_stores_none(pg_cluster, tmp_path):
    # The throwaway cluster trusts every local connection, so any password is accepted.
    url = pg_cluster.create_database("sel_pw").replace("postgres@", "postgres:s3cr3t-pw@")
    result = CliRunner().invoke(app, ["--db", url, "init", "秘密"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    text = _file(tmp_path).read_text(encoding="utf-8")
    assert "s3cr3t-pw" not in text and "秘密" in text
    listed = CliRunner().invoke(app, ["--db", url, "list", "--json"], catch_exceptions=False)
    assert [row["selected"] for row in json.loads(listed.stdout)] == [True]


WRITER = textwrap.dedent("""
    import sys
    from campaign.selection import select_campaign

    worker, rounds = int(sys.argv[1]), int(sys.argv[2])
    for i in range(rounds):
        select_campaign(f"sqlite:////tmp/w{worker}.db", f"c{worker}-{i}")
""")


@pytest.mark.slow  # six writer processes
def test_parallel_writers_lose_nothing_and_never_fail(tmp_path):
    workers, rounds = 6, 40
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg-config")}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(n), str(rounds)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(workers)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    choices = json.loads(_file(tmp_path).read_text(encoding="utf-8"))
    assert choices == {f"sqlite:////tmp/w{n}.db": f"c{n}-{rounds - 1}" for n in range(workers)}
    leftovers = [p.name for p in _file(tmp_path).parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []

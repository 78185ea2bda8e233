"""Moving a campaign: what tests/integration/test_transfer.py leaves out.

- `--campaign C export` picks one campaign out of several;
- `-` streams through stdout and stdin (in-process and as a real shell pipe);
- a campaign with fright traits, conditions, trait changes, a voided fright check, a
  missing character and a search round-trips SQLite -> PostgreSQL -> SQLite with
  identical `history --all --json`, `char show --json`, trait/condition/missing/
  scenario listings and export files, and its state still matches its ledger;
- a refused import leaves the target byte-for-byte unchanged (dump), and a refused
  export leaves no file.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from campaign.db.database import Database
from tests.cli.conftest import Cli
from tests.reliability import support
from tests.reliability.worker import CAMPAIGN_BIN

pytestmark = pytest.mark.dialect

NAME = "移行卓"


def _observable(cli: Cli, name: str = NAME) -> dict:
    c = ("-c", name)
    characters = [row["name"] for row in cli.json(*c, "char", "list")]
    return {
        "history": cli.json(*c, "history", "--all"),
        "chars": {n: cli.json(*c, "char", "show", n) for n in characters},
        "traits": {n: cli.json(*c, "trait", "list", n) for n in characters},
        "conditions": {n: cli.json(*c, "condition", "list", n) for n in characters},
        "missing": cli.json(*c, "missing", "list"),
        "scenarios": cli.json(*c, "scenario", "list"),
        "settings": cli.json(*c, "settings"),
        "verify": cli.json(*c, "history", "verify"),
    }


def _state_matches_ledger(url: str, name: str = NAME) -> None:
    db = Database(url)
    try:
        support.assert_state_matches_ledger(db, name)
    finally:
        db.close()


def test_round_trip_with_fright_state_sqlite_postgres_sqlite(tmp_path, pg_cluster, fast_cli, request):
    source = Cli(str(tmp_path / "source.db"))
    support.populated(request, source.db, NAME)
    before = _observable(source)
    assert any(t["counts_toward_limit"] is False for t in before["chars"]["鈴音"]["traits"])
    assert before["chars"]["鈴音"]["conditions"] and before["missing"]
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    source.run("-c", NAME, "export", str(first))
    server = Cli(pg_cluster.create_database("transfer_fright"))
    server.run("import", str(first))
    assert _observable(server) == before
    _state_matches_ledger(server.db)
    server.run("-c", NAME, "export", str(second))
    back = Cli(str(tmp_path / "back.db"))
    back.run("import", str(second))
    assert _observable(back) == before
    _state_matches_ledger(back.db)
    assert first.read_bytes() == second.read_bytes()
    # The moved campaign keeps working: voiding a fright check made before the move.
    fright = next(
        e
        for e in before["history"]
        if e["kind"] == "fright" and e["parent_seq"] is None and e["voided_by"] is None and e["ops"]
    )
    back.run("-c", NAME, "history", "void", "--yes", str(fright["seq"]), "--reason", "after the move")
    _state_matches_ledger(back.db)
    support.record("transfer", "sqlite->postgresql->sqlite", round_trips=1, entries=len(before["history"]))


def test_campaign_option_picks_one_of_several(db_url, tmp_path, fast_cli, monkeypatch, request):
    cli = Cli(db_url)
    support.populated(request, db_url, NAME)
    cli.run("init", "別の卓")
    cli.run("-c", "別の卓", "roll", "2D6", "--dice", "1,1")
    path = tmp_path / "one.jsonl"
    cli.run("--campaign", NAME, "export", str(path))
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["campaign"]["name"] == NAME
    assert {json.loads(item["record"])["campaign"] for item in lines if item["type"] == "entry"} == {NAME}
    target = Cli(str(tmp_path / "target.db"))
    target.run("import", str(path))
    assert [c["name"] for c in target.json("list")] == [NAME]
    assert _observable(target) == _observable(cli)
    other = tmp_path / "other.jsonl"
    cli.run("-c", "別の卓", "export", str(other))
    assert json.loads(other.read_text(encoding="utf-8").splitlines()[0])["campaign"]["name"] == "別の卓"
    # Several campaigns and no choice (the selection forgotten): refused, and no file.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "elsewhere"))
    refused = tmp_path / "none.jsonl"
    assert "several campaigns" in cli.error("export", str(refused), code=1)
    assert not refused.exists() and not list(tmp_path.glob(".none.jsonl*"))


def test_dash_streams_through_stdout_and_stdin(db_url, tmp_path, fast_cli, request):
    source = Cli(str(tmp_path / "source.db"))
    support.populated(request, source.db, NAME)
    exported = source.run("-c", NAME, "export", "-")
    assert exported.stderr == ""
    lines = exported.stdout.splitlines()
    assert json.loads(lines[0])["type"] == "header" and json.loads(lines[-1])["type"] == "footer"
    file_copy = tmp_path / "file.jsonl"
    source.run("-c", NAME, "export", str(file_copy))
    assert exported.stdout == file_copy.read_text(encoding="utf-8")
    from typer.testing import CliRunner

    from campaign.cli.app import app

    result = CliRunner().invoke(
        app, ["--db", db_url, "import", "-", "--json"], input=exported.stdout, catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["entries"] == len([line for line in lines if '"type": "entry"' in line])
    assert _observable(Cli(db_url)) == _observable(source)


@pytest.mark.slow  # three console-script runs and a shell
def test_a_real_shell_pipe_moves_a_campaign(db_url, tmp_path, request):
    source = str(tmp_path / "source.db")
    support.populated(request, source, NAME)
    pipe = subprocess.run(
        f'"{CAMPAIGN_BIN}" --db "{source}" -c {NAME} export - | "{CAMPAIGN_BIN}" --db "{db_url}" import - --json',
        shell=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert pipe.returncode == 0 and "Traceback" not in pipe.stderr, pipe.stderr
    assert json.loads(pipe.stdout)["campaign"] == NAME
    verified = subprocess.run(
        [CAMPAIGN_BIN, "--db", db_url, "-c", NAME, "history", "verify", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verified.returncode == 0 and json.loads(verified.stdout)["ok"]
    _state_matches_ledger(db_url)


def _break(lines: list[str], kind: str) -> tuple[list[str], int]:
    """Damage the export in one of several ways; returns (lines, 1-based bad line)."""
    lines = list(lines)
    items = [json.loads(line) for line in lines]
    if kind == "fright sub-roll face":
        index = next(
            i
            for i, item in enumerate(items)
            if item["type"] == "entry"
            and json.loads(item["record"])["kind"] == "fright"
            and json.loads(item["record"])["parent_seq"] is not None
        )
        record = json.loads(items[index]["record"])
        record["dice"] = [6] * len(record["dice"])
        items[index]["record"] = json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    elif kind == "trait of an unknown character":
        index = next(i for i, item in enumerate(items) if item["type"] == "trait")
        items[index]["character"] = "誰か"
    elif kind == "applied ops edited":
        index = next(
            i for i, item in enumerate(items) if item["type"] == "entry" and json.loads(item["record"]).get("ops")
        )
        record = json.loads(items[index]["record"])
        record["ops"] = []
        items[index]["record"] = json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    elif kind == "footer head":
        index = len(items) - 1
        items[index]["head"] = "0" * 64
    elif kind == "second header":
        index = 1
        items.insert(1, items[0])
    else:
        raise AssertionError(kind)
    return [json.dumps(item, ensure_ascii=False) for item in items], index + 1


BREAKS = ["fright sub-roll face", "trait of an unknown character", "applied ops edited", "footer head", "second header"]


def test_a_refused_import_changes_not_one_byte(db_url, tmp_path, fast_cli, request):
    source = Cli(str(tmp_path / "source.db"))
    support.populated(request, source.db, NAME)
    good = source.run("-c", NAME, "export", "-").stdout.splitlines()
    target = Cli(db_url)
    target.run("init", "先客")
    target.run("roll", "3D6", "--dice", "1,2,3")
    before = support.dump(db_url)
    for kind in BREAKS:
        lines, bad_line = _break(good, kind)
        path = tmp_path / "broken.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        message = target.error("import", str(path), code=1)
        assert "nothing imported" in message, (kind, message)
        if kind == "trait of an unknown character":  # state lines are a claim, checked against the replay
            assert "disagree with the ledger" in message, message
        else:
            assert f"line {bad_line}:" in message, (kind, message)
        assert support.dump(db_url) == before, f"{kind}: the refused import changed the database"
    # A refused export leaves no file behind.
    missing = tmp_path / "out.jsonl"
    assert "no campaign named" in target.error("-c", "無い卓", "export", str(missing), code=1)
    assert not missing.exists() and not list(tmp_path.glob(".out.jsonl*"))
    target.error("-c", "先客", "export", str(tmp_path / "no" / "such" / "dir.jsonl"), code=2)
    assert support.dump(db_url) == before
    support.record("transfer", support.backend_of(db_url), refused_imports=len(BREAKS))

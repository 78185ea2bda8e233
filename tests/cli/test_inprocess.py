"""The test suite's in-process CLI (tests/inprocess.py) keeps its promises: one engine per
database for a test, and everything a fresh open would refuse still refused."""

from __future__ import annotations

import sqlite3

import pytest

from tests import inprocess
from tests.cli.conftest import Cli


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_commands_of_a_test_share_one_engine_and_close_its_connections(cli, db_url):
    cli.run("init", "卓")
    engines = {id(db.engine) for db in inprocess._kept.values()}
    cli.run("roll", "3D6", "--dice", "1,2,3")
    assert len(inprocess._kept) == 1 and {id(db.engine) for db in inprocess._kept.values()} == engines
    assert next(iter(inprocess._kept.values())).engine.pool.checkedin() == 0  # disposed when the command ended


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_raw_edit_between_commands_meets_the_refusal_of_a_fresh_open(cli, db_url):
    cli.run("init", "卓")
    with sqlite3.connect(db_url) as raw:
        raw.execute("UPDATE alembic_version SET version_num = '9999'")
    raw.close()
    assert "newer version" in cli.error("char", "list", code=1)
    with sqlite3.connect(db_url) as raw:
        raw.execute("DELETE FROM alembic_version")
    raw.close()
    assert "not a campaign database" in cli.error("char", "list", code=1)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_replaced_or_deleted_file_between_commands_is_seen(cli, db_url, tmp_path):
    from pathlib import Path

    cli.run("init", "卓")
    Path(db_url).write_text("my session notes\n", encoding="utf-8")
    assert "not an SQLite database" in cli.error("char", "list", code=1)
    Path(db_url).unlink()
    assert "no database at" in cli.error("char", "list", code=1)
    cli.run("init", "新しい卓")  # init may create it again, at head
    assert [c["name"] for c in cli.json("list")] == ["新しい卓"]


def test_nothing_is_kept_between_tests():
    assert inprocess._kept == {}


def test_a_new_file_gets_the_schema_the_migrations_give(tmp_path):
    """The blank database at head that in-process inits copy equals a migrated new file
    (up to the order of a table's constraints, which alembic's batch rebuilds vary)."""
    from campaign.db.database import Database

    migrated = tmp_path / "migrated.db"
    Database(str(migrated)).close()
    made = tmp_path / "made.db"
    Cli(str(made)).run("init", "卓")

    def schema(path):
        conn = sqlite3.connect(path)
        try:
            rows = conn.execute("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
            return sorted(
                (kind, name, sorted(line.strip().rstrip(",") for line in (sql or "").splitlines()))
                for kind, name, sql in rows
            )
        finally:
            conn.close()

    assert schema(made) == schema(migrated)
    assert oct(made.stat().st_mode & 0o777) == oct(0o600)

"""`db current` reports every missing (or disabled) ledger trigger as damage, exit 1."""

from __future__ import annotations

import sqlite3

import pytest

from tests.integration.rawdb import raw_connection

pytestmark = pytest.mark.dialect


def _drop(db: str, sqlite_sql: list[str], pg_sql: list[str]) -> None:
    with raw_connection(db) as conn:
        for sql in sqlite_sql if isinstance(conn, sqlite3.Connection) else pg_sql:
            conn.execute(sql)
        conn.commit()


def test_intact_database_reports_no_damage(cli):
    cli.run("init", "卓")
    info = cli.json("db", "current")
    assert info["damage"] == [] and info["up_to_date"]


def test_each_missing_trigger_is_one_line_of_damage(cli, db_url):
    cli.run("init", "卓")
    _drop(db_url, ["DROP TRIGGER ledger_no_replace"], ["DROP TRIGGER ledger_no_truncate ON ledger"])
    result = cli.run("db", "current", expect=1)
    damage = [line for line in result.stderr.splitlines() if line.startswith("damage: ")]
    assert len(damage) == 1 and ("ledger_no_replace" in damage[0] or "ledger_no_truncate" in damage[0])
    _drop(
        db_url,
        ["DROP TRIGGER ledger_no_update", "DROP TRIGGER ledger_no_delete"],
        ["DROP TRIGGER ledger_no_update_delete ON ledger", "DROP FUNCTION ledger_refuse_change()"],
    )
    info = cli.json("db", "current", expect=1)
    names = {
        "sqlite": ["ledger_no_update", "ledger_no_delete", "ledger_no_replace"],
        "postgres": ["ledger_no_update_delete", "ledger_no_truncate", "ledger_refuse_change"],
    }
    expected = names["sqlite" if "://" not in db_url else "postgres"]
    assert len(info["damage"]) == 3
    assert [name for name in expected if any(name in line for line in info["damage"])] == expected
    result = cli.run("db", "current", expect=1)
    assert len([line for line in result.stderr.splitlines() if line.startswith("damage: ")]) == 3


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)  # SQLite triggers cannot be disabled
def test_disabled_trigger_on_postgres_is_damage(cli, db_url):
    cli.run("init", "卓")
    _drop(db_url, [], ["ALTER TABLE ledger DISABLE TRIGGER ledger_no_update_delete"])
    info = cli.json("db", "current", expect=1)
    assert len(info["damage"]) == 1 and "disabled" in info["damage"][0]


def test_a_missing_chain_trigger_is_damage(cli, db_url):
    """Migration 0010's insert trigger (the chain on PostgreSQL, the head on SQLite)."""
    cli.run("init", "卓")
    _drop(db_url, ["DROP TRIGGER ledger_append_follows_head"], ["DROP TRIGGER ledger_chain_holds ON ledger"])
    (damage,) = cli.json("db", "current", expect=1)["damage"]
    assert ("ledger_append_follows_head" if "://" not in db_url else "ledger_chain_holds") in damage


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_the_chain_trigger_fires_for_replicas_too(cli, db_url):
    cli.run("init", "卓")
    with raw_connection(db_url) as conn:
        enabled = conn.execute("SELECT tgenabled FROM pg_trigger WHERE tgname = 'ledger_chain_holds'").fetchone()
    assert enabled == ("A",)

"""Schema migrations: blank -> head without drift, one head, the cheap revision check."""

from __future__ import annotations

import os
import sqlite3
import stat

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from campaign.db.database import Database
from campaign.db.engine import make_engine, resolve_url
from campaign.db.migrate import HEAD_REVISION, alembic_config, current_revision, downgrade, upgrade
from campaign.errors import DataError

pytestmark = pytest.mark.dialect


def test_single_head_matches_the_code_constant():
    engine = make_engine("sqlite://")
    with engine.connect() as conn:
        heads = ScriptDirectory.from_config(alembic_config(conn)).get_heads()
    assert heads == [HEAD_REVISION]


def test_blank_to_head_has_no_drift(db_url):
    db = Database(db_url)
    assert current_revision(db.engine) == HEAD_REVISION
    with db.engine.connect() as conn:
        command.check(alembic_config(conn))  # raises if models and migrations differ


def test_downgrade_then_upgrade_round_trips(db_url):
    db = Database(db_url)
    downgrade(db.engine, "base")
    assert set(inspect(db.engine).get_table_names()) <= {"alembic_version"}
    upgrade(db.engine)
    assert current_revision(db.engine) == HEAD_REVISION
    assert {"campaigns", "characters", "ledger", "traits"} <= set(inspect(db.engine).get_table_names())


def test_new_sqlite_file_is_private(tmp_path):
    path = tmp_path / "new.db"
    Database(str(path))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_foreign_sqlite_database_is_refused_and_untouched(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(DataError, match="not a campaign database"):
        Database(str(path))
    assert path.read_bytes() == before


def test_non_database_file_is_refused_and_untouched(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(b"my session notes\n" * 100)
    with pytest.raises(DataError, match="not an SQLite database"):
        Database(str(path))
    assert path.read_bytes() == b"my session notes\n" * 100


def test_postgres_url_without_driver_gets_psycopg():
    assert resolve_url("postgresql://u@h/db").startswith("postgresql+psycopg://")


def test_corrupt_database_is_refused_and_untouched(tmp_path):
    path = tmp_path / "broken.db"
    Database(str(path)).close()
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # wreck the schema page, keep the header
    path.write_bytes(bytes(data))
    with pytest.raises(DataError, match="damaged or not a database"):
        Database(str(path))
    assert path.read_bytes() == bytes(data)

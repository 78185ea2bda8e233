"""SIGKILL during the first open of a first-release database (revision 0002, tests/data/round1.db).

Opening such a database runs every migration and then rebuilds each campaign's state
from its ledger (campaign.db.migrate). The process is killed at every step of that work
in turn (after each migration, after each campaign's rebuild, just before the commit:
campaign.db.migrate's CAMPAIGN_TEST_UPGRADE_KILL_AT hook, a real SIGKILL of a real
`campaign` process), and each time: nothing of the upgrade is left behind (the database
is still at revision 0002), and the next open upgrades it to a state equal to its
ledger's replay, which `history verify` accepts. Before, the stamps committed migration
by migration and the rebuild after them: a kill between the two left a database at the
head revision whose state was never rebuilt, unverifiable for ever.

On PostgreSQL the first-release rows are copied into a database created at revision 0002.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import MetaData, select, text

from campaign.db.database import Database
from campaign.db.engine import make_engine, resolve_url
from campaign.db.migrate import HEAD_REVISION, KILL_AT_ENV, current_revision, upgrade
from campaign.services.ledger import history
from tests.reliability import support
from tests.reliability.worker import CAMPAIGN_BIN

pytestmark = [pytest.mark.slow, pytest.mark.dialect]

ROUND1 = Path(__file__).resolve().parents[1] / "data" / "round1.db"
CAMPAIGN = "百鬼夜翔 夜桜編"
_PG_TEMPLATE: dict[str, str] = {}


def _migrations_after_round1() -> int:
    """How many revisions an upgrade from 0002 runs (each one a step to be killed at)."""
    from alembic.script import ScriptDirectory

    from campaign.db.migrate import alembic_config

    engine = make_engine("sqlite://")
    with engine.connect() as conn:
        script = ScriptDirectory.from_config(alembic_config(conn))
        return len(list(script.iterate_revisions("head", "0002")))


def _round1_rows() -> dict[str, list[dict]]:
    """The fixture's rows, read through a read-only connection (ours would switch it to WAL)."""
    import sqlite3

    from sqlalchemy import create_engine

    engine = create_engine("sqlite://", creator=lambda: sqlite3.connect(f"file:{ROUND1}?mode=ro", uri=True))
    try:
        metadata = MetaData()
        metadata.reflect(engine)
        with engine.connect() as conn:
            return {
                table.name: [dict(row._mapping) for row in conn.execute(select(table))]
                for table in metadata.sorted_tables
                if table.name != "alembic_version"
            }
    finally:
        engine.dispose()


def _postgres_round1_template(cluster) -> str:
    """A PostgreSQL database at revision 0002 holding round1.db's rows (built once)."""
    if "name" not in _PG_TEMPLATE:
        name = f"round1_{os.getpid()}"
        engine = make_engine(resolve_url(cluster.create_database(name)))
        try:
            upgrade(engine, "0002")
            metadata = MetaData()
            metadata.reflect(engine)
            rows = _round1_rows()
            with engine.begin() as conn:
                for table in metadata.sorted_tables:
                    if rows.get(table.name):
                        conn.execute(table.insert(), rows[table.name])
                        if "id" in table.c:  # later inserts (the rebuild's) take ids after these
                            conn.execute(
                                text(
                                    f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                                    f"(SELECT max(id) FROM {table.name}))"
                                )
                            )
        finally:
            engine.dispose()
        _PG_TEMPLATE["name"] = name
    return _PG_TEMPLATE["name"]


def _fresh_round1(request, tmp_path: Path, backend: str, number: int) -> str:
    if backend == "sqlite":
        target = tmp_path / f"round1-{number}.db"
        shutil.copy(ROUND1, target)
        return str(target)
    cluster = request.getfixturevalue("pg_cluster")
    return cluster.create_database(f"r1_{os.getpid()}_{number}", template=_postgres_round1_template(cluster))


def _open_killed_at(url: str, step: int, env_dir: Path) -> int:
    """`campaign history verify` on the first-release database, SIGKILLed at upgrade step `step`."""
    env = {
        **os.environ,
        KILL_AT_ENV: str(step),
        "XDG_CONFIG_HOME": str(env_dir / "config"),
        "XDG_DATA_HOME": str(env_dir / "data"),
        "XDG_STATE_HOME": str(env_dir / "state"),
    }
    done = subprocess.run(
        [CAMPAIGN_BIN, "--db", url, "-c", CAMPAIGN, "history", "verify", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode


def _reopened(url: str) -> dict:
    """Open as the next command would; the state must equal the ledger's replay."""
    db = Database(url)
    try:
        assert current_revision(db.engine) == HEAD_REVISION
        report = history.verify(db, CAMPAIGN)
        assert report.ok and report.entries == 85, report
        return support.assert_state_matches_ledger(db, CAMPAIGN)
    finally:
        db.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_sigkill_at_every_step_of_the_first_open_of_a_round_one_database(request, tmp_path, backend):
    if backend == "postgres":
        request.getfixturevalue("pg_cluster")
    reference = _reopened(_fresh_round1(request, tmp_path, backend, 0))  # an upgrade never interrupted
    kills = 0
    for step in range(1, 40):
        url = _fresh_round1(request, tmp_path, backend, step)
        returncode = _open_killed_at(url, step, tmp_path / f"user{step}")
        if returncode == 0:  # past the last step: the upgrade committed
            assert _reopened(url) == reference
            break
        assert returncode == -signal.SIGKILL, (step, returncode)
        kills += 1
        engine = make_engine(resolve_url(url))
        try:
            assert current_revision(engine) == "0002", f"killed at step {step}, part of the upgrade stayed"
        finally:
            engine.dispose()
        assert _reopened(url) == reference, f"killed at step {step}"
    else:
        pytest.fail("the upgrade never finished")
    # Every migration, the campaign's rebuild and the moment before the commit.
    assert kills == _migrations_after_round1() + 1 + 1, kills
    support.record("upgrade_crash", support.backend_of(url), kills=kills)


def _upgraded_without_rebuild(url: str) -> None:
    """What a kill between the last stamp and the rebuild left before: every migration
    committed, the state never rebuilt from the ledger."""
    from alembic import command

    from campaign.db.migrate import alembic_config

    engine = make_engine(resolve_url(url))
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "sqlite":
                conn.connection.dbapi_connection.execute("PRAGMA foreign_keys=OFF")
            command.upgrade(alembic_config(conn), "head")
            conn.commit()
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_db_upgrade_rebuild_repairs_a_database_left_half_upgraded(request, tmp_path, backend):
    from tests.cli.conftest import Cli

    if backend == "postgres":
        request.getfixturevalue("pg_cluster")
    reference = _reopened(_fresh_round1(request, tmp_path, backend, 100))
    url = _fresh_round1(request, tmp_path, backend, 101)
    _upgraded_without_rebuild(url)
    cli = Cli(url)
    assert not cli.json("-c", CAMPAIGN, "history", "verify", expect=1)["ok"]  # as the issue found it
    assert cli.json("db", "upgrade") == {"current": HEAD_REVISION}
    assert not cli.json("-c", CAMPAIGN, "history", "verify", expect=1)["ok"]  # a plain upgrade has nothing to do
    assert cli.json("db", "upgrade", "--rebuild") == {"current": HEAD_REVISION, "rebuilt": 1}
    assert _reopened(url) == reference
    # A broken chain is not rebuilt from: nothing changes.
    from tests.integration.rawdb import drop_ledger_guards, execute

    drop_ledger_guards(url)
    execute(url, "UPDATE ledger SET hash = 'x' || substr(hash, 2) WHERE seq = 40")
    message = cli.error("db", "upgrade", "--rebuild", code=1)
    assert "is broken at #40" in message and "nothing was changed" in message

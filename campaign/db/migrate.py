"""Bringing a database to the schema this code expects.

Opening a database checks its revision with one cheap query; Alembic (about 100 ms of
imports) is loaded only when an upgrade is actually due.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text
from sqlalchemy.exc import DatabaseError, OperationalError, ProgrammingError

from campaign.errors import DataError

if TYPE_CHECKING:
    from alembic.config import Config

# Must equal the newest revision in migrations/versions (a test checks it).
HEAD_REVISION = "0021"
# Upgrading from before this revision rebuilds state from the ledger (see 0003; 0004's new
# columns, such as a fright trait's CP outside the limit, are the replay's to fill).
PROJECTION_REVISION = "0004"


def migrations_dir() -> Path:
    """migrations/ ships inside the wheel as campaign/migrations; in a checkout it is top level."""
    installed = Path(__file__).resolve().parents[1] / "migrations"
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parents[2] / "migrations"


class ForeignDatabase(DataError):
    """The database holds tables but no campaign revision (see current_revision)."""


def current_revision(engine: Engine) -> str | None:
    """The database's revision, or None for a blank database.

    Raises DataError for a file that is not a database, or a database that holds
    tables of its own but is not a campaign database: we never write into those.
    """
    try:
        with engine.connect().execution_options(sqlite_begin="DEFERRED") as conn:
            try:
                revision: str | None = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
                if revision is not None:
                    return revision
                tables = set(inspect(conn).get_table_names()) - {"alembic_version"}
            except (OperationalError, ProgrammingError) as exc:
                refused = missing_grant(exc, engine.url.username)
                if refused is not None:  # a campaign database this role may not read
                    raise refused from None
                conn.rollback()
                tables = set(inspect(conn).get_table_names())
    except DatabaseError as exc:
        if engine.dialect.name == "sqlite":  # the words engine._refuse_foreign_sqlite uses for the same file
            from campaign.db.storage import machine_trouble

            trouble = machine_trouble(Path(engine.url.database or ":memory:"), exc)  # a full disk, a read-only mount
            if trouble is not None:
                raise DataError(trouble) from None
            raise DataError(
                f"{engine.url.database} is damaged or not a database ({_first_line(exc)}); refusing to touch it"
            ) from None
        raise DataError(f"cannot open the database: {_first_line(exc)}") from None
    if tables:
        raise ForeignDatabase("this database is not a campaign database (it has other tables); refusing to touch it")
    return None


# "permission denied for table alembic_version": what PostgreSQL names, and the grant
# that lets a role read it (a schema and a sequence are used, a database connected to).
_DENIED = re.compile(r"permission denied for (table|view|schema|sequence|database) (\S+)")
_GRANT_FOR = {"table": "SELECT", "view": "SELECT", "schema": "USAGE", "sequence": "USAGE", "database": "CONNECT"}


def missing_grant(exc: Exception, role: str | None) -> DataError | None:
    """The grant a PostgreSQL refusal (SQLSTATE 42501) says the role lacks, as a refusal
    that names it and the statement that gives it; None for any other error. A role
    without grants opening a campaign database was told it "is not a campaign database"."""
    from campaign.errors import N_

    original = getattr(exc, "orig", exc)
    found = _DENIED.search(str(original)) if getattr(original, "sqlstate", None) == "42501" else None
    if found is None:
        return None
    kind, name = found.groups()
    return DataError(
        N_(
            "role {role} may not read this database: permission denied for {kind} {name}; its owner "
            "can grant it with GRANT {grant} ON {object} {name} TO {role}"
        ),
        role=role or "CURRENT_USER",
        kind=kind,
        name=name,
        grant=_GRANT_FOR[kind],
        object="TABLE" if kind == "view" else kind.upper(),
    )


def refuse_behind(engine: Engine, path: Path) -> None:
    """A read-only database must already be at this code's revision: it cannot be migrated."""
    revision = current_revision(engine)
    if revision != HEAD_REVISION:
        raise DataError(
            f"the database is read-only: {path}, and at schema revision {revision}, which this "
            f"version ({HEAD_REVISION}) would have to upgrade: copy it somewhere writable first"
        )


def _first_line(exc: Exception) -> str:
    return str(getattr(exc, "orig", exc)).splitlines()[0]


def alembic_config(connection: Connection) -> Config:
    from alembic.config import Config

    from campaign.db.models import load_all

    load_all()  # env.py compares the migrations with Base.metadata: all of it

    # Alembic binds its default stdout when it is imported; hand over the current one
    # (under a test runner the stream in place at import time may be closed by now).
    config = Config(stdout=sys.stdout)
    config.set_main_option("script_location", str(migrations_dir()))
    config.attributes["connection"] = connection
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Run migrations, with SQLite foreign keys off around batch table rebuilds.

    Every migration, the revision stamp and (from the first releases) the rebuild of the state from
    the ledger commit in ONE transaction: Alembic, finding the connection already in a
    transaction, leaves committing to us. Committed one by one, a process killed after
    the last stamp but before the rebuild left a database at the head revision whose
    state was never rebuilt, which no later open or `db upgrade` would look at again.
    """
    from alembic import command
    from alembic.util import CommandError

    sqlite = engine.dialect.name == "sqlite"
    before = current_revision(engine)
    step = _KillSwitch()
    with engine.connect() as conn:
        if sqlite:
            _set_sqlite_foreign_keys(conn, on=False)  # outside the transaction, or SQLite ignores it
        try:
            with conn.begin():
                config = alembic_config(conn)
                config.attributes["on_version_apply"] = step
                try:
                    command.upgrade(config, revision)
                except CommandError as exc:  # a revision we do not know: written by a newer campaign
                    raise DataError(
                        f"cannot upgrade the database: {_first_line(exc)}; it was probably written by "
                        f"a newer version of campaign (this one knows schema revisions up to "
                        f"{HEAD_REVISION})"
                    ) from None
                if before is not None and before < PROJECTION_REVISION and revision == "head":
                    rebuild_projections(conn, step)
                if sqlite:
                    problems = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                    if problems:
                        raise DataError(f"migration left broken foreign keys: {problems[:3]}; nothing changed")
                step()  # the last moment before the commit
        finally:
            if sqlite:
                _set_sqlite_foreign_keys(conn, on=True)


# Test-only: with CAMPAIGN_TEST_UPGRADE_KILL_AT=N the process SIGKILLs itself at the
# Nth step of an upgrade (after each migration, each campaign's rebuild, before the
# commit), so tests/reliability/test_upgrade_crash.py can prove the next open recovers.
KILL_AT_ENV = "CAMPAIGN_TEST_UPGRADE_KILL_AT"


class _KillSwitch:
    def __init__(self) -> None:
        import os

        value = os.environ.get(KILL_AT_ENV, "")
        self.kill_at = int(value) if value.isdigit() else 0
        self.count = 0

    def __call__(self, *_args: object, **_kwargs: object) -> None:
        self.count += 1
        if self.count == self.kill_at:
            import os
            import signal

            os.kill(os.getpid(), signal.SIGKILL)


def rebuild_projections(conn: Connection, step: Callable[[], None] = lambda: None) -> None:
    """Rewrite every campaign's state tables as the replay of its ledger (revision 0003),
    inside the caller's transaction (the upgrade's: see upgrade).

    A ledger that does not replay is left as it was: `history verify` names its entry.
    """
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from campaign.db.models import Campaign, load_all
    from campaign.db.state_tables import ledger_entries, sync_state
    from campaign.projection.ops import BadOp
    from campaign.projection.replay import ReplayConflict, project

    load_all()
    with Session(bind=conn) as session:
        for campaign in session.scalars(select(Campaign)).all():
            try:
                with session.begin_nested():
                    sync_state(session, campaign, project(ledger_entries(session, campaign)))
            except (BadOp, ReplayConflict, ValueError, KeyError):
                continue
            finally:
                step()
        session.flush()


def downgrade(engine: Engine, revision: str) -> None:
    from alembic import command

    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            _set_sqlite_foreign_keys(conn, on=False)
        command.downgrade(alembic_config(conn), revision)
        conn.commit()
        if engine.dialect.name == "sqlite":
            _set_sqlite_foreign_keys(conn, on=True)


def _set_sqlite_foreign_keys(conn: Connection, *, on: bool) -> None:
    """PRAGMA foreign_keys is ignored inside a transaction, so send it on the raw
    DBAPI connection (autocommit mode) rather than through SQLAlchemy's autobegin."""
    raw = conn.connection.dbapi_connection
    assert raw is not None, "an open connection has its DBAPI connection"
    raw.execute(f"PRAGMA foreign_keys={'ON' if on else 'OFF'}")


# pg_advisory_lock key of the schema upgrade: "campaign" in ASCII, as a bigint.
MIGRATION_LOCK_KEY = int.from_bytes(b"campaign", "big") >> 1


def ensure_current(engine: Engine) -> None:
    try:
        revision = current_revision(engine)
    except ForeignDatabase:
        if engine.dialect.name != "postgresql":
            raise
        # Tables but no revision yet can be another process's first migration half
        # committed (alembic commits migration by migration): judge it under the lock
        # below, once that process is done; a database truly not ours is refused there.
        revision = None
    if revision == HEAD_REVISION:
        return
    if engine.dialect.name != "postgresql":
        upgrade(engine)  # SQLite: the migration's write transaction serializes first uses
        return
    # Two first uses of a blank PostgreSQL database would both create alembic_version
    # (one fails on its unique key). Take a database-wide advisory lock, then look again:
    # whoever waited finds the schema the other one made.
    with engine.connect() as guard:
        guard.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
        try:
            if current_revision(engine) != HEAD_REVISION:
                upgrade(engine)
        finally:
            guard.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK_KEY})
            guard.commit()

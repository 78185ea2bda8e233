"""Finding the database and connecting to it.

The location comes from --db, then CAMPAIGN_DB, then the user data dir, so a GM who
never configures anything still has one durable file. SQLite gets the pragmas that make
concurrent writers safe (WAL, busy timeout, immediate write transactions); PostgreSQL
needs nothing special because appends lock the campaign row instead.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from campaign.errors import BadInput, DataError

DB_ENV = "CAMPAIGN_DB"
SQLITE_BUSY_TIMEOUT_S = 60.0
SQLITE_HEADER = b"SQLite format 3\x00"


def default_db_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("campaign", appauthor=False)) / "campaign.db"


def resolve_url(db: str | None) -> str:
    """Turn --db / CAMPAIGN_DB / the default into an SQLAlchemy URL.

    An empty --db is refused rather than read as "the default": it is a script's unset
    variable far more often than a wish for the default file."""
    if db is not None and not db.strip():
        raise BadInput("--db is empty: give a file path or a database URL (or leave --db out for the default)")
    target = db or os.environ.get(DB_ENV) or str(default_db_path())
    if "://" in target:
        try:
            make_url(target)
        except ArgumentError:
            raise BadInput(f"--db: not a database URL: {target}") from None
        if target.startswith(("postgresql://", "postgres://")):
            # psycopg 3 is the driver we ship; plain URLs would ask for psycopg2.
            target = "postgresql+psycopg://" + target.split("://", 1)[1]
        return target
    return f"sqlite:///{Path(target).expanduser().absolute()}"


def sqlite_path(url: str) -> Path | None:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return Path(parsed.database)


def refuse_missing_database(db: str | None) -> None:
    """NotFound when the SQLite file is not there (nothing is created, no folders either)."""
    from campaign.errors import NotFound

    path = sqlite_path(resolve_url(db))
    if path is not None and not path.exists():
        raise NotFound(f"no database at {path}: create one with `campaign init NAME` (or check --db)")


def _prepare_sqlite_file(path: Path) -> None:
    """Create a new database file readable by its owner only; refuse foreign files.

    A file that exists but is not an SQLite database is never opened for writing, so a
    mistyped --db cannot overwrite someone's document.
    """
    if path.exists():
        if path.is_dir():
            raise DataError(f"{path} is a directory, not a campaign database")
        with path.open("rb") as f:
            header = f.read(len(SQLITE_HEADER))
        if header and header != SQLITE_HEADER:
            raise DataError(f"{path} is not an SQLite database; refusing to touch it")
        if header:
            _refuse_foreign_sqlite(path)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    os.close(fd)


def _refuse_foreign_sqlite(path: Path) -> None:
    """Look before our connection pragmas (WAL) rewrite the file header.

    A plain connection, not a read-only one: after a crash SQLite must be able to
    recover a hot journal or WAL on open, which a read-only connection cannot do.
    Reading sqlite_master writes nothing else.
    """
    try:
        conn = sqlite3.connect(path, timeout=SQLITE_BUSY_TIMEOUT_S)
        try:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise DataError(f"{path} is damaged or not a database ({exc}); refusing to touch it") from None
    if tables and "alembic_version" not in tables:
        raise DataError(f"{path} is not a campaign database (it has other tables); refusing to touch it")


def _on_sqlite_connect(dbapi_connection: sqlite3.Connection, _record) -> None:
    # Let SQLAlchemy's "begin" event decide how a transaction starts (see below).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _on_sqlite_begin(connection) -> None:
    # Writers take the write lock up front (BEGIN IMMEDIATE) so two appends can never
    # both read the same chain head; readers use a plain deferred transaction.
    mode = connection.get_execution_options().get("sqlite_begin", "IMMEDIATE")
    connection.exec_driver_sql(f"BEGIN {mode}")


def make_engine(url: str) -> Engine:
    path = sqlite_path(url)
    if path is not None:
        _prepare_sqlite_file(path)
        engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S})
        event.listen(engine, "connect", _on_sqlite_connect)
        event.listen(engine, "begin", _on_sqlite_begin)
        return engine
    if make_url(url).get_backend_name() == "postgresql":
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise BadInput("PostgreSQL support needs the postgres extra: pip install 'campaign[postgres]'") from None
    return create_engine(url, pool_pre_ping=False)

"""Finding the database and connecting to it.

The location comes from --db, then CAMPAIGN_DB, then the user data dir, so a GM who
never configures anything still has one durable file. SQLite gets the pragmas that make
concurrent writers safe (WAL, busy timeout, immediate write transactions); PostgreSQL
appends lock the campaign row instead, and a write transaction there gives up on a lock
held elsewhere (another session's `SELECT ... FOR UPDATE`) after WRITE_LOCK_TIMEOUT
rather than waiting for ever (see write_timeouts).
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from campaign.errors import N_, BadInput, DataError, RuleRefused

DB_ENV = "CAMPAIGN_DB"
SQLITE_BUSY_TIMEOUT_S = 60.0
SQLITE_HEADER = b"SQLite format 3\x00"
# Header bytes 18-19 (file format write/read versions) are 2, 2 in WAL mode. Every
# campaign database is; for such a file our connection's PRAGMA journal_mode=WAL
# changes nothing, so the look before it (_refuse_foreign_sqlite) is not needed, and
# a foreign database is refused by current_revision on that connection instead.
WAL_VERSIONS = b"\x02\x02"
# PostgreSQL write transactions: how long one waits for a lock (the campaign row another
# session holds) and how long one statement may run. Long enough for any honest writer
# queueing behind another, short enough that a held lock is an answer, not a hang.
WRITE_LOCK_TIMEOUT = "10s"
WRITE_STATEMENT_TIMEOUT = "60s"
LOCKED = "the campaign is locked by another session; try again"


def default_db_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("campaign", appauthor=False)) / "campaign.db"


def resolve_url(db: str | None) -> str:
    """Turn --db / CAMPAIGN_DB / the default into an SQLAlchemy URL.

    Only the two backends we support get through, each with the driver we ship, so a
    mistyped URL is one line of error (exit 2) instead of a driver import traceback; the
    message never repeats a password.
    """
    if db is not None and not db.strip():
        raise BadInput("--db is empty: give a file path or a database URL (or leave --db out for the default)")
    target = db or os.environ.get(DB_ENV) or str(default_db_path())
    if "://" not in target:
        return f"sqlite:///{Path(target).expanduser().absolute()}"
    try:
        url = make_url(target)
        port = url.port  # a port that is not a number fails here
    except (ArgumentError, ValueError):
        raise BadInput(f"--db: not a database URL: {redact_url_text(target)}") from None
    backend, _, driver = url.drivername.partition("+")
    if port is not None and not 1 <= port <= 65535:
        raise BadInput(f"--db: port {port} is outside 1..65535")
    if backend in ("postgresql", "postgres"):
        if driver not in ("", "psycopg"):
            raise BadInput(
                f"--db: the PostgreSQL driver {driver!r} is not supported; "
                "use postgresql://USER@HOST/DATABASE (psycopg 3)"
            )
        # psycopg 3 is the driver we ship; plain URLs would ask for psycopg2.
        return "postgresql+psycopg://" + target.split("://", 1)[1]
    if backend == "sqlite":
        if driver not in ("", "pysqlite"):
            raise BadInput(f"--db: the SQLite driver {driver!r} is not supported; use sqlite:///PATH")
        if url.username or url.password or url.host or url.port:
            raise BadInput("--db: an SQLite URL names a file (sqlite:///PATH), not a user or a host")
        if not url.database or url.database == ":memory:":
            raise BadInput(
                "--db: an in-memory SQLite database would vanish when the command ends; give a file (sqlite:///PATH)"
            )
        return target
    raise BadInput(
        f"--db: unsupported database {backend!r}: give a file path, sqlite:///PATH or postgresql://USER@HOST/DATABASE"
    )


def redacted_url(url: str) -> str:
    """The URL as it may be shown: its password replaced by ***."""
    return make_url(url).render_as_string(hide_password=True)


def has_password(url: str) -> bool:
    """Whether the URL carries a password (shown by `ps` when typed as --db)."""
    return bool(make_url(url).password)


def redact_url_text(text: str) -> str:
    """A URL-like text with whatever sits between 'user:' and the last '@' masked, for
    messages about URLs too broken to parse (so SQLAlchemy cannot redact them)."""
    import re

    return re.sub(r"^([^:/?#]*://[^:@/]*:).*@", r"\1***@", text)


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
        raise NotFound(N_("no database at {path}: create one with `campaign init NAME` (or check --db)"), path=path)


def _prepare_sqlite_file(path: Path) -> None:
    """Create a new database file readable by its owner only; refuse foreign files.

    A file that exists but is not an SQLite database is never opened for writing, so a
    mistyped --db cannot overwrite someone's document. Only regular files are opened at
    all: /dev/null would fail later with a disk I/O error, and a FIFO would block the
    header read forever.
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise DataError(N_("cannot use {path}: {problem}"), path=path, problem=exc.strerror) from None
    if mode is not None:
        if stat.S_ISDIR(mode):
            raise DataError(N_("{path} is a directory, not a campaign database"), path=path)
        if not stat.S_ISREG(mode):
            raise DataError(
                N_("{path} is not a regular file (a device, pipe or socket), not a campaign database"), path=path
            )
        try:
            with path.open("rb") as f:
                header = f.read(20)
        except OSError as exc:
            raise DataError(N_("cannot read {path}: {problem}"), path=path, problem=exc.strerror) from None
        if header and header[: len(SQLITE_HEADER)] != SQLITE_HEADER:
            raise DataError(N_("{path} is not an SQLite database; refusing to touch it"), path=path)
        if header and header[18:20] != WAL_VERSIONS:
            _refuse_foreign_sqlite(path)
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except OSError as exc:  # a dangling symlink, a parent that is a file, no permission
        raise DataError(f"cannot create {path}: {exc.strerror}") from None
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
        from campaign.db.storage import machine_trouble

        raise DataError(
            machine_trouble(path, exc) or f"{path} is damaged or not a database ({exc}); refusing to touch it"
        ) from None
    if tables and "alembic_version" not in tables:
        raise DataError(f"{path} is not a campaign database (it has other tables); refusing to touch it")


def _on_sqlite_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
    # Let SQLAlchemy's "begin" event decide how a transaction starts (see below).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _on_sqlite_begin(connection: Connection) -> None:
    # Writers take the write lock up front (BEGIN IMMEDIATE) so two appends can never
    # both read the same chain head; readers use a plain deferred transaction.
    mode = connection.get_execution_options().get("sqlite_begin", "IMMEDIATE")
    connection.exec_driver_sql(f"BEGIN {mode}")


def _on_postgres_begin(connection: Connection) -> None:
    # Only transactions marked as writes (Database.write): a migration or a long export
    # keeps the server's defaults. SET LOCAL ends with the transaction, so a pooled
    # connection carries nothing over.
    if connection.get_execution_options().get("campaign_writer"):
        connection.exec_driver_sql(
            f"SELECT set_config('lock_timeout', '{WRITE_LOCK_TIMEOUT}', true), "
            f"set_config('statement_timeout', '{WRITE_STATEMENT_TIMEOUT}', true)"
        )


def lock_refusal(exc: BaseException) -> RuleRefused | None:
    """A PostgreSQL lock wait that ran out (SQLSTATE 55P03) as the one-line refusal it is."""
    if getattr(getattr(exc, "orig", None), "sqlstate", None) == "55P03":
        return RuleRefused(LOCKED)
    return None


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
    engine = create_engine(url, pool_pre_ping=False)
    if engine.dialect.name == "postgresql":
        event.listen(engine, "begin", _on_postgres_begin)
    return engine

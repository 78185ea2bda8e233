"""Running many CLI commands in one test process the way `campaign shell` runs them: one
command tree, and one engine per database, instead of both built anew for every command.

Typer's CliRunner builds the Click command tree again on every invoke, and AppState.db
opens a new Database for every command: an engine, its dialect set-up on first connect,
and, because SQLAlchemy's compiled-statement cache lives on the engine, every statement
compiled again. In a test that runs twenty commands that was about two thirds of the time.

`reusing()` changes both for the length of one invocation (tests/cli/conftest.py's Cli
and the reliability suite's `fast_cli` run every command inside it):

- the tree of `campaign.cli.app.app` is built once per process, as `campaign shell` runs
  every line on one tree;
- AppState.db gets the Database this test already opened for the same resolved URL, if
  any. Every check that opening makes is made again on each reuse (the SQLite file is a
  regular file and ours, the schema at head, migrated if it is behind; a refusal is
  raised just as a fresh open raises it), and when the command ends AppState.close
  closes its connections as it does a fresh Database's (engine.dispose: SQLite
  checkpoints its WAL, PostgreSQL holds no session). What carries over is the Engine
  object: its dialect and its compiled statements. So a test that edits, corrupts,
  replaces or deletes the database between commands gets what a fresh open gives.
- a new SQLite file (`init` or `import` on a path that is not there) is created as a
  fresh open creates it (owner-only, its folders made) and then given the bytes of a
  blank database at head, made once per process by the real Database() and alembic,
  instead of running the nine migrations again (~90 ms each, 280 times in a fast run).
  PostgreSQL tests already start from a migrated template; the migrations themselves
  are tested on blank databases in tests/integration/test_migrations.py and
  tests/reliability/test_migrations_data.py, which do not come through here.

Across tests, only compiled SQL is shared: `sharing_compiled_statements()` (held for
the session by tests/conftest.py) gives every Database() of the test process the
dialect object and statement cache of the first engine of its dialect, as one long
`campaign shell` session would have; no connection, row or file is shared.

The production CLI is untouched: outside `reusing()` every command opens its own
Database. `forget()` (an autouse fixture in tests/conftest.py) drops the kept databases
when a test ends, so no database is shared between tests.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer.main
import typer.testing
from sqlalchemy.util import LRUCache

import campaign.cli.context
import campaign.db.database
from campaign.db.database import Database, _open_read_only
from campaign.db.engine import _prepare_sqlite_file, make_engine, resolve_url, sqlite_path
from campaign.db.migrate import ensure_current

_trees: dict[int, object] = {}  # id(Typer app) -> its Click group, built once per process
_kept: dict[str, Database] = {}  # resolved URL -> the Database this test opened for it
_blank: bytes | None = None  # a blank SQLite database at head, one file, made once per process
_dialects: dict[str, object] = {}  # dialect name -> the dialect of the first engine opened in this process
_compiled = LRUCache(20_000)  # compiled statements of every engine opened in this process


def _make_engine_sharing_compiled_statements(url: str):
    """make_engine, with the statements that earlier engines of this process compiled.

    SQLAlchemy keeps compiled SQL in a cache on each engine, keyed by (dialect object,
    statement's cache key, ...), so a new engine compiles every statement again: a
    tenth of a fast run's CPU, since every test opens new databases. A compiled
    statement depends only on the statement and the dialect's settings, and every engine
    here comes from the same make_engine with the same settings (one SQLite library, one
    test cluster), so engines of one dialect share the first one's dialect object and one
    cache. Connections, pools, events and data stay the engine's own. A process of
    its own (a worker, the console script) compiles afresh, as in production.

    The cache is handed over through SQLAlchemy's public `compiled_cache` execution
    option. The dialect has no public way in (create_engine always makes its own, and
    the cache key holds the dialect object), so `Engine.dialect` is set here and
    pyproject.toml keeps SQLAlchemy below its next minor version.
    """
    engine = make_engine(url)
    engine.dialect = _dialects.setdefault(engine.dialect.name, engine.dialect)
    engine.update_execution_options(compiled_cache=_compiled)
    return engine


def _command_tree(app: typer.Typer):
    tree = _trees.get(id(app))
    if tree is None:
        tree = _trees[id(app)] = typer.main.get_command(app)
    return tree


def blank_at_head() -> bytes:
    """A blank SQLite database at head, as one file's bytes: made by Database() once per process."""
    global _blank
    if _blank is None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "blank.db"
            Database(str(path)).close()
            raw = sqlite3.connect(path)
            try:
                raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything in the one file
            finally:
                raw.close()
            _blank = path.read_bytes()
    return _blank


def _database(db: str | None = None, *, migrate: bool = True, read_only_ok: bool = False) -> Database:
    """What `Database(db)` gives AppState.db, on the engine kept for this URL."""
    url = resolve_url(db)  # the first thing Database() does: a bad --db is refused the same way
    path = sqlite_path(url)
    if read_only_ok and _open_read_only(url):  # a read-only file: its own engine, never kept
        return Database(db, migrate=migrate, read_only_ok=True)
    if migrate and path is not None and not path.exists():
        # AppState.db let this command create the file (init, import): as Database() would,
        # then already at head, with the bytes alembic gave a blank file in this process.
        _prepare_sqlite_file(path)
        path.write_bytes(blank_at_head())
    kept = _kept.get(url)
    if kept is None or not migrate:
        opened = Database(db, migrate=migrate)
        if migrate:
            _kept[url] = opened
        return opened
    # The checks of Database(db) again: make_engine's look at the file, then the revision.
    if path is not None:
        _prepare_sqlite_file(path)
    ensure_current(kept.engine)
    return kept


@contextmanager
def reusing() -> Iterator[None]:
    """Within: CliRunner.invoke(app, ...) runs on the kept tree and the kept databases."""
    saved = typer.testing._get_command, campaign.cli.context.Database
    typer.testing._get_command = _command_tree
    campaign.cli.context.Database = _database
    try:
        yield
    finally:
        typer.testing._get_command, campaign.cli.context.Database = saved


@contextmanager
def sharing_compiled_statements() -> Iterator[None]:
    """Within: every Database() of this process shares compiled statements (see
    _make_engine_sharing_compiled_statements). tests/conftest.py holds it for a session."""
    saved = campaign.db.database.make_engine
    campaign.db.database.make_engine = _make_engine_sharing_compiled_statements
    try:
        yield
    finally:
        campaign.db.database.make_engine = saved


def forget() -> None:
    """Drop every kept database (their connections are already closed; this frees them)."""
    while _kept:
        _kept.popitem()[1].close()

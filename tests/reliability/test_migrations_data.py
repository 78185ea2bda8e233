"""Migrations with data, over the whole revision list (so every future revision is covered).

- Upgrading from every earlier revision with a populated database keeps every row,
  and the result verifies, matches its ledger, is guarded and has exactly the schema
  of a fresh database.
- Downgrading to every earlier revision and upgrading again keeps the rows of the
  tables that exist there, and gives exactly the schema of a fresh database.
- Alembic `check` shows no drift between that fresh schema and the models.

"Populated at an earlier revision": the rows of a campaign built at head with every
kind of state, restricted to the tables and columns that revision has, inserted raw.
"""

from __future__ import annotations

import itertools
import os

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import MetaData, inspect, select, text

from campaign.db.database import Database
from campaign.db.engine import make_engine, resolve_url
from campaign.db.migrate import HEAD_REVISION, alembic_config, current_revision, downgrade, upgrade
from campaign.services.ledger import history
from tests.integration.rawdb import execute
from tests.reliability import support

pytestmark = pytest.mark.dialect

CAMPAIGN = "移行卓"
_names = itertools.count()


def revisions() -> list[str]:
    """Every revision, oldest first."""
    engine = make_engine("sqlite://")
    with engine.connect() as conn:
        script = ScriptDirectory.from_config(alembic_config(conn))
        found = [rev.revision for rev in script.walk_revisions()]
    return list(reversed(found))


def test_the_revision_list_ends_at_the_code_head():
    assert revisions()[-1] == HEAD_REVISION
    assert len(revisions()) >= 2  # 0001 and later: the upgrade-with-data loop below is never empty


def _blank(db_url: str, request) -> str:
    """A new, empty database on the same backend as db_url."""
    if support.backend_of(db_url) == "sqlite":
        return str(request.getfixturevalue("tmp_path") / f"blank{next(_names)}.db")
    cluster = request.getfixturevalue("pg_cluster")
    return cluster.create_database(f"blank_{os.getpid()}_{next(_names)}")


_REFLECTED: dict[tuple[str, str | None], MetaData] = {}


def _metadata(engine) -> MetaData:
    """The reflected tables of the revision the database is at. A revision's tables are
    the same in every database, so each (backend, revision) is reflected once; a round
    trip that left anything different behind shows in `_schema`, which reads afresh."""
    key = (engine.dialect.name, current_revision(engine))
    if key not in _REFLECTED:
        metadata = MetaData()
        metadata.reflect(engine)
        _REFLECTED[key] = metadata
    return _REFLECTED[key]


def _rows(engine, tables: dict[str, set[str]] | None = None) -> dict[str, list[tuple]]:
    """Every row of every table (but alembic_version) as typed values (JSON decoded),
    restricted to `tables` columns when given."""
    metadata = _metadata(engine)
    out = {}
    with engine.connect().execution_options(sqlite_begin="DEFERRED") as conn:
        for table in sorted(metadata.tables.values(), key=lambda t: t.name):
            if table.name == "alembic_version" or (tables is not None and table.name not in tables):
                continue
            columns = sorted(c.name for c in table.c if tables is None or c.name in tables[table.name])
            columns = columns or sorted(c.name for c in table.c)  # a table empty before: still empty?
            query = select(*[table.c[c] for c in columns]).order_by(*table.primary_key.columns)
            out[table.name] = [tuple(zip(columns, row)) for row in conn.execute(query)]
    return out


def _schema(engine) -> dict:
    """Tables, columns, keys, indexes, constraints and triggers: what a round trip must restore.
    Read with the inspector's get_multi_* calls: one catalogue query per kind on PostgreSQL."""
    with engine.connect().execution_options(sqlite_begin="DEFERRED") as conn:
        inspector = inspect(conn)
        columns, pks, fks = (
            inspector.get_multi_columns(),
            inspector.get_multi_pk_constraint(),
            inspector.get_multi_foreign_keys(),
        )
        indexes, uniques, checks = (
            inspector.get_multi_indexes(),
            inspector.get_multi_unique_constraints(),
            inspector.get_multi_check_constraints(),
        )
        tables = {}
        for key in sorted(columns, key=lambda k: k[1]):
            tables[key[1]] = {
                "columns": [(c["name"], str(c["type"]), c["nullable"]) for c in columns[key]],
                "pk": pks[key]["constrained_columns"],
                "fks": sorted((fk["name"], tuple(fk["constrained_columns"]), fk["referred_table"]) for fk in fks[key]),
                "indexes": sorted((ix["name"], tuple(ix["column_names"]), ix["unique"]) for ix in indexes[key]),
                "unique": sorted((u["name"], tuple(u["column_names"])) for u in uniques[key]),
                "checks": sorted(c["name"] or "" for c in checks[key]),
            }
        if engine.dialect.name == "sqlite":
            triggers = conn.execute(
                text("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
            ).all()
        else:
            triggers = conn.execute(
                text("SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname")
            ).all()
    return {"tables": tables, "triggers": [tuple(t) for t in triggers]}


def _insert_at(engine, rows: dict[str, list[tuple]]) -> int:
    """Insert head rows into a database at an earlier revision, in foreign-key order,
    keeping the columns that revision has. Returns how many rows went in."""
    metadata = _metadata(engine)
    count = 0
    with engine.begin() as conn:
        for table in metadata.sorted_tables:
            values = [{column: value for column, value in row if column in table.c} for row in rows.get(table.name, [])]
            if values:
                conn.execute(table.insert(), values)
                count += len(values)
    return count


_FRESH_SCHEMAS: dict[str, dict] = {}  # backend -> _schema() of a blank database migrated to head


def _fresh_schema(db_url: str, request) -> dict:
    """The schema a blank database gets from the migrations, which Alembic's `check`
    finds equal to the models (no drift); made once per backend."""
    backend = support.backend_of(db_url)
    if backend not in _FRESH_SCHEMAS:
        fresh = make_engine(resolve_url(_blank(db_url, request)))
        try:
            upgrade(fresh)
            with fresh.connect() as conn:
                command.check(alembic_config(conn))  # raises on drift
            _FRESH_SCHEMAS[backend] = _schema(fresh)
        finally:
            fresh.dispose()
    return _FRESH_SCHEMAS[backend]


def _assert_healthy(url: str, fresh_schema: dict) -> None:
    db = Database(url)  # the path a user takes: opening migrates to head
    try:
        assert current_revision(db.engine) == HEAD_REVISION
        assert history.verify(db, CAMPAIGN).ok
        support.assert_state_matches_ledger(db, CAMPAIGN)
        assert _schema(db.engine) == fresh_schema, "the upgraded schema differs from a fresh one's (drift)"
    finally:
        db.close()
    with pytest.raises(Exception, match="append-only"):
        execute(url, "UPDATE ledger SET actor = 'Mallory' WHERE seq = 1")
    with pytest.raises(Exception, match="append-only"):
        execute(url, "DELETE FROM ledger WHERE seq = 1")


_POPULATED_ROWS: dict[str, dict] = {}  # backend -> _rows() of the populated party (the same in every copy)


@pytest.fixture
def populated(db_url, request):
    """db_url made a copy of the populated party; its rows (read once per backend)."""
    support.populated(request, db_url, CAMPAIGN)
    backend = support.backend_of(db_url)
    if backend not in _POPULATED_ROWS:
        engine = make_engine(resolve_url(db_url))
        rows = _rows(engine)
        engine.dispose()
        assert len(rows["ledger"]) > 40 and rows["traits"] and rows["conditions"] and rows["disappearances"]
        _POPULATED_ROWS[backend] = rows
    return _POPULATED_ROWS[backend]


@pytest.mark.parametrize("earlier", revisions()[:-1])
def test_upgrade_from_an_earlier_revision_keeps_every_row(db_url, populated, request, earlier):
    url = _blank(db_url, request)
    engine = make_engine(resolve_url(url))
    upgrade(engine, earlier)
    assert current_revision(engine) == earlier
    inserted = _insert_at(engine, populated)
    before = _rows(engine)
    engine.dispose()
    _assert_healthy(url, _fresh_schema(db_url, request))
    engine = make_engine(resolve_url(url))
    after = _rows(engine, {table: {c for c, _ in rows[0]} if rows else set() for table, rows in before.items()})
    engine.dispose()
    assert after == before, "an upgrade lost or changed rows"
    support.record("migrations", support.backend_of(db_url), upgrades_with_data=1, rows_kept=inserted)


def test_downgrade_then_upgrade_round_trips_every_step(db_url, populated, request):
    url = resolve_url(db_url)
    engine = make_engine(url)
    head_schema = _schema(engine)
    assert _fresh_schema(db_url, request) == head_schema, "a migrated database differs from a fresh one"
    steps = 0
    for earlier in reversed(["base"] + revisions()[:-1]):
        downgrade(engine, earlier)
        kept = _rows(engine)
        if earlier == "base":
            assert kept == {}, "tables left behind at base"
        upgrade(engine)
        assert _schema(engine) == head_schema, f"down to {earlier} and up again changed the schema"
        restored = _rows(engine, {t: {c for c, _ in rows[0]} if rows else set() for t, rows in kept.items()})
        assert restored == kept, f"down to {earlier} and up again lost rows"
        steps += 1
    engine.dispose()
    if steps:  # the data went with the base downgrade; put it back for the health check
        target = make_engine(url)
        _insert_at(target, populated)
        target.dispose()
    _assert_healthy(db_url, head_schema)
    support.record("migrations", support.backend_of(db_url), round_trips=steps)

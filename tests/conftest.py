"""Shared fixtures.

Every test gets its own user data/config directories (no test touches the real ones)
and no CAMPAIGN_* variables from the caller's shell. `db_url` gives each test a fresh
database on SQLite and, for integration and cli tests, on a throwaway PostgreSQL.

Two runs share these fixtures:
- `pytest` / `make test` (CI): the whole suite, every `db_url` test on both backends.
- `make test-fast` (CAMPAIGN_TEST_FAST=1, `-m "not slow"`, two xdist workers): `db_url`
  tests run on SQLite only, except tests marked `dialect` (ledger/state writes checked
  against PostgreSQL, locking, group roles), which keep both backends. Each xdist
  worker is its own process, so each starts its own throwaway cluster.

Parties that many tests start from are built once per session through the CLI and then
copied per test (`party_copy`): a file copy on SQLite, `CREATE DATABASE ... TEMPLATE` on
PostgreSQL, so the copy is byte-for-byte the database the CLI left behind.
"""

from __future__ import annotations

import itertools
import os
import shutil
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.pgcluster import Cluster

POSTGRES_MODE = os.environ.get("CAMPAIGN_TEST_POSTGRES", "auto")  # auto | required | off
FAST = os.environ.get("CAMPAIGN_TEST_FAST", "") not in ("", "0")
_counter = itertools.count()
# The suite's expectations are the English texts: every command (also the session's party
# builders, which run before any fixture) reads English unless a test asks for Japanese.
os.environ["CAMPAIGN_LANG"] = "en"


@pytest.fixture(autouse=True)
def isolated_user_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    for name in ("CAMPAIGN_DB", "CAMPAIGN", "CAMPAIGN_ACTOR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CAMPAIGN_LANG", "en")  # a test that reads Japanese sets ja (or deletes it)
    from campaign import i18n

    i18n.use(None)  # an in-process --json or web request of an earlier test chose its language
    yield
    inprocess = sys.modules.get("tests.inprocess")  # imported by the tests that run the CLI in-process
    if inprocess is not None:
        inprocess.forget()  # the engines this test's commands kept: nothing is shared between tests


@pytest.fixture(autouse=True, scope="session")
def shared_compiled_statements():
    """Compiled SQL shared by the engines of this test process (see tests/inprocess.py)."""
    from tests import inprocess

    with inprocess.sharing_compiled_statements():
        yield


@pytest.fixture(scope="session")
def pg_cluster():
    if POSTGRES_MODE == "off":
        pytest.skip("PostgreSQL tests switched off (CAMPAIGN_TEST_POSTGRES=off)")
    try:
        cluster = Cluster().start()
    except Exception as exc:
        if POSTGRES_MODE == "required":
            pytest.fail(f"PostgreSQL is required but could not be started: {exc}")
        pytest.skip(f"no PostgreSQL available: {exc}")
    try:
        template_url = cluster.create_database("campaign_template")
        from campaign.db.database import Database

        Database(template_url).close()  # migrate once; tests copy it
        yield cluster
    finally:
        cluster.stop()


def backends_for(definition) -> list[str]:
    """Both backends, except in the fast run for tests not marked `dialect`."""
    if FAST and definition.get_closest_marker("dialect") is None:
        return ["sqlite"]
    return ["sqlite", "postgres"]


def pytest_generate_tests(metafunc):
    """Every test using `db_url` runs on both backends, unless it narrows the choice
    itself with @pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)."""
    if "db_url" not in metafunc.fixturenames:
        return
    for marker in metafunc.definition.iter_markers("parametrize"):
        names = marker.args[0]
        if "db_url" in (names.replace(" ", "").split(",") if isinstance(names, str) else names):
            return
    metafunc.parametrize("db_url", backends_for(metafunc.definition), indirect=True)


@pytest.fixture
def db_url(request, tmp_path):
    if request.param == "sqlite":
        yield str(tmp_path / "campaign.db")
        return
    cluster = request.getfixturevalue("pg_cluster")
    name = f"t{os.getpid()}_{next(_counter)}"
    yield cluster.create_database(name, template="campaign_template")
    cluster.drop_database(name)  # the cluster (in memory where it can be) keeps only what is in use


# --- parties built once per session, copied per test -------------------------------


class PartyTemplates:
    """Databases built once per session by a builder (given a --db value), keyed by
    (party name, backend). The builder runs with its own user dirs, so whatever it
    selects with `init` lands in a throwaway config, not in any test's."""

    def __init__(self, root: Path, request) -> None:
        self.root = root
        self.request = request
        self.built: dict[tuple[str, str], str] = {}

    def template(self, name: str, backend: str, build: Callable[[str], None]) -> str:
        key = (name, backend)
        if key not in self.built:
            directory = self.root / f"{name}-{backend}"
            directory.mkdir()
            patch = pytest.MonkeyPatch()
            patch.setenv("XDG_CONFIG_HOME", str(directory / "config"))
            patch.setenv("XDG_DATA_HOME", str(directory / "data"))
            patch.setenv("XDG_STATE_HOME", str(directory / "state"))
            try:
                if backend == "sqlite":
                    target = directory / "campaign.db"
                    build(str(target))
                    with sqlite3.connect(target) as raw:  # the whole database in one file
                        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                    self.built[key] = str(target)
                else:
                    cluster = self.request.getfixturevalue("pg_cluster")
                    database = f"party_{name}_{os.getpid()}"
                    build(cluster.create_database(database, template="campaign_template"))
                    self.built[key] = database
            finally:
                patch.undo()
        return self.built[key]

    def copy(self, name: str, db_url: str, build: Callable[[str], None]) -> None:
        """Make the (fresh, unused) test database `db_url` a copy of the party."""
        if "://" not in db_url:
            source = self.template(name, "sqlite", build)
            assert not Path(db_url).exists(), f"{db_url} is not fresh"
            shutil.copyfile(source, db_url)
            return
        source = self.template(name, "postgres", build)
        self.request.getfixturevalue("pg_cluster").replace_database(db_url.rsplit("/", 1)[1], source)


@pytest.fixture(scope="session")
def party_templates(tmp_path_factory, request) -> PartyTemplates:
    return PartyTemplates(tmp_path_factory.mktemp("party-templates"), request)


def party_copy(request, name: str, db_url: str, build: Callable[[str], None], campaign: str | None = None) -> str:
    """Turn the test's fresh `db_url` into a copy of party `name` (built once per session
    by `build`) and, like the `init` the builder ran, select `campaign` for this test's
    user. Returns db_url."""
    request.getfixturevalue("party_templates").copy(name, db_url, build)
    if campaign is not None:
        from campaign.db.engine import resolve_url
        from campaign.selection import select_campaign

        select_campaign(resolve_url(db_url), campaign)
    return db_url

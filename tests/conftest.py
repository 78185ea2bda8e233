"""Shared fixtures.

Every test gets its own user data/config directories (no test touches the real ones)
and no CAMPAIGN_* variables from the caller's shell. `db_url` gives each test a fresh
database on SQLite and, for integration and cli tests, on a throwaway PostgreSQL.
"""

from __future__ import annotations

import itertools
import os

import pytest

from tests.pgcluster import Cluster

POSTGRES_MODE = os.environ.get("CAMPAIGN_TEST_POSTGRES", "auto")  # auto | required | off
_counter = itertools.count()


@pytest.fixture(autouse=True)
def isolated_user_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    for name in ("CAMPAIGN_DB", "CAMPAIGN", "CAMPAIGN_ACTOR"):
        monkeypatch.delenv(name, raising=False)


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


def pytest_generate_tests(metafunc):
    """Every test using `db_url` runs on both backends, unless it narrows the choice
    itself with @pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)."""
    if "db_url" not in metafunc.fixturenames:
        return
    for marker in metafunc.definition.iter_markers("parametrize"):
        names = marker.args[0]
        if "db_url" in (names.replace(" ", "").split(",") if isinstance(names, str) else names):
            return
    metafunc.parametrize("db_url", ["sqlite", "postgres"], indirect=True)


@pytest.fixture
def db_url(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "campaign.db")
    cluster = request.getfixturevalue("pg_cluster")
    return cluster.create_database(f"t{os.getpid()}_{next(_counter)}", template="campaign_template")

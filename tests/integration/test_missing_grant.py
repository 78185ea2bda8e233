"""A PostgreSQL role that may not read a campaign database is told which grant it lacks
(and the statement that gives it), not that the database "is not a campaign database".
PostgreSQL only: SQLite has no roles."""

from __future__ import annotations

import itertools
import os

import psycopg
import pytest

from tests.cli.conftest import Cli

_names = itertools.count()


@pytest.fixture
def campaign_db(pg_cluster):
    """A campaign database (the template, migrated to head) and a login role of no grants."""
    name = f"grants_{os.getpid()}_{next(_names)}"
    url = pg_cluster.create_database(name, template="campaign_template")
    role = f"nogrant_{os.getpid()}_{next(_names)}"
    with psycopg.connect(pg_cluster.admin_dsn().replace("dbname=postgres", f"dbname={name}"), autocommit=True) as c:
        c.execute(f'CREATE ROLE "{role}" LOGIN')
    yield url, role, name
    pg_cluster.drop_database(name)


def _as(url: str, role: str) -> Cli:
    return Cli(url.replace("postgres@", f"{role}@", 1))


def test_a_role_without_grants_is_told_the_grant_it_lacks(campaign_db):
    url, role, _ = campaign_db
    message = _as(url, role).error("history", "verify", code=1)
    assert message == (
        f"error: role {role} may not read this database: permission denied for table alembic_version; "
        f"its owner can grant it with GRANT SELECT ON TABLE alembic_version TO {role}"
    )
    assert "not a campaign database" not in message


def test_with_the_revision_readable_the_next_refusal_names_its_table(campaign_db):
    url, role, name = campaign_db
    Cli(url).run("init", "権限卓")
    port = url.rsplit(":", 1)[1].split("/")[0]
    with psycopg.connect(f"host=127.0.0.1 port={port} user=postgres dbname={name}", autocommit=True) as conn:
        conn.execute(f'GRANT SELECT ON alembic_version TO "{role}"')
    message = _as(url, role).error("history", "verify", code=1)
    assert message == "error: refused by the database: permission denied for table campaigns"


def test_in_japanese_too(campaign_db):
    url, role, _ = campaign_db
    message = _as(url, role).error("--lang", "ja", "history", "verify", code=1)
    assert message == (
        f"エラー: ロール {role} はこのデータベースを読めません: table alembic_version の権限がありません。"
        f"所有者が GRANT SELECT ON TABLE alembic_version TO {role} で付与できます"
    )

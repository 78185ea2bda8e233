"""Group mode on PostgreSQL (issue 17): roles per player, the database records the actor
and enforces permissions, concurrent appends from several roles keep the chain.

The throwaway cluster trusts 127.0.0.1, so role passwords are not checked here: what is
tested is which role a connection is, and what the database lets that role do.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import psycopg
import pytest

from campaign.services.group import role_prefix
from tests.cli.conftest import Cli, gurps_setup

pytestmark = pytest.mark.parametrize("db_url", ["postgres"], indirect=True)

TABLES = ("campaigns", "players", "characters", "ledger", "relationships", "traits", "conditions", "scenarios",
          "scenario_participants", "disappearances", "searches", "reunion_checks", "group_roles")


def _dsn(url: str, user: str | None = None) -> str:
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    return (f"host={parsed.host} port={parsed.port} dbname={parsed.database} "
            f"user={user or parsed.username}")


def _role_url(url: str, role: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).set(username=role, password=None).render_as_string(hide_password=False)


class Group:
    """The `gurps` party (Aki plays 鈴音, Ren plays 刀矢) with group mode set up."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.owner = Cli(url)
        gurps_setup(self.owner)
        self.owner.run("player", "add", "葵")
        self.setup = self.owner.json("group", "setup")
        self.roles = {r["player"]: r["role"] for r in self.setup["roles"]}

    def cli(self, player: str) -> Cli:
        return Cli(_role_url(self.url, self.roles[player]))

    def raw(self, player: str | None = None) -> psycopg.Connection:
        return psycopg.connect(_dsn(self.url, self.roles[player] if player else None), autocommit=True)

    def dump(self) -> dict:
        with self.raw() as conn:
            return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in TABLES}

    def drop(self) -> None:
        from sqlalchemy.engine import make_url

        database = make_url(self.url).database
        with psycopg.connect(_dsn(self.url).replace(f"dbname={database}", "dbname=postgres"),
                             autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{database}" WITH (FORCE)')
            for (role,) in conn.execute("SELECT rolname FROM pg_roles WHERE rolname LIKE %s",
                                        (role_prefix(database) + "%",)).fetchall():
                conn.execute(f'DROP ROLE "{role}"')


@pytest.fixture
def group(db_url):
    made = Group(db_url)
    yield made
    made.drop()


def test_setup_creates_a_gm_role_and_one_per_player(group):
    roles = group.setup["roles"]
    assert [(r["player"], r["kind"]) for r in roles] == [("GM", "gm"), ("Aki", "player"), ("Ren", "player"),
                                                         ("葵", "player")]
    for r in roles:
        assert r["role"].isascii() and len(r["role"]) <= 63
        assert r["url"].startswith(f"postgresql://{r['role']}:{r['password']}@")
        assert len(r["password"]) >= 20
    assert len({r["password"] for r in roles}) == 4
    # Passwords are stored by PostgreSQL (as a hash) for LOGIN roles
    with group.raw() as conn:
        rows = conn.execute("SELECT rolname, rolcanlogin, rolpassword IS NOT NULL FROM pg_authid "
                            "WHERE rolname = ANY(%s)", ([r["role"] for r in roles],)).fetchall()
    assert sorted(rows) == sorted((r["role"], True, True) for r in roles)
    # Run again: nothing new, no passwords shown again
    assert group.owner.json("group", "setup")["roles"] == []

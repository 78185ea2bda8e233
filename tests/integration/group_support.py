"""Group mode on the throwaway cluster: a campaign with its roles, connections as each.

`group` builds the party as the cluster's superuser (quick: one template for the
session); `owned_group` as docs/group-mode.md sets it up for real, the database and
every table owned by a non-superuser role with CREATEROLE, which also runs
`group setup`. The cluster trusts 127.0.0.1, so what is tested is which role a
connection is and what the database lets that role do, not passwords.
"""

from __future__ import annotations

import itertools
import os

import psycopg
import pytest

from campaign.services.campaigns.group import role_prefix
from tests.cli.conftest import Cli, gurps_setup
from tests.conftest import party_copy

TABLES = (
    "campaigns",
    "players",
    "characters",
    "ledger",
    "relationships",
    "traits",
    "conditions",
    "scenarios",
    "scenario_participants",
    "disappearances",
    "searches",
    "reunion_checks",
    "group_roles",
)
HAND_MADE = ("stranger", "auditor")
# What only the GM's role reads: hidden results, seeds, the table server's credentials.
GM_OWN = ("secret_rolls", "fair_seeds", "web_invites", "web_sessions", "web_requests", "table_calls", "bcdice_tokens")
# The owner docs/group-mode.md asks for: not a superuser, may create roles.
OWNER = "campaign_owner"


def _dsn(url: str, user: str | None = None) -> str:
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    return f"host={parsed.host} port={parsed.port} dbname={parsed.database} user={user or parsed.username}"


def _role_url(url: str, role: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).set(username=role, password=None).render_as_string(hide_password=False)


class Group:
    """The `gurps` party (Aki plays 鈴音, Ren plays 刀矢, 葵 plays nobody) with group
    mode set up by `owner_url`'s role: the GM's role (players have none since 0016),
    and on demand the hand-made roles of HAND_MADE."""

    def __init__(self, url: str, owner_url: str | None = None) -> None:
        self.url = owner_url or url
        self.owner = Cli(self.url)
        self.setup = self.owner.json("group", "setup")  # roles belong to the cluster: made per test
        self.roles = {r["player"]: r["role"] for r in self.setup["roles"]}

    def raw(self, player: str | None = None) -> psycopg.Connection:
        if player in HAND_MADE and player not in self.roles:
            self._hand_made(player)
        return psycopg.connect(_dsn(self.url, self.roles[player] if player else None), autocommit=True)

    def cli(self, player: str) -> Cli:
        if player in HAND_MADE and player not in self.roles:
            self._hand_made(player)
        return Cli(_role_url(self.url, self.roles[player]))

    def _hand_made(self, kind: str) -> None:
        """A LOGIN role no `campaign` command makes (players have no database role since
        migration 0016): `stranger` holds no grant at all, only what PUBLIC has;
        `auditor` reads every table but the GM's own, as someone who checks the chain."""
        from sqlalchemy.engine import make_url

        role = self.roles[kind] = f"{role_prefix(make_url(self.url).database)}_{kind}"
        with psycopg.connect(_dsn(self.url), autocommit=True) as conn:
            conn.execute(f'CREATE ROLE "{role}" LOGIN')
            if kind == "auditor":
                tables = [
                    name
                    for (name,) in conn.execute(
                        "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
                    ).fetchall()
                    if name not in GM_OWN
                ]
                conn.execute(f'GRANT SELECT ON {", ".join(tables)} TO "{role}"')

    def dump(self) -> dict:
        with self.raw() as conn:
            return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in TABLES}

    def drop(self) -> None:
        from sqlalchemy.engine import make_url

        database = make_url(self.url).database
        with psycopg.connect(
            _dsn(self.url, "postgres").replace(f"dbname={database}", "dbname=postgres"), autocommit=True
        ) as conn:
            conn.execute(f'DROP DATABASE "{database}" WITH (FORCE)')
            for (role,) in conn.execute(
                "SELECT rolname FROM pg_roles WHERE rolname LIKE %s", (role_prefix(database) + "%",)
            ).fetchall():
                conn.execute(f'DROP ROLE "{role}"')


def _gurps_and_aoi(url: str) -> None:
    gurps_setup(Cli(url))
    Cli(url).run("player", "add", "葵")


_databases = itertools.count()


@pytest.fixture
def group(pg_cluster, request):
    url = pg_cluster.create_database(f"g{os.getpid()}_{next(_databases)}", template="campaign_template")
    party_copy(request, "gurps-aoi", url, _gurps_and_aoi, campaign="テスト卓")  # built once, copied
    made = Group(url)
    yield made
    made.drop()


@pytest.fixture(scope="session")
def owned_template(pg_cluster, tmp_path_factory) -> str:
    """The party in a database the non-superuser OWNER made and migrated, once per session."""
    name = f"owned_{os.getpid()}"
    with psycopg.connect(pg_cluster.admin_dsn(), autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (OWNER,)).fetchone() is None:
            conn.execute(f'CREATE ROLE "{OWNER}" LOGIN CREATEROLE')
        conn.execute(f'CREATE DATABASE "{name}" OWNER "{OWNER}"')
    url = _role_url(pg_cluster.url(name), OWNER)
    patch = pytest.MonkeyPatch()
    home = tmp_path_factory.mktemp("owned-template")
    for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        patch.setenv(variable, str(home / variable))
    try:
        _gurps_and_aoi(url)
    finally:
        patch.undo()
    return name


@pytest.fixture
def owned_group(pg_cluster, owned_template):
    name = f"o{os.getpid()}_{next(_databases)}"
    with psycopg.connect(pg_cluster.admin_dsn(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{owned_template}" OWNER "{OWNER}"')
    url = _role_url(pg_cluster.url(name), OWNER)
    from campaign.db.engine import resolve_url
    from campaign.selection import select_campaign

    select_campaign(resolve_url(url), "テスト卓")
    made = Group(url)
    yield made
    made.drop()


def old_player_roles(
    conn: psycopg.Connection, database: str, campaign_id: int = 1, revoked: tuple[str, ...] = ()
) -> dict[str, str]:
    """What `group setup` made for players before migration 0016 (the database at 0015,
    `conn` the owner's): the players' NOLOGIN group role reading every table, one LOGIN
    role per player in it, and their group_roles rows; `revoked` players' roles as
    `group revoke` left them (NOLOGIN, out of the group). Returns player -> role."""
    prefix = role_prefix(database)
    players = f"{prefix}_players"
    conn.execute(f'CREATE ROLE "{players}" NOLOGIN')
    conn.execute(f'GRANT CONNECT ON DATABASE "{database}" TO "{players}"')
    conn.execute(f'GRANT USAGE ON SCHEMA public TO "{players}"')
    conn.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA public TO "{players}"')
    hidden = [
        name
        for (name,) in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        if name in GM_OWN
    ]
    conn.execute(f'REVOKE ALL ON {", ".join(hidden)} FROM "{players}"')
    roles = {}
    for player_id, name in conn.execute(
        "SELECT id, name FROM players WHERE campaign_id = %s ORDER BY id", (campaign_id,)
    ).fetchall():
        role = roles[name] = f"{prefix}_{campaign_id}_p{player_id}"
        gone = name in revoked
        conn.execute(
            f'CREATE ROLE "{role}" {"NOLOGIN" if gone else "LOGIN"}' + ("" if gone else f' IN ROLE "{players}"')
        )
        conn.execute(
            "INSERT INTO group_roles VALUES (%s, %s, %s, %s, false, '2026-11-01T00:00:00.000000Z', %s)",
            (role, campaign_id, player_id, name, "2026-11-02T00:00:00.000000Z" if gone else None),
        )
    return roles

"""A group set up before migration 0010 is narrowed, then undone for players, by the upgrade.

The database is made at revision 0009 with the roles and grants `group setup` gave
players then (appends, their characters' columns, the campaign row lock, sequences;
TEMPORARY left to PUBLIC). The issue's temp-table attack works there; after the upgrade
the players' roles are gone (0016), nothing is left that the attack could use, and the
player is owed an invite instead.
"""

from __future__ import annotations

import os

import psycopg
import pytest

from campaign.db.database import Database
from campaign.db.migrate import HEAD_REVISION, upgrade
from tests.integration.group_support import old_player_roles

pytestmark = pytest.mark.dialect

OLD_PLAYER_GRANTS = [
    "GRANT INSERT ON ledger TO {players}",
    "GRANT INSERT, UPDATE ON traits, conditions TO {players}",
    "GRANT UPDATE (stats, cp_total, pools) ON characters TO {players}",
    "GRANT UPDATE (id) ON campaigns TO {players}",
    "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {players}",
    "GRANT TEMPORARY ON DATABASE {database} TO PUBLIC",
    "GRANT CREATE ON SCHEMA public TO PUBLIC",
]
SHADOW = [
    "CREATE TEMP TABLE group_roles (role_name text, campaign_id int, player_id int, player_name text, "
    "is_gm boolean, created_at text, revoked_at text)",
    "INSERT INTO pg_temp.group_roles SELECT session_user, 1, NULL, 'GM', true, '2026-01-01', NULL",
]


def _dsn(cluster, database: str, user: str = "postgres") -> str:
    return f"host=127.0.0.1 port={cluster.port} dbname={database} user={user}"


def test_an_existing_group_is_narrowed_by_the_upgrade(pg_cluster, monkeypatch):
    import campaign.services.campaigns.group as group_module
    from campaign.services.campaigns.group import setup
    from campaign.services.campaigns.setup import create_campaign
    from campaign.services.characters.roster import add_player

    name = f"up{os.getpid()}"
    url = pg_cluster.create_database(name)
    db = Database(url, migrate=False)
    try:
        upgrade(db.engine, "0009")
        # Today's setup on a 0009 schema: only the GM-only table that existed then.
        monkeypatch.setattr(group_module, "GM_ONLY_TABLES", ("secret_rolls",))
        create_campaign(db, "古い卓", "gurps3-ja", "GM")
        add_player(db, "古い卓", "Aki", "GM")
        roles = {r.player: r.role for r in setup(db, "古い卓").roles}
        with psycopg.connect(_dsn(pg_cluster, name), autocommit=True) as conn:
            roles.update(old_player_roles(conn, name))
        players = roles["Aki"].rsplit("_", 2)[0] + "_players"
        with psycopg.connect(_dsn(pg_cluster, name), autocommit=True) as conn:
            for statement in OLD_PLAYER_GRANTS:
                conn.execute(statement.format(players=f'"{players}"', database=f'"{name}"'))
        with psycopg.connect(_dsn(pg_cluster, name, roles["Aki"]), autocommit=True) as aki:
            for statement in SHADOW:
                aki.execute(statement)
            assert aki.execute("SELECT campaign_group_kind()").fetchone() == ("gm",)  # the bug, at 0009
        upgrade(db.engine)
    finally:
        db.close()
    with psycopg.connect(_dsn(pg_cluster, name), autocommit=True) as conn:
        assert (
            conn.execute("SELECT rolname FROM pg_roles WHERE rolname = ANY(%s)", ([roles["Aki"], players],)).fetchall()
            == []
        )
        assert conn.execute("SELECT has_database_privilege('public', current_database(), 'TEMPORARY')").fetchone() == (
            False,
        )
        assert conn.execute("SELECT count(*) FROM pg_policies").fetchone() == (0,)
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == (HEAD_REVISION,)
        assert conn.execute("SELECT player_name FROM group_roles WHERE NOT is_gm").fetchall() == [("Aki",)]
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(_dsn(pg_cluster, name, roles["Aki"])).close()
    with psycopg.connect(pg_cluster.admin_dsn(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        for role in (roles["GM"], players.replace("_players", "_gms")):
            conn.execute(f'DROP ROLE "{role}"')

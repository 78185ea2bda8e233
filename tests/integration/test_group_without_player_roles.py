"""Group mode without players' database roles (migration 0016).

An installation set up before 0016 (players' LOGIN roles in their group role, row-level
security on) upgrades: the roles, the policies and the helpers go, each former player is
owed an invite and gets exactly one, signs in with it and plays through a server that
runs on the GM's role, which can do all the server does; `history verify` passes.
"""

from __future__ import annotations

import os

import httpx
import psycopg
import pytest

from campaign.db.database import Database
from campaign.db.migrate import HEAD_REVISION, upgrade
from tests.cli.conftest import Cli
from tests.integration.group_support import _role_url, old_player_roles
from tests.web.table_server import Browser, served

pytestmark = pytest.mark.postgres


def _admin(cluster, database: str) -> psycopg.Connection:
    return psycopg.connect(f"host=127.0.0.1 port={cluster.port} dbname={database} user=postgres", autocommit=True)


@pytest.fixture
def old_group(pg_cluster):
    """A campaign at revision 0015 with the GM's role and the players' roles of then:
    Aki (plays 鈴音) and Ren live, 葵 revoked."""
    from campaign.services.campaigns.group import role_prefix, setup
    from campaign.services.campaigns.setup import create_campaign
    from campaign.services.characters.roster import add_character, add_player

    name = f"old{os.getpid()}_{id(object())}"
    url = pg_cluster.create_database(name)
    db = Database(url, migrate=False)
    upgrade(db.engine, "0015")
    # Today's services write today's columns: the ones later revisions add are there only
    # while the old campaign is made (a reading of None is what 0018 gives old rows).
    later_columns = ("ALTER TABLE characters ADD COLUMN reading VARCHAR", "ALTER TABLE characters DROP COLUMN reading")
    with db.engine.begin() as conn:
        conn.exec_driver_sql(later_columns[0])
    create_campaign(db, "古い卓", "gurps3-ja", "GM")
    for player in ("Aki", "Ren", "葵"):
        add_player(db, "古い卓", player, "GM")
    add_character(db, "古い卓", "鈴音", "GM", player="Aki", stats={"Will": 11, "IQ": 12, "HT": 11}, cp=100)
    with db.engine.begin() as conn:
        conn.exec_driver_sql(later_columns[1])
    gm = setup(db, "古い卓").roles[0]
    with _admin(pg_cluster, name) as conn:
        players = old_player_roles(conn, name, revoked=("葵",))
        # a group set up before 0013: its GM's role has no grant on the dice bots' tokens
        conn.execute(f'REVOKE ALL ON bcdice_tokens FROM "{role_prefix(name)}_gms"')
    yield {"db": db, "url": url, "name": name, "gm": gm.role, "players": players}
    db.close()
    with psycopg.connect(pg_cluster.admin_dsn(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        for (role,) in conn.execute(
            "SELECT rolname FROM pg_roles WHERE rolname LIKE %s", (role_prefix(name) + "%",)
        ).fetchall():
            conn.execute(f'DROP ROLE "{role}"')


def test_an_old_group_upgrades_and_each_former_player_gets_one_invite(pg_cluster, old_group, capfd):
    from campaign.services.campaigns.group import role_prefix

    name, players = old_group["name"], old_group["players"]
    still_open = psycopg.connect(
        f"host=127.0.0.1 port={pg_cluster.port} dbname={name} user={players['Aki']}", autocommit=True
    )
    assert still_open.execute("SELECT count(*) FROM characters").fetchone() == (1,)  # the old read access
    capfd.readouterr()
    upgrade(old_group["db"].engine)
    assert "2 player database role(s) removed" in capfd.readouterr().err
    with still_open, pytest.raises(psycopg.errors.InsufficientPrivilege):  # a session left open: PUBLIC's rights
        still_open.execute("SELECT count(*) FROM characters")
    with _admin(pg_cluster, name) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == (HEAD_REVISION,)
        left = conn.execute(
            "SELECT rolname FROM pg_roles WHERE rolname = ANY(%s)",
            ([*players.values(), players["Aki"].rsplit("_", 2)[0] + "_players"],),
        ).fetchall()
        assert left == []
        assert conn.execute("SELECT count(*) FROM pg_policies WHERE schemaname = 'public'").fetchone() == (0,)
        assert conn.execute("SELECT relname FROM pg_class WHERE relrowsecurity").fetchall() == []
        assert conn.execute("SELECT proname FROM pg_proc WHERE proname LIKE 'campaign_group%'").fetchall() == []
        assert sorted(conn.execute("SELECT player_name, is_gm FROM group_roles").fetchall()) == [
            ("Aki", False),
            ("GM", True),
            ("Ren", False),
        ]
        assert conn.execute(
            "SELECT has_table_privilege(%s, 'bcdice_tokens', 'SELECT, INSERT, UPDATE, DELETE')",
            (role_prefix(name) + "_gms",),
        ).fetchone() == (True,)  # granted by the upgrade
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(f"host=127.0.0.1 port={pg_cluster.port} dbname={name} user={players['Aki']}").close()

    owner = Cli(old_group["url"])
    assert owner.json("-c", "古い卓", "group", "status")["owed_invites"] == ["Aki", "Ren"]
    invites = owner.json("-c", "古い卓", "group", "migrate-players")["invites"]
    assert [i["player"] for i in invites] == ["Aki", "Ren"] and all(
        i["join_path"].startswith("/join/") for i in invites
    )
    assert owner.json("-c", "古い卓", "group", "migrate-players")["invites"] == []  # one each, once
    assert owner.json("-c", "古い卓", "group", "setup")["invites"] == []
    assert owner.json("-c", "古い卓", "group", "status")["owed_invites"] == []
    listed = owner.json("-c", "古い卓", "invite", "list")["invites"]
    assert sorted((i["player"], i["state"]) for i in listed) == [("Aki", "pending"), ("Ren", "pending")]

    # Each former player signs in, through a server on the GM's role, which does all of it.
    gm_url = _role_url(old_group["url"], old_group["gm"])
    faces = [1, 2, 3, 2, 3, 4, 6, 5, 5, 6, 5, 5]
    with served(gm_url, faces) as base:
        aki, ren = Browser(base), Browser(base)
        for browser, invite in zip((aki, ren), invites):
            assert browser.join(invite["join_path"]).status_code == 303
        assert ren.http.get("/api/session").json()["player"] == "Ren"
        rolled = aki.post("/api/rolls", {"command": "3D6", "character": "鈴音"})
        assert rolled.status_code == 201, rolled.text
        assert rolled.json()["dice"] == [1, 2, 3] and rolled.json()["source"] == "server"
        assert rolled.json()["actor"] == "Aki"  # the seat's player, through the GM's role (0016's trigger)
        secret = aki.post("/api/rolls", {"command": "S3D6<=12", "character": "鈴音"})
        assert secret.status_code == 201, secret.text
        gm = Cli(gm_url)
        call = gm.json("-c", "古い卓", "call", "fright", "鈴音", "--mod", "-2")
        fright = aki.post(f"/api/calls/{call['call_id']}/roll", {})
        assert fright.status_code == 201, fright.text
        assert fright.json()["outcome"] == "failure"
        assert ren.post("/api/rolls", {"command": "3D6", "character": "鈴音"}).status_code == 403
        asked = aki.post("/api/void-requests", {"seq": rolled.json()["seq"], "reason": "押し間違い"})
        assert asked.status_code == 201, asked.text
        aki.close()
        ren.close()
        # a dice bot's token for Aki, rolling through the same server (actor Aki: 0016's trigger)
        bot = gm.json("-c", "古い卓", "invite", "aki-bot", "--bcdice", "--player", "Aki", "--character", "鈴音")
        faces[:] = [2, 3, 5]
        answer = httpx.get(
            f"{base}{bot['base_path']}v2/game_system/GURPS/roll", params={"command": "3D6<=12"}, timeout=30
        )
        assert answer.status_code == 200 and answer.json()["ok"], answer.text
        entry = owner.json("-c", "古い卓", "history", "show", str(answer.json()["campaign_seq"]))
        assert (entry["actor"], entry["source"]) == ("Aki", "bcdice-api")
    sheet = owner.json("-c", "古い卓", "char", "show", "鈴音")
    assert sheet["cp_total"] == 90
    assert owner.json("-c", "古い卓", "history", "verify")["ok"]


def test_a_fresh_setup_makes_only_the_gms_role(group):
    """`group setup` at head: one LOGIN role (the GM's, which the server uses), no player
    role; the commands that made players' roles say what to do instead."""
    assert [(r["player"], r["kind"]) for r in group.setup["roles"]] == [("GM", "gm")]
    assert group.setup["invites"] == []
    from campaign.services.campaigns.group import role_prefix

    with group.raw() as conn:
        prefix = role_prefix(conn.execute("SELECT current_database()").fetchone()[0])
        logins = conn.execute(
            "SELECT rolname FROM pg_roles WHERE rolcanlogin AND starts_with(rolname, %s)", (prefix,)
        ).fetchall()
    assert logins == [(group.roles["GM"],)]
    message = group.owner.error("group", "add-player", "葵", code=1)
    assert message == (
        "error: players have no database role since migration 0016: they join the table server "
        "with `campaign invite 葵` (revoke one with `campaign invite revoke 葵`)"
    )
    assert group.owner.error("group", "revoke", "Aki", code=1).startswith("error: players have no database role")


def test_the_gms_role_may_write_every_table_the_server_writes(group):
    rights = group.owner.json("group", "status")["roles"][0]["rights"]
    full = ["SELECT", "INSERT", "UPDATE", "DELETE"]
    for table in (
        "web_invites",
        "web_sessions",
        "web_requests",
        "table_calls",
        "bcdice_tokens",
        "fair_seeds",
        "secret_rolls",
        "characters",
        "traits",
        "conditions",
    ):
        assert rights[table] == full, table
    assert rights["ledger"] == ["SELECT", "INSERT"] and rights["seal_heads"] == ["SELECT", "INSERT"]
    assert rights["group_roles"] == ["SELECT"] and rights["alembic_version"] == ["SELECT"]
    with group.raw("GM") as conn:  # sheet columns of 0015 included
        conn.execute("UPDATE characters SET skills = '{}', notes = '[]', items = '[]' WHERE name = '鈴音'")

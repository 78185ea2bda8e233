"""The table server on a group-mode PostgreSQL database (migration 0007 roles).

The table server's four tables get no grant from `group setup` yet (issue 29 item 7
gives the GM's role, then the server's, its rights), so: the owner's URL serves; a
player's role reads no seat hash and no call; the GM's role, once granted them as item 7
will, records actor GM on behalf of the seat's player (the actor trigger's rule)."""

from __future__ import annotations

import psycopg
import pytest

from tests.web.table_server import Browser, served

try:  # where issue 24's branch keeps group mode's fixtures; before it, in the test module
    from tests.integration.group_support import _role_url, group  # noqa: F401 (fixture)
except ImportError:
    from tests.integration.test_group_mode import _role_url, group  # noqa: F401 (fixture)

pytestmark = pytest.mark.postgres
TABLES = ("web_invites", "web_sessions", "web_requests", "table_calls")


def test_a_players_role_cannot_read_seats_or_calls(group):
    for table in TABLES:
        with group.raw("Aki") as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(f"SELECT * FROM {table}")


def test_the_owner_serves_a_group_campaign(group):
    path = group.owner.json("invite", "Aki")["join_path"]
    with served(group.url, [1, 2, 3]) as base:
        aki = Browser(base)
        assert aki.join(path).status_code == 303
        rolled = aki.post("/api/rolls", {"command": "3D6", "character": "鈴音"})
        assert rolled.status_code == 201, rolled.text
        assert rolled.json()["actor"] == "Aki" and rolled.json()["source"] == "server"
        aki.close()
    group.owner.run("history", "verify")


def test_the_gm_role_records_gm_on_behalf_of_the_seats_player(group):
    with group.raw() as conn:  # what issue 29 item 7's `group setup` will grant the GM's role
        conn.execute(f'GRANT SELECT, INSERT, UPDATE ON {", ".join(TABLES)} TO "{group.roles["GM"]}"')
        conn.execute(f'GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO "{group.roles["GM"]}"')
    gm = group.cli("GM")
    path = gm.json("invite", "Aki")["join_path"]
    with served(_role_url(group.url, group.roles["GM"]), [1, 2, 3]) as base:
        aki = Browser(base)
        assert aki.join(path).status_code == 303
        rolled = aki.post("/api/rolls", {"command": "3D6", "character": "鈴音"})
        assert rolled.status_code == 201, rolled.text
        # the GM's role records actor GM (migration 0007's trigger), on behalf of the seat's player
        assert rolled.json()["actor"] == "GM" and rolled.json()["source"] == "server"
        record = gm.json("history", "show", str(rolled.json()["seq"]))
        assert record["detail"]["on_behalf_of"] == "Aki" and "session" in record["detail"]["via"]
        asked = aki.post("/api/void-requests", {"seq": rolled.json()["seq"], "reason": "押し間違い"})
        assert asked.status_code == 201, asked.text
        aki.close()
    gm.run("history", "verify")


def test_a_server_on_a_players_role_is_refused_by_the_database_not_a_traceback(group):
    path = group.owner.json("invite", "Ren")["join_path"]
    with served(_role_url(group.url, group.roles["Aki"])) as base:
        ren = Browser(base)
        page = ren.http.get(path)
        assert page.status_code == 403 and "refused by the database" in page.text
        ren.http.cookies.set("campaign_session", "x" * 43)
        answer = ren.http.get("/api/session")
        assert answer.status_code == 401 and answer.json()["code"] == "no_session"
        ren.close()

"""The table server on a group-mode PostgreSQL database.

Players hold no database role (migration 0016): `group setup` grants the GM's role,
which the server signs in as, every table the server writes, and the actor trigger lets
that role record the seat's player for an entry made through that player's session. The
owner's URL serves too; a read-only role reads no seat hash and no call."""

from __future__ import annotations

import psycopg
import pytest

from tests.web.table_server import Browser, served

try:  # where group mode's shared fixtures live; before it, in the test module
    from tests.integration.group_support import _role_url, group  # noqa: F401 (fixture)
except ImportError:
    from tests.integration.test_group_mode import _role_url, group  # noqa: F401 (fixture)

pytestmark = pytest.mark.postgres
TABLES = ("web_invites", "web_sessions", "web_requests", "table_calls")


def test_a_read_only_role_cannot_read_seats_or_calls(group):
    for table in TABLES:
        with group.raw("auditor") as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
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


def test_the_gm_role_serves_and_records_the_seats_player(group):
    gm = group.cli("GM")
    path = gm.json("invite", "Aki")["join_path"]
    with served(_role_url(group.url, group.roles["GM"]), [1, 2, 3]) as base:
        aki = Browser(base)
        assert aki.join(path).status_code == 303
        rolled = aki.post("/api/rolls", {"command": "3D6", "character": "鈴音"})
        assert rolled.status_code == 201, rolled.text
        # the seat's player is the actor (migration 0016's trigger: through Aki's live session)
        assert rolled.json()["actor"] == "Aki" and rolled.json()["source"] == "server"
        record = gm.json("history", "show", str(rolled.json()["seq"]))
        assert "on_behalf_of" not in record["detail"] and "session" in record["detail"]["via"]
        asked = aki.post("/api/void-requests", {"seq": rolled.json()["seq"], "reason": "押し間違い"})
        assert asked.status_code == 201, asked.text
        aki.close()
    gm.run("history", "verify")


def test_a_server_on_a_read_only_role_is_refused_by_the_database_not_a_traceback(group):
    path = group.owner.json("invite", "Ren")["join_path"]
    group.raw("auditor").close()
    with served(_role_url(group.url, group.roles["auditor"])) as base:
        ren = Browser(base)
        page = ren.http.get(path)
        assert page.status_code == 403 and "refused by the database" in page.text
        ren.http.cookies.set("campaign_session", "x" * 43)
        answer = ren.http.get("/api/session")
        assert answer.status_code == 401 and answer.json()["code"] == "no_session"
        ren.close()

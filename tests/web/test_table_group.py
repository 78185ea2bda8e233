"""The table server on a group-mode PostgreSQL database (migration 0007 roles): the GM's
role invites and serves; a player's role cannot read the seats (hashes) or calls."""

from __future__ import annotations

import psycopg
import pytest

try:  # where issue 24's branch keeps group mode's fixtures; before it, in the test module
    from tests.integration.group_support import _role_url, group  # noqa: F401 (fixture)
except ImportError:
    from tests.integration.test_group_mode import _role_url, group  # noqa: F401 (fixture)
from tests.web.table_server import Browser, served

pytestmark = pytest.mark.postgres


def test_the_gm_role_seats_players_and_a_player_role_cannot_read_seats(group):
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
    for table in ("web_invites", "web_sessions", "web_requests", "table_calls"):
        with group.raw("Aki") as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(f"SELECT * FROM {table}")
    gm.run("history", "verify")


def test_a_server_on_a_players_role_is_refused_by_the_database_not_a_traceback(group):
    path = group.cli("GM").json("invite", "Ren")["join_path"]
    with served(_role_url(group.url, group.roles["Aki"])) as base:
        ren = Browser(base)
        page = ren.http.get(path)
        assert page.status_code == 403 and "refused by the database" in page.text
        ren.http.cookies.set("campaign_session", "x" * 43)
        answer = ren.http.get("/api/session")
        assert answer.status_code == 401 and answer.json()["code"] == "no_session"
        ren.close()

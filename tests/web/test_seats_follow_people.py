"""A seat belongs to a person, not to a name (SQLite and PostgreSQL, over real HTTP).

After `player rename Aki X` and a new player named Aki, the old cookie, its bot token
and its calls stay with the renamed player X; the new Aki has no seat until invited;
`invite revoke` takes today's names. X is tried as a different name and as names that
differ from Aki only in case or width, the shapes a rename might pick to dodge a check.
"""

from __future__ import annotations

import httpx
import pytest

from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import Browser, served

pytestmark = pytest.mark.dialect


def invite(cli: Cli, player: str, *extra: str) -> str:
    return cli.json("invite", player, *extra)["join_path"]


def head(cli: Cli) -> int:
    return cli.json("history", "--limit", "1")[0]["seq"]


@pytest.mark.parametrize("renamed", ["Akira", "aki", "Ａｋｉ", "AKI"])
def test_a_renamed_players_seat_token_and_calls_stay_theirs(gurps, renamed):
    cli = gurps
    pending = invite(cli, "Aki")  # made before the rename, opened after it
    bot_path = cli.json("invite", "aki-bot", "--bcdice", "--player", "Aki", "--character", "鈴音")["base_path"]
    faces: list[int] = []
    with served(cli.db, faces) as base:
        old = Browser(base)
        assert old.join(invite(cli, "Aki")).status_code == 303
        call = cli.json("call", "fright", "鈴音")
        cli.run("player", "rename", "Aki", renamed)
        cli.run("player", "add", "Aki")
        cli.run("char", "add", "新顔", "--player", "Aki", "--stat", "Will=10")
        assert old.http.get("/api/session").json()["player"] == renamed
        # the old cookie acts for the renamed player, never for the new Aki
        faces[:] = [3, 3, 3]
        rolled = old.post("/api/rolls", {"command": "3D6", "character": "鈴音"})
        assert rolled.status_code == 201 and cli.json("history", "show", str(rolled.json()["seq"]))["actor"] == renamed
        before = head(cli)
        stolen = old.post("/api/rolls", {"command": "3D6", "character": "新顔"})
        assert stolen.status_code == 403 and head(cli) == before
        assert [c["call_id"] for c in old.http.get("/api/calls").json()["calls"]] == [call["call_id"]]
        # the invite made for Aki before the rename opens the renamed player's seat
        late = Browser(base)
        assert late.join(pending).status_code == 303
        assert late.http.get("/api/session").json()["player"] == renamed
        # the new Aki has no seat: nothing of the old Aki's answers to that name
        assert "no open invite or session" in cli.error("invite", "revoke", "Aki", code=1)
        new = Browser(base)
        assert new.join(invite(cli, "Aki")).status_code == 303
        assert new.http.get("/api/calls").json()["calls"] == []
        refused = new.post(f"/api/calls/{call['call_id']}/roll", {})
        assert refused.status_code == 403 and head(cli) == before
        # the bot token rolls for the renamed player
        faces[:] = [2, 2, 2]
        with httpx.Client(base_url=base + bot_path, timeout=30) as bot:
            answer = bot.get("v2/game_system/GURPS/roll", params={"command": "3D6"}).json()
        assert cli.json("history", "show", str(answer["campaign_seq"]))["actor"] == renamed
        # revoking by today's name ends the renamed player's seats, not the new Aki's
        assert cli.json("invite", "revoke", renamed) == {"player": renamed, "invites": 0, "sessions": 2}
        assert old.http.get("/api/session").status_code == 401
        assert late.http.get("/api/session").status_code == 401
        assert new.http.get("/api/session").json()["player"] == "Aki"
        for each in (old, late, new):
            each.close()
    listed = cli.json("invite", "list")
    assert sorted(s["player"] for s in listed["sessions"]) == sorted(["Aki", renamed, renamed])
    cli.run("history", "verify")

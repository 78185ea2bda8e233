"""The bot token stays out of chat (SQLite and PostgreSQL, over real HTTP).

discord-bcdicebot posts `[ERROR][status] <the URL it called>` into the channel for any
answer but 200 and 400, and the URL holds the token. So every way this endpoint can
refuse is a 400 `{"ok": false, "reason"}` that holds no part of the URL; and `invite
rotate-bot NAME` replaces a token in one step.
"""

from __future__ import annotations

import httpx
import pytest

import campaign.web.routes_bcdice as routes_bcdice
from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import served

pytestmark = pytest.mark.dialect


def posted_into_chat(answer: httpx.Response) -> str | None:
    """What discord-bcdicebot's v2 client posts for an answer: the URL unless 200 or 400."""
    return None if answer.status_code in (200, 400) else f"[ERROR][{answer.status_code}] {answer.request.url}"


def token(cli: Cli, name: str, *extra: str) -> str:
    return cli.json("invite", name, "--bcdice", *extra)["base_path"]


@pytest.fixture
def bot(gurps, monkeypatch):
    monkeypatch.setattr(routes_bcdice, "BURST", 2)
    monkeypatch.setattr(routes_bcdice, "RATE", 0.01)
    faces: list[int] = []
    path = token(gurps, "aki-bot", "--player", "Aki", "--character", "鈴音")
    with served(gurps.db, faces, hosts=("table.local",)) as base:
        yield gurps, base, path, faces


def _refusals(gurps: Cli, base: str, path: str, faces: list[int]) -> list[tuple[str, httpx.Response]]:
    """Every refusal a bot can meet, as (expected reason, answer)."""
    url = base + path
    faces[:] = [1, 1]
    ok = [httpx.get(url + "v2/game_system/DiceBot/roll", params={"command": "1D6"}) for _ in range(2)]
    assert [a.status_code for a in ok] == [200, 200]
    port = base.rsplit(":", 1)[1]
    found = [
        ("too many requests", httpx.get(url + "v2/game_system/DiceBot/roll", params={"command": "1D6"})),
        ("too many requests", httpx.post(url + "v2/original_table", data={"table": "t\n1D6\n1:a\n2:b"})),
        ("unsupported game system", httpx.get(url + "v2/game_system/Nope/roll", params={"command": "1D6"})),
        ("unsupported command", httpx.get(url + "v2/game_system/GURPS/roll", params={"command": "hello"})),
        ("command too long", httpx.get(url + "v2/game_system/DiceBot/roll", params={"command": "1D6+" * 60 + "1"})),
        ("not found", httpx.get(url + "v2/nothing")),
        ("method not allowed", httpx.get(url + "v2/original_table")),
        ("method not allowed", httpx.request("DELETE", url + "v2/version")),
        ("method not allowed", httpx.request("OPTIONS", url + "v2/version")),
        ("request too large", httpx.post(url + "v2/original_table", content=b"table=" + b"x" * 20000)),
        ("host not allowed", httpx.get(url + "v2/version", headers={"host": f"evil.example:{port}"})),
        ("host not allowed", httpx.get(url + "v2/version", headers={"host": ""})),
        ("unauthorized", httpx.get(f"{base}/bcdice/{'A' * 43}/v2/version")),
        ("unauthorized", httpx.get(f"{base}/bcdice/short/v2/game_system/DiceBot/roll", params={"command": "1D6"})),
    ]
    gurps.run("invite", "revoke", "--bcdice", "aki-bot")
    found += [
        ("unauthorized", httpx.get(url + "v2/version")),
        ("unauthorized", httpx.get(url + "v2/game_system/DiceBot/roll", params={"command": "1D6"})),
        ("unauthorized", httpx.post(url + "v2/original_table", data={"table": "t\n1D6\n1:a"})),
    ]
    return found


def test_every_refusal_is_a_400_the_bot_does_not_post_with_its_url(bot):
    gurps, base, path, faces = bot
    before = gurps.json("history", "--limit", "1")[0]["seq"]
    secret = path.split("/")[2]
    for reason, answer in _refusals(gurps, base, path, faces):
        assert posted_into_chat(answer) is None, (reason, answer.status_code)
        assert answer.json() == {"ok": False, "reason": reason}, answer.request.url
        assert secret not in answer.text and answer.headers["access-control-allow-origin"] == "*"
    assert gurps.json("history", "--limit", "1")[0]["seq"] == before + 2  # only the two rolls that went through
    gurps.run("history", "verify")


def test_a_fault_of_the_server_is_a_400_too(bot, monkeypatch):
    gurps, base, path, faces = bot

    def broken(*args, **kwargs):
        raise RuntimeError("the database went away at " + path)

    monkeypatch.setattr("campaign.services.bridges.bcdice_api.holder_for", broken)
    answer = httpx.get(base + path + "v2/version")
    assert (answer.status_code, answer.json()) == (400, {"ok": False, "reason": "server error"})


def test_rotate_bot_replaces_the_token_in_one_step(bot):
    gurps, base, path, faces = bot
    made = gurps.json("invite", "rotate-bot", "aki-bot")
    assert set(made) >= {"name", "player", "character", "base_path"}
    assert (made["name"], made["player"], made["character"]) == ("aki-bot", "Aki", "鈴音")
    assert made["base_path"] != path and len(made["base_path"]) - len("/bcdice//") >= 43
    old = httpx.get(base + path + "v2/version")
    assert (old.status_code, old.json()) == (400, {"ok": False, "reason": "unauthorized"})
    faces[:] = [3, 4, 5]
    rolled = httpx.get(base + made["base_path"] + "v2/game_system/GURPS/roll", params={"command": "3D6<=12"})
    assert rolled.json()["text"] == "(3D6<=12) ＞ 12[3,4,5] ＞ 12 ＞ 成功(成功度：0)"
    entry = gurps.json("history", "show", str(rolled.json()["campaign_seq"]))
    assert (entry["actor"], entry["character"], entry["source"]) == ("Aki", "鈴音", "bcdice-api")
    assert gurps.run("invite", "list").stdout.count("aki-bot") == 2  # the revoked one and its successor
    # a second rotation ends the first successor; an unknown or already revoked name is refused
    again = gurps.json("invite", "rotate-bot", "aki-bot")
    assert httpx.get(base + made["base_path"] + "v2/version").json()["reason"] == "unauthorized"
    assert httpx.get(base + again["base_path"] + "v2/version").json()["api"] == "2.0.0"
    assert "no live BCDice-API token named 'nobody'" in gurps.error("invite", "rotate-bot", "nobody", code=1)
    gurps.run("invite", "revoke", "--bcdice", "aki-bot")
    assert "no live BCDice-API token named 'aki-bot'" in gurps.error("invite", "rotate-bot", "aki-bot", code=1)
    gurps.run("history", "verify")


def test_rotate_bot_follows_a_renamed_player(bot):
    gurps, base, path, faces = bot
    gurps.run("player", "rename", "Aki", "ａｋｉ")
    gurps.run("player", "add", "Aki")
    made = gurps.json("invite", "rotate-bot", "aki-bot")
    assert made["player"] == "ａｋｉ"
    faces[:] = [6]
    rolled = httpx.get(base + made["base_path"] + "v2/game_system/DiceBot/roll", params={"command": "1D6"}).json()
    assert gurps.json("history", "show", str(rolled["campaign_seq"]))["actor"] == "ａｋｉ"

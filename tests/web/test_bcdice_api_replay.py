"""bcdice-api's own v2 route tests and discord-bcdicebot's v2 requests, replayed.

The cases are data (tests/data/bcdice_api_replay.json, its "about" says what each field
means): the request as it goes on the wire, the server's dice for it, and what the real
server answers (status, fields and their types, the text for those dice, how many
ledger entries the roll writes). Over real HTTP, SQLite and PostgreSQL (the `bot`
fixture: the gurps party, a token for Aki's 鈴音, the test's fixed faces).
"""

from __future__ import annotations

import http.client
import json
import re
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest

import campaign.web.routes_bcdice as routes_bcdice
from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.web.test_bcdice_api import bot  # noqa: F401 (fixture)

CASES = json.loads((Path(__file__).parents[1] / "data" / "bcdice_api_replay.json").read_text("utf-8"))["cases"]
TYPES = {"bool": bool, "str": str, "list": list, "int": int, "dict": dict}


def send(base: str, method: str, target: str, form: dict | None) -> tuple[int, dict, dict]:
    """(status, JSON body, headers) for `target` put on the wire exactly as written."""
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    body = urlencode(form).encode("ascii") if form is not None else b""
    try:
        connection.putrequest(method, target, skip_accept_encoding=True)
        if method == "POST":
            connection.putheader("content-type", "application/x-www-form-urlencoded")
            connection.putheader("content-length", str(len(body)))
        connection.endheaders(body if method == "POST" else None)
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read()), {k.lower(): v for k, v in answer.getheaders()}
    finally:
        connection.close()


def head(cli: Cli) -> int:
    return cli.json("history", "--limit", "1")[0]["seq"]


def check(case: dict, status: int, document: dict, headers: dict) -> None:
    expect = case["expect"]
    assert status == expect["status"], document
    assert set(expect.get("has", [])) <= set(document)
    if "only" in expect:
        assert set(document) == set(expect["only"])
    for field, value in expect.get("equal", {}).items():
        assert document[field] == value, field
    for field, kind in expect.get("types", {}).items():
        assert isinstance(document[field], TYPES[kind]), field
    for field in expect.get("nonempty", []):
        assert document[field], field
    for field, prefix in expect.get("startswith", {}).items():
        assert document[field].startswith(prefix), field
    for field in expect.get("systems_have", []):
        assert all(isinstance(system[field], str) and system[field] for system in document["game_system"]), field
    if "lists" in expect:
        assert set(expect["lists"]) <= {system["id"] for system in document["game_system"]}
    if "finds" in expect or "misses" in expect:
        pattern = re.compile(document["command_pattern"], re.IGNORECASE)
        assert [c for c in expect.get("finds", []) if pattern.search(c) is None] == []
        assert [c for c in expect.get("misses", []) if pattern.search(c) is not None] == []
    if expect.get("cors"):
        assert headers["access-control-allow-origin"] == "*"
    if status == 200 and "rands" in document:
        assert all(set(die) == {"kind", "sides", "value"} for die in document["rands"])


def test_bcdice_api_v2_tests_and_discord_bcdicebot_requests_replayed(bot, monkeypatch):
    cli, base, path, faces, _client = bot
    monkeypatch.setattr(routes_bcdice, "BURST", 1000)  # one request after another, not a bot's burst
    assert {case["from"] for case in CASES} == {"bcdice-api v2", "discord-bcdicebot"}
    for case in CASES:
        faces[:] = case.get("faces", [])
        before = head(cli)
        status, document, headers = send(base, case["method"], path + case["target"], case.get("form"))
        try:
            check(case, status, document, headers)
        except AssertionError as failed:
            raise AssertionError(f"{case['from']}: {case['name']}: {failed}") from None
        assert faces == [], f"{case['name']}: dice left over"
        assert head(cli) - before == case["expect"]["records"], case["name"]
        if case["expect"]["records"] and "campaign_seq" in document:
            assert document["campaign_seq"] == before + 1
    assert cli.json("history", "verify")["ok"] is True


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_replay_covers_every_v2_route_and_every_bot_request(bot):
    """The fixture holds all eleven of bcdice-api's v2 route tests and the bot's seven kinds of request."""
    del bot
    names = {case["name"].split(" (")[0] for case in CASES if case["from"] == "bcdice-api v2"}
    assert names >= {
        "version",
        "game system list",
        "game system info",
        "dice roll",
        "dice roll with POST",
        "detailed rands",
        "unexpected game system",
        "unexpected command",
        "no command",
        "blank command",
        "original table",
    }
    bot_names = {case["name"].split(" (")[0].split(",")[0] for case in CASES if case["from"] == "discord-bcdicebot"}
    assert bot_names >= {"list", "set", "help", "plain", "secret", "repeat", "original table"}

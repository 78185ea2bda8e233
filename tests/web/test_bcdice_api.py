"""The BCDice-API v2 endpoint over real HTTP (uvicorn on 127.0.0.1), SQLite and PostgreSQL.

Driven the way discord-bcdicebot's v2 client starts (version, the game system list,
DiceBot's info) and then rolls with raw and encoded commands; every documented field
and its type is checked, every roll is found in the ledger with its dice, attributed
to the token's player or name, and `history verify` passes. The server's dice are the
test's fixed faces (tests.web.table_server.Faces), recorded as `bcdice-api`.
"""

from __future__ import annotations

import http.client
import re
from urllib.parse import urlsplit

import httpx
import pytest

import campaign.web.routes_bcdice as routes_bcdice
from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import served

FLAGS = ("secret", "success", "failure", "critical", "fumble")


def token(cli: Cli, name: str, *extra: str) -> str:
    made = cli.json("invite", name, "--bcdice", *extra)
    assert made["base_path"].startswith("/bcdice/") and made["base_path"].endswith("/")
    assert len(made["base_path"]) - len("/bcdice//") >= 43  # 256 bits, url-safe base64
    return made["base_path"]


def raw_get(base: str, target: str) -> tuple[int, dict]:
    """A request whose target goes on the wire exactly as written (`<=` unencoded)."""
    import json

    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.putrequest("GET", target, skip_accept_encoding=True)
        connection.endheaders()
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        connection.close()


def check_roll_document(document: dict) -> None:
    assert set(document) == {"ok", "text", *FLAGS, "rands", "campaign_seq"}
    assert document["ok"] is True and isinstance(document["text"], str)
    assert all(isinstance(document[flag], bool) for flag in FLAGS)
    assert isinstance(document["campaign_seq"], int)
    for die in document["rands"]:
        assert set(die) == {"kind", "sides", "value"} and die["kind"] == "normal"
        assert isinstance(die["sides"], int) and isinstance(die["value"], int) and 1 <= die["value"] <= die["sides"]


@pytest.fixture
def bot(gurps):
    """The gurps party served with fixed dice and a token for Aki's 鈴音."""
    faces: list[int] = []
    path = token(gurps, "aki-bot", "--player", "Aki", "--character", "鈴音")
    with served(gurps.db, faces) as base:
        with httpx.Client(base_url=base + path, timeout=30) as client:
            yield gurps, base, path, faces, client


def test_a_bot_session_as_discord_bcdicebot_makes_it(bot):
    cli, base, path, faces, client = bot
    version = client.get("v2/version")
    assert version.status_code == 200 and version.headers["content-type"] == "application/json"
    assert set(version.json()) == {"api", "bcdice"} and all(isinstance(v, str) for v in version.json().values())
    listed = client.get("v2/game_system").json()["game_system"]
    assert all(set(system) == {"id", "name", "sort_key"} for system in listed)
    assert [system["sort_key"] for system in listed] == sorted(system["sort_key"] for system in listed)
    assert {"DiceBot", "GURPS", "Campaign2D6"} <= {system["id"] for system in listed}
    info = client.get("v2/game_system/DiceBot").json()
    assert set(info) == {"ok", "id", "name", "sort_key", "command_pattern", "help_message"}
    assert info["ok"] is True and info["id"] == "DiceBot" and isinstance(info["help_message"], str)
    re.compile(info["command_pattern"], re.IGNORECASE)
    admin = client.get("v2/admin").json()
    assert admin == {"name": "", "url": "", "email": ""}

    # raw: `3D6<=12` on the wire as typed; encoded: as httpx (and the bot) encode it
    faces[:] = [2, 3, 5]
    status, raw = raw_get(base, f"{path}v2/game_system/GURPS/roll?command=3D6<=12")
    assert status == 200
    check_roll_document(raw)
    assert raw["text"] == "(3D6<=12) ＞ 10[2,3,5] ＞ 10 ＞ 成功(成功度：2)"
    assert (raw["success"], raw["failure"], raw["critical"], raw["fumble"], raw["secret"]) == (
        True,
        False,
        False,
        False,
        False,
    )
    assert [die["value"] for die in raw["rands"]] == [2, 3, 5]
    faces[:] = [6, 6, 5]
    encoded = client.get("v2/game_system/GURPS/roll", params={"command": "3D6<=12 回避"}).json()
    check_roll_document(encoded)
    assert encoded["text"] == "(3D6<=12) ＞ 17[6,6,5] ＞ 17 ＞ ファンブル(失敗度：-5)" and encoded["fumble"] is True
    faces[:] = [4, 1]
    status, plus = raw_get(base, f"{path}v2/game_system/DiceBot/roll?command=2D6+1")
    assert status == 200 and plus["text"] == "(2D6+1) ＞ 5[4,1]+1 ＞ 6"
    faces[:] = [1, 1, 2]
    posted = client.post("v2/game_system/GURPS/roll", data={"command": "S3D6<=12"}).json()
    check_roll_document(posted)
    assert posted["secret"] is True and posted["critical"] is True
    assert posted["text"] == "(3D6<=12) ＞ 4[1,1,2] ＞ 4 ＞ クリティカル(成功度：8)"
    faces[:] = [6, 4, 3]
    table = client.get("v2/game_system/GURPS/roll", params={"command": "CRT"}).json()
    check_roll_document(table)
    assert table["text"].startswith("クリティカル表(13) ＞ ") and len(table["text"]) > len("クリティカル表(13) ＞ ")

    seqs = [
        raw["campaign_seq"],
        encoded["campaign_seq"],
        plus["campaign_seq"],
        posted["campaign_seq"],
        table["campaign_seq"],
    ]
    entries = {entry["seq"]: entry for entry in cli.json("history", "--source", "bcdice-api", "--all")}
    assert sorted(entries) == sorted(seqs)
    for seq in seqs:
        entry = entries[seq]
        assert (entry["actor"], entry["character"], entry["source"]) == ("Aki", "鈴音", "bcdice-api")
        assert entry["detail"]["via"] == {"bcdice_token": 1, "token_name": "aki-bot", "integration": False}
    assert entries[raw["campaign_seq"]]["dice"] == [2, 3, 5]
    assert entries[encoded["campaign_seq"]]["reason"] == "回避"
    assert entries[table["campaign_seq"]]["dice"] == [6, 4, 3]
    secret = entries[posted["campaign_seq"]]  # the chain holds a secret roll's commitment, not its dice
    assert secret["detail"]["secret"]["commitment"] and secret["dice"] is None and secret["expression"] is None
    assert cli.json("history", "--source", "manual", "--all") == []
    assert "--source must be one of" in cli.error("history", "--source", "bcdice", code=2)
    assert cli.json("history", "verify")["ok"] is True
    page = httpx.get(f"{base}/history").text  # the web page marks where the dice came from
    assert page.count("⟨bcdice-api⟩") == 5 and "aki-bot" not in page
    assert "⟨bcdice-api⟩" in cli.run("history", "--limit", "1").stdout


def test_a_token_without_player_records_its_name_as_an_integration(gurps):
    path = token(gurps, "vtt-addon")
    faces = [3, 3]
    with served(gurps.db, faces) as base:
        answer = httpx.get(f"{base}{path}v2/game_system/DiceBot/roll", params={"command": "2D6"}).json()
    assert answer["text"] == "(2D6) ＞ 6[3,3] ＞ 6"
    entry = gurps.json("history", "show", str(answer["campaign_seq"]))
    assert (entry["actor"], entry["character"], entry["source"]) == ("vtt-addon", None, "bcdice-api")
    assert entry["detail"]["via"]["integration"] is True
    assert gurps.json("history", "--actor", "vtt-addon")[0]["seq"] == answer["campaign_seq"]


def test_errors_have_bcdice_api_shape_and_change_nothing(bot):
    cli, base, path, faces, client = bot
    before = cli.json("history", "--limit", "1")[0]["seq"]
    answer = client.get("v2/game_system/Nope/roll", params={"command": "2D6"})
    assert (answer.status_code, answer.json()) == (400, {"ok": False, "reason": "unsupported game system"})
    assert client.get("v2/game_system/Nope").status_code == 400
    for command in ("こんにちは", "hello 2D6", "", "CRT+1", "3D6<=", "2D6+", "1D0"):
        answer = client.get("v2/game_system/GURPS/roll", params={"command": command})
        assert (answer.status_code, answer.json()) == (400, {"ok": False, "reason": "unsupported command"}), command
    assert client.get("v2/game_system/DiceBot/roll", params={"command": "CRT"}).status_code == 400
    long = client.get("v2/game_system/DiceBot/roll", params={"command": "1D6+" * 60 + "1"})
    assert (long.status_code, long.json()) == (400, {"ok": False, "reason": "command too long"})
    for method in ("PUT", "DELETE", "PATCH", "OPTIONS"):
        refused = client.request(method, "v2/version")
        assert refused.status_code == 400 and refused.json() == {"ok": False, "reason": "method not allowed"}
        assert refused.headers["allow"] == "GET, HEAD, POST"
    assert client.get("v2/original_table").json() == {"ok": False, "reason": "method not allowed"}
    assert (client.get("v2/nothing").status_code, client.get("v2/nothing").json()["reason"]) == (400, "not found")
    unknown = httpx.get(f"{base}/bcdice/{'A' * 43}/v2/version")
    assert (unknown.status_code, unknown.json()) == (400, {"ok": False, "reason": "unauthorized"})
    assert cli.json("history", "--limit", "1")[0]["seq"] == before
    assert cli.json("invite", "revoke", "aki-bot")["bcdice_tokens"] == 1
    revoked = client.get("v2/version")
    assert (revoked.status_code, revoked.json()) == (400, {"ok": False, "reason": "unauthorized"})


def test_cors_on_these_routes_only_and_no_cookies(bot):
    _, base, path, faces, client = bot
    faces[:] = [1, 2]
    answer = client.get(
        "v2/game_system/DiceBot/roll", params={"command": "2D6"}, headers={"origin": "https://vtt.example"}
    )
    assert answer.headers["access-control-allow-origin"] == "*" and "set-cookie" not in answer.headers
    assert client.get("v2/version").headers["access-control-allow-origin"] == "*"
    assert httpx.get(f"{base}/bcdice/{'A' * 43}/v2/version").headers["access-control-allow-origin"] == "*"
    page = httpx.get(f"{base}/api/session", headers={"origin": "https://vtt.example"})
    assert "access-control-allow-origin" not in page.headers


def test_the_read_token_of_serve_does_not_lock_the_bots_out(gurps):
    path = token(gurps, "bot")
    with served(gurps.db, [5, 6], token="secret-read-token") as base:
        assert httpx.get(f"{base}/").status_code == 401
        answer = httpx.get(f"{base}{path}v2/game_system/DiceBot/roll", params={"command": "2D6"})
    assert answer.status_code == 200 and answer.json()["text"] == "(2D6) ＞ 11[5,6] ＞ 11"


def test_original_table_is_recorded_as_a_table_roll(bot):
    cli, base, path, faces, client = bot
    faces[:] = [3, 4]
    table = "飲み物表\n2D6\n" + "".join(f"{n}:飲み物{n}\n" for n in range(2, 13))
    answer = client.post("v2/original_table", data={"table": table})
    assert answer.status_code == 200
    document = answer.json()
    assert set(document) == {"ok", "text", "rands", "campaign_seq"}
    assert document["text"] == "飲み物表(7) ＞ 飲み物7"
    assert document["rands"] == [{"kind": "normal", "sides": 6, "value": 3}, {"kind": "normal", "sides": 6, "value": 4}]
    entry = cli.json("history", "show", str(document["campaign_seq"]))
    assert (entry["kind"], entry["dice"], entry["total"], entry["actor"], entry["source"]) == (
        "table",
        [3, 4],
        7,
        "Aki",
        "bcdice-api",
    )
    assert entry["detail"]["lines"] == ["7: 飲み物7"]
    faces[:] = [5, 2]
    d66 = client.post(
        "v2/original_table",
        data={"table": "T\nD66\n" + "".join(f"{a}{b}:r{a}{b}\n" for a in range(1, 7) for b in range(1, 7))},
    ).json()
    assert d66["text"] == "T(52) ＞ r52"
    bad = client.post("v2/original_table", data={"table": "only a title"})
    assert (bad.status_code, bad.json()) == (400, {"ok": False, "reason": "unsupported command"})
    assert cli.json("history", "verify")["ok"] is True


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_hit_answers_with_the_seeds_japanese_part(bot):
    """HIT's row: the part the seed names in both languages, in Japanese as BCDice says it."""
    _cli, _base, _path, faces, client = bot
    faces[:] = [1, 1, 2]
    answer = client.get("v2/game_system/GURPS/roll", params={"command": "HIT"}).json()
    check_roll_document(answer)
    assert " ＞ 頭 -7 頭蓋骨に防護点2。" in answer["text"] and "skull" not in answer["text"], answer["text"]


def test_rate_limit_per_token(bot, monkeypatch):
    _, base, path, faces, client = bot
    monkeypatch.setattr(routes_bcdice, "BURST", 3)
    monkeypatch.setattr(routes_bcdice, "RATE", 0.01)
    faces[:] = [1] * 40
    codes = [client.get("v2/game_system/DiceBot/roll", params={"command": "1D6"}).status_code for _ in range(5)]
    assert codes == [200, 200, 200, 400, 400]  # a bot prints the URL of any status but 200 and 400
    limited = client.get("v2/game_system/DiceBot/roll", params={"command": "1D6"})
    assert limited.json() == {"ok": False, "reason": "too many requests"} and limited.headers["retry-after"] == "1"


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_command_pattern_takes_every_command_and_no_chat(bot):
    import json
    from pathlib import Path

    _, _, _, faces, client = bot
    oracle = json.loads((Path(__file__).parents[1] / "data" / "bcdice_api_oracle.json").read_text("utf-8"))
    for system in ("GURPS", "DiceBot", "Campaign2D6"):
        pattern = re.compile(client.get(f"v2/game_system/{system}").json()["command_pattern"], re.IGNORECASE)
        accepted = ["2D6", "3d6<=12", "1D6+2", "2D6>=8 回避", "S2D6", "D66", "x3 2D6"[3:], "10D6", "2d6+1d4-1"]
        if system == "GURPS":
            accepted += [
                case["command"]
                for case in oracle["cases"]
                if case["system"] == "GURPS" and case["command"].split("+")[0].split("-")[0] not in ("HIT", "REACT")
            ]
            accepted += ["crt", "fear+5", "12-3d6", "S12-3D6 受け"]
        for command in accepted:
            assert pattern.match(command), (system, command)
        for chat in (
            "こんにちは",
            "hello",
            "3 people",
            "D&D",
            "Die Hard",
            "CRTで",
            "fearless",
            "ok 2D6",
            "http://x",
            "12-3",
            "Sよろしく",
        ):
            assert not pattern.match(chat), (system, chat)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_2d6_homebrew_campaign_answers_with_its_words(cli):
    cli.run("init", "卓2", "--ruleset", "2d6-ja")
    path = token(cli, "bot")
    with served(cli.db, [6, 6, 2, 3]) as base:
        good = httpx.get(f"{base}{path}v2/game_system/Campaign2D6/roll", params={"command": "2D6+3>=10"}).json()
        bad = httpx.get(f"{base}{path}v2/game_system/Campaign2D6/roll", params={"command": "2D6+3>=10"}).json()
    assert good["text"].startswith("(2D6+3>=10) ＞ 12[6,6]+3 ＞ 15 ＞ ") and good["success"] is True
    assert bad["text"] == "(2D6+3>=10) ＞ 5[2,3]+3 ＞ 8 ＞ 失敗" and bad["failure"] is True


@pytest.mark.slow
def test_twenty_bots_fifty_rolls_each_lose_nothing(gurps, monkeypatch):
    """20 clients (a token each) x 50 rolls at once: 1000 entries, each with its dice,
    a chain without gaps, `history verify` passing. OS dice here (ServerDice's RNG)."""
    import threading

    monkeypatch.setattr(routes_bcdice, "RATE", 1000.0)
    monkeypatch.setattr(routes_bcdice, "BURST", 1000)
    paths = [token(gurps, f"bot{n}") for n in range(20)]
    start = gurps.json("history", "--limit", "1")[0]["seq"]
    answers: dict[int, list[dict]] = {n: [] for n in range(20)}
    errors: list[str] = []
    with served(gurps.db) as base:
        gate = threading.Barrier(20)

        def client(n: int) -> None:
            with httpx.Client(base_url=base + paths[n], timeout=60) as http:
                gate.wait()
                for _ in range(50):
                    answer = http.get("v2/game_system/GURPS/roll", params={"command": "3D6<=12"})
                    if answer.status_code != 200:
                        errors.append(f"{answer.status_code} {answer.text[:100]}")
                        continue
                    answers[n].append(answer.json())

        threads = [threading.Thread(target=client, args=(n,)) for n in range(20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []
    made = {answer["campaign_seq"]: (n, answer) for n, each in answers.items() for answer in each}
    assert len(made) == 1000 and sorted(made) == list(range(start + 1, start + 1001))
    entries = gurps.json("history", "--source", "bcdice-api", "--all")
    assert len(entries) == 1000
    for entry in entries:
        n, answer = made[entry["seq"]]
        assert entry["actor"] == f"bot{n}" and entry["dice"] == [die["value"] for die in answer["rands"]]
        assert answer["text"].startswith(f"(3D6<=12) ＞ {sum(entry['dice'])}[")
    assert gurps.json("history", "verify")["ok"] is True


def test_token_refusals_change_nothing_and_the_token_is_stored_hashed(gurps):
    assert "is not a character of Aki" in gurps.error(
        "invite", "b", "--bcdice", "--player", "Aki", "--character", "刀矢", code=1
    )
    assert "no player named 'Bob'" in gurps.error("invite", "b", "--bcdice", "--player", "Bob", code=1)
    assert "go with --bcdice" in gurps.error("invite", "Aki", "--player", "Aki", code=2)
    assert "--gm does not go with --bcdice" in gurps.error("invite", "GM", "--gm", "--bcdice", code=2)
    assert "no open invite or session" in gurps.error("invite", "revoke", "b", code=1)
    path = token(gurps, "b", "--character", "刀矢")
    secret = path.removeprefix("/bcdice/").rstrip("/")
    if "://" not in gurps.db:  # SQLite: the whole file holds no trace of the token itself
        import sqlite3

        with sqlite3.connect(gurps.db) as raw:
            dump = "\n".join(raw.iterdump())
        assert secret not in dump and "bcdice_tokens" in dump
    assert "BCDice-API tokens" in gurps.run("invite", "list").stdout


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_admin_comes_from_the_servers_environment(gurps, monkeypatch):
    path = token(gurps, "b")
    monkeypatch.setenv("BCDICE_API_ADMIN_NAME", "卓のGM")
    monkeypatch.setenv("BCDICE_API_ADMIN_EMAIL", "gm@example.org")
    with served(gurps.db) as base:
        admin = httpx.get(f"{base}{path}v2/admin").json()
    assert admin == {"name": "卓のGM", "url": "", "email": "gm@example.org"}

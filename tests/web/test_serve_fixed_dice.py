"""`campaign serve --dice FACES`: a test's fixed dice through a real server. Every roll the
server makes takes the next faces, recorded as the CLI records --dice (`manual`, typed),
never as the server's dice and never as provable, even while a fair seed is open; every
page says so; and a server players could reach as a real table refuses the option."""

from __future__ import annotations

import httpx
import pytest

from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import Browser
from tests.web.test_serve import Server
from tests.web.test_table_server import head, invite

SHARE = "a1" * 32


@pytest.fixture
def served_with():
    started: list[Server] = []

    def start(db: str, *args: str) -> Server:
        started.append(Server(db, *args))
        return started[-1]

    yield start
    for server in started:
        server.stop()


def test_fixed_dice_are_typed_dice_even_with_a_fair_seed_open(gurps, served_with):
    commit = gurps.json("scenario", "start", "第一話", "--with", "鈴音", "--with", "刀矢", "--fair")["seed_commit"]
    server = served_with(gurps.db, "--dice", "1,2,3,6,6")
    assert server.first_line.startswith("http://127.0.0.1:")
    aki = Browser(server.first_line.rstrip("/"))
    try:
        assert aki.join(invite(gurps, "Aki")).status_code == 303
        page = aki.http.get("/")
        assert "Fixed dice for a test" in page.text  # every page says the dice are fixed
        rolled = aki.post("/api/rolls", {"command": "3D6<=12", "character": "鈴音", "share": SHARE})
        assert rolled.status_code == 201, rolled.text
        answer = rolled.json()
        assert (answer["dice"], answer["fairness"], answer["entries"][0]["fair"]) == ([1, 2, 3], "typed", None)
        shown = gurps.json("history", "show", str(answer["seq"]))
        assert (shown["actor"], shown["source"], shown["fairness"], shown["dice"]) == (
            "Aki",
            "manual",
            "typed",
            [1, 2, 3],
        )
        assert "fair" not in (shown["detail"] or {})
        # the next roll takes the faces left; when they run out, one line and nothing written
        assert aki.post("/api/rolls", {"command": "2D6", "character": "鈴音"}).json()["dice"] == [6, 6]
        before = head(gurps)
        short = aki.post("/api/rolls", {"command": "1D6", "character": "鈴音"})
        assert short.status_code == 400 and "--dice: not enough faces, need 1 more" in short.json()["error"]
        assert head(gurps) == before
    finally:
        aki.close()
        server.stop()
    err = server.proc.stderr.read()
    assert "fixed dice: every roll of this server takes the next of the 5 faces given" in err
    gurps.run("history", "verify")
    assert gurps.json("history", "show", str(commit["seq"]))["kind"] == "seed_commit"  # the seed stays open


REFUSED = (
    "error: --dice fixes every roll of the server, for tests: only on 127.0.0.1, without --host, --public-url "
    "(or the public_url setting), --tls-cert, --forwarded-allow-ips, --all or --campaigns"
)


@pytest.mark.parametrize(
    "args",
    [
        ["--host", "0.0.0.0"],
        ["--host", "192.0.2.7"],
        ["--public-url", "https://table.example/"],
        ["--forwarded-allow-ips", "10.0.0.1"],
        ["--all"],
        ["--campaigns", "テスト卓"],
    ],
)
def test_a_server_players_could_reach_refuses_fixed_dice(gurps, args):
    before = head(gurps)
    assert gurps.error("serve", "--port", "0", "--dice", "1,2,3", *args, code=2) == REFUSED
    assert head(gurps) == before


def test_the_public_url_setting_refuses_fixed_dice_too(gurps):
    gurps.run("settings", "public_url=https://table.example/")
    assert gurps.error("serve", "--port", "0", "--dice", "1,2,3", code=2) == REFUSED


def test_fixed_dice_refused_in_japanese(gurps):
    refused = gurps.error("--lang", "ja", "serve", "--port", "0", "--dice", "1", "--host", "0.0.0.0", code=2)
    assert refused == (
        "エラー: --dice はサーバーのすべての出目を固定するテスト用の指定です: 127.0.0.1 でだけ使え、--host、"
        "--public-url (設定 public_url も)、--tls-cert、--forwarded-allow-ips、--all、--campaigns とは併用できません"
    )


def test_a_served_page_without_fixed_dice_says_nothing_of_them(gurps, served_with):
    server = served_with(gurps.db)
    assert "Fixed dice for a test" not in httpx.get(server.first_line, timeout=30).text

"""No player, character or bot token may take a name that reads as the GM's (SQLite and
PostgreSQL): every place a name enters refuses every spelling of it, writing nothing;
names kept from before the rule are reported by `db check` with the command that
renames them, and those commands clear the report."""

from __future__ import annotations

import json

import pytest

from campaign.core.text_rule import is_reserved_name, name_key
from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)

pytestmark = pytest.mark.dialect

# The GM's actor name in the spellings a keyboard, an IME or a paste gives it.
GM_LIKE = ["GM", "gm", "Gm", "ＧＭ", "ｇｍ", "Ｇm", " gm ", "\u3000ＧＭ\u3000"]


@pytest.mark.parametrize("name", GM_LIKE)
def test_every_spelling_of_the_gm_is_reserved(name):
    assert name_key(name) == "gm" and is_reserved_name(name)


@pytest.mark.parametrize("name", ["GM2", "G M", "GMs", "ＧＭ卓", "Ｇ", "ＧＭＧＭ", "Aki"])
def test_names_that_only_contain_or_resemble_it_are_free(name):
    assert not is_reserved_name(name)


def _head(cli: Cli) -> int:
    return cli.json("history", "--limit", "1")[0]["seq"]


def _sheet_files(tmp_path, name: str) -> list[tuple[str, str]]:
    """The same sheet named `name` as each format `char import` reads: (path, format)."""
    csv_path = tmp_path / "sheet.csv"
    csv_path.write_text(f"name,player,cp,IQ\n{name},Aki,50,10\n", encoding="utf-8")
    json_path = tmp_path / "sheet.json"
    json_path.write_text(json.dumps({"characters": [{"name": name, "player": "Aki", "cp": 50}]}), encoding="utf-8")
    piece = tmp_path / "piece.json"
    piece.write_text(
        json.dumps({"kind": "character", "data": {"name": name, "memo": "CP: 50", "params": [], "status": []}}),
        encoding="utf-8",
    )
    return [(str(csv_path), "csv"), (str(json_path), "json"), (str(piece), "ccfolia")]


@pytest.mark.parametrize("name", GM_LIKE)
def test_every_place_a_name_enters_refuses_it_and_writes_nothing(gurps, tmp_path, name):
    before = _head(gurps)
    attempts = [
        ("player", "add", name),
        ("player", "rename", "Aki", name),
        ("char", "add", name, "--player", "Aki"),
        ("char", "add", name, "--npc"),
        ("char", "rename", "鈴音", name),
        ("invite", name, "--bcdice"),
        ("invite", name, "--bcdice", "--player", "Aki", "--character", "鈴音"),
        *(("char", "import", path, "--format", fmt) for path, fmt in _sheet_files(tmp_path, name)),
    ]
    for args in attempts:
        message = gurps.error(*args, code=2)
        assert "is reserved: it reads as the GM's actor name 'GM'" in message, (args, message)
    assert _head(gurps) == before
    assert gurps.json("invite", "list")["sessions"] == [] and "GM" not in gurps.run("invite", "list").stdout
    gurps.run("history", "verify")


def test_the_refusal_is_in_japanese_too(gurps):
    message = gurps.error("--lang", "ja", "player", "add", "ＧＭ", code=2)
    assert message == "エラー: プレイヤーの名前 'ＧＭ' は使えません: GM の記録名 'GM' と読めます"


def test_db_check_reports_names_from_before_the_rule_with_the_commands_that_fix_them(gurps, monkeypatch):
    import shlex

    import campaign.services.common as common

    assert gurps.json("db", "check") == {"ok": True, "reserved_names": []}
    with monkeypatch.context() as before_the_rule:  # as a version without the rule wrote them
        before_the_rule.setattr(common, "is_reserved_name", lambda name: False)
        gurps.run("player", "add", "ＧＭ")
        gurps.run("char", "add", " gm ", "--player", "ＧＭ")
        gurps.run("invite", "Gm", "--bcdice")
    gm_seat = gurps.json("invite", "GM", "--gm")["join_path"]
    report = gurps.json("db", "check", expect=1)
    fixes = {
        ("character", "gm"): "campaign -c 'テスト卓' char rename gm NEW_NAME",
        ("player", "ＧＭ"): "campaign -c 'テスト卓' player rename 'ＧＭ' NEW_NAME",
        ("token", "Gm"): "campaign -c 'テスト卓' invite revoke --bcdice Gm",
    }
    assert report == {
        "ok": False,
        "reserved_names": [
            {"campaign": "テスト卓", "kind": kind, "name": name, "fix": fix} for (kind, name), fix in fixes.items()
        ],
    }
    shown = gurps.run("db", "check", expect=1).stderr.splitlines()
    assert shown[0] == "テスト卓: character 'gm' reads as the GM's name; rename it: " + fixes["character", "gm"]
    for fix in fixes.values():
        gurps.run(*shlex.split(fix.replace("NEW_NAME", "Kei"))[1:])
    assert gurps.json("db", "check") == {"ok": True, "reserved_names": []}
    # the token went alone: the GM's own seat of the same name is still open
    assert [i["state"] for i in gurps.json("invite", "list")["invites"]] == ["pending"]
    assert gm_seat.startswith("/join/")
    gurps.run("history", "verify")


def test_a_seat_or_token_whose_actor_reads_as_the_gm_opens_nothing_until_renamed(gurps, monkeypatch):
    import httpx

    import campaign.services.common as common
    from tests.web.table_server import Browser, served

    with monkeypatch.context() as before_the_rule:
        before_the_rule.setattr(common, "is_reserved_name", lambda name: False)
        gurps.run("player", "add", "GM")
        bot = gurps.json("invite", "gm", "--bcdice")["base_path"]
        held = gurps.json("invite", "Ren-bot", "--bcdice", "--player", "GM")["base_path"]
    seat = gurps.json("invite", "GM")["join_path"]  # the player named GM, not the GM's seat
    with served(gurps.db, [1, 2, 3]) as base:
        browser = Browser(base)
        joined = browser.http.post(seat, data={"confirm": "1"}, headers={"origin": base})
        assert joined.status_code == 303  # the invite is used, but its seat opens nothing
        assert browser.http.get("/api/session").status_code == 401
        for path in (bot, held):
            refused = httpx.get(base + path + "v2/version")
            assert refused.json() == {"ok": False, "reason": "unauthorized"}
        gurps.run("player", "rename", "GM", "Kei")  # what `db check` says to run
        assert browser.http.get("/api/session").json()["player"] == "Kei"
        assert httpx.get(base + held + "v2/version").json()["api"] == "2.0.0"
        browser.close()

"""The BCDice-API endpoint speaks the forms BCDice's GURPS system takes, repeats as
BCDice lays them out, HEAD and query-string tables as the real server answers them.

Every expected text below is what the `bcdice` npm package (4.9.0 = BCDice 3.16.1)
answered for the same faces. Over real HTTP, SQLite and PostgreSQL (the `cli` fixture).
"""

from __future__ import annotations

import time

import pytest

from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.web.test_bcdice_api import bot  # noqa: F401 (fixture)

REPEAT_CASES = [
    (
        "x3 3D6<=12",
        [3, 4, 5, 1, 1, 1, 6, 6, 6],
        "#1\n(3D6<=12) ＞ 12[3,4,5] ＞ 12 ＞ 成功(成功度：0)\n\n#2\n(3D6<=12) ＞ 3[1,1,1] ＞ 3 ＞ "
        "クリティカル(成功度：9)\n\n#3\n(3D6<=12) ＞ 18[6,6,6] ＞ 18 ＞ ファンブル(失敗度：-6)",
        False,
    ),
    ("rep2 2D6", [3, 4, 5, 1], "#1\n(2D6) ＞ 7[3,4] ＞ 7\n\n#2\n(2D6) ＞ 6[5,1] ＞ 6", False),
    ("repeat2 D6", [3, 4], "#1\n(1D6) ＞ 3\n\n#2\n(1D6) ＞ 4", False),
    ("Sx2 2D6", [3, 4, 1, 1], "#1\n(2D6) ＞ 7[3,4] ＞ 7\n\n#2\n(2D6) ＞ 2[1,1] ＞ 2", True),
    ("x2 S2D6", [3, 4, 1, 1], "#1\n(2D6) ＞ 7[3,4] ＞ 7\n\n#2\n(2D6) ＞ 2[1,1] ＞ 2", True),
    ("X2 2D6 回避", [1, 2, 3, 4], "#1\n(2D6) ＞ 3[1,2] ＞ 3\n\n#2\n(2D6) ＞ 7[3,4] ＞ 7", False),
]


@pytest.mark.parametrize(("command", "dice", "text", "secret"), REPEAT_CASES)
def test_a_repeat_is_one_entry_a_roll_and_bcdice_s_text(bot, command, dice, text, secret):
    cli, _base, _path, faces, client = bot
    faces[:] = list(dice)
    answer = client.get("v2/game_system/GURPS/roll", params={"command": command})
    assert answer.status_code == 200, answer.text
    document = answer.json()
    assert document["text"] == text
    assert (document["secret"], document["success"], document["failure"], document["critical"]) == (
        secret,
        False,
        False,
        False,
    )
    assert [die["value"] for die in document["rands"]] == dice
    seqs = document["campaign_seqs"]
    assert len(seqs) == text.count("#") and seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    per_roll = len(dice) // len(seqs)
    for index, seq in enumerate(seqs):
        entry = cli.json("history", "show", str(seq))
        assert (entry["kind"], entry["actor"], entry["source"]) == ("roll", "Aki", "bcdice-api")
        if not secret:
            assert entry["dice"] == dice[index * per_roll : (index + 1) * per_roll]
    assert cli.json("history", "verify")["ok"] is True


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_repeat_count_over_the_limit_gets_bcdice_s_line_and_writes_nothing(bot):
    cli, _base, _path, faces, client = bot
    before = cli.json("history", "--limit", "1")[0]["seq"]
    faces[:] = [1] * 500
    for command in ("x101 2D6", "x0 2D6", "rep999 3D6<=12"):
        document = client.get("v2/game_system/GURPS/roll", params={"command": command}).json()
        assert document["text"] == "繰り返し回数は1以上、100以下としてください" and document["rands"] == []
    refused = client.get("v2/game_system/GURPS/roll", params={"command": "x2 ほげ"})
    assert (refused.status_code, refused.json()) == (400, {"ok": False, "reason": "unsupported command"})
    # `3 3D6<=12` is no BCDice command (a bot turns it into `repeat3` before sending)
    assert client.get("v2/game_system/GURPS/roll", params={"command": "3 3D6<=12"}).status_code == 400
    assert cli.json("history", "--limit", "1")[0]["seq"] == before


GURPS_FORMS = [
    ("12-3D", [3, 4, 5], "(3D6<=12) ＞ 12[3,4,5] ＞ 12 ＞ 成功(成功度：0)"),
    ("17-1-3D6", [3, 4, 5], "(3D6<=16) ＞ 12[3,4,5] ＞ 12 ＞ 成功(成功度：4)"),
    ("12+2-3D6", [3, 4, 5], "(3D6<=14) ＞ 12[3,4,5] ＞ 12 ＞ 成功(成功度：2)"),
    ("14-3D6-1", [3, 4, 5], "(3D6-1<=14) ＞ 12[3,4,5]-1 ＞ 11 ＞ 成功(成功度：3)"),
    ("10-3D6+2-1", [3, 4, 5], "(3D6+1<=10) ＞ 12[3,4,5]+1 ＞ 13 ＞ 失敗(失敗度：-3)"),
    ("S12-3D6", [3, 4, 5], "(3D6<=12) ＞ 12[3,4,5] ＞ 12 ＞ 成功(成功度：0)"),
    ("3D6<=(9+1)", [3, 4, 5], "(3D6<=10) ＞ 12[3,4,5] ＞ 12 ＞ 失敗(失敗度：-2)"),
    ("3D6<=12+2", [3, 4, 5], "(3D6<=14) ＞ 12[3,4,5] ＞ 12 ＞ 成功(成功度：2)"),
    ("3D6=<12", [3, 4, 5], "(3D6<=12) ＞ 12[3,4,5] ＞ 12 ＞ 成功(成功度：0)"),
    ("3D6<=17", [6, 6, 5], "(3D6<=17) ＞ 17[6,6,5] ＞ 17 ＞ 自動失敗(失敗度：0)"),
    ("(1D6*3)", [2], "((1D6*3)) ＞ (2[2]*3) ＞ 6"),
    ("1D6*3", [3], "(1D6*3) ＞ 3[3]*3 ＞ 9"),
    ("2D6/2+1", [3, 4], "(2D6/2+1) ＞ 7[3,4]/2+1 ＞ 4"),
    ("2D6-(1D6)", [3, 4, 5], "(2D6-(1D6)) ＞ 7[3,4]-(5[5]) ＞ 2"),
    ("-1D6+5", [3], "(-1D6+5) ＞ -3[3]+5 ＞ 2"),
    ("D6", [2], "(1D6) ＞ 2"),
    ("1D6KH1", [3], "(1D6KH1) ＞ 3[3] ＞ 3"),
    ("2D6KL1+3", [3, 4], "(2D6KL1+3) ＞ 3[3,4]+3 ＞ 6"),
    ("2D6+3>=10", [3, 4], "(2D6+3>=10) ＞ 7[3,4]+3 ＞ 10 ＞ 成功"),
    ("1D100<=87", [98], "(1D100<=87) ＞ 98 ＞ 失敗"),
    ("3D10<=12", [3, 4, 5], "(3D10<=12) ＞ 12[3,4,5] ＞ 12 ＞ 成功"),
    ("3D6!=12", [3, 4, 5], "(3D6<>12) ＞ 12[3,4,5] ＞ 12 ＞ 失敗"),
    ("3B6", [3, 4, 5], "(3B6) ＞ 3,4,5"),
    ("3B6>=4", [3, 4, 5], "(3B6>=4) ＞ 3,4,5 ＞ 成功数2"),
]


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_every_gurps_form_answers_as_bcdice_does(bot):
    _cli, _base, _path, faces, client = bot
    for number, (command, dice, text) in enumerate(GURPS_FORMS):
        if number >= 15:  # within the token's rate (a burst of 20, then 5 a second)
            time.sleep(0.21)
        faces[:] = list(dice)
        answer = client.get("v2/game_system/GURPS/roll", params={"command": command})
        assert answer.status_code == 200, (command, answer.text)
        assert answer.json()["text"] == text, command
        assert answer.json()["secret"] is command.startswith("S")


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_spell_fumble_table_and_no_secret_tables(bot):
    """MFMB is the seed's spell fumble table. A secret table roll (`SMFMB`, `SCRT`) is
    refused, writing nothing: the ledger keeps secrets for dice rolls only
    (docs/bcdice-compat.md)."""
    cli, _base, _path, faces, client = bot
    faces[:] = [3, 4, 5]
    document = client.get("v2/game_system/GURPS/roll", params={"command": "MFMB"}).json()
    assert document["text"] == "呪文ファンブル表(12) ＞ 弱々しく役に立たない効果だけが現れる。"
    assert document["secret"] is False
    assert cli.json("history", "show", str(document["campaign_seq"]))["detail"]["table"] == "MFMB"
    for command in ("SMFMB", "SCRT"):
        refused = client.get("v2/game_system/GURPS/roll", params={"command": command})
        assert (refused.status_code, refused.json()) == (400, {"ok": False, "reason": "unsupported command"})
    assert cli.json("history", "--limit", "1")[0]["seq"] == document["campaign_seq"]


def test_head_answers_200_and_rolls_nothing(bot):
    cli, base, path, faces, client = bot
    import httpx

    before = cli.json("history", "--limit", "1")[0]["seq"]
    for route in ("v2/version", "v2/game_system", "v2/game_system/GURPS", "v2/game_system/GURPS/roll?command=2D6"):
        answer = client.head(route)
        assert (answer.status_code, answer.content) == (200, b""), route
        assert answer.headers["access-control-allow-origin"] == "*"
    assert client.head("v2/nothing").status_code == 400
    assert httpx.head(f"{base}/bcdice/{'A' * 43}/v2/version").status_code == 400
    assert cli.json("history", "--limit", "1")[0]["seq"] == before


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_original_table_in_the_query_string(bot):
    cli, _base, _path, faces, client = bot
    faces[:] = [2, 6]
    table = "天気表\n2D6\n" + "".join(f"{n}:天気{n}\n" for n in range(2, 13))
    answer = client.post("v2/original_table", params={"table": table})
    assert answer.status_code == 200, answer.text
    assert answer.json()["text"] == "天気表(8) ＞ 天気8"
    assert cli.json("history", "show", str(answer.json()["campaign_seq"]))["detail"]["lines"] == ["8: 天気8"]

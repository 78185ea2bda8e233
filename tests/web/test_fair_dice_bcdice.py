"""A dice bot's BCDice-API roll while a seed is committed (SQLite and PostgreSQL): with a
`share` its dice are derived and `provable`, recomputed after the reveal; without one
they are the server's own (`server`, not derived); a bad share is refused and writes
nothing, and so is a share used before under the same seed;
a secret roll is never derived; an original table's dice are derived like a roll's."""

from __future__ import annotations

import httpx

from campaign.core.fair_dice import face_v2
from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import served
from tests.web.test_bcdice_api import check_roll_document, token
from tests.web.test_fair_dice_server import SHARE_A, SHARE_B, end_fair, start_fair


def _last(cli) -> dict:
    return cli.json("history", "--limit", "1")[0]


def test_bcdice_rolls_take_a_share_and_are_recomputed_after_the_reveal(gurps):
    path = token(gurps, "aki-bot", "--player", "Aki", "--character", "鈴音")
    commit = start_fair(gurps)
    with served(gurps.db) as base, httpx.Client(base_url=base + path, timeout=30) as bot:
        shared = bot.get("v2/game_system/GURPS/roll", params={"command": "3D6<=12 回避", "share": SHARE_A.upper()})
        plain = bot.get("v2/game_system/GURPS/roll", params={"command": "3D6<=12"})
        posted = bot.post("v2/game_system/GURPS/roll", data={"command": "2D6", "share": SHARE_B})
        before = _last(gurps)["seq"]
        for bad in ("abc", "zz" * 32, "a" * 63, "a1" * 16):
            refused = bot.get("v2/game_system/GURPS/roll", params={"command": "3D6", "share": bad})
            assert (refused.status_code, refused.json()) == (
                400,
                {"ok": False, "reason": "share: exactly 64 hex digits"},
            )
        reused = bot.get("v2/game_system/GURPS/roll", params={"command": "3D6", "share": SHARE_A})
        assert (reused.status_code, reused.json()) == (
            400,
            {"ok": False, "reason": "share already used"},
        )  # never a status the bot posts
        assert _last(gurps)["seq"] == before, "a refused share writes nothing"
        secret = bot.get("v2/game_system/GURPS/roll", params={"command": "S3D6<=12", "share": SHARE_A})
    for answer in (shared, plain, posted, secret):
        assert answer.status_code == 200, answer.text
        check_roll_document(answer.json())
    entries = {
        name: gurps.json("history", "show", str(answer.json()["campaign_seq"]))
        for name, answer in (("shared", shared), ("plain", plain), ("posted", posted), ("secret", secret))
    }
    assert entries["shared"]["fairness"] == "provable" and entries["shared"]["source"] == "bcdice-api"
    assert entries["shared"]["detail"]["fair"]["share"] == SHARE_A and entries["shared"]["reason"] == "回避"
    assert entries["posted"]["fairness"] == "provable" and entries["posted"]["detail"]["fair"]["share"] == SHARE_B
    assert entries["plain"]["fairness"] == "server" and "fair" not in entries["plain"]["detail"]
    assert entries["secret"]["fairness"] == "server" and "fair" not in entries["secret"]["detail"]
    seed = end_fair(gurps, commit)
    for name, share in (("shared", SHARE_A), ("posted", SHARE_B)):
        entry = entries[name]
        assert entry["dice"] == [face_v2(seed, share, i, 6) for i in range(len(entry["dice"]))], name
    rands = [die["value"] for die in shared.json()["rands"]]
    assert rands == entries["shared"]["dice"]
    report = gurps.json("history", "verify")
    assert report["ok"] and report["fair"]["checked"] == 2 and report["fair"]["pending"] == 0


def test_without_a_committed_seed_a_bcdice_roll_is_the_servers(gurps):
    path = token(gurps, "aki-bot", "--player", "Aki", "--character", "鈴音")
    with served(gurps.db) as base, httpx.Client(base_url=base + path, timeout=30) as bot:
        answer = bot.get("v2/game_system/GURPS/roll", params={"command": "3D6", "share": SHARE_A})
    entry = gurps.json("history", "show", str(answer.json()["campaign_seq"]))
    assert (entry["fairness"], entry["source"]) == ("server", "bcdice-api") and "fair" not in entry["detail"]


def test_an_original_table_with_a_share_is_provable(gurps):
    path = token(gurps, "aki-bot", "--player", "Aki", "--character", "鈴音")
    commit = start_fair(gurps)
    table = "飲み物表\nD66\n" + "".join(f"{a}{b}:飲み物{a}{b}\n" for a in range(1, 7) for b in range(1, 7))
    with served(gurps.db) as base, httpx.Client(base_url=base + path, timeout=30) as bot:
        answer = bot.post("v2/original_table", data={"table": table, "share": SHARE_A})
        before = _last(gurps)["seq"]
        refused = bot.post("v2/original_table", data={"table": table, "share": "12"})
        assert (refused.status_code, _last(gurps)["seq"]) == (400, before)
    assert answer.status_code == 200, answer.text
    entry = gurps.json("history", "show", str(answer.json()["campaign_seq"]))
    assert (entry["kind"], entry["fairness"], entry["detail"]["fair"]["share"]) == ("table", "provable", SHARE_A)
    seed = end_fair(gurps, commit)
    assert entry["dice"] == [face_v2(seed, SHARE_A, i, 6) for i in range(2)]
    a, b = entry["dice"]
    assert answer.json()["text"] == f"飲み物表({a}{b}) ＞ 飲み物{a}{b}"
    assert gurps.json("history", "verify")["fair"]["checked"] == 1


def test_a_repeat_with_a_share_is_one_request_every_roll_provable(gurps):
    """A repeat is one request: its share makes every roll of it, and it is spent once."""
    path = token(gurps, "aki-bot", "--player", "Aki", "--character", "鈴音")
    commit = start_fair(gurps)
    with served(gurps.db) as base, httpx.Client(base_url=base + path, timeout=30) as bot:
        answer = bot.get("v2/game_system/GURPS/roll", params={"command": "x3 3D6<=12", "share": SHARE_A})
        before = _last(gurps)["seq"]
        again = bot.get("v2/game_system/GURPS/roll", params={"command": "x2 3D6", "share": SHARE_A})
        assert (again.status_code, again.json()) == (400, {"ok": False, "reason": "share already used"})
        assert _last(gurps)["seq"] == before
    assert answer.status_code == 200, answer.text
    seqs = answer.json()["campaign_seqs"]
    entries = [gurps.json("history", "show", str(seq)) for seq in seqs]
    assert len(entries) == 3 and all(e["fairness"] == "provable" for e in entries)
    assert all(e["detail"]["fair"]["share"] == SHARE_A for e in entries)
    seed = end_fair(gurps, commit)
    dice = [face for entry in entries for face in entry["dice"]]
    assert dice == [face_v2(seed, SHARE_A, i, 6) for i in range(9)]
    assert [die["value"] for die in answer.json()["rands"]] == dice
    report = gurps.json("history", "verify")
    assert report["ok"] and report["fair"]["checked"] == 3 and report["fair"]["pending"] == 0

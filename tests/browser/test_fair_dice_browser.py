"""Provably fair dice in Debian's Chromium: a player's tap sends a share from
crypto.getRandomValues, the page labels the roll provably fair, and after `scenario end`
the page's own check (static/fair_check.js) recomputes its dice from the revealed seed,
and catches a die changed in a re-hashed chain."""

from __future__ import annotations

import json

import pytest

from campaign.core.fair_dice import face
from tests.browser.test_table_browser import _join
from tests.cli.conftest import Cli, gurps_setup
from tests.web.table_server import served

pytestmark = pytest.mark.slow


def test_a_tap_is_provably_fair_and_the_page_recomputes_it(browser, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    cli = gurps_setup(Cli(str(tmp_path / "table.db")))
    commit = cli.json("scenario", "start", "第一話", "--with", "鈴音", "--fair")["seed_commit"]
    with served(cli.db) as base:
        context, aki = _join(browser, base, cli.json("invite", "Aki")["join_path"])
        sent = []
        aki.on("request", lambda request: sent.append(request.post_data_json)
               if request.url.endswith("/api/rolls") else None)
        aki.click("#sheets .palette button >> nth=1")
        aki.wait_for_selector("#roll-result[data-outcome]:not([data-outcome=''])")
        assert "provably fair" in aki.text_content("#roll-result")
        share = sent[0]["share"]
        assert len(share) == 64 and int(share, 16) >= 0
        entry = cli.json("history", "--limit", "1")[0]
        assert entry["fairness"] == "provable" and entry["detail"]["fair"]["share"] == share
        assert aki.evaluate("fairCheck.checkChain()")["pending"] == 1
        seed = cli.json("scenario", "end")["seed_reveal"]["seed"]
        found = aki.evaluate("fairCheck.checkChain()")
        assert found == {"ok": True, "seq": None, "problem": None, "revealed": 1, "checked": 1, "pending": 0}
        sides = entry["detail"]["fair"]["draws"][0][0]
        assert entry["dice"] == [face(seed, entry["seq"], share, i, sides) for i in range(len(entry["dice"]))]
        # the page's check agrees with the docs' vectors, and catches a changed die
        seed_v = "a3f1c2e4b5d6978812345678abcdef0011223344556677889900aabbccddeeff"
        assert aki.evaluate(f"fairCheck.face('{seed_v}', 7, '0123456789abcdef0123456789abcdef', 0, 100)") == 25
        assert aki.evaluate(f"fairCheck.face('{seed_v}', 7, '0123456789abcdef0123456789abcdef', 4, 20)") == 18
        records = [json.loads(e["record"]) for e in aki.evaluate(
            "fetch('/api/chain').then(r => r.json())")["entries"]]
        forged = next(r for r in records if r["seq"] == entry["seq"])
        forged["dice"][0] = forged["dice"][0] % sides + 1
        forged["detail"]["fair"]["draws"][0][1] = forged["dice"][0]
        caught = aki.evaluate("records => fairCheck.checkRecords(records)", records)
        assert not caught["ok"] and caught["seq"] == entry["seq"] and "the die was changed" in caught["problem"]
        context.close()
    assert cli.json("history", "verify")["fair"]["checked"] == 1
    assert commit["seq"] < entry["seq"]

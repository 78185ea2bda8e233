"""Provably fair dice in Debian's Chromium: a player's tap sends a share from
crypto.getRandomValues, the page labels the roll provably fair, and after `scenario end`
the page's own check (static/fair_check.js) recomputes its dice from the revealed seed,
and catches a die changed in a re-hashed chain."""

from __future__ import annotations

import json

import pytest

from campaign.core.fair_dice import face_v2
from tests.browser.test_table_browser import _join
from tests.cli.conftest import Cli, gurps_setup
from tests.web.table_server import served

pytestmark = pytest.mark.slow

DRAWN = """(() => {
  const draw = crypto.getRandomValues.bind(crypto);
  window.__drawn = [];
  crypto.getRandomValues = (array) => {
    const filled = draw(array);
    window.__drawn.push(Array.from(filled, (b) => b.toString(16).padStart(2, "0")).join(""));
    return filled;
  };
})();"""


def test_a_tap_is_provably_fair_and_the_page_recomputes_it(browser, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    cli = gurps_setup(Cli(str(tmp_path / "table.db")))
    commit = cli.json("scenario", "start", "第一話", "--with", "鈴音", "--fair")["seed_commit"]
    with served(cli.db) as base:
        context, aki = _join(browser, base, cli.json("invite", "Aki")["join_path"])
        aki.add_init_script(DRAWN)  # what crypto.getRandomValues gives the page, recorded
        aki.reload()
        aki.wait_for_selector("#sheets .palette button >> nth=1")
        sent = []
        aki.on(
            "request",
            lambda request: sent.append(request.post_data_json) if request.url.endswith("/api/rolls") else None,
        )
        aki.click("#sheets .palette button >> nth=1")
        aki.wait_for_selector("#roll-result[data-outcome]:not([data-outcome=''])")
        assert "provably fair" in aki.text_content("#roll-result")
        share = sent[0]["share"]
        assert len(share) == 64 and int(share, 16) >= 0
        drawn = aki.evaluate("window.__drawn")
        assert share in {a + b for a, b in zip(drawn, drawn[1:])}, "the share is the browser's own random bytes"
        entry = cli.json("history", "--limit", "1")[0]
        assert entry["fairness"] == "provable" and entry["detail"]["fair"]["share"] == share
        assert aki.evaluate("fairCheck.checkChain()")["pending"] == 1
        seed = cli.json("scenario", "end")["seed_reveal"]["seed"]
        found = aki.evaluate("fairCheck.checkChain()")
        assert found == {
            "ok": True,
            "seq": None,
            "problem": None,
            "revealed": 1,
            "checked": 1,
            "pending": 0,
            "abandoned": 0,
            "lost": [],
        }
        sides = entry["detail"]["fair"]["draws"][0][0]
        start = entry["detail"]["fair"]["from"]
        assert entry["dice"] == [face_v2(seed, share, start + i, sides) for i in range(len(entry["dice"]))]
        # the page's check agrees with the docs' vectors, and catches a changed die
        seed_v = "a3f1c2e4b5d6978812345678abcdef0011223344556677889900aabbccddeeff"
        assert aki.evaluate(f"fairCheck.face('{seed_v}', 7, '0123456789abcdef0123456789abcdef', 0, 100)") == 25
        assert aki.evaluate(f"fairCheck.face('{seed_v}', 7, '0123456789abcdef0123456789abcdef', 4, 20)") == 18
        records = [json.loads(e["record"]) for e in aki.evaluate("fetch('/api/chain').then(r => r.json())")["entries"]]
        forged = next(r for r in records if r["seq"] == entry["seq"])
        forged["dice"][0] = forged["dice"][0] % sides + 1
        forged["detail"]["fair"]["draws"][0][1] = forged["dice"][0]
        caught = aki.evaluate("records => fairCheck.checkRecords(records)", records)
        assert not caught["ok"] and caught["seq"] == entry["seq"] and "the die was changed" in caught["problem"]
        context.close()
    assert cli.json("history", "verify")["fair"]["checked"] == 1
    assert commit["seq"] < entry["seq"]


def _chain_rows(db: str) -> dict[int, dict]:
    from tests.integration.rawdb import raw_connection

    with raw_connection(db) as conn:
        rows = conn.execute("SELECT seq, prev_hash, hash, record FROM ledger ORDER BY seq").fetchall()
    return {
        seq: {"seq": seq, "prev_hash": prev, "hash": digest, "record": record} for seq, prev, digest, record in rows
    }


def _forged(rows: dict[int, dict], change) -> dict[int, dict]:
    """The chain with `change(record)` applied to every record, re-hashed from the genesis on."""
    from campaign.ledger import canonical_json, chain_hash

    forged, prev = {}, None
    for seq in sorted(rows):
        record = json.loads(rows[seq]["record"])
        change(record)
        text = canonical_json(record)
        prev = rows[seq]["prev_hash"] if prev is None else prev
        forged[seq] = {"seq": seq, "prev_hash": prev, "hash": chain_hash(prev, text), "record": text}
        prev = forged[seq]["hash"]
    return forged


def _serve_forged(page, forged: dict[int, dict]) -> None:
    """Every /api/chain page the browser asks for, answered with the forged entries."""

    def answer(route):
        response = route.fetch()
        data = response.json()
        data["entries"] = [forged[entry["seq"]] for entry in data["entries"]]
        route.fulfill(response=response, json=data)

    page.route("**/api/chain*", answer)


def test_fudges_served_to_the_page_are_caught_and_a_rewritten_seed_is_warned_of(browser, tmp_path, monkeypatch):
    """The four fudges (a changed die, a changed share, a swapped seed, a seed revealed for
    the wrong commitment) in a chain re-hashed end to end and served to the page: the
    table page's own check and the verify panel both name the entry. A history rewritten
    with a new seed whose dice all recompute passes the fair check, and the page warns
    that the commitment and seal head it was shown are gone."""
    from campaign.core.fair_dice import new_seed, seed_commitment
    from campaign.core.success import judge_success
    from tests.browser.test_web_browser import verify

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    cli = gurps_setup(Cli(str(tmp_path / "table.db")))
    commit = cli.json("scenario", "start", "第一話", "--with", "鈴音", "--fair")["seed_commit"]
    with served(cli.db) as base:
        context, aki = _join(browser, base, cli.json("invite", "Aki")["join_path"])
        aki.wait_for_selector("#fair-status[data-status='ok']")
        aki.click("#sheets .palette button >> nth=1")
        aki.wait_for_selector("#roll-result[data-outcome]:not([data-outcome=''])")
        entry = cli.json("history", "--limit", "1")[0]
        seq, sides = entry["seq"], entry["detail"]["fair"]["draws"][0][0]
        cli.json("scenario", "end")
        reveal_seq = cli.json("history", "--limit", "1")[0]["seq"]
        second = cli.json("scenario", "start", "第二話", "--with", "鈴音", "--fair")["seed_commit"]
        other_seed = cli.json("scenario", "end")["seed_reveal"]["seed"]
        seal = cli.json("history", "seal")
        aki.reload()
        aki.wait_for_selector("#fair-status[data-status='ok'][data-checked='1']")
        assert "provably fair: 1 entries recomputed in this browser" in aki.text_content("#fair-status")
        assert aki.text_content("#announce") == ""  # an "ok" verdict, unchanged: nothing read out
        shown = aki.wait_for_selector(f"#latest-list li:has(a[href='/entries/{seq}'])")
        assert "provably fair" in shown.text_content()
        rows = _chain_rows(cli.db)

        def at(target, edit):
            return lambda record: edit(record) if record["seq"] == target else None

        def fudge(record):
            record["dice"][0] = record["dice"][0] % sides + 1
            record["detail"]["fair"]["draws"][0][1] = record["dice"][0]

        def wrong_commitment(record):
            record["detail"].update(seed=other_seed, commitment=second["commitment"])

        cases = [
            ("fudged die", seq, at(seq, fudge), f"entry #{seq}: die 1 (d{sides}) shows"),
            (
                "changed share",
                seq,
                at(seq, lambda r: r["detail"]["fair"].update(share="c3" * 32)),
                "the die was changed",
            ),
            (
                "swapped seed",
                reveal_seq,
                at(reveal_seq, lambda r: r["detail"].update(seed="0" * 64)),
                f"does not match commitment #{commit['seq']}: the seed was swapped",
            ),
            (
                "wrong commitment",
                reveal_seq,
                at(reveal_seq, wrong_commitment),
                f"does not match commitment #{commit['seq']}: the seed was swapped",
            ),
        ]
        for name, target, change, words in cases:
            forged = _forged(rows, change)
            _serve_forged(aki, forged)
            found = aki.evaluate("fairCheck.checkChain()")
            assert (found["ok"], found["seq"]) == (False, target) and words in found["problem"], (name, found)
            assert {"kind": "seal", "seq": seal["seq"], "value": seal["head"]} in found["lost"], name
            aki.goto(base + "/history")
            got = verify(aki, forged[seal["seq"]]["hash"])  # the forged chain's own seal: only the dice tell
            assert (got["status"], got["code"], got["seq"]) == ("fail", "unfair", str(target)), (name, got)
            assert f"verification failed: fair dice: {words}" in got["text"] or words in got["text"], (name, got)
            aki.unroute_all(behavior="wait")  # the forged chain; a fetch still in its handler ends first

        # A rewritten history with a new seed: every die recomputes, but not what the page saw.
        seed = new_seed()

        def new_history(record):
            detail = record.get("detail") or {}
            if record["seq"] == commit["seq"]:
                detail["commitment"] = seed_commitment(seed)
            if record["seq"] == reveal_seq:
                detail.update(seed=seed, commitment=seed_commitment(seed))
            if record["seq"] == seq:
                fair, old_raw = detail["fair"], sum(record["dice"])
                record["dice"] = [
                    face_v2(seed, fair["share"], fair["from"] + i, s) for i, (s, _) in enumerate(fair["draws"])
                ]
                fair["draws"] = [[s, f] for (s, _), f in zip(fair["draws"], record["dice"])]
                # and the roll's total and outcome recomputed from the new dice, as a careful forger would
                record["total"] += sum(record["dice"]) - old_raw
                if record["target"] is not None:
                    judged = judge_success(sum(record["dice"]), record["total"], record["target"])
                    record["outcome"], record["margin"] = judged.outcome, judged.margin

        forged = _forged(rows, new_history)
        _serve_forged(aki, forged)
        found = aki.evaluate("fairCheck.checkChain()")
        assert found["ok"] and found["checked"] == 2 - 1, found
        assert {"kind": "seed_commit", "seq": commit["seq"], "value": commit["commitment"]} in found["lost"]
        assert {"kind": "seal", "seq": seal["seq"], "value": seal["head"]} in found["lost"]
        aki.goto(base + "/history")
        got = verify(aki, forged[seal["seq"]]["hash"])
        assert (got["status"], got["code"], got["warning"]) == ("warn", "ok", "shown-missing"), got
        assert f"seed commitment #{commit['seq']} ({commit['commitment'][:16]}…)" in got["text"]
        assert "is not in this chain: the history was rewritten" in got["text"]
        aki.goto(base + "/")
        aki.wait_for_selector("#fair-status[data-warning='shown-missing']")
        # the verdict changed (a warning at first sight): read out once in the polite region
        assert aki.text_content("#announce").count("is not in this chain") == 1
        aki.unroute_all(behavior="wait")  # the forged chain; a fetch still in its handler ends first
        aki.reload()  # the real chain again: nothing lost, nothing to warn of
        aki.wait_for_selector("#fair-status[data-status='ok'][data-checked='1']")
        context.close()

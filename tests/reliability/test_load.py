"""Load: 8 processes x 200 mixed commands against one campaign, on SQLite and PostgreSQL.

Rolls, fright checks and trait add/rename/remove, most through the services in a
loop, every 50th through the real `campaign` executable. Afterwards the ledger holds
exactly 1600 command entries (plus the fright checks' sub-entries), seq is gapless,
`history verify` passes, every command a worker saw succeed is in the ledger under its
actor, the tables hold exactly what the ledger says was applied, and no worker saw
"database is locked" or any other error.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from campaign.db.database import Database
from campaign.services.campaigns import setup as campaigns
from campaign.services.characters import roster as characters
from tests.reliability import support
from tests.reliability.worker import CAMPAIGN_BIN

WORKERS = 8
COMMANDS_EACH = 200
CLI_EVERY = 50
CAMPAIGN = "負荷試験"
WORKER = Path(__file__).with_name("worker.py")
STATS = {"Will": 11, "IQ": 11, "HT": 11, "FP": 11, "HP": 11}


def _cli_ops() -> str:
    ops = ["roll"]
    if support.cli_has("fright"):
        ops.append("fright")
    if support.cli_has("trait", "add") and support.cli_has("trait", "rename") and support.cli_has("trait", "remove"):
        ops.append("trait")
    return ",".join(ops)


def _setup(db_url: str) -> int:
    db = Database(db_url)
    campaigns.create_campaign(db, CAMPAIGN, "gurps3-ja", "GM")
    characters.add_player(db, CAMPAIGN, "Aki", "GM")
    characters.add_character(db, CAMPAIGN, "共有", "GM", player="Aki", stats=STATS, cp=100)
    for n in range(WORKERS):
        characters.add_character(db, CAMPAIGN, f"W{n}", "GM", player="Aki", stats=STATS, cp=100)
    head = support.ledger_rows(db, CAMPAIGN)[-1]["seq"]
    db.close()
    return head


def _cli(db_url: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CAMPAIGN_BIN, "--db", db_url, "--campaign", CAMPAIGN, *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow
def test_eight_processes_two_hundred_mixed_commands_each(db_url, tmp_path):
    setup_head = _setup(db_url)
    go = tmp_path / "go"
    cli_ops = _cli_ops()
    started = time.monotonic()
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(WORKER),
                "load",
                db_url,
                CAMPAIGN,
                str(n),
                str(COMMANDS_EACH),
                "7",
                str(go),
                str(CLI_EVERY),
                cli_ops,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(WORKERS)
    ]
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"go.ready{n}").exists() for n in range(WORKERS)):
        assert time.monotonic() < deadline, "workers did not start"
        assert all(p.poll() is None for p in procs), [p.communicate() for p in procs if p.poll() is not None]
        time.sleep(0.02)
    go.touch()  # all at once: maximum contention
    results: dict[str, list[dict]] = {}
    for n, proc in enumerate(procs):
        out, err = proc.communicate(timeout=900)
        assert "database is locked" not in err
        assert proc.returncode == 0 and err == "", f"worker {n}:\n{err[-3000:]}"
        results[f"w{n}"] = [json.loads(line) for line in out.splitlines()]
    elapsed = time.monotonic() - started

    # Every command each worker saw succeed, and nothing else.
    assert {actor: len(done) for actor, done in results.items()} == {f"w{n}": COMMANDS_EACH for n in range(WORKERS)}
    db = Database(db_url)
    rows = support.ledger_rows(db, CAMPAIGN)
    assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1)), "seq has gaps"
    by_seq = {r["seq"]: r for r in rows}
    commands = [r for r in rows if r["seq"] > setup_head and r["parent_seq"] is None]
    subs = [r for r in rows if r["parent_seq"] is not None]
    assert len(commands) == WORKERS * COMMANDS_EACH
    assert all(r["seq"] > setup_head for r in subs)
    for actor, done in results.items():
        for result in done:
            entry = by_seq[result["seq"]]
            assert (entry["actor"], entry["kind"], entry["parent_seq"]) == (actor, result["op"], None), result
            children = [s for s in subs if s["parent_seq"] == result["seq"]]
            assert len(children) == result["subs"], result
            assert all(c["actor"] == actor and c["kind"] == result["op"] for c in children)
    assert len(subs) == sum(r["subs"] for done in results.values() for r in done)
    assert sorted(r["seq"] for done in results.values() for r in done) == sorted(r["seq"] for r in commands)

    # The chain, through the real entry point.
    verified = _cli(db_url, "history", "verify", "--json")
    assert verified.returncode == 0 and json.loads(verified.stdout)["entries"] == len(rows), verified.stderr

    # State equals what the ledger says was applied; `char show --json` shows that state.
    state = support.assert_state_matches_ledger(db, CAMPAIGN)
    for name, expected in state["characters"].items():
        shown = _cli(db_url, "char", "show", name, "--json")
        assert shown.returncode == 0, shown.stderr
        view = json.loads(shown.stdout)
        assert view["cp_total"] == expected["cp_total"] and view["stats"] == expected["stats"]
        assert {p: v["current"] for p, v in view["pools"].items()} == {
            p: expected["pools"].get(p, expected["stats"][p]) for p in ("FP", "HP") if p in expected["stats"]
        }
        active = sorted((t["origin"], t["name"], t["cp"]) for t in view["traits"])
        assert active == sorted(
            (key.split("/", 1)[1], t["name"], t["cp"])
            for key, t in state["traits"].items()
            if key.startswith(name + "/") and t["removed_seq"] is None
        )
        conditions = sorted(c["origin"] for c in view["conditions"])
        assert conditions == sorted(
            key.split("/", 1)[1]
            for key, c in state["conditions"].items()
            if key.startswith(name + "/") and c["cleared_seq"] is None
        )
    db.close()
    ops = {}
    for done in results.values():
        for result in done:
            key = f"{result['op']} via {result['via']}"
            ops[key] = ops.get(key, 0) + 1
    support.record(
        "load",
        support.backend_of(db_url),
        processes=WORKERS,
        commands=len(commands),
        sub_entries=len(subs),
        entries=len(rows),
        seconds=round(elapsed, 1),
        cli_ops=cli_ops,
        by_op=dict(sorted(ops.items())),
        errors=0,
    )

"""Concurrent writers never fork or gap the chain (real processes, SQLite and PostgreSQL)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from campaign.db.database import Database
from campaign.services.campaigns import setup as campaigns
from campaign.services.ledger import history

pytestmark = [pytest.mark.slow, pytest.mark.dialect]

WORKERS = 8
ROLLS_EACH = 100

WORKER = textwrap.dedent("""
    import sys
    from campaign.core.dice_source import SeededDice
    from campaign.db.database import Database
    from campaign.services.checks.rolls import roll

    db = Database(sys.argv[1])
    worker = int(sys.argv[2])
    for i in range(int(sys.argv[3])):
        roll(db, "race", f"worker{worker}", "3D6<=10", SeededDice(worker * 1000 + i), reason=f"{worker}-{i}")
""")


def test_parallel_appends_keep_one_gapless_chain(db_url, tmp_path):
    db = Database(db_url)
    campaigns.create_campaign(db, "race", "gurps3-ja", "GM")
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), db_url, str(n), str(ROLLS_EACH)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(WORKERS)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0 and err == "", err
    report = history.verify(db, "race")
    assert report.ok, report
    assert report.entries == 1 + WORKERS * ROLLS_EACH
    entries = list(history.iter_history(db, "race", history.HistoryFilter(kind="roll", limit=None)))
    assert sorted(e["seq"] for e in entries) == list(range(2, 2 + WORKERS * ROLLS_EACH))
    per_worker = {f"worker{n}": 0 for n in range(WORKERS)}
    for entry in entries:
        per_worker[entry["actor"]] += 1
    assert set(per_worker.values()) == {ROLLS_EACH}

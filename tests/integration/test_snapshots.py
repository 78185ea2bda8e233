"""PostgreSQL correctness under concurrency (real processes; SQLite runs the same checks):
no lost settings update, exports that are one snapshot, serialized first-use migration."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap

import pytest

from campaign import ledger
from campaign.db.database import Database
from campaign.db.migrate import HEAD_REVISION
from campaign.services import common
from campaign.services.campaigns import setup as campaigns
from campaign.services.characters import roster as characters
from campaign.services.ledger import history, transfer
from tests.reliability import support
from tests.reliability.worker import CAMPAIGN_BIN

pytestmark = pytest.mark.dialect

ROUNDS = 40

SETTER = textwrap.dedent("""
    import sys
    from campaign.db.database import Database
    from campaign.services.campaigns.setup import settings

    db = Database(sys.argv[1])
    which, rounds = sys.argv[2], int(sys.argv[3])
    for i in range(rounds):
        if which == "criticals":
            settings(db, "卓", "A", {"criticals": "true" if i % 2 else "false"})
        else:
            settings(db, "卓", "B", {"default_stats": f"心{i},技,体"})
""")


@pytest.mark.slow
def test_concurrent_settings_lose_no_update(db_url):
    db = Database(db_url)
    campaigns.create_campaign(db, "卓", "2d6-ja", "GM", fair=False)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", SETTER, db_url, which, str(ROUNDS)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for which in ("criticals", "default_stats")
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
    final = campaigns.settings(db, "卓", "GM").settings
    assert final == {"criticals": (ROUNDS - 1) % 2 == 1, "default_stats": [f"心{ROUNDS - 1}", "技", "体"]}
    # The ledger agrees, entry by entry: each change starts from what the previous left.
    replay = {"criticals": True, "default_stats": ["心", "技", "体"]}
    entries = list(history.iter_history(db, "卓", history.HistoryFilter(kind="setting", limit=None)))
    assert len(entries) == 2 * ROUNDS
    for entry in sorted(entries, key=lambda e: e["seq"]):
        for key, change in entry["detail"]["changes"].items():
            assert change["before"] == replay[key], (entry["seq"], key, change, replay[key])
            replay[key] = change["after"]
    assert replay == final
    support.record(
        "concurrency", support.backend_of(db_url), settings_writers=2, settings_changes=2 * ROUNDS, lost_updates=0
    )
    db.close()


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_taking_the_lock_reads_settings_another_writer_committed(db_url):
    """The race above, made to happen every time: a writer reads the campaign, another
    commits a setting, and only then does the first take the lock. On SQLite the first
    writer's BEGIN IMMEDIATE already shuts the second out, so the case is PostgreSQL's."""
    db = Database(db_url)
    other = Database(db_url)
    campaigns.create_campaign(db, "卓", "2d6-ja", "GM", fair=False)
    with db.write() as session:
        campaign = common.campaign_named(session, "卓")
        assert campaign.settings["criticals"] is True
        campaigns.settings(other, "卓", "B", {"criticals": "false"})
        ledger.lock_campaign(session, campaign.id)
        assert campaign.settings["criticals"] is False
    db.close()
    other.close()


WRITER = textwrap.dedent("""
    import sys
    from campaign.core.dice_source import SeededDice
    from campaign.db.database import Database
    from campaign.services.checks.rolls import roll
    from campaign.services.characters.traits import add_trait

    db = Database(sys.argv[1])
    for i in range(int(sys.argv[2])):
        add_trait(db, "卓", "W", "鈴音", f"癖{i}", -1)
        roll(db, "卓", "W", "3D6", SeededDice(i))
""")


def _check_export(text: str) -> int:
    lines = [json.loads(line) for line in text.splitlines()]
    footer = lines[-1]
    assert footer["type"] == "footer"
    entries = [
        json.loads(line["record"]) if isinstance(line["record"], str) else line["record"]
        for line in lines
        if line["type"] == "entry"
    ]
    assert len(entries) == footer["entries"]
    traits = [line for line in lines if line["type"] == "trait"]
    assert all(t["source_seq"] <= footer["entries"] for t in traits)
    trait_entries = [e for e in entries if e["kind"] == "trait"]
    assert len(traits) == len(trait_entries)
    (suzune,) = [line for line in lines if line["type"] == "character" and line["name"] == "鈴音"]
    assert suzune["cp_total"] == 100 - len(trait_entries)
    return footer["entries"]


@pytest.mark.slow
def test_export_is_one_snapshot_under_a_concurrent_writer(db_url):
    db = Database(db_url)
    campaigns.create_campaign(db, "卓", "gurps3-ja", "GM")
    characters.add_character(db, "卓", "鈴音", "GM", npc=True, cp=100)
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, db_url, "150"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    seen = []
    try:
        while writer.poll() is None:
            out = io.StringIO()
            transfer.export_campaign(db, "卓", out)
            seen.append(_check_export(out.getvalue()))
    finally:
        _, err = writer.communicate(timeout=600)
    assert writer.returncode == 0, err
    assert len(seen) >= 5 and len(set(seen)) >= 3, seen  # the exports really overlapped the writes
    support.record(
        "concurrency",
        support.backend_of(db_url),
        exports=len(seen),
        exports_consistent=len(seen),
        export_heads=len(set(seen)),
    )
    db.close()


@pytest.mark.postgres
@pytest.mark.slow
def test_first_uses_of_a_blank_postgres_database_all_succeed(pg_cluster):
    for round_ in range(4):
        url = pg_cluster.create_database(f"blank_first_use_{round_}")
        procs = [
            subprocess.Popen(
                [CAMPAIGN_BIN, "--db", url, "list", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            for _ in range(4)
        ]
        for proc in procs:
            out, err = proc.communicate(timeout=300)
            assert proc.returncode == 0 and json.loads(out) == [], err
        db = Database(url)
        with db.read() as session:
            from sqlalchemy import text

            assert session.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [HEAD_REVISION]
        db.close()
    support.record("concurrency", "postgresql", first_use_processes=16, first_use_failures=0)

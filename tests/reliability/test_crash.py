"""Crash: writers killed with SIGKILL at random points while applying fright checks.

A pre-loaded parent (worker.py serve) forks a writer that loops fright checks forever;
after a random delay (fixed seed) the writer gets SIGKILL, and we check: the database
opens, `history verify` passes, and the tables hold exactly what the ledger says was
applied (no effect without its entry, no entry without its effects). Then the next
writer starts on the same database. Also: SIGKILL during `campaign db backup` leaves
the original intact and nothing partial under the backup's name.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from campaign import ledger
from campaign.db.database import Database
from campaign.db.migrate import HEAD_REVISION, current_revision
from campaign.db.models import Campaign, LedgerEntry
from campaign.services.campaigns import setup as campaigns
from campaign.services.characters import roster as characters
from campaign.services.ledger import history
from tests.reliability import support
from tests.reliability.worker import CAMPAIGN_BIN

KILLS = 50
SEED = 20261129
CAMPAIGN = "耐障害"
WORKER = Path(__file__).with_name("worker.py")
STATS = {"Will": 10, "IQ": 10, "HT": 10, "FP": 10, "HP": 10}


class Parent:
    """worker.py serve: forks writers on request and reaps them."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(WORKER), "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert json.loads(self.proc.stdout.readline()) == {"ready": True}

    def ask(self, **request) -> dict:
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, "the writer parent died"
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def _wait_for(path: Path, text: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not (path.exists() and text in path.read_text()):
        assert time.monotonic() < deadline, f"{path} never said {text!r}"
        time.sleep(0.002)


def _wait_for_lines(path: Path, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while len(path.read_text().split()) < count:
        assert time.monotonic() < deadline, f"{path} never reached {count} lines"
        time.sleep(0.002)


@pytest.mark.slow
def test_sigkill_during_fright_checks_never_half_applies(db_url, tmp_path):
    db = Database(db_url)
    campaigns.create_campaign(db, CAMPAIGN, "gurps3-ja", "GM")
    characters.add_player(db, CAMPAIGN, "Aki", "GM")
    for name in ("鈴音", "刀矢"):
        characters.add_character(db, CAMPAIGN, name, "GM", player="Aki", stats=STATS, cp=100)
    db.close()
    rng = random.Random(SEED)
    parent = Parent()
    in_flight = committed_total = 0
    try:
        for kill in range(KILLS):
            log = tmp_path / f"writer{kill}.log"
            pid = parent.ask(
                cmd="spawn",
                url=db_url,
                campaign=CAMPAIGN,
                actor=f"writer{kill}",
                log=str(log),
                seed=SEED + kill,
                characters=["鈴音", "刀矢"],
            )["pid"]
            _wait_for(log, "open\n")
            # Odd kills wait for the first commit, so a loaded machine (whose first write in a
            # new process can outlast the window) still kills writers in mid-stream.
            if kill % 2:
                _wait_for_lines(log, 2)
            time.sleep(rng.uniform(0.0, 0.25))
            os.kill(pid, signal.SIGKILL)
            assert parent.ask(cmd="reap", pid=pid)["signal"] == signal.SIGKILL, "the writer ended on its own"

            db = Database(db_url)  # opens after the kill
            try:
                report = history.verify(db, CAMPAIGN)
                assert report.ok, (kill, report)
                support.assert_state_matches_ledger(db, CAMPAIGN)
                seen = [int(line) for line in log.read_text().split()[1:]]
                rows = [
                    r
                    for r in support.ledger_rows(db, CAMPAIGN)
                    if r["actor"] == f"writer{kill}" and r["parent_seq"] is None
                ]
                # Every check the writer saw commit is there; at most one more committed
                # just before the kill, before the writer could log it.
                assert [r["seq"] for r in rows][: len(seen)] == seen
                assert len(rows) - len(seen) in (0, 1)
                in_flight += len(rows) - len(seen)
                committed_total += len(rows)
            finally:
                db.close()
    finally:
        parent.close()
    assert committed_total > KILLS, "the writers hardly wrote anything before being killed"
    db = Database(db_url)
    entries = history.verify(db, CAMPAIGN).entries
    db.close()
    support.record(
        "crash",
        support.backend_of(db_url),
        kills=KILLS,
        fright_checks_committed=committed_total,
        committed_unlogged_at_kill=in_flight,
        entries=entries,
    )


def _bulk_chain(session, campaign: Campaign, entries: int) -> None:
    """Append a valid chain of long roll entries in bulk (Core insert, chained hashes)."""
    seq, prev = ledger.head(session, campaign.id)
    rows = []
    for n in range(entries):
        seq += 1
        record = {
            "campaign": campaign.name,
            "seq": seq,
            "at": ledger.utc_now(),
            "actor": "GM",
            "kind": "roll",
            "character": None,
            "scenario": None,
            "parent_seq": None,
            "voids_seq": None,
            "expression": "3D6",
            "dice": [1, 2, 3],
            "total": 6,
            "target": None,
            "outcome": None,
            "margin": None,
            "source": "seeded",
            "reason": f"{n} " + "記録" * 500,
            "detail": {},
        }
        record_json = ledger.canonical_json(record)
        digest = ledger.chain_hash(prev, record_json)
        rows.append(
            {
                **{k: record[k] for k in ledger.INDEXED_FIELDS},
                "campaign_id": campaign.id,
                "record": record_json,
                "prev_hash": prev,
                "hash": digest,
            }
        )
        prev = digest
    session.execute(LedgerEntry.__table__.insert(), rows)


def _big_campaign(path: Path, entries: int = 10_000) -> None:
    """A campaign of a few tens of MB, so a backup or export takes long enough to be
    killed half-way; checkpointed so the file alone is the database."""
    db = Database(str(path))
    campaigns.create_campaign(db, CAMPAIGN, "gurps3-ja", "GM")
    with db.write() as session:
        _bulk_chain(session, session.query(Campaign).one(), entries)
    db.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _kill_while_writing(
    command: list[str], target: Path, rng: random.Random, attempts: int, after_each: Callable[[], None]
) -> dict:
    """Run `command` (it writes `target` through a hidden .partial file) once to time it,
    then `attempts` times, killed at a random moment after its .partial file appears.

    After every kill nothing may sit under the target's name, unless the kill came after
    the rename, and then the file must be whole (checked by the caller on the next run).
    """
    folder = target.parent

    def partial_exists() -> bool:
        return any(p.name.endswith(".partial") for p in folder.iterdir())

    def start_and_wait_for_partial() -> subprocess.Popen:
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while not partial_exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.0005)
        return proc

    proc = start_and_wait_for_partial()
    started = time.monotonic()
    while partial_exists():
        time.sleep(0.0005)
    writing = time.monotonic() - started  # how long the .partial file lives
    assert proc.wait(timeout=300) == 0
    assert target.exists() and not partial_exists()
    target.unlink()
    kills = mid_write = 0
    for _ in range(attempts):
        proc = start_and_wait_for_partial()
        time.sleep(rng.uniform(0.0, writing * 0.7))
        if proc.poll() is None:
            proc.kill()
            kills += 1
        proc.wait()
        if not target.exists():
            mid_write += 1
        after_each()
        target.unlink(missing_ok=True)
        for leftover in folder.glob("*.partial"):
            leftover.unlink()  # a killed writer cannot clean up; its hidden name is its own
    return {"kills": kills, "mid_write": mid_write}


@pytest.mark.slow
def test_sigkill_during_db_backup_leaves_the_original_intact(db_url, tmp_path):
    target = tmp_path / "backups" / "session-12.db"
    target.parent.mkdir()
    if support.backend_of(db_url) == "postgresql":
        # Nothing to kill: a PostgreSQL database is refused before any file is made.
        done = subprocess.run(
            [CAMPAIGN_BIN, "--db", db_url, "db", "backup", str(target)], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 1 and "pg_dump" in done.stderr and "Traceback" not in done.stderr
        assert list(target.parent.iterdir()) == []
        return
    source = Path(db_url)
    _big_campaign(source)
    before = _digest(source)

    def check() -> None:
        assert _digest(source) == before, "the original changed"
        if target.exists():
            copy = Database(str(target))
            assert history.verify(copy, CAMPAIGN).ok
            copy.close()

    figures = _kill_while_writing(
        [CAMPAIGN_BIN, "--db", str(source), "db", "backup", str(target)],
        target,
        random.Random(SEED),
        attempts=10,
        after_each=check,
    )
    assert figures["mid_write"] >= 5, f"the kills rarely caught a backup in progress: {figures}"
    db = Database(str(source))
    assert history.verify(db, CAMPAIGN).ok
    db.close()
    support.record(
        "backup_kill",
        "sqlite",
        kills=figures["kills"],
        killed_mid_copy=figures["mid_write"],
        database_megabytes=source.stat().st_size // 2**20,
    )


@pytest.mark.slow
def test_sigkill_during_export_leaves_no_partial_file(db_url, tmp_path):
    if support.backend_of(db_url) == "sqlite":
        _big_campaign(Path(db_url), entries=3000)
    else:
        db = Database(db_url)
        campaigns.create_campaign(db, CAMPAIGN, "gurps3-ja", "GM")
        with db.write() as session:
            campaign = session.query(Campaign).one()
            _bulk_chain(session, campaign, 3000)
        db.close()
    target = tmp_path / "out" / "campaign.jsonl"
    target.parent.mkdir()

    def check() -> None:
        if target.exists():
            assert json.loads(target.read_text(encoding="utf-8").splitlines()[-1])["type"] == "footer"

    figures = _kill_while_writing(
        [CAMPAIGN_BIN, "--db", db_url, "export", str(target)],
        target,
        random.Random(SEED + 1),
        attempts=8,
        after_each=check,
    )
    assert figures["mid_write"] >= 4, f"the kills rarely caught an export in progress: {figures}"
    support.record(
        "export_kill", support.backend_of(db_url), kills=figures["kills"], killed_mid_write=figures["mid_write"]
    )


@pytest.mark.slow
def test_sigkill_during_the_first_migration_leaves_a_usable_database(db_url, tmp_path, request):
    """`campaign init` on a new database killed at random moments, including mid-migration:
    the next open finishes the schema, and the campaign exists whole or not at all."""
    rng = random.Random(SEED + 2)

    def new_database(attempt: int) -> str:
        if support.backend_of(db_url) == "sqlite":
            return str(tmp_path / f"first{attempt}.db")
        return request.getfixturevalue("pg_cluster").create_database(f"first_{os.getpid()}_{attempt}")

    started = time.monotonic()
    subprocess.run([CAMPAIGN_BIN, "--db", new_database(99), "init", "最初の卓"], check=True, capture_output=True)
    whole = time.monotonic() - started  # start-up, migration, the campaign: kill somewhere in its second half
    kills = 0
    for attempt in range(8):
        url = new_database(attempt)
        proc = subprocess.Popen(
            [CAMPAIGN_BIN, "--db", url, "init", "最初の卓"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(rng.uniform(0.3, 1.0) * whole)
        if proc.poll() is None:
            proc.kill()
            kills += 1
        proc.wait()
        db = Database(url)  # opens, finishing (or redoing) the migration
        try:
            assert current_revision(db.engine) == HEAD_REVISION
            listed = campaigns.list_campaigns(db)
            if listed:
                assert history.verify(db, "最初の卓").ok
            else:
                campaigns.create_campaign(db, "最初の卓", "gurps3-ja", "GM")
            assert history.verify(db, "最初の卓").entries == 1
        finally:
            db.close()
    assert kills >= 1, "no kill caught init running"  # start-up time varies; the rest finish and are checked too
    support.record("crash", support.backend_of(db_url), first_migration_kills=kills)

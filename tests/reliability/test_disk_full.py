"""A full disk (or a file size limit) is one line of error, and the ledger stays intact.

Real conditions, not mocks: a process whose RLIMIT_FSIZE stops the write-ahead log from
growing (works as any user), and, where the test may mount one, a tiny tmpfs that runs
out of space while the database grows.
"""

from __future__ import annotations

import os
import resource
import sqlite3
import subprocess
import tempfile
from pathlib import Path

import pytest

from campaign.db.database import Database
from campaign.services.campaigns import setup as campaigns
from campaign.services.ledger import history
from tests.reliability.worker import CAMPAIGN_BIN

pytestmark = pytest.mark.slow

REASON = "x" * 1900  # a near-maximal reason: every roll adds pages to the log


def _one_line_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def _roll_until_refused(db: Path, preexec=None, limit: int = 200) -> tuple[int, str]:
    """Roll until the disk refuses; (rolls that succeeded, the error line)."""
    for done_count in range(limit):
        done = subprocess.run(
            [CAMPAIGN_BIN, "--db", str(db), "roll", "3D6", "--reason", REASON],
            capture_output=True,
            text=True,
            timeout=120,
            preexec_fn=preexec,
        )
        if done.returncode != 0:
            return done_count, _one_line_error(done)
    raise AssertionError(f"{limit} rolls never filled the disk")


def _verified_entries(db: Path) -> int:
    database = Database(str(db))
    try:
        report = history.verify(database, None)
    finally:
        database.close()
    assert report.ok, report
    return report.entries


def test_file_size_limit_is_one_line_and_changes_nothing(tmp_path):
    db = tmp_path / "c.db"
    database = Database(str(db))
    campaigns.create_campaign(database, "卓", "gurps3-ja", "GM")
    database.close()
    # Keep one connection open: the log is then never reset by a closing process and
    # grows with every roll, until the size limit stops it.
    holder = sqlite3.connect(db)
    holder.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    limit = 64 * 1024  # above the 32 KiB shared-memory index, below a few rolls of log

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    try:
        succeeded, line = _roll_until_refused(db, small_files)
    finally:
        holder.close()
    assert succeeded >= 1
    assert "nothing was changed" in line
    assert _verified_entries(db) == 1 + succeeded


def _mount_tmpfs(where: Path, size: str) -> bool:
    if os.geteuid() != 0:
        return False
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True)
    return done.returncode == 0


def test_full_tmpfs_is_one_line_and_changes_nothing():
    where = Path(tempfile.mkdtemp(prefix="campaign-full-")) / "mnt"
    if not _mount_tmpfs(where, "1m"):  # the schema (7 revisions) needs about 600 KB
        pytest.skip("cannot mount a tmpfs here (needs root and mount rights); the RLIMIT test covers it")
    try:
        db = where / "c.db"
        created = subprocess.run(
            [CAMPAIGN_BIN, "--db", str(db), "init", "卓"], capture_output=True, text=True, timeout=120
        )
        assert created.returncode == 0, created.stderr
        succeeded, line = _roll_until_refused(db)
        assert "full" in line
        # Give the database room again: every roll that said it succeeded is there, no more.
        subprocess.run(["mount", "-o", "remount,size=8m", str(where)], check=True)
        assert _verified_entries(db) == 1 + succeeded
    finally:
        subprocess.run(["umount", str(where)], capture_output=True)
        where.rmdir()
        where.parent.rmdir()

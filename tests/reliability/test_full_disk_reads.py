"""A full disk or a read-only database still reads: `history verify`, `char show`,
`history`, export to another disk, the table server's pages and API reads all answer;
a write is refused in one line in the reader's language (the CLI) or a 503 that says so
(the web, never a bare 500), and nothing is half-written.

Real conditions: a small tmpfs (mounted here: the tests run as root, in CI too) filled
to the last block, then remounted read-only. SQLite only here: a PostgreSQL server that
takes no writes or whose disk is full is tests/reliability/test_postgres_storage.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.cli.conftest import Cli, sqlite_gurps, template_db  # noqa: F401 (fixtures)
from tests.reliability.worker import CAMPAIGN_BIN

pytestmark = pytest.mark.slow

FULL = "error: the disk holding {db} is full: free some space and try again; nothing was changed"
FULL_JA = "エラー: {db} のディスクがいっぱいです: 空きを作ってからやり直してください。何も変更していません"


@pytest.fixture
def small_disk():
    where = Path(tempfile.mkdtemp(prefix="campaign-full-")) / "mnt"
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (CI runs the suite as root)")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(where)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], capture_output=True)
        shutil.rmtree(where.parent, ignore_errors=True)


def _fill(where: Path) -> None:
    """Take every block left (as root, the reserved ones too)."""
    subprocess.run(["dd", "if=/dev/zero", f"of={where / 'filler'}", "bs=4k"], capture_output=True)
    assert shutil.disk_usage(where).free < 64 * 1024


def _run(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CAMPAIGN_BIN, "--db", str(db), *args], capture_output=True, text=True, timeout=120)


def _reads(db: Path, elsewhere: Path) -> dict:
    """The read commands, each of which must answer; what they said."""
    verified = _run(db, "--lang", "en", "history", "verify", "--json")
    shown = _run(db, "char", "show", "鈴音", "--json")
    listed = _run(db, "history", "--json", "--limit", "100")
    exported = _run(db, "export", str(elsewhere))
    for done in (verified, shown, listed, exported):
        assert done.returncode == 0, done.stderr
    return {
        "verify": json.loads(verified.stdout),
        "show": json.loads(shown.stdout),
        "history": [entry["seq"] for entry in json.loads(listed.stdout)],
        "export_lines": len(elsewhere.read_text(encoding="utf-8").splitlines()),
    }


def _refused(db: Path, *args: str) -> str:
    done = _run(db, *args)
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == "" and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_a_full_disk_reads_and_refuses_writes_in_one_line(small_disk, sqlite_gurps, tmp_path):
    db = small_disk / "c.db"
    shutil.copy(sqlite_gurps.db, db)
    gurps = Cli(str(db))
    gurps.run("roll", "3D6", "--dice", "1,2,3", "--char", "鈴音")
    before = _reads(db, tmp_path / "before.jsonl")
    _fill(small_disk)

    assert _reads(db, tmp_path / "full.jsonl") == before
    assert before["verify"]["ok"] and before["verify"]["entries"] == len(before["history"])
    assert (tmp_path / "full.jsonl").read_bytes() == (tmp_path / "before.jsonl").read_bytes()
    for write in (
        ("roll", "3D6"),
        ("trait", "add", "鈴音", "戦闘即応", "--cp", "15"),
        ("scenario", "start", "霧の館", "--with", "鈴音"),
    ):
        assert _refused(db, "--lang", "en", *write) == FULL.format(db=db)
    assert _refused(db, "--lang", "ja", "roll", "3D6") == FULL_JA.format(db=db)

    (small_disk / "filler").unlink()  # room again: nothing was half-written, the next write goes on
    assert _reads(db, tmp_path / "after.jsonl") == before
    assert gurps.json("roll", "3D6", "--dice", "4,5,6")["seq"] == max(before["history"]) + 1
    assert gurps.json("history", "verify")["ok"]


def test_a_read_only_database_reads_and_refuses_writes(small_disk, sqlite_gurps, tmp_path):
    db = small_disk / "c.db"
    shutil.copy(sqlite_gurps.db, db)
    before = _reads(db, tmp_path / "before.jsonl")
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    assert _reads(db, tmp_path / "ro.jsonl") == before
    assert _refused(db, "--lang", "en", "roll", "3D6") == (
        f"error: the database is read-only: {db} (it is on a read-only file system); "
        f"`campaign --db {db} history verify` can still check it; to change it, copy it somewhere writable "
        "or make it writable"
    )
    assert _refused(db, "--lang", "ja", "roll", "3D6").startswith(
        f"エラー: データベースは読み取り専用です: {db} (読み取り専用のファイルシステムにあります)"
    )


def test_the_table_server_reads_and_says_a_full_disk(small_disk, sqlite_gurps):
    from tests.web.table_server import Browser, served

    db = small_disk / "c.db"
    shutil.copy(sqlite_gurps.db, db)
    join = Cli(str(db)).json("invite", "Aki")["join_path"]
    with served(str(db), faces=[3, 4, 5]) as base:
        aki = Browser(base)
        assert aki.join(join).status_code == 303
        _fill(small_disk)
        for page in ("/", "/history", "/api/table"):
            assert aki.http.get(page).status_code == 200, page
        answer = aki.post("/api/rolls", {"command": "3D6", "character": "鈴音"})
        assert answer.status_code == 503, answer.text
        assert answer.json()["code"] == "storage"
        assert (
            f"the disk holding {db} is full" in answer.json()["error"] or "ディスクがいっぱい" in answer.json()["error"]
        )
        aki.close()
    (small_disk / "filler").unlink()
    assert Cli(str(db)).json("history", "verify")["ok"]

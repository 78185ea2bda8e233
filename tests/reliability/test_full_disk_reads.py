"""A full disk or a read-only database still reads: `history verify`, `char show`,
`history`, export to another disk, the table server's pages and API reads all answer;
a write is refused in one line in the reader's language (the CLI) or a 503 that says so
(the web, never a bare 500), and nothing is half-written.

Real conditions: a small tmpfs (mounted here: the tests run as root, in CI too) filled
to the last block, then remounted read-only. On PostgreSQL the campaign's database lives
in a tablespace on such a tmpfs: the server keeps answering reads, and refuses a write
that needs room (SQLSTATE 53100) once the pages it already has are full, which the CLI
says in one line too (a server that takes no writes at all:
tests/reliability/test_postgres_storage.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.cli.conftest import Cli, gurps_setup, sqlite_gurps, template_db  # noqa: F401 (fixtures)
from tests.reliability.worker import CAMPAIGN_BIN

pytestmark = pytest.mark.slow

FULL = "error: the disk holding {db} is full: free some space and try again; nothing was changed"
FULL_JA = "エラー: {db} のディスクがいっぱいです: 空きを作ってからやり直してください。何も変更していません"
SERVER_FULL = "error: the database server's disk is full: free some space there and try again; nothing was changed"
SERVER_FULL_JA = "エラー: データベースサーバーのディスクがいっぱいです: " + (
    "サーバー側で空きを作ってからやり直してください。何も変更していません"
)


@contextmanager
def _mounted(size: str) -> Iterator[Path]:
    """A tmpfs of `size` (root only: skipped, saying why, where it cannot be mounted)."""
    where = Path(tempfile.mkdtemp(prefix="campaign-full-")) / "mnt"
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (CI runs the suite as root)")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], capture_output=True)
        shutil.rmtree(where.parent, ignore_errors=True)


@pytest.fixture
def small_disk():
    with _mounted("4m") as where:
        yield where


def _fill(where: Path) -> None:
    """Take every block left (as root, the reserved ones too)."""
    subprocess.run(["dd", "if=/dev/zero", f"of={where / 'filler'}", "bs=4k"], capture_output=True)
    assert shutil.disk_usage(where).free < 64 * 1024


def _run(db: Path | str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CAMPAIGN_BIN, "--db", str(db), *args], capture_output=True, text=True, timeout=120)


def _reads(db: Path | str, elsewhere: Path) -> dict:
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


def _refused(db: Path | str, *args: str) -> str:
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


@pytest.fixture
def postgres_on_small_disk(pg_cluster) -> Iterator[tuple[str, Path]]:
    """(URL, mount): a copy of the suite's migrated template whose tables and indexes are
    in a tablespace on a 24 MB tmpfs, as on a server whose data disk filled up. The
    system catalogs stay where they were: a server whose catalogs cannot grow either
    refuses new connections itself ("could not write init file"), before any client
    has a say."""
    import psycopg

    with _mounted("24m") as where:
        os.chmod(where.parent, 0o755)  # the server runs as `postgres` (tests/pgcluster.py)
        shutil.chown(where, "postgres")
        name = f"full{os.getpid()}"
        url = pg_cluster.create_database(name, template="campaign_template")
        with psycopg.connect(pg_cluster.admin_dsn(), autocommit=True) as conn:
            conn.execute(f"CREATE TABLESPACE {name} LOCATION '{where}'")
        with psycopg.connect(f"{pg_cluster.admin_dsn()[: -len('dbname=postgres')]}dbname={name}") as conn:
            conn.execute(f"ALTER TABLE ALL IN TABLESPACE pg_default SET TABLESPACE {name}")  # catalogs excepted
            conn.execute(f"ALTER INDEX ALL IN TABLESPACE pg_default SET TABLESPACE {name}")
            conn.commit()
        try:
            yield url, where
        finally:
            pg_cluster.drop_database(name)
            with psycopg.connect(pg_cluster.admin_dsn(), autocommit=True) as conn:
                conn.execute(f"DROP TABLESPACE IF EXISTS {name}")


# Writes that each add rows (and a ledger entry): the ith try's arguments.
WRITES = {
    "roll": lambda i: ("roll", "3D6", "--dice", "1,2,3"),
    "player add": lambda i: ("player", "add", f"P{i}"),
    "trait add": lambda i: ("trait", "add", "鈴音", f"特徴{i}", "--cp", "1"),
}


def test_a_full_postgresql_disk_reads_and_refuses_writes_in_one_line(postgres_on_small_disk, tmp_path):
    """A write whose rows still fit in the pages the server has goes in; the first that
    needs a new page is refused in one line, and so is every try after it. What went in
    is in the ledger, what was refused is nowhere."""
    url, where = postgres_on_small_disk
    gurps = gurps_setup(Cli(url))
    before = _reads(url, tmp_path / "before.jsonl")
    _fill(where)

    assert _reads(url, tmp_path / "full.jsonl") == before
    assert (tmp_path / "full.jsonl").read_bytes() == (tmp_path / "before.jsonl").read_bytes()
    written = 0
    for kind, arguments in WRITES.items():
        for i in range(200):
            done = gurps.run("--lang", "en", *arguments(i), expect=None)
            if done.exit_code != 0:
                break
            written += 1
        else:
            pytest.fail(f"{kind}: 200 writes went in on a full disk")
        assert (done.exit_code, done.stdout, done.stderr) == (1, "", SERVER_FULL + "\n"), kind
        assert _refused(url, "--lang", "en", *arguments(i)) == SERVER_FULL  # the next try too, as a process
        assert _refused(url, "--lang", "ja", *arguments(i)) == SERVER_FULL_JA
    report = gurps.json("history", "verify")
    assert report["ok"] and report["entries"] == before["verify"]["entries"] + written

    (where / "filler").unlink()  # room again: the refused writes left nothing behind
    assert gurps.json("roll", "3D6", "--dice", "4,5,6")["seq"] == report["entries"] + 1
    assert gurps.json("history", "verify")["ok"]


def test_the_table_server_says_a_full_postgresql_disk(postgres_on_small_disk):
    from tests.web.table_server import Browser, served

    url, where = postgres_on_small_disk
    gurps = gurps_setup(Cli(url))
    join = gurps.json("invite", "Aki")["join_path"]
    with served(url, faces=[3, 4, 5] * 100) as base:
        aki = Browser(base)
        assert aki.join(join).status_code == 303
        _fill(where)
        for _ in range(200):  # rolls whose rows still fit in the pages the server has go in
            answer = aki.post("/api/rolls", {"command": "3D6", "character": "鈴音"})
            if answer.status_code != 200:
                break
        assert answer.status_code == 503, answer.text
        assert answer.json()["code"] == "storage"
        assert answer.json()["error"] == "the server cannot write now: " + SERVER_FULL.removeprefix("error: ")
        for page in ("/", "/history", "/api/table"):
            assert aki.http.get(page).status_code == 200, page
        aki.close()
    report = gurps.json("history", "verify")
    assert report["ok"] and report["entries"] == len(gurps.json("history", "--limit", "1000"))
    (where / "filler").unlink()
    assert gurps.json("roll", "3D6", "--dice", "4,5,6")["seq"] == report["entries"] + 1

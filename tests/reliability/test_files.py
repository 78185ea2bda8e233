"""Files: private on creation, and a database that is not ours is never touched.

Through the real CLI (in-process): a new SQLite database, its WAL/SHM companions and a
backup are owner-only even under umask 000; a file that is corrupt, foreign, from a
newer version, or not a database at all gives one `error:` line with exit 1 (no
traceback) for every command, and keeps every byte. PostgreSQL: a foreign database,
one at an unknown revision and an unreachable server, likewise.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from campaign.cli.app import app
from campaign.db.database import Database
from tests.reliability import support

pytestmark = pytest.mark.dialect

COMMANDS = [
    ("char", "list"),
    ("init", "乗っ取り"),
    ("db", "upgrade"),
    ("history", "verify"),
    ("roll", "3D6"),
    ("export", "-"),
    ("db", "current"),
]


def _run(db: str, *args: str):
    return CliRunner().invoke(app, ["--db", db, *args], catch_exceptions=False)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def no_umask():
    previous = os.umask(0)
    yield
    os.umask(previous)


def test_new_files_are_owner_only_even_with_umask_000(db_url, tmp_path, no_umask, monkeypatch):
    if support.backend_of(db_url) == "postgresql":
        # The server owns its files; what we create is the backup refusal: no file at all.
        result = _run(db_url, "db", "backup", str(tmp_path / "b.db"))
        assert result.exit_code == 1 and not (tmp_path / "b.db").exists()
        return
    path = Path(db_url)
    assert _run(str(path), "init", "私的").exit_code == 0
    assert _run(str(path), "roll", "3D6").exit_code == 0
    made = [p for p in path.parent.iterdir() if p.name.startswith(path.name)]
    assert {p.name for p in made} >= {path.name}
    assert {p.name: _mode(p) for p in made} == {p.name: 0o600 for p in made}
    backup = tmp_path / "backup.db"
    assert _run(str(path), "db", "backup", str(backup)).exit_code == 0
    assert _mode(backup) == 0o600
    # The default location (no --db): the user data directory.
    data = tmp_path / "xdg"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    result = CliRunner().invoke(app, ["init", "既定"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    default = data / "campaign" / "campaign.db"
    assert _mode(default) == 0o600
    support.record("files", "sqlite", private_files_checked=len(made) + 2)


def _campaign_db(path: Path) -> None:
    """A real campaign database, closed and checkpointed: nothing of it stays open."""
    from campaign.services.campaigns.setup import create_campaign

    db = Database(str(path))
    create_campaign(db, "本物", "gurps3-ja", "GM")
    db.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _foreign(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.execute("INSERT INTO recipes VALUES ('onigiri')")
    conn.commit()
    conn.close()


def _foreign_in_wal_mode(path: Path) -> None:
    """Another program's database that, like ours, is in WAL mode: opening skips the
    look before the pragmas, so our own connection must refuse it."""
    _foreign(path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.close()
    assert path.read_bytes()[18:20] == b"\x02\x02"


def _corrupt(path: Path) -> None:
    _campaign_db(path)
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)
    path.write_bytes(bytes(data))


def _truncated(path: Path) -> None:
    _campaign_db(path)
    path.write_bytes(path.read_bytes()[:8192])


def _header_then_junk(path: Path) -> None:
    path.write_bytes(b"SQLite format 3\x00" + os.urandom(5000))


def _newer(path: Path) -> None:
    _campaign_db(path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE alembic_version SET version_num = '9999'")
    conn.commit()
    conn.close()


def _no_revision(path: Path) -> None:
    _campaign_db(path)
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM alembic_version")
    conn.commit()
    conn.close()


SQLITE_CASES = {
    "a text file": (lambda p: p.write_text("my session notes\n" * 200), "not an SQLite database"),
    "random bytes": (lambda p: p.write_bytes(os.urandom(10_000)), "not an SQLite database"),
    "another program's SQLite database": (_foreign, "not a campaign database"),
    "another program's SQLite database in WAL mode": (_foreign_in_wal_mode, "not a campaign database"),
    "a campaign database with a wrecked schema page": (_corrupt, "damaged or not a database"),
    "a campaign database cut short": (_truncated, "database"),
    "an SQLite header and then junk": (_header_then_junk, "damaged or not a database"),
    "a database from a newer campaign": (_newer, "newer version"),
    "a campaign database without its revision": (_no_revision, "not a campaign database"),
    "a directory": (lambda p: p.mkdir(), "is a directory"),
}


def _postgres_cases(cluster) -> dict:
    import psycopg

    def fresh(name):
        return cluster.create_database(f"files_{os.getpid()}_{name}")

    def sql(url, *statements):
        from sqlalchemy.engine import make_url

        parsed = make_url(url)
        with psycopg.connect(
            host=parsed.host, port=parsed.port, user=parsed.username, dbname=parsed.database, autocommit=True
        ) as conn:
            for statement in statements:
                conn.execute(statement)
        return url

    return {
        "another program's PostgreSQL database": (
            lambda: sql(fresh("foreign"), "CREATE TABLE recipes (name text)", "INSERT INTO recipes VALUES ('x')"),
            "not a campaign database",
        ),
        "a database from a newer campaign": (
            lambda: sql(
                cluster.create_database(f"files_{os.getpid()}_newer", template="campaign_template"),
                "UPDATE alembic_version SET version_num = '9999'",
            ),
            "newer version",
        ),
        "an unreachable server": (
            lambda: "postgresql+psycopg://nobody@127.0.0.1:1/nothing",
            "cannot open the database",
        ),
    }


def _assert_refused(db: str, expected: str, case: str) -> int:
    runs = 0
    for command in COMMANDS:
        result = _run(db, *command)
        shown = f"{case}: campaign {' '.join(command)}"
        if command == ("db", "current") and "newer" in expected:
            # Reporting the revision is what `db current` is for; it must not upgrade.
            assert result.exit_code == 0 and "9999" in result.stdout, f"{shown}\n{result.output}"
            continue
        assert result.exit_code == 1, f"{shown} exited {result.exit_code}\n{result.output}"
        assert "Traceback" not in result.output, shown
        message = result.stderr.strip()
        assert message.startswith("error:") and len(message.splitlines()) == 1, f"{shown}: {message!r}"
        assert expected in message, f"{shown}: {message!r}"
        assert result.stdout == "", shown
        runs += 1
    return runs


def test_a_database_that_is_not_ours_is_refused_and_never_touched(db_url, tmp_path, request):
    runs = 0
    if support.backend_of(db_url) == "sqlite":
        for index, (case, (make, expected)) in enumerate(sorted(SQLITE_CASES.items())):
            folder = tmp_path / f"case{index}"
            folder.mkdir()
            path = folder / "target.db"
            make(path)
            for companion in ("-wal", "-shm"):
                Path(f"{path}{companion}").unlink(missing_ok=True)
            before = {p.name: (p.read_bytes() if p.is_file() else None) for p in folder.iterdir()}
            runs += _assert_refused(str(path), expected, case)
            after = {p.name: (p.read_bytes() if p.is_file() else None) for p in folder.iterdir()}
            # SQLite may leave an empty WAL and its index beside a file it could open but
            # not read; nothing may be written, and the file itself keeps every byte.
            assert after.pop("target.db-wal", b"") == b"", f"{case}: something was written to the WAL"
            after.pop("target.db-shm", None)
            assert after == before, f"{case}: the file was changed (or files were added)"
        support.record("files", "sqlite", refused_databases=len(SQLITE_CASES), refused_runs=runs)
        return
    for case, (make, expected) in sorted(_postgres_cases(request.getfixturevalue("pg_cluster")).items()):
        url = make()
        before = support.dump(url) if "unreachable" not in case else None
        runs += _assert_refused(url, expected, case)
        if before is not None:
            assert support.dump(url) == before, f"{case}: the database was changed"
    support.record("files", "postgresql", refused_databases=3, refused_runs=runs)

"""A full disk and a read-only database are said as such, never as "damaged", and a
read-only copy can still be verified.

Real conditions: the commands run in a private mount namespace (`unshare`, as root or
through a user namespace) where the database's folder is bind-mounted read-only, or sits
on a tiny tmpfs filled to the last block. Without a mount namespace those tests skip; the
file-mode variant (a 0444 file in a 0555 folder) runs as a user the modes apply to
(root ignores them: as root it runs in a user namespace without a mapping).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from campaign.db.database import Database
from campaign.services.campaigns import setup as campaigns
from campaign.services.characters import roster as characters
from tests.reliability import support
from tests.reliability.worker import CAMPAIGN_BIN

pytestmark = pytest.mark.slow

ROUND1 = Path(__file__).resolve().parents[1] / "data" / "round1.db"

# Runs inside the namespace: mount as asked, then each command; prints their results.
DRIVER = r"""
import json, subprocess, sys
job = json.loads(sys.argv[1])
for mount in job["mounts"]:
    subprocess.run(mount, check=True)
results = []
for command in job["commands"]:
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    results.append([done.returncode, done.stdout, done.stderr])
print(json.dumps(results))
"""


def _namespace_prefix() -> list[str] | None:
    """How to enter a private mount namespace here, or None."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    for prefix in ([unshare, "--mount"], [unshare, "--mount", "--map-root-user"]):
        if subprocess.run([*prefix, "true"], capture_output=True).returncode == 0:
            return prefix
    return None


def _in_namespace(mounts: list[list[str]], commands: list[list[str]], env: dict) -> list[tuple[int, str, str]]:
    prefix = _namespace_prefix()
    if prefix is None:
        pytest.skip("no private mount namespace here (unshare); the file-mode test covers read-only files")
    done = subprocess.run(
        [*prefix, sys.executable, "-c", DRIVER, json.dumps({"mounts": mounts, "commands": commands})],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    if done.returncode != 0 and "mount" in done.stderr:
        pytest.skip(f"cannot mount in the namespace: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr
    return [tuple(result) for result in json.loads(done.stdout)]


def _env(tmp_path: Path) -> dict:
    return {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "COLUMNS": "200",
    }


def _campaign(path: Path) -> None:
    db = Database(str(path))
    campaigns.create_campaign(db, "卓", "gurps3-ja", "GM")
    characters.add_character(db, "卓", "管狐", "GM", npc=True, stats={"Will": 10})
    db.close()


def _one_line(result: tuple[int, str, str]) -> str:
    code, _out, err = result
    assert code == 1 and "Traceback" not in err, result
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "damaged" not in lines[0]
    return lines[0]


def _commands(db: Path) -> dict[str, list[str]]:
    base = [CAMPAIGN_BIN, "--db", str(db)]
    return {
        "verify": [*base, "history", "verify", "--json"],
        "chain": [*base, "history", "verify", "--chain-only"],
        "history": [*base, "history"],
        "list": [*base, "char", "list"],
        "roll": [*base, "roll", "2D6", "--dice", "3,4"],
        "round1": [*base[:2], str(db.with_name("round1.db")), "history", "verify"],
    }


def test_a_read_only_mount_is_said_and_its_copy_verifies(tmp_path):
    folder = tmp_path / "archive"
    folder.mkdir()
    db = folder / "campaign.db"
    _campaign(db)
    shutil.copy(ROUND1, folder / "round1.db")  # a first-release file: it would need an upgrade
    kept = tmp_path / "kept.db"
    shutil.copy(db, kept)  # what the database holds now (a look at db itself would leave its log beside it)
    # A second copy that a reader left its write-ahead log's index beside: SQLite reads it, writes refuse.
    logged = folder / "logged.db"
    shutil.copy(db, logged)
    support.dump(str(logged))  # a read-only connection leaves logged.db-wal and -shm
    commands = _commands(db)
    commands["logged history"] = [CAMPAIGN_BIN, "--db", str(logged), "char", "list"]
    commands["logged roll"] = [CAMPAIGN_BIN, "--db", str(logged), "roll", "2D6", "--dice", "3,4"]
    results = dict(
        zip(
            commands,
            _in_namespace(
                [["mount", "--bind", str(folder), str(folder)], ["mount", "-o", "remount,ro,bind", str(folder)]],
                list(commands.values()),
                _env(tmp_path),
            ),
        )
    )
    code, out, err = results["verify"]
    assert code == 0, err
    report = json.loads(out)
    assert report["ok"] and report["entries"] == 2 and report["state"]["ok"]
    assert results["chain"][0] == 0 and "chain intact: 2 entries" in results["chain"][1]
    # Reads read it as it is (campaign.db.storage); a write is refused in one line.
    assert results["history"][0] == 0 and "campaign" in results["history"][1]
    assert results["list"][0] == 0 and "管狐" in results["list"][1]
    for name in ("roll",):
        assert _one_line(results[name]) == (
            f"error: the database is read-only: {db} (it is on a read-only file system); `campaign --db {db} "
            "history verify` can still check it; to change it, copy it somewhere writable or make it writable"
        )
    assert _one_line(results["round1"]) == (
        f"error: the database is read-only: {folder / 'round1.db'}, and at schema revision 0002, which this version "
        f"({_head()}) would have to upgrade: copy it somewhere writable first"
    )
    assert results["logged history"][0] == 0 and "管狐" in results["logged history"][1]
    assert _one_line(results["logged roll"]).startswith(
        f"error: the database is read-only: {logged} (it is on a read-only file system)"
    )
    # Nothing was written, not even a log beside the file.
    assert sorted(p.name for p in folder.iterdir()) == [
        "campaign.db",
        "logged.db",
        "logged.db-shm",
        "logged.db-wal",
        "round1.db",
    ]
    assert support.dump(str(db)) == support.dump(str(kept))


def _head() -> str:
    from campaign.db.migrate import HEAD_REVISION

    return HEAD_REVISION


def test_a_full_disk_is_said_as_such(tmp_path):
    """The database's disk filled up by something else: reads open the file read-only
    (no log index to make) and answer; a write says the disk is full."""
    where = tmp_path / "small"
    where.mkdir()
    db = where / "campaign.db"
    commands = _commands(db)
    setup = [CAMPAIGN_BIN, "--db", str(db), "init", "卓"]
    fill = [
        sys.executable,
        "-c",
        f"f = open({str(where / 'fill')!r}, 'wb')\ntry:\n    while True: "
        "f.write(bytes(4096)); f.flush()\nexcept OSError: pass",
    ]
    results = _in_namespace(
        [["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(where)]],
        [setup, fill, commands["verify"], commands["list"], commands["roll"]],
        _env(tmp_path),
    )
    assert results[0][0] == 0, results[0]
    assert results[2][0] == 0 and json.loads(results[2][1])["ok"], results[2]
    assert results[3][0] == 0, results[3]
    for result in results[4:]:
        assert (
            _one_line(result) == f"error: the disk holding {db} is full: free some space and try again; "
            "nothing was changed"
        )


def _as_non_root() -> list[str]:
    """Run as a user the file modes apply to: ourselves, or as root a user namespace
    without a mapping (its processes are not root to the files, which root owns)."""
    if os.geteuid() != 0:
        return []
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "--user", "true"], capture_output=True).returncode != 0:
        pytest.skip("root ignores file modes and no user namespace is available")
    return [unshare, "--user"]


def test_a_read_only_file_in_a_read_only_folder_verifies(tmp_path):
    folder = tmp_path / "kept"
    folder.mkdir()
    db = folder / "campaign.db"
    _campaign(db)
    db.chmod(0o444)
    folder.chmod(0o555)
    prefix = _as_non_root()
    try:
        commands = _commands(db)
        verify = subprocess.run(
            [*prefix, *commands["verify"]], capture_output=True, text=True, env=_env(tmp_path), timeout=120
        )
        assert verify.returncode == 0 and json.loads(verify.stdout)["ok"], verify.stderr
        listed = subprocess.run(
            [*prefix, *commands["list"]], capture_output=True, text=True, env=_env(tmp_path), timeout=120
        )
        assert listed.returncode == 0 and "管狐" in listed.stdout, listed.stderr
        for name in ("roll",):
            done = subprocess.run(
                [*prefix, *commands[name]], capture_output=True, text=True, env=_env(tmp_path), timeout=120
            )
            assert _one_line((done.returncode, done.stdout, done.stderr)) == (
                f"error: the database is read-only: {db} (the file is not writable); `campaign --db {db} history "
                "verify` can still check it; to change it, copy it somewhere writable or make it writable"
            )
        assert sorted(p.name for p in folder.iterdir()) == ["campaign.db"]
    finally:
        folder.chmod(0o755)
        db.chmod(0o644)

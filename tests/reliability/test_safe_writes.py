"""Files the CLI writes (campaign.safe_files): export, `export --secrets`, `history proof
-o`, `db backup`.

- a target that exists and is not a regular file (a symbolic link, a FIFO, the /dev/full
  device) is refused in one line, exit 2, and stays what it was (the link still points
  where it did, the file behind it keeps its bytes);
- a failed export (no such campaign, a write error while writing, a disk that fills on
  fsync) leaves every existing file byte for byte as it was, the secrets file included,
  and no temporary file behind;
- `--secrets` naming the export file, however spelled, is refused;
- what is written is fsynced, then renamed, then its directory fsynced.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from tests.cli.conftest import Cli
from tests.reliability import support

pytestmark = pytest.mark.dialect


def _campaign(db: str) -> Cli:
    cli = Cli(db)
    cli.run("init", "書込卓")
    cli.run("player", "add", "Aki")
    cli.run("char", "add", "鈴音", "--player", "Aki", "--stat", "Will=11")
    cli.run("roll", "3D6<=11", "--char", "鈴音", "--dice", "1,2,3")
    cli.run("roll", "S3D6<=12", "--char", "鈴音", "--dice", "4,4,4")  # a secret roll
    cli.run("history", "seal")
    return cli


def _writers(db_url: str, target: Path, sqlite: bool) -> dict[str, list[str]]:
    writers = {
        "export": ["export", str(target)],
        "export --secrets": ["export", str(target.parent / "out.jsonl"), "--secrets", str(target)],
        "history proof -o": ["history", "proof", "1", "-o", str(target)],
    }
    if sqlite:
        writers["db backup"] = ["db", "backup", str(target), "--force"]
    return writers


def _specials(folder: Path) -> dict[str, Path]:
    victim = folder / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    link, dangling, fifo = folder / "link", folder / "dangling", folder / "fifo"
    link.symlink_to(victim)
    dangling.symlink_to(folder / "nowhere")
    os.mkfifo(fifo)
    specials = {"a symbolic link": link, "a dangling symbolic link": dangling, "a FIFO": fifo}
    if Path("/dev/full").exists():
        specials["the /dev/full device"] = Path("/dev/full")
    return specials


def _snapshot(folder: Path) -> dict[str, object]:
    shot: dict[str, object] = {}
    for path in sorted(folder.iterdir()):
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode):
            shot[path.name] = ("link", os.readlink(path))
        elif stat.S_ISREG(mode):
            shot[path.name] = path.read_bytes()
        else:
            shot[path.name] = stat.S_IFMT(mode)
    return shot


def test_a_target_that_is_not_a_regular_file_is_refused_and_kept(db_url, tmp_path):
    sqlite = support.backend_of(db_url) == "sqlite"
    cli = _campaign(db_url)
    folder = tmp_path / "targets"
    folder.mkdir()
    refused = 0
    for kind, target in _specials(folder).items():
        for writer, argv in _writers(db_url, target, sqlite).items():
            before = _snapshot(folder)
            message = cli.error(*argv, code=2)
            assert "not a regular file" in message and len(message.splitlines()) == 1, (kind, writer, message)
            assert _snapshot(folder) == before, f"{writer} changed something when given {kind}"
            refused += 1
    assert (folder / "victim.txt").read_text(encoding="utf-8") == "precious\n"
    support.record("safe writes", support.backend_of(db_url), refused_targets=refused)


def test_secrets_file_equal_to_the_export_is_refused_however_spelled(db_url, tmp_path, monkeypatch):
    cli = _campaign(db_url)
    target = tmp_path / "same.jsonl"
    target.write_text("old export\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for export, secrets in (
        ("same.jsonl", "same.jsonl"),
        ("same.jsonl", "./same.jsonl"),
        (str(target), "same.jsonl"),
        ("same.jsonl", f"../{tmp_path.name}/same.jsonl"),
    ):
        message = cli.error("export", export, "--secrets", secrets, code=2)
        assert "--secrets needs a file of its own" in message, message
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert "--secrets needs a file of its own" in cli.error("export", "same.jsonl", "--secrets", "link.jsonl", code=2)
    assert target.read_text(encoding="utf-8") == "old export\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")) == []


def _existing_files(tmp_path: Path) -> tuple[Path, Path, dict[str, object]]:
    export, secrets = tmp_path / "c.jsonl", tmp_path / "c.secrets.jsonl"
    export.write_text("last week's export\n", encoding="utf-8")
    secrets.write_text("last week's secrets\n", encoding="utf-8")
    return export, secrets, _snapshot(tmp_path)


def test_a_refused_export_leaves_the_existing_files_untouched(db_url, tmp_path):
    cli = _campaign(db_url)
    export, secrets, before = _existing_files(tmp_path)
    assert "no campaign named" in cli.error("-c", "無い卓", "export", str(export), "--secrets", str(secrets), code=1)
    assert cli.error("export", str(export), "--secrets", str(tmp_path / "no" / "dir.jsonl"), code=2)
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("failure", ["write", "fsync"])
def test_an_export_failing_while_writing_leaves_every_file_untouched(db_url, tmp_path, monkeypatch, failure):
    cli = _campaign(db_url)
    export, secrets, before = _existing_files(tmp_path)
    if failure == "write":
        from campaign.services.ledger import transfer

        real = transfer.export_lines

        def failing(*args, **kwargs):
            yield from list(real(*args, **kwargs))[:3]
            raise OSError(errno.EIO, "Input/output error")

        monkeypatch.setattr(transfer, "export_lines", failing)
    else:

        def full(fd):
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(os, "fsync", full)
    message = cli.error("export", str(export), "--secrets", str(secrets), code=1)
    assert message.startswith("error: cannot write") and "nothing was replaced" in message, message
    assert len(message.splitlines()) == 1
    assert _snapshot(tmp_path) == before  # no .partial left behind either


def test_written_files_are_fsynced_renamed_and_their_directory_synced(db_url, tmp_path, monkeypatch):
    sqlite = support.backend_of(db_url) == "sqlite"
    cli = _campaign(db_url)
    synced: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        mode = os.fstat(fd).st_mode
        synced.append("dir" if stat.S_ISDIR(mode) else "file")
        real_fsync(fd)

    def replace(src, dst):
        if Path(dst).parent == target.parent:  # not the selection file `db backup` also updates
            synced.append("rename")
        real_replace(src, dst)

    target = tmp_path / "out.bin"
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    for writer, argv in _writers(db_url, target, sqlite).items():
        target.write_text("old\n", encoding="utf-8")
        synced.clear()
        cli.run(*argv)
        files = 2 if writer == "export --secrets" else 1
        assert synced == ["file"] * files + ["rename"] * files + ["dir"], (writer, synced)
        assert target.read_bytes() != b"old\n"
        # A campaign's export, secrets and backup: owner-only; a proof is for sharing.
        umask = os.umask(0o22)
        os.umask(umask)
        shared = 0o644 & ~umask
        assert stat.S_IMODE(target.stat().st_mode) == (shared if writer == "history proof -o" else 0o600), writer

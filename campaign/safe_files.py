"""Every file the CLI writes where the user points it (export, `export --secrets`,
`history proof -o`, `db backup`; the shell's history too) is written here, one way.
(The campaign selection in the config directory keeps its own atomic write in
campaign.selection: a link there is the user's dotfiles, not a target they named.)

The new content goes to a temporary file beside the target (same directory, so the
rename cannot cross file systems), is flushed and fsynced, and only then renamed over
the target, and the directory is fsynced so the rename itself survives a crash. Until
that rename nothing at the target has changed: a refused or failed command leaves every
existing file exactly as it was, and a crash leaves either the old file or the new one.
Several files written together (an export and its secrets) are renamed only once all
of them are complete.

A target that exists and is not a regular file (a symlink, a FIFO, a device such as
/dev/full, a socket) is refused in one line: renaming over it would silently replace
the link or the node instead of writing where the user pointed, and writing through it
would send a campaign's secrets wherever the link leads.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from campaign.errors import N_, BadInput, CampaignError, Words


class WriteFailed(CampaignError):
    """Writing a file failed (disk full, permission, I/O error); nothing was replaced."""


# Why a write failed, in words shown translated; the system's own words for the rest.
_WRITE_PROBLEMS = {
    errno.ENOSPC: N_("no space left on the device"),
    errno.EACCES: N_("no permission to write there"),
    errno.EROFS: N_("the file system is read-only"),
    errno.EIO: N_("an input/output error"),
    errno.EDQUOT: N_("the disk quota is exceeded"),
}


def _problem(exc: OSError) -> str:
    found = _WRITE_PROBLEMS.get(exc.errno or 0)
    return Words(found) if found else str(exc.strerror or exc)


def target_path(name: str | os.PathLike[str], what: str = "") -> Path:
    """The absolute path a command will write, refused (exit 2) when it cannot be a
    plain file there: a directory, a missing directory, or something not a regular file."""
    path = Path(name).expanduser().absolute()
    label = f"{what} {path}" if what else str(path)
    try:
        found = path.lstat()
    except FileNotFoundError:
        found = None
    except OSError as exc:
        raise BadInput(N_("cannot write {label}: {problem}"), label=label, problem=_problem(exc)) from None
    if found is not None:
        if stat.S_ISDIR(found.st_mode):
            raise BadInput(N_("{label} is a directory"), label=label)
        if not stat.S_ISREG(found.st_mode):
            raise BadInput(
                N_("{label} exists and is not a regular file ({kind}); refusing to replace it"),
                label=label,
                kind=_kind(found.st_mode),
            )
    if not path.parent.is_dir():
        raise BadInput(N_("cannot write {label}: no such directory"), label=label)
    return path


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two names reach one file (relative or absolute, through links or `..`)."""
    first, second = Path(a).expanduser(), Path(b).expanduser()
    try:
        if first.exists() and second.exists():
            return os.path.samefile(first, second)
    except OSError:
        pass
    return os.path.realpath(first) == os.path.realpath(second)


def _kind(mode: int) -> str:
    """What the file is, as Words (shown in the output's language by refusal_words)."""
    for test, name in (
        (stat.S_ISLNK, N_("a symbolic link")),
        (stat.S_ISFIFO, N_("a FIFO")),
        (stat.S_ISCHR, N_("a device")),
        (stat.S_ISBLK, N_("a device")),
        (stat.S_ISSOCK, N_("a socket")),
    ):
        if test(mode):
            return Words(name)
    return Words(N_("not a plain file"))


class _Pending:
    """One target being replaced: its temporary sibling, created exclusively."""

    tmp: Path | None  # None once committed or discarded

    def __init__(self, target: Path, mode: int) -> None:
        self.target = target
        for _ in range(100):
            tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.partial")
            try:
                self.fd = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, mode)
            except FileExistsError:
                continue
            except OSError as exc:
                raise WriteFailed(N_("cannot write {label}: {problem}"), label=target, problem=_problem(exc)) from None
            self.tmp = tmp
            return
        raise WriteFailed(N_("cannot write {label}: no free temporary name beside it"), label=target)

    def sync(self) -> None:
        os.fsync(self.fd)

    @property
    def live_tmp(self) -> Path:
        """The temporary path, which exists until commit or discard."""
        assert self.tmp is not None, "the temporary file is already gone"
        return self.tmp

    def commit(self) -> None:
        os.replace(self.live_tmp, self.target)
        self.tmp = None

    def discard(self) -> None:
        if self.tmp is not None:
            try:
                os.unlink(self.tmp)
            except OSError:
                pass
            self.tmp = None


def _sync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems cannot sync a directory; the rename is still atomic
        pass
    finally:
        os.close(fd)


@contextmanager
def replacing_paths(targets: Sequence[Path], mode: int = 0o600) -> Iterator[list[Path]]:
    """Temporary paths for `targets` (already checked with target_path); when the block
    ends normally each is fsynced and renamed over its target, else all are removed.
    For writers that need a path of their own (SQLite's backup API)."""
    pending: list[_Pending] = []
    try:
        for target in targets:
            pending.append(_Pending(target, mode))
        for item in pending:
            os.close(item.fd)
            item.fd = -1
        yield [item.live_tmp for item in pending]
        for item in pending:
            item.fd = os.open(item.live_tmp, os.O_RDONLY)
            try:
                item.sync()
            finally:
                os.close(item.fd)
        _commit(pending)
    except OSError as exc:
        raise WriteFailed(
            N_("cannot write {label}: {problem}; nothing was replaced"),
            label=exc.filename or targets[0],
            problem=_problem(exc),
        ) from None
    finally:
        for item in pending:
            item.discard()


@contextmanager
def replacing(targets: Sequence[Path], mode: int = 0o600, encoding: str | None = "utf-8") -> Iterator[list[IO[Any]]]:
    """Open handles (text, or binary with encoding=None) on temporary files for
    `targets` (checked with target_path); see the module docstring for what happens
    when the block ends, normally or not. `mode` is the new file's permission (the umask
    applies): 0o600 for anything holding a campaign."""
    if not targets:  # nothing to replace (the output goes to stdout)
        yield []
        return
    pending: list[_Pending] = []
    handles: list[IO[Any]] = []
    try:
        for target in targets:
            item = _Pending(target, mode)
            pending.append(item)
            handles.append(os.fdopen(item.fd, "w" if encoding else "wb", encoding=encoding))
        yield handles
        for item, handle in zip(pending, handles):
            handle.flush()
            item.sync()
            handle.close()
        _commit(pending)
    except OSError as exc:
        target = next((item.target for item in pending if item.tmp is not None), targets[0])
        raise WriteFailed(
            N_("cannot write {label}: {problem}; nothing was replaced"), label=target, problem=_problem(exc)
        ) from None
    finally:
        for handle in handles:
            try:
                handle.close()
            except OSError:
                pass
        for item in pending:
            item.discard()


def _commit(pending: list[_Pending]) -> None:
    # The targets were checked before writing; check them all again just before any is
    # replaced, so a link or node put there meanwhile is refused too, not replaced.
    for item in pending:
        target_path(item.target)
    for item in pending:
        item.commit()
    for directory in {item.target.parent for item in pending}:
        _sync_directory(directory)


@contextmanager
def replacing_one(target: Path, mode: int = 0o600, encoding: str | None = "utf-8") -> Iterator[IO[Any]]:
    """`replacing` for a single file."""
    with replacing([target], mode, encoding) as (handle,):
        yield handle

"""Which campaign a command acts on when --campaign is not given.

The choice is per user and per database (a file in the user config dir), so two GMs
sharing one PostgreSQL server do not switch each other's campaign.

The file is keyed by the database URL *without its password*: a config file is the kind
of thing people paste into bug reports and sync between machines, and it must never
carry a credential. Two URLs that differ only in the password name the same user on the
same database, so sharing one selection between them is right. Writes are
read-modify-write under an exclusive lock on a companion lock file, then an atomic
replace from a private temporary file, so parallel `use`/`init` runs never lose each
other's choice or trip over a shared temporary name.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _selection_file() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("campaign", appauthor=False)) / "selected.json"


def selection_key(db_url: str) -> str:
    """The URL with any password removed (SQLite paths and password-less URLs unchanged)."""
    from sqlalchemy.engine import URL, make_url

    try:
        url = make_url(db_url)
    except Exception:  # not a URL we could parse: never store it as typed
        return "unparsed:" + _digest(db_url)
    if url.password is None:
        return db_url
    bare = URL.create(url.drivername, url.username, None, url.host, url.port, url.database, url.query)
    return bare.render_as_string(hide_password=False)


def _digest(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _has_password(key: str) -> bool:
    if "://" not in key:
        return False
    from sqlalchemy.engine import make_url

    try:
        return make_url(key).password is not None
    except Exception:
        return True  # unparseable legacy key: drop it rather than keep a possible secret


def _read(path: Path) -> dict[str, str]:
    try:
        choices = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return choices if isinstance(choices, dict) else {}


def selected_campaign(db_url: str) -> str | None:
    choices = _read(_selection_file())
    chosen = choices.get(selection_key(db_url))
    if chosen is None:
        chosen = choices.get(db_url)  # written by an older version, keyed by the full URL
    return chosen if isinstance(chosen, str) else None


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock for the read-modify-write of the selection file."""
    import fcntl

    fd = os.open(path.with_name(path.name + ".lock"), os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def select_campaign(db_url: str, name: str) -> None:
    path = _selection_file()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    with _locked(path):
        old = _read(path)
        choices: dict[str, str] = {}
        for key, value in old.items():
            if not _has_password(key):
                choices[key] = value
        for key, value in old.items():  # keys an older version stored with a password
            if _has_password(key):
                choices.setdefault(selection_key(key), value)
        choices[selection_key(db_url)] = name
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".selected-", suffix=".tmp")  # mode 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(json.dumps(choices, ensure_ascii=False, indent=1))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def forget_database(db_url: str) -> None:
    """Drop a database's entry (`campaign demo` deletes its temporary database: the
    choice made for it must not outlive it, or the file grows one stale line per run)."""
    path = _selection_file()
    if not path.exists():
        return
    with _locked(path):
        old = _read(path)
        choices = {key: value for key, value in old.items() if key not in (selection_key(db_url), db_url)}
        if choices == old:
            return
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".selected-", suffix=".tmp")  # mode 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(json.dumps(choices, ensure_ascii=False, indent=1))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

"""A throwaway PostgreSQL cluster for the test suite.

initdb + pg_ctl into a temporary directory, listening on a free loopback port, with
durability switched off (it is thrown away). As root, the server runs as `postgres`.

The directory is in /dev/shm when that is a memory file system with room to spare:
each test gets its own database (CREATE DATABASE ... TEMPLATE, STRATEGY FILE_COPY),
which on a disk costs 150-250 ms of server time and on tmpfs about 25 ms. Tests drop
their database when they end (tests/conftest.py) and WAL is kept small, so the cluster
stays at a few hundred MB at most; a small /dev/shm (containers often have 64 MB)
means the usual temporary directory instead.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def find_bindir() -> Path | None:
    on_path = shutil.which("pg_ctl")
    if on_path:
        return Path(on_path).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), reverse=True)
    return Path(candidates[0]).parent if candidates else None


MEMORY_DIR = Path("/dev/shm")
MEMORY_DIR_NEEDED = 2 * 1024**3  # bytes free before the cluster goes there


def scratch_root() -> str | None:
    """Where the cluster's directory goes: /dev/shm if it has room, else the default."""
    try:
        if (
            MEMORY_DIR.is_dir()
            and os.access(MEMORY_DIR, os.W_OK)
            and shutil.disk_usage(MEMORY_DIR).free >= MEMORY_DIR_NEEDED
        ):
            return str(MEMORY_DIR)
    except OSError:
        pass
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self) -> None:
        self.bindir = find_bindir()
        if self.bindir is None:
            raise RuntimeError("PostgreSQL binaries (initdb, pg_ctl) not found")
        self.root = Path(tempfile.mkdtemp(prefix="campaign-pg-", dir=scratch_root()))
        self.datadir = self.root / "data"
        self.port = _free_port()
        self.as_postgres = os.geteuid() == 0

    def _run(self, *args: str) -> None:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)

    def start(self) -> Cluster:
        if self.as_postgres:
            shutil.chown(self.root, "postgres")
            os.chmod(self.root, 0o755)
        self._run("initdb", "-D", str(self.datadir), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8")
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.root} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 "
            "-c min_wal_size=32MB -c max_wal_size=256MB"
        )
        self._run("pg_ctl", "-D", str(self.datadir), "-o", options, "-l", str(self.root / "log"), "-w", "start")
        import psycopg

        with psycopg.connect(self.admin_dsn(), autocommit=True) as conn:
            version = conn.info.server_version
        # PostgreSQL 15 copies a template through the WAL by default; FILE_COPY (one cheap
        # checkpoint with fsync off) makes a test's database in half the time.
        self._strategy = " STRATEGY FILE_COPY" if version >= 150000 else ""
        return self

    def admin_dsn(self) -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str, template: str | None = None) -> str:
        import psycopg

        with psycopg.connect(self.admin_dsn(), autocommit=True) as conn:
            suffix = f' TEMPLATE "{template}"{self._strategy}' if template else ""
            conn.execute(f'CREATE DATABASE "{name}"{suffix}')
        return self.url(name)

    def replace_database(self, name: str, template: str) -> None:
        """Drop `name` and make it again as a copy of `template`."""
        import psycopg

        with psycopg.connect(self.admin_dsn(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE "{name}"')
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"{self._strategy}')

    def drop_database(self, name: str) -> None:
        """Drop a test's database, closing whatever connections it still has (PostgreSQL
        13+); best effort: a database left behind goes with the cluster."""
        import psycopg

        try:
            with psycopg.connect(self.admin_dsn(), autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        except psycopg.Error:
            pass

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.datadir), "-m", "immediate", "stop")
        except Exception:
            pass
        shutil.rmtree(self.root, ignore_errors=True)

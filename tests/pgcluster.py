"""A throwaway PostgreSQL cluster for the test suite.

initdb + pg_ctl into a temporary directory, listening on a free loopback port, with
durability switched off (it is thrown away). As root, the server runs as `postgres`.
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self) -> None:
        self.bindir = find_bindir()
        if self.bindir is None:
            raise RuntimeError("PostgreSQL binaries (initdb, pg_ctl) not found")
        self.root = Path(tempfile.mkdtemp(prefix="campaign-pg-"))
        self.datadir = self.root / "data"
        self.port = _free_port()
        self.as_postgres = os.geteuid() == 0

    def _run(self, *args: str) -> None:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)

    def start(self) -> "Cluster":
        if self.as_postgres:
            shutil.chown(self.root, "postgres")
            os.chmod(self.root, 0o755)
        self._run("initdb", "-D", str(self.datadir), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--locale=C.UTF-8")
        options = (f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.root} "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        self._run("pg_ctl", "-D", str(self.datadir), "-o", options, "-l", str(self.root / "log"), "-w", "start")
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str, template: str | None = None) -> str:
        import psycopg

        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as conn:
            suffix = f" TEMPLATE {template}" if template else ""
            conn.execute(f'CREATE DATABASE "{name}"{suffix}')
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.datadir), "-m", "immediate", "stop")
        except Exception:
            pass
        shutil.rmtree(self.root, ignore_errors=True)

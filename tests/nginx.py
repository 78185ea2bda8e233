"""Debian's nginx with docs/hosting.md's site, word for word but for the ports and a
self-signed certificate, in front of `campaign serve` processes on loopback: shared by
tests/web/test_hosting.py and the bench's proxied load row (tests.perf.table_load)."""

from __future__ import annotations

import os
import pwd
import re
import shlex
import socket
import subprocess
import time
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "hosting.md"
NGINX = "/usr/sbin/nginx"
DEADLINE = 60.0  # seconds any one condition may take to come true on a loaded machine


def doc_block(marker: str) -> str:
    """The fenced block right after `<!-- marker -->` in docs/hosting.md."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(rf"<!-- {marker} -->\n```[a-z]*\n(.*?)\n```", text, re.S)
    assert found, f"docs/hosting.md has no block marked {marker}"
    return found.group(1)


def for_test(args: list[str], token_file: Path) -> list[str]:
    """A doc's serve arguments with the test's port (0: any free one), token file and,
    for a wildcard host, loopback (a test listens on loopback only)."""
    swap = {"--port": "0", "--token-file": str(token_file), "--host": "127.0.0.1"}
    out = list(args)
    for i, word in enumerate(out[:-1]):
        if word in swap:
            out[i + 1] = swap[word]
    return out


def nginx_serve_args(token_file: Path) -> list[list[str]]:
    """The arguments after `serve` of docs/hosting.md's two processes for nginx, as
    `for_test` makes them (any free port, the given token file)."""
    args = [
        for_test(shlex.split(line)[shlex.split(line).index("serve") + 1 :], token_file)
        for line in doc_block("nginx-serve").splitlines()
        if line.startswith("campaign ")
    ]
    assert len(args) == 2, "docs/hosting.md starts two processes for nginx"
    return args


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until(condition, what: str, deadline: float = DEADLINE):
    """`condition()` once it is true; fails naming `what` after `deadline` seconds."""
    end = time.monotonic() + deadline
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < end, f"{what}: not within {deadline:.0f} s"
        time.sleep(0.05)


class Nginx:
    """Debian's nginx with docs/hosting.md's site in front of two upstream ports."""

    def __init__(self, folder: Path, upstreams: tuple[int, int]) -> None:
        self.folder = folder
        self.http_port, self.https_port = free_port(), free_port()
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
            + ["-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem"), "-days", "1"]
            + ["-subj", "/CN=table.example"],
            check=True,
            capture_output=True,
        )
        site = doc_block("nginx-site")
        for old, new in {
            "server 127.0.0.1:8001;": f"server 127.0.0.1:{upstreams[0]};",
            "server 127.0.0.1:8002;": f"server 127.0.0.1:{upstreams[1]};",
            "listen 80;": f"listen 127.0.0.1:{self.http_port};",
            "listen 443 ssl;": f"listen 127.0.0.1:{self.https_port} ssl;",
            "/etc/letsencrypt/live/table.example/fullchain.pem": str(folder / "cert.pem"),
            "/etc/letsencrypt/live/table.example/privkey.pem": str(folder / "key.pem"),
        }.items():
            assert site.count(old) == 1, f"docs/hosting.md's nginx site no longer has {old!r}"
            site = site.replace(old, new)
        temp = "\n".join(f"    {kind}_temp_path {folder / kind};" for kind in ("proxy", "fastcgi", "uwsgi", "scgi"))
        # as root, nginx's workers would run as nobody: run them as the current user
        user = f"user {pwd.getpwuid(os.getuid()).pw_name};\n" if os.geteuid() == 0 else ""
        (folder / "nginx.conf").write_text(
            f"{user}worker_processes 1;\npid {folder / 'nginx.pid'};\nerror_log {folder / 'error.log'};\n"
            f"events {{ worker_connections 512; }}\nhttp {{\n    access_log {folder / 'access.log'};\n"
            f"    client_body_temp_path {folder / 'body'};\n{temp}\n{site}\n}}\n"
        )
        self.proc = subprocess.Popen(
            [NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf"), "-e", str(folder / "error.log")]
            + ["-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        wait_until(self._listening, "nginx listening")

    def _listening(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"nginx stopped: {self.proc.stderr.read()} {self.log()}")
        try:
            socket.create_connection(("127.0.0.1", self.https_port), timeout=1).close()
            return True
        except OSError:
            return False

    def log(self) -> str:
        path = self.folder / "error.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

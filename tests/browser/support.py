"""Shared machinery of the browser tests and `make demo-web`.

- `Server`: `campaign serve` as a real subprocess on a real database file, reading the
  URL it prints as its first stdout line, stopped by its own pid.
- `launch_chromium()`: Debian's system Chromium driven headless by Playwright through
  `executable_path`; nothing here ever downloads a browser.
- `lan_address()`: an IPv4 address of this machine that is not loopback, so a page can
  be opened in a context that is genuinely not secure (no WebCrypto), as a phone on the
  table's LAN would.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from campaign.cli.demo import PARTY

CHROMIUM = os.environ.get("CAMPAIGN_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
XSS_NAME = "<script>alert(1)</script>"


def campaign_command() -> list[str]:
    script = Path(sys.executable).parent / "campaign"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from campaign.cli.app import main; main()"]


def cli(db: Path, *args: str, json_out: bool = False, env: dict | None = None) -> dict | str:
    """Run one `campaign --db DB ...` in its own process; its JSON (with json_out) or stdout."""
    argv = [*campaign_command(), "--db", str(db), *args, *(["--json"] if json_out else [])]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    if done.returncode != 0:
        raise AssertionError(f"campaign {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
    return json.loads(done.stdout) if json_out else done.stdout


TABLE_STEPS = [
    ["init", "百鬼夜翔 夜桜編", "--ruleset", "gurps3-ja", "--no-fair"],  # the tests count entries
    *PARTY,
    ["char", "add", XSS_NAME, "--player", "Ren", "--stat", "Will=10"],
    ["char", "relate", "鈴音", "刀矢", "--note", "幼馴染"],
    ["--as", "Aki", "roll", "3D6<=12", "回避", "--char", "鈴音", "--dice", "6,6,5"],
    ["--as", "Ren", "roll", "2D6+3>=10", "--char", "刀矢", "--dice", "4,5"],
    ["fright", "鈴音", "--pick", "暗所恐怖症", "--reason", "屋敷の地下室", "--dice", "6,5,5,6,6,6"],
    ["scenario", "start", "第一話 霧の館", "--with", "鈴音", "--with", "刀矢"],
    ["missing", "mark", "鈴音", "--reason", "霧の中に消えた"],
    ["scenario", "end", "--dice", "鈴音=4"],  # 4 > 1 + 0 searchers: still missing
    ["scenario", "start", "第二話 捜索", "--with", XSS_NAME, "--search", "刀矢=鈴音"],
    ["history", "seal", "--reason", "第1話 終了"],
    ["roll", "2D6", "--dice", "3,4"],
]

# One process runs every step through the real Click app (as `campaign demo` does): a
# process per command costs seconds each on a shared 2-core machine.
BUILDER = """
import sys
from campaign.cli.app import app
db, steps = sys.argv[1], __import__("json").loads(sys.argv[2])
for step in steps:
    code = app(["--db", db, *step], standalone_mode=False)
    if code:
        sys.exit(f"step {step} exited {code}")
"""


def build_table_campaign(db: Path, env: dict | None = None) -> dict:
    """A demo-like campaign built by CLI commands with exact dice: 鈴音 missing with 刀矢
    searching for her, a character whose name is a script tag, a seal, then one roll.

    Returns the seqs and the seal head the tests need (read back through the CLI).
    """
    done = subprocess.run(
        [sys.executable, "-c", BUILDER, str(db), json.dumps(TABLE_STEPS)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    if done.returncode != 0:
        raise AssertionError(f"building the campaign failed: {done.stderr.strip()[-2000:]}")
    entries = cli(db, "history", "--all", json_out=True, env=env)
    roll = next(e for e in entries if e["kind"] == "roll" and e["dice"] == [6, 6, 5])
    seal = next(e for e in entries if e["kind"] == "seal")
    return {
        "roll_seq": roll["seq"],
        "seal_seq": seal["seq"],
        "head": seal["hash"],
        "last_seq": max(e["seq"] for e in entries),
    }


def copy_database(source: Path, target: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        if Path(str(source) + suffix).exists():
            shutil.copy(str(source) + suffix, str(target) + suffix)
    return target


class Server:
    """`campaign --db DB serve ARGS` as a subprocess; `url` is its printed first line."""

    def __init__(self, db: Path, *args: str, env: dict | None = None, timeout: float = 30.0) -> None:
        argv = [*campaign_command(), "--db", str(db), "serve", "--port", "0", *args]
        # stderr to a file, never an unread pipe: a busy server's log would fill it and block.
        self._log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=self._log, env=env)
        self.url = self._first_line(timeout)
        parts = urlsplit(self.url)
        self.port = parts.port
        self.token = (parse_qs(parts.query).get("token") or [None])[0]
        self.base = f"http://127.0.0.1:{self.port}"
        self._wait_ready(timeout)

    def _first_line(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        line = b""
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                self.stop()
                raise AssertionError(f"campaign serve printed no URL: {self.stderr()[-2000:]}")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 1)
                if not chunk:
                    continue
                line += chunk
        return line.decode().strip()

    def _wait_ready(self, timeout: float) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while True:
            try:
                httpx.get(self.base + "/static/verify.js", timeout=2.0)
                return
            except httpx.TransportError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    self.stop()
                    raise AssertionError(
                        f"campaign serve did not answer at {self.base}: {self.stderr()[-2000:]}"
                    ) from None
                time.sleep(0.1)

    def stderr(self) -> str:
        """What the server wrote on stderr so far (its log)."""
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self.proc.stdout:
            self.proc.stdout.close()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def chromium_problem() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if not os.path.exists(CHROMIUM):
        return f"{CHROMIUM} is missing (apt-get install chromium fonts-noto-cjk)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    return None


def launch_chromium(playwright):
    """The system Chromium, headless, with nothing that reaches the network on its own."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def lan_address() -> str | None:
    """A non-loopback IPv4 address of this machine (the first global one `ip` lists)."""
    try:
        out = subprocess.run(
            ["ip", "-j", "-4", "addr", "show", "scope", "global"], capture_output=True, text=True, timeout=10
        )
        for link in json.loads(out.stdout or "[]"):
            if "UP" not in link.get("flags", []):
                continue
            for info in link.get("addr_info", []):
                if info.get("family") == "inet" and not info.get("local", "").startswith("127."):
                    return info["local"]
    except (OSError, ValueError, subprocess.TimeoutExpired):
        pass
    return None


DUMMY_LINK = "cmpgnweb0"
DUMMY_ADDRESS = "10.253.253.1"


def add_dummy_address() -> str | None:
    """On a machine with no LAN address, a dummy interface (root only); None if impossible."""
    steps = [
        ["ip", "link", "add", DUMMY_LINK, "type", "dummy"],
        ["ip", "addr", "add", f"{DUMMY_ADDRESS}/32", "dev", DUMMY_LINK],
        ["ip", "link", "set", DUMMY_LINK, "up"],
    ]
    for step in steps:
        if subprocess.run(step, capture_output=True, timeout=10).returncode != 0:
            remove_dummy_address()
            return None
    return DUMMY_ADDRESS


def remove_dummy_address() -> None:
    subprocess.run(["ip", "link", "del", DUMMY_LINK], capture_output=True, timeout=10)

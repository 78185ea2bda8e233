"""A 10 MB ココフォリア log imports in constant memory (< 150 MB peak RSS) and in reasonable time.

The import runs in a subprocess so its peak RSS (getrusage) is its own, not the test runner's.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time

import pytest

from tests.ccfolia_logs import HEAD, TAIL, paragraph

pytestmark = pytest.mark.slow

TARGET_BYTES = 10 * 1024 * 1024
RSS_LIMIT_KB = 150 * 1024
EVERY = 40  # one roll in this many messages: a session log is mostly talk


def write_big_log(path) -> tuple[int, int]:
    """Chat with a success roll now and then; returns (messages, rolls)."""
    messages = rolls = 0
    with open(path, "w", encoding="utf-8") as out:
        out.write(HEAD)
        written = len(HEAD)
        while written < TARGET_BYTES:
            if messages % EVERY == 0:
                faces = [1 + messages % 6, 1 + (messages // 6) % 6, 1 + (messages // 36) % 6]
                total = sum(faces)
                outcome = "成功(成功度：%d)" % (12 - total) if total <= 12 and total > 4 else None
                if outcome is None:
                    text = f"3d6 ({'3D6'}) ＞ {total}[{','.join(map(str, faces))}] ＞ {total}"
                else:
                    text = f"3d6<=12 回避 (3D6<=12) ＞ {total}[{','.join(map(str, faces))}] ＞ {total} ＞ {outcome}"
                rolls += 1
            else:
                text = f"発言その{messages}：霧の向こうに灯りが見える。どうする？ &<> 「{'あ' * (messages % 50)}」"
            chunk = paragraph("main", "鈴音" if messages % 3 else "GM", text)
            out.write(chunk)
            written += len(chunk.encode("utf-8"))
            messages += 1
        out.write(TAIL)
    return messages, rolls


# VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over from the parent at exec,
# so under a large test runner the child would report the runner's size.
SCRIPT = textwrap.dedent("""
    import json, sys
    from campaign.cli.app import app

    def peak_kb():
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))

    db, log = sys.argv[1], sys.argv[2]
    for args in (["init", "大卓"], ["player", "add", "Aki"], ["char", "add", "鈴音", "--player", "Aki"]):
        try:
            app(["--db", db, *args], standalone_mode=False)
        except SystemExit:
            pass
    baseline = peak_kb()
    app(["--db", db, "import-log", log, "--ccfolia", "--json"], standalone_mode=False)
    peak = peak_kb()
    sys.stderr.write(json.dumps({"baseline_kb": baseline, "peak_kb": peak}) + "\\n")
""")


def test_ten_megabyte_log(tmp_path):
    log = tmp_path / "big.html"
    messages, rolls = write_big_log(log)
    assert log.stat().st_size >= TARGET_BYTES
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "c.db"), str(log)],
                          capture_output=True, text=True, timeout=600,
                          env={"XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    memory = json.loads(done.stderr.strip().splitlines()[-1])
    assert summary["messages"] == messages and summary["rolls"] == rolls and summary["recorded"] == rolls
    assert summary["chat"] == messages - rolls and summary["malformed"] == 0
    assert memory["peak_kb"] < RSS_LIMIT_KB, memory
    assert elapsed < 300, f"import took {elapsed:.0f} s"

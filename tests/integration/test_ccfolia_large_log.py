"""A 3,300-message ココフォリア log imports in bounded memory and linear time.

Each import runs in a subprocess of its own, so its peak RSS (VmHWM) is its own, not the
test runner's; the 3,300-message log (the largest real session the issue measured) must
peak within twice the 300-message log's, and cost per message no more than twice as
much (ratios, not absolute times: the machine is shared).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tests.ccfolia_logs import HEAD, TAIL, paragraph

pytestmark = pytest.mark.slow

EVERY = 10  # one dice message in this many: a session log is mostly talk


def write_log(path, messages: int) -> int:
    """Chat with rolls, repeats and tables now and then; returns the entries it holds."""
    entries = 0
    with open(path, "w", encoding="utf-8") as out:
        out.write(HEAD)
        for n in range(messages):
            faces = [1 + n % 6, 1 + (n // 6) % 6, 1 + (n // 36) % 6]
            total = sum(faces)
            if n % EVERY == 0:
                outcome = (
                    "クリティカル" if total <= 4 else "ファンブル" if total >= 17 else "成功" if total <= 12 else "失敗"
                )
                label = "成功度" if outcome in ("クリティカル", "成功") else "失敗度"
                text = f"3d6<=12 回避 (3D6<=12) ＞ {total}{faces} ＞ {total} ＞ {outcome}({label}：{12 - total})"
                entries += 1
            elif n % EVERY == 5:
                text = (
                    f"x2 2d6 #1 (2D6) ＞ {faces[0] + faces[1]}[{faces[0]},{faces[1]}] ＞ {faces[0] + faces[1]} "
                    f"#2 (2D6) ＞ {faces[1] + faces[2]}[{faces[1]},{faces[2]}] ＞ {faces[1] + faces[2]}"
                )
                entries += 2
            elif n % EVERY == 7:
                text = f"CRT クリティカル表({total}) ＞ 通常ダメージ。"
                entries += 1
            else:
                text = f"発言その{n}：霧の向こうに灯りが見える。どうする？ &<> 「{'あ' * (n % 50)}」"
            out.write(paragraph("main", "すずね" if n % 3 else "GM", text))
        out.write(TAIL)
    return entries


# VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over from the parent at exec,
# so under a large test runner the child would report the runner's size.
SCRIPT = textwrap.dedent("""
    import json, sys, time
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
    started = time.perf_counter()
    app(["--db", db, "import-log", log, "--ccfolia", "--map", "すずね=鈴音", "--json"], standalone_mode=False)
    elapsed = time.perf_counter() - started
    sys.stderr.write(json.dumps({"baseline_kb": baseline, "peak_kb": peak_kb(), "seconds": elapsed}) + "\\n")
""")


def run_import(tmp_path, messages: int) -> tuple[dict, dict, int]:
    log = tmp_path / f"log{messages}.html"
    entries = write_log(log, messages)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / f"c{messages}.db"), str(log)],
        capture_output=True,
        text=True,
        timeout=600,
        env={"XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), json.loads(done.stderr.strip().splitlines()[-1]), entries


def test_a_large_log_costs_what_a_small_one_does_per_message(tmp_path):
    run_import(tmp_path, 50)  # warm the file cache and the bytecode, so neither run pays for them
    small, small_cost, small_entries = run_import(tmp_path, 300)
    large, large_cost, large_entries = run_import(tmp_path, 3300)
    for summary, messages, entries in ((small, 300, small_entries), (large, 3300, large_entries)):
        assert (summary["messages"], summary["recorded"], summary["malformed"]) == (messages, entries, 0)
        assert summary["chat"] == messages - messages // EVERY * 3
    assert large_entries > 10 * small_entries * 0.95
    assert large_cost["peak_kb"] <= 2 * small_cost["peak_kb"], (small_cost, large_cost)
    per_small = small_cost["seconds"] / small["messages"]
    per_large = large_cost["seconds"] / large["messages"]
    assert per_large <= 2 * per_small, (small_cost, large_cost)
    print(f"\n300: {small_cost}\n3300: {large_cost}")

"""The `receipts` row of `make bench`: the table page's receipts check (static/receipts.js)
over 1,000 receipts in Debian's Chromium, against the bare HMACs it has to compute.

The receipts and the chain are made here the way the table writes them (v2 derivation,
docs/fair-dice.md; totals and outcomes by campaign.core.success), one 3D6 success roll
per receipt, and handed to the page's own `fairReceipts.check`; the baseline is the same
number of HMAC-SHA-256 signatures through crypto.subtle alone, in the same page, so the
ratio says what the check adds to the arithmetic it cannot avoid.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from campaign.core.fair_dice import new_seed, seed_commitment
from campaign.core.success import judge_success
from campaign.fair_check import derive

STATIC = Path(__file__).resolve().parents[2] / "campaign" / "web" / "static"
SCRIPTS = ("messages.js", "sha256.js", "recompute.js", "fair_check.js", "receipts.js")
CAMPAIGN, PLAYER, TARGET = "Bench Table", "Aki", 12

TIMED = """async ([receipts, records, runs, engine]) => {
  const times = [];
  let found = null;
  for (let run = 0; run < runs; run += 1) {
    const start = performance.now();
    found = await fairReceipts.check(receipts, records, "Aki", engine);
    times.push(performance.now() - start);
  }
  return { times, ok: found.ok, derived: found.derived, problems: found.problems.length };
}"""

FLOOR = """async ([seed, messages, runs]) => {
  const bytes = new Uint8Array(seed.match(/../g).map((h) => parseInt(h, 16)));
  const encoder = new TextEncoder(), times = [];
  for (let run = 0; run < runs; run += 1) {
    const start = performance.now();
    const key = await crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    await Promise.all(messages.map((m) => crypto.subtle.sign("HMAC", key, encoder.encode(m))));
    times.push(performance.now() - start);
  }
  return times;
}"""


def table(count: int) -> tuple[str, list[dict], list[dict], list[str]]:
    """(seed, receipts, the chain's records, every HMAC message the check computes)."""
    seed = new_seed()
    records: list[dict] = [
        {"seq": 1, "kind": "seed_commit", "actor": "GM", "dice": None, "detail": {"commitment": seed_commitment(seed)}}
    ]
    receipts, messages = [], []
    for number in range(count):
        seq, share = number + 2, f"{number:064x}"
        draws = []
        for index in range(3):
            face = derive(seed, None, share, index, 6)
            draws.append([6, face])
            messages.append(f"campaign-fair-v2:{share}:{index}:0")
        dice = [face for _, face in draws]
        judged = judge_success(sum(dice), sum(dice), TARGET)
        fair = {"v": 2, "commit": 1, "share": share, "from": 0, "draws": draws}
        records.append(
            {
                "seq": seq,
                "kind": "roll",
                "actor": PLAYER,
                "expression": f"3D6<={TARGET}",
                "dice": dice,
                "total": judged.total,
                "target": TARGET,
                "outcome": judged.outcome,
                "margin": judged.margin,
                # as a GURPS success roll records its judgement (campaign.core.dice): the
                # checkers judge criticals only for a roll that says it is one
                "detail": {
                    "fair": fair,
                    "gurps": {
                        "target": TARGET,
                        "effective_target": TARGET,
                        "raw": sum(dice),
                        "total": judged.total,
                        "faces": dice,
                        "outcome": judged.outcome,
                        "margin": judged.margin,
                        "rule": "R1",
                    },
                },
            }
        )
        answer = {"seq": seq, "dice": dice, "total": judged.total, "outcome": judged.outcome, "fair": fair}
        receipts.append(
            {
                "key": f"k{number:08d}",
                "share": share,
                "command": f"3D6<={TARGET}",
                "answer": {"share": share, "entries": [answer]},
            }
        )
    records.append(
        {
            "seq": count + 2,
            "kind": "seed_reveal",
            "actor": "GM",
            "dice": None,
            "detail": {"reveals": 1, "seed": seed, "commitment": seed_commitment(seed)},
        }
    )
    return seed, receipts, records, messages


def measure(workdir: Path, count: int = 1000, runs: int = 7) -> dict[str, float | int | bool]:
    """Medians in seconds: the check by crypto.subtle, by the bundled sha256.js (a plain
    http:// page), and the floor; with the check's own verdict."""
    from playwright.sync_api import sync_playwright

    from tests.browser.support import launch_chromium

    page_file = workdir / "receipts-bench.html"
    tags = "".join(f'<script src="{(STATIC / name).as_uri()}"></script>' for name in SCRIPTS)
    page_file.write_text(f"<!doctype html><meta charset=utf-8><title>bench</title>{tags}", encoding="utf-8")
    seed, receipts, records, messages = table(count)
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            page = browser.new_page()
            page.goto(page_file.as_uri())
            assert page.evaluate("window.isSecureContext && !!crypto.subtle"), "file:// is a secure context"
            page.evaluate(TIMED, [receipts, records, 2, "subtle"])  # warm-up
            floor = page.evaluate(FLOOR, [seed, messages, runs])
            subtle = page.evaluate(TIMED, [receipts, records, runs, "subtle"])
            bundled = page.evaluate(TIMED, [receipts, records, runs, "bundled"])
        finally:
            browser.close()
    assert subtle["ok"] and bundled["ok"] and subtle["derived"] == count, (subtle, bundled)
    return {
        "count": count,
        "runs": runs,
        "subtle": statistics.median(subtle["times"]) / 1000,
        "bundled": statistics.median(bundled["times"]) / 1000,
        "floor": statistics.median(floor) / 1000,
        "hmacs": len(messages),
        "ok": subtle["ok"],
    }


if __name__ == "__main__":  # python -m tests.perf.receipts_page: the figures alone
    import tempfile

    print(json.dumps(measure(Path(tempfile.mkdtemp()))))

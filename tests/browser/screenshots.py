"""`make demo-web`: the demo campaign served and photographed, for a reviewer to look at.

    python -m tests.browser.screenshots docs/screenshots

Builds the demo campaign (`campaign --db F demo`, fixed seed, then 刀矢 goes missing in a
third scenario so the missing board has a card), starts `campaign serve
--port 0` on it, and writes full-page PNGs of the overview and the luck charts at a
phone's width (390 px) and a laptop's (1280 px) with Debian's headless Chromium; then
signs in as Aki and as the GM through invites (with a fright call pending for 鈴音) and
photographs both table homes the same way (table-player-*.png, table-gm-*.png): Aki's
after she tapped 回避, so her result panel shows (and the phone's screen alone at that
moment, table-player-tap-390.png), and the GM's with the invite panel
open after the GM made Ren's invite on the page (the link and its QR code; the link
uses the `public_url` setting, set once the server is up so `serve` prints its own).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from tests.browser import support

PAGES = (("overview", "/"), ("luck", "/luck"))
PUBLIC_URL = "http://192.168.1.20:8000/"  # as `serve --host 0.0.0.0` would print the LAN address
WIDTHS = (390, 1280)


def take(browser, base: str, outdir: Path, widths=WIDTHS, pages=PAGES) -> list[Path]:
    """One PNG per page and width, named PAGE-WIDTH.png; the paths written."""
    outdir.mkdir(parents=True, exist_ok=True)
    written = []
    for width in widths:
        context = browser.new_context(  # a Japanese browser (Accept-Language ja): the pages in Japanese
            locale="ja-JP", viewport={"width": width, "height": 844 if width < 600 else 900}, device_scale_factor=1
        )
        page = context.new_page()
        for name, path in pages:
            response = page.goto(base + path)
            if response is None or response.status != 200:
                raise RuntimeError(f"{path} answered {response and response.status}")
            page.wait_for_timeout(300)  # webfonts and layout settle
            target = outdir / f"{name}-{width}.png"
            page.screenshot(path=str(target), full_page=True)
            written.append(target)
        context.close()
    return written


def take_homes(browser, base: str, db: Path, outdir: Path, widths=WIDTHS) -> list[Path]:
    """The player's (Aki's) and the GM's table home, each signed in through an invite."""
    written = []
    support.cli(db, "skill", "add", "鈴音", "回避", "12")
    support.cli(db, "skill", "add", "鈴音", "聞き耳", "13")
    support.cli(db, "call", "fright", "鈴音", "--mod", "-2", "--reason", "鏡の間で自分の影が笑った")
    for name, invite in (("player", ["invite", "Aki"]), ("gm", ["invite", "GM", "--gm"])):
        join_path = support.cli(db, *invite, json_out=True)["join_path"]
        context = browser.new_context(
            locale="ja-JP", viewport={"width": widths[0], "height": 844}, device_scale_factor=1
        )
        page = context.new_page()
        page.goto(base + join_path)
        page.click("form button[type=submit]")
        page.wait_for_selector("#call-list li.call", timeout=10_000)
        page.wait_for_selector('#conn[data-state="connected"]', timeout=10_000)
        if name == "player":
            page.locator("#sheets article.sheet.mine button.skill", has_text="回避").first.click()
            page.locator("#roll-result", has_text="鈴音").wait_for(timeout=10_000)
            target = outdir / f"table-player-tap-{widths[0]}.png"  # the phone's screen as she sees it
            page.screenshot(path=str(target))
            written.append(target)
        else:
            support.cli(db, "settings", f"public_url={PUBLIC_URL}")
            page.click("#gm-invites > summary")
            page.fill("#invite-player", "Ren")
            page.click("#invite-form button[type=submit]")
            page.wait_for_selector("#invite-result img.qr", timeout=10_000)
        for width in widths:
            page.set_viewport_size({"width": width, "height": 844 if width < 600 else 900})
            page.wait_for_timeout(300)
            target = outdir / f"table-{name}-{width}.png"
            page.screenshot(path=str(target), full_page=True)
            written.append(target)
        context.close()
    return written


def build_demo(db: Path) -> None:
    done = subprocess.run(
        [*support.campaign_command(), "--db", str(db), "demo"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"campaign demo failed: {done.stderr.strip()[-2000:]}")
    # The tour ends with everyone found; leave someone missing so the board has a card.
    for step in AFTER_DEMO:
        support.cli(db, *step)


AFTER_DEMO = [
    ["scenario", "start", "第三話 鏡の間", "--with", "鈴音", "--with", "刀矢"],
    ["missing", "mark", "刀矢", "--reason", "鏡の向こうへ消えた"],
]


def main(argv: list[str]) -> int:
    outdir = Path(argv[0] if argv else "docs/screenshots")
    problem = support.chromium_problem()
    if problem:
        print(f"error: cannot take screenshots: {problem}", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="campaign-demo-web-") as work:
        db = Path(work) / "demo.db"
        print("building the demo campaign…", flush=True)
        build_demo(db)
        with support.Server(db) as server, sync_playwright() as playwright:
            browser = support.launch_chromium(playwright)
            try:
                for path in [*take(browser, server.base, outdir), *take_homes(browser, server.base, db, outdir)]:
                    print(path)
            finally:
                browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

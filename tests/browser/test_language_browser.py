"""Issue 32's web "done when": every page of `campaign serve` in Debian's headless
Chromium, with `lang=ja`, shows no English word outside names, dice expressions, stat
abbreviations and codes (the session test's own check, tests/cli/test_language_session.py);
with `lang=en`, no Japanese outside names and the seed tables' texts.

The pages: overview, history (with the in-browser verification run, once verified and
once refused), a character, the scenarios and one scenario, the missing board, luck, an
entry, the join page, the player's and the GM's table pages, and the error pages (a
refused name, an unknown path, a 403 and a 401). Every visible text node counts, with
every <details> opened, plus the title, placeholders and the labels of the SVG charts;
the hashed record (`pre.record`) and hashes are codes and are left out.

With CAMPAIGN_SCREENSHOTS=DIR the lang=ja run also writes each page at 390 px wide as
DIR/<page>-ja-390.png (docs/screenshots holds the ones looked at).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.cli.test_language_session import ALLOWED, ENGLISH_WORD, JAPANESE, _seed_texts
from tests.web.table_server import served

pytestmark = pytest.mark.slow

# What the campaign's commands below typed: names, reasons, and the zone's name.
NAMES = (
    "テスト卓",
    "鈴音",
    "刀矢",
    "管狐",
    "Aki",
    "Ren",
    "第一話",
    "暗所恐怖症",
    "屋敷の地下",
    "霧の中に消えた",
    "鏡の間",
    "回避",
    "終了",
    "Asia/Tokyo",
    "nobody",
)
# Besides the session test's: the hash engine the verification names, a chart's χ², the
# paths of the links the 401 page names, and a sheet's stat as a palette command names it.
WEB_ALLOWED = re.compile(r"(?<![A-Za-z])(WebCrypto|sha256\.js|χ²)(?![A-Za-z])|/join/…|\?token=…|【(Will|Per)】")
# lang=en leaves out the palette: the ruleset's ココフォリア chat palette, its commands as
# gurps3-ja writes them (`3D6<=11 恐怖判定`), like the seed tables' texts.
COLLECT = """(english) => {
  const closed = [...document.querySelectorAll("details:not([open])")];
  closed.forEach((d) => { d.open = true; });
  const texts = [document.title];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, parent = node.parentElement;
    if (!parent || !node.textContent.trim()) continue;
    if (parent.closest("script, style, code, pre.record, .hash, option:not(:checked)")) continue;
    if (english && parent.closest(".palette")) continue;
    const style = getComputedStyle(parent);
    if (style.display === "none" || style.visibility === "hidden") continue;
    if (!parent.getClientRects().length && !parent.closest("svg")) continue;
    texts.push(node.textContent.trim());
  }
  document.querySelectorAll("[placeholder], [aria-label]").forEach((e) => {
    if (english && e.closest(".palette")) return;  // a palette button's name holds its line
    texts.push(e.getAttribute("placeholder") || "", e.getAttribute("aria-label") || "");
  });
  document.querySelectorAll("select option").forEach((o) => texts.push(o.textContent.trim()));
  closed.forEach((d) => { d.open = false; });
  return texts.filter(Boolean);
}"""


def english_left(text: str) -> list[str]:
    for name in sorted(NAMES, key=len, reverse=True):
        text = text.replace(name, " ")
    return ENGLISH_WORD.findall(ALLOWED.sub(" ", WEB_ALLOWED.sub(" ", text)))


def japanese_left(text: str, seed: set[str]) -> list[str]:
    for name in sorted((*NAMES, *seed), key=len, reverse=True):
        text = text.replace(name, " ")
    return JAPANESE.findall(text)


def _campaign(cli: Cli, lang: str) -> int:
    """The party with a fright, a missing PC, a scenario, a seal and a pending call; `lang`
    set for the campaign. Returns the fright's seq."""
    cli.run("settings", f"lang={lang}", "timezone=Asia/Tokyo")
    cli.run("skill", "add", "鈴音", "回避", "12")
    cli.run("scenario", "start", "第一話", "--with", "鈴音", "--with", "刀矢")
    fright = cli.json("fright", "鈴音", "--pick", "暗所恐怖症", "--reason", "屋敷の地下", "--dice", "6,5,5,6,6,6")
    cli.run("roll", "3D6<=12", "回避", "--char", "鈴音", "--dice", "1,2,3")
    cli.run("condition", "add", "鈴音", "stun")
    cli.run("missing", "mark", "刀矢", "--reason", "霧の中に消えた")
    cli.run("history", "seal", "--reason", "終了")
    cli.json("call", "fright", "鈴音", "--mod", "-2", "--reason", "鏡の間")
    return fright["seq"]


def _shot(page, name: str) -> None:
    target = os.environ.get("CAMPAIGN_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(target) / f"{name}-ja-390.png"), full_page=True)


def _pages(browser, cli: Cli, base: str, fright_seq: int, lang: str) -> dict[str, list[str]]:
    """page name -> its visible texts, each page opened as a reader would."""
    shown: dict[str, list[str]] = {}
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
    page = context.new_page()

    def visit(name: str, path: str | None = None, wait: str | None = None) -> None:
        if path is not None:
            page.goto(base + path)
        if wait:
            page.wait_for_selector(wait, timeout=10_000)
        page.wait_for_timeout(150)
        if lang == "ja":
            _shot(page, name)  # as the reader sees it, before the check opens every <details>
        shown[name] = page.evaluate(COLLECT, lang == "en")

    visit("overview", "/overview")
    visit("history", "/history")
    visit("character", "/characters/" + quote("鈴音"))
    visit("scenarios", "/scenarios")
    visit("scenario", "/scenarios/1")
    visit("missing", "/missing")
    visit("luck", "/luck")
    visit("entry", f"/entries/{fright_seq}")
    page.goto(base + "/history")
    page.fill("#verify-head", cli.json("history", "--kind", "seal")[0]["hash"])
    page.click("#verify-run")
    page.wait_for_selector('#verify-result[data-code="ok"]', timeout=20_000)
    visit("verify")
    page.fill("#verify-head", "xyz")
    page.click("#verify-run")
    page.wait_for_selector('#verify-result[data-code="malformed"]', timeout=20_000)
    visit("verify-refused")
    visit("error-404", "/characters/nobody")
    visit("error-unknown-path", "/no/such/page")
    join = cli.json("invite", "Aki")["join_path"]
    forged = httpx.post(base + join, data={"confirm": "1"}, headers={"origin": "http://elsewhere.example"})
    assert forged.status_code == 403
    page.set_content(forged.text)
    visit("error-403")
    visit("join", join, "form button[type=submit]")
    page.click("form button[type=submit]")
    visit("table-player", None, "#call-list li.call button.roll-call")
    page.wait_for_selector('#conn[data-state="connected"]', timeout=10_000)
    visit("table-player")
    context.close()
    gm_context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
    page = gm_context.new_page()
    page.goto(base + cli.json("invite", "GM", "--gm")["join_path"])
    page.click("form button[type=submit]")
    page.wait_for_selector("#call-list li.call", timeout=10_000)
    page.wait_for_selector('#conn[data-state="connected"]', timeout=10_000)
    visit("table-gm")
    gm_context.close()
    return shown


def _unauthorized(browser, cli: Cli, lang: str) -> list[str]:
    """The 401 page of a server started with a token, opened without it."""
    with served(cli.db, [], token="not-given") as base:
        context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
        page = context.new_page()
        assert page.goto(base + "/history").status == 401
        if lang == "ja":
            _shot(page, "error-401")
        texts = page.evaluate(COLLECT, lang == "en")
        context.close()
    return texts


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("lang", ["ja", "en"])
def test_every_page_speaks_one_language(browser, gurps, lang, monkeypatch):
    cli = gurps
    monkeypatch.delenv("CAMPAIGN_LANG", raising=False)  # the campaign's setting decides, as for a player
    fright_seq = _campaign(cli, lang)
    with served(cli.db, []) as base:
        shown = _pages(browser, cli, base, fright_seq, lang)
        head = httpx.get(base + "/overview", headers={"accept-language": "en-US,en;q=0.9"}).text
        assert f'<html lang="{lang}"' in head  # the setting first, over the browser's
    shown["error-401"] = _unauthorized(browser, cli, lang)
    problems = {}
    seed = _seed_texts()
    for name, texts in shown.items():
        text = "\n".join(texts)
        left = english_left(text) if lang == "ja" else japanese_left(text, seed)
        if left:
            problems[name] = sorted(set(left))
            if os.environ.get("CAMPAIGN_LANGUAGE_DUMP"):
                print(name, [t for t in texts if english_left(t) or japanese_left(t, seed)])
    assert not problems, "\n".join(f"{name}: {words}" for name, words in problems.items())
    assert len(shown) == 17  # every page above was read

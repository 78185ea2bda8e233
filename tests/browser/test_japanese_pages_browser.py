"""Japanese where a player looks: every page of a Japanese campaign, as a 390x844 ja-JP
phone and the GM's laptop render it (Debian's Chromium, both backends), shows no English
word in its visible text but the game's abbreviations and dice notation; the sheet's own
stat names (体力, 知力) stay as the sheet spells them, durations and times are in
Japanese and the campaign's time zone is named on every page."""

from __future__ import annotations

import re

import pytest

from tests.browser.test_result_in_view_browser import PHONE
from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import served

pytestmark = pytest.mark.slow

#: What a Japanese table writes in Latin letters: the game's abbreviations and the
#: roles (ゲームの略語), BCDice's commands and dice notation (3D6, 1d6, FEAR+5).
ALLOWED = {"ST", "DX", "IQ", "HT", "HP", "FP", "CP", "GM", "PC", "NPC", "FEAR", "CRT", "SHA"}
DICE = re.compile(r"\b\d*[DdBb]\d+\b|\bx\d+\b")

STEPS = [
    ["init", "夜桜", "--ruleset", "gurps3-ja"],
    ["player", "add", "明"],
    ["player", "add", "蓮"],
    ["char", "add", "鈴音", "--player", "明", "--cp", "100"]
    + [w for s in ("体力=10", "敏捷力=12", "知力=12", "生命力=11", "意志=11") for w in ("--stat", s)],
    ["char", "add", "刀矢", "--player", "蓮", "--cp", "100"]
    + [w for s in ("体力=12", "知力=10", "生命力=12") for w in ("--stat", s)],
    ["skill", "add", "鈴音", "回避", "12"],
    ["--as", "明", "roll", "3D6<=12", "回避", "--char", "鈴音", "--dice", "1,2,3"],
    ["fright", "鈴音", "--reason", "地下室", "--dice", "6,6,6,6,5,5"],
    ["condition", "add", "刀矢", "stun", "--for", "5turn"],
    ["scenario", "start", "第一話", "--with", "鈴音", "--with", "刀矢"],
    ["missing", "mark", "鈴音", "--reason", "霧"],
    ["scenario", "end", "--dice", "鈴音=4"],
    ["roll", "FEAR+5", "--char", "刀矢", "--dice", "1,1,1"],
]

PAGES = ["/", "/overview", "/characters", "/characters/鈴音", "/missing", "/scenarios", "/scenarios/1", "/history"]


def english_words(text: str) -> list[str]:
    return sorted({w for w in re.findall(r"[A-Za-z]{2,}", DICE.sub(" ", text)) if w not in ALLOWED})


#: The text a reader sees: every rendered text node (a shown list's choices too) but the
#: hashed record and hashes (codes, as tests/browser/test_language_browser.py leaves them
#: out) and a command shown as typed (<code>).
VISIBLE = """() => {
  const texts = [document.title];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, parent = node.parentElement;
    if (!parent || !node.textContent.trim()) continue;
    if (parent.closest("script, style, code, pre.record, .hash")) continue;
    const shown = parent.closest("select") || parent;  // a choice is seen when its list opens
    if (!shown.getClientRects().length || getComputedStyle(shown).visibility === "hidden") continue;
    texts.push(node.textContent.trim());
  }
  return texts.join(" | ");
}"""


def visible_text(page) -> str:
    return page.evaluate(VISIBLE)


def unfolded_text(page) -> str:
    """The visible text with every <details> of the page opened first: a folded form's
    labels, choices and notes are words a reader sees too."""
    page.evaluate("() => document.querySelectorAll('details').forEach(fold => { fold.open = true; })")
    return visible_text(page)


def seated(browser, base: str, join_path: str, **options):
    context = browser.new_context(**options)
    page = context.new_page()
    page.goto(base + join_path)
    page.click("form button[type=submit]")
    page.wait_for_selector('#conn[data-state="connected"]', timeout=10_000)
    return context, page


def test_a_japanese_campaign_shows_no_english_word(browser, cli, monkeypatch):
    from playwright.sync_api import expect

    monkeypatch.delenv("CAMPAIGN_LANG")
    monkeypatch.setenv("TZ", "Asia/Tokyo")  # the GM's machine: its zone is the campaign's
    for step in STEPS:
        cli.run(*step)
    assert cli.json("settings")["settings"]["timezone"] == "Asia/Tokyo"
    faces: list[int] = []
    with served(cli.db, faces) as base:
        phone_context, phone = seated(browser, base, cli.json("invite", "明")["join_path"], **PHONE)
        gm_context, gm = seated(
            browser,
            base,
            cli.json("invite", "GM", "--gm")["join_path"],
            locale="ja-JP",
            viewport={"width": 1280, "height": 900},
        )
        try:
            # a void request from the phone, approved on the GM's page; a fair roll; a reunion call
            phone.on("dialog", lambda dialog: dialog.accept("押し間違い"))
            mine = phone.locator("#latest-list li", has_text="#7 ").locator("button")
            mine.tap()
            expect(phone.locator("#roll-result")).to_contain_text("取り消しをGMに依頼しました", timeout=10_000)
            approve = gm.locator("#request-list button").first
            expect(approve).to_be_visible(timeout=10_000)
            approve.click()
            expect(gm.locator("#request-list li.none")).to_be_visible(timeout=10_000)
            cli.run("settings", "fair_dice=on")
            cli.run("scenario", "start", "第二話", "--with", "刀矢")  # its seed is committed
            phone.locator("#sheets article.sheet.mine button.skill").first.tap()  # dice from the seed
            expect(phone.locator("#roll-result")).to_contain_text("（公正証明つき）", timeout=10_000)
            fair = cli.json("history", "--limit", "1")[0]
            assert fair["fairness"] == "provable"
            cli.run("scenario", "end", "--call", "--award", "1")
            seq = cli.json("history", "--limit", "1")[0]["seq"]
            found = {}
            for who, page in (("phone", phone), ("gm", gm)):
                for path in [*PAGES, f"/entries/{seq}", f"/entries/{fair['seq']}"]:
                    page.goto(base + path)
                    if path == "/":
                        page.wait_for_selector("#table article.sheet")
                    text = unfolded_text(page)
                    assert "日本時間" in text, (who, path)  # the campaign's zone, on every page
                    words = english_words(text)
                    if words:
                        found[(who, path)] = words
            assert found == {}, found
            # the phone's table: a duration in Japanese, the sheet's own stat names
            phone.goto(base + "/")
            expect(phone.locator("#sheets")).to_contain_text("朦朧", timeout=10_000)
            sheet = phone.locator("#sheets article.sheet", has_text="刀矢").first.text_content()
            assert "朦朧（5ターン）" in sheet or "朦朧 (5ターン)" in sheet, sheet
            palette = phone.locator("#sheets article.sheet.mine .palette").text_content()
            assert "【知力】判定" in palette and "【IQ】" not in palette
            # a network error, in Japanese
            phone.context.set_offline(True)
            phone.locator("#sheets article.sheet.mine button.skill").first.tap()
            expect(phone.locator("#roll-result")).to_have_text("サーバーに接続できません", timeout=10_000)
            phone.context.set_offline(False)
            # the phone's history keeps the time and the actor
            phone.goto(base + "/history")
            row = phone.locator("table tbody tr").first
            assert row.locator("td.at").is_visible() and row.locator("td.actor").is_visible()
            assert row.locator("td.actor").text_content() == cli.json("history", "--limit", "1")[0]["actor"] == "明"
            assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        finally:
            phone_context.close()
            gm_context.close()

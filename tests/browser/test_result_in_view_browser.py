"""Your own tap's result where your thumb is: on a 390x844 touch phone in Japanese, the
dice, the outcome and what changed show inside the screen without scrolling, for a
skill tap, a call answered, a reunion rolled (the tapping player named as roller, on
the GM's behalf) and a void request (its confirmation). Debian's Chromium, both backends."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.browser.test_table_browser import head
from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import served

pytestmark = pytest.mark.slow

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "locale": "ja-JP"}


def phone(browser, base: str, join_path: str):
    """A Japanese touch phone that followed its invite from a chat page."""
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto("data:text/html;charset=utf-8," + quote(f'<a id="invite" href="{base}{join_path}">招待</a>'))
    page.tap("#invite")
    page.wait_for_selector("form button[type=submit]")
    page.tap("form button[type=submit]")
    page.wait_for_selector("#table article.sheet")
    page.wait_for_selector('#conn[data-state="connected"]', timeout=10_000)
    return context, page


def in_view(page) -> dict:
    """Where the result panel is, and whether the page scrolled to show it."""
    return page.evaluate(
        """() => { const box = document.getElementById("roll-result").getBoundingClientRect();
                   return { top: box.top, bottom: box.bottom, height: box.height, inner: innerHeight,
                            text: document.getElementById("roll-result").textContent }; }"""
    )


def assert_in_view(page, expect, *words: str) -> str:
    result = page.locator("#roll-result")
    for word in words:
        expect(result).to_contain_text(word, timeout=10_000)
    box = in_view(page)
    assert box["height"] > 0 and box["top"] >= 0 and box["bottom"] <= box["inner"], box
    expect(result).to_be_in_viewport(ratio=1)
    return box["text"]


def test_each_tap_shows_its_result_inside_a_phone_screen(browser, gurps, monkeypatch):
    from playwright.sync_api import expect

    monkeypatch.delenv("CAMPAIGN_LANG")  # the page's language: the ruleset's and the phone's
    cli = gurps
    cli.run("skill", "add", "鈴音", "回避", "12")
    faces: list[int] = []
    with served(cli.db, faces) as base:
        context, aki = phone(browser, base, cli.json("invite", "Aki")["join_path"])
        aki.on("dialog", lambda dialog: dialog.accept("押し間違い"))
        try:
            # a skill tap, from the sheet far down the page
            before = head(cli)
            faces[:] = [1, 2, 3]
            aki.locator("#sheets article.sheet.mine button.skill").first.tap()
            assert_in_view(aki, expect, f"#{before + 1} 鈴音: 3D6<=12 (回避 12) [1,2,3] = 6 成功")

            # a void request on that roll: its confirmation
            ask = aki.locator("#latest-list li", has_text=f"#{before + 1}").locator("button")
            ask.scroll_into_view_if_needed()
            scrolled = aki.evaluate("scrollY")
            ask.tap()
            assert_in_view(aki, expect, f"#{before + 1}", "押し間違い")
            assert head(cli) == before + 2 and cli.json("history", "--limit", "1")[0]["kind"] == "void_request"
            assert aki.evaluate("scrollY") == scrolled  # nothing scrolled to show it

            # a call answered: the GM's fright call, its table and trait shown as what changed
            cli.run("call", "fright", "鈴音")
            button = aki.locator("#call-list button.roll-call")
            expect(button).to_have_count(1, timeout=10_000)
            faces[:] = [6, 6, 6, 6, 5, 5]  # 18 against Will 11: fails by 7; 16 + 7 = 23, a phobia
            before = head(cli)
            button.tap()
            assert_in_view(aki, expect, f"#{before + 1}", "[6,6,6]")
            traits = cli.json("char", "show", "鈴音")["traits"]
            assert traits and traits[-1]["source_seq"] == before + 1
            expect(aki.locator("#roll-result .consequence").first).to_be_visible(timeout=10_000)

            # a reunion roll: her missing character's die, named as hers on the GM's behalf
            cli.run("scenario", "start", "第一話", "--with", "鈴音", "--with", "刀矢")
            cli.run("missing", "mark", "鈴音", "--reason", "霧の中に消えた")
            cli.run("scenario", "end", "--call", "--award", "2")
            button = aki.locator("#call-list button.roll-call")
            expect(button).to_have_count(1, timeout=10_000)
            faces[:] = [1]
            before = head(cli)
            button.tap()
            shown = assert_in_view(
                aki, expect, "鈴音: 1d6 [1] = 1 (目標値 1) 成功", "Aki が振りました（GM の代わりに）"
            )
            reunion = next(e for e in cli.json("history", "--limit", "5") if e["kind"] == "reunion")
            assert f"#{reunion['seq']}" in shown and reunion["actor"] == "GM"
            assert "scenario" not in shown and "シナリオ" not in shown.split("\n")[0][:12]
            assert cli.json("missing", "list") == []
        finally:
            context.close()
    cli.run("history", "verify")

"""`serve --all` in Debian's Chromium: the table page's scripts under /c/<slug>/.

Two campaigns of one database served by one real uvicorn (fixed server dice). Aki opens
テスト卓's invite as `invite` prints it (/join/<code>) from a chat page; her table page
lives under /c/テスト卓/, its feed connects, a tap on her skill rolls through the page's
own fetch (campaignUrl) and the entry shows with a link inside the campaign; Ren's page of
the other campaign, open at the same time, shows none of it, and a CLI write to his
campaign reaches his page alone.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.browser.test_table_browser import join
from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.web.test_serve_all import served_all

pytestmark = pytest.mark.slow
A, B = "テスト卓", "第二卓"


def test_the_table_page_works_under_its_campaign_path(browser, gurps):
    from playwright.sync_api import expect

    cli: Cli = gurps
    cli.run("--campaign", A, "skill", "add", "鈴音", "回避", "12")
    cli.run("init", B)
    cli.run("--campaign", B, "player", "add", "Ren")
    cli.run("--campaign", B, "char", "add", "刀矢", "--player", "Ren", "--stat", "IQ=10")
    join_a = cli.json("--campaign", A, "invite", "Aki")["join_path"]
    join_b = cli.json("--campaign", B, "invite", "Ren")["join_path"]
    faces: list[int] = []
    with served_all(cli.db, faces) as root:
        aki_context, aki = join(browser, root, join_a)
        ren_context, ren = join(browser, root, join_b)
        base_a, base_b = root + "/c/" + quote(A), root + "/c/" + quote(B)
        assert (aki.url, ren.url) == (base_a + "/", base_b + "/")
        assert aki.evaluate("() => campaignUrl('/api/rolls')") == "/c/" + quote(A) + "/api/rolls"

        faces[:] = [2, 3, 4]
        aki.click("#sheets article.mine button.skill")
        aki.wait_for_selector('#roll-result[data-outcome="success"]')
        newest = aki.locator("#latest-list li").first
        expect(newest).to_contain_text("[2,3,4]", timeout=5_000)
        seq = cli.json("--campaign", A, "history", "--limit", "1")[0]["seq"]
        assert newest.locator("a").first.get_attribute("href") == f"/c/{quote(A)}/entries/{seq}"
        assert "[2,3,4]" not in ren.text_content("#latest-list")

        cli.run("--campaign", B, "roll", "2D6", "--char", "刀矢", "--dice", "6,6")
        expect(ren.locator("#latest-list li").first).to_contain_text("[6,6]", timeout=5_000)
        assert "[6,6]" not in aki.text_content("#latest-list")
        aki_context.close()
        ren_context.close()

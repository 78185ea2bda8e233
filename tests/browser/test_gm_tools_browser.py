"""The GM's evening tools on the GM page, in Debian's Chromium on a 390 px phone and both
backends: a form tapped writes what the CLI command writes; a burst of taps writes once
and the button shows it is busy; a refusal is one line in the page's language with
nothing written."""

from __future__ import annotations

import pytest

from tests.browser.test_table_browser import head, join
from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import served

pytestmark = pytest.mark.slow


def open_tool(page, summary: str):
    tool = page.locator("#gm-tools details", has=page.locator("summary", has_text=summary))
    tool.locator("summary").click()
    return tool.locator("form")


def test_the_gm_damages_awards_and_names_from_the_page(browser, gurps):
    from playwright.sync_api import expect

    cli = gurps
    with served(cli.db, []) as base:
        context, gm = join(browser, base, cli.json("invite", "GM", "--gm")["join_path"])
        try:
            form = open_tool(gm, "HP and FP")
            form.locator("[name=character]").fill("鈴音")
            form.locator("[name=amount]").fill("3")
            form.locator("[name=reason]").fill("落石")
            before = head(cli)
            # twelve taps within a moment: one request, one entry
            button = form.locator("button[type=submit]")
            for _ in range(12):
                button.dispatch_event("click")
            expect(form.locator("output")).to_have_text(f"done: ledger #{before + 1}", timeout=10_000)
            assert head(cli) == before + 1
            assert cli.json("char", "show", "鈴音")["pools"]["HP"]["current"] == 8
            entry = cli.json("history", "--limit", "1")[0]
            assert (entry["actor"], entry["reason"]) == ("GM", "落石")

            award = open_tool(gm, "Award CP")
            award.locator("[name=cp]").fill("2")
            award.locator("[name=to]").fill("鈴音、刀矢")
            award.locator("button[type=submit]").click()
            expect(award.locator("output")).to_contain_text("done", timeout=10_000)
            totals = {c["name"]: c["cp_total"] for c in cli.json("char", "list")}
            assert (totals["鈴音"], totals["刀矢"]) == (102, 102)

            # a refusal: one line, in the page's words, nothing written
            before = head(cli)
            award.locator("[name=cp]").fill("2")
            award.locator("[name=to]").fill("誰か")
            award.locator("button[type=submit]").click()
            expect(award.locator("output")).to_have_attribute("data-outcome", "error", timeout=10_000)
            assert "誰か" in award.locator("output").text_content()
            assert "\n" not in award.locator("output").text_content()
            assert head(cli) == before
            # the forms fit a 390 px phone: nothing scrolls sideways
            assert gm.evaluate("document.documentElement.scrollWidth") <= 390
        finally:
            context.close()
    cli.run("history", "verify")

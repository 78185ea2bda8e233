"""axe-core (bundled by axe-playwright-python) on every page of `campaign serve`, in
Debian's Chromium: the spectator's pages, the player's and the GM's home, history with
its verify panel run, luck, an entry, the join page and the error pages. Any serious or
critical violation fails, named with the elements it was found on."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import served

pytestmark = pytest.mark.slow
SERIOUS = {"serious", "critical"}


def _violations(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [
        f"{page.url}: {v['id']} ({v['impact']}): {v['help']} at "
        + ", ".join(str(node["target"]) for node in v["nodes"][:8])
        for v in found
        if v["impact"] in SERIOUS
    ]


def _ready(page, url: str, wait: str | None = None) -> None:
    page.goto(url)
    if wait:
        page.wait_for_selector(wait, timeout=10_000)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violation_on_any_page(browser, gurps, scheme):
    cli = gurps
    cli.run("skill", "add", "鈴音", "回避", "12")
    cli.run("scenario", "start", "第一話", "--with", "鈴音", "--with", "刀矢")
    cli.run("fright", "鈴音", "--pick", "暗所恐怖症", "--reason", "屋敷の地下", "--dice", "6,5,5,6,6,6")
    cli.run("missing", "mark", "刀矢", "--reason", "霧の中に消えた")
    cli.json("call", "fright", "鈴音", "--mod", "-2")
    seq = cli.json("history", "--limit", "1")[0]["seq"]
    problems: list[str] = []
    with served(cli.db, []) as base:
        spectator = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
        page = spectator.new_page()
        for path in [
            "/",
            "/overview",
            "/characters",
            "/characters/" + quote("鈴音"),
            "/missing",
            "/scenarios",
            "/scenarios/1",
            "/history",
            f"/entries/{seq}",
            "/luck",
            "/characters/nobody",
            "/join/not-a-code-at-all",
        ]:  # the last two: error pages
            _ready(page, base + path)
            problems += _violations(page)
        _ready(page, base + "/history")
        page.fill("#verify-head", cli.json("history", "--limit", "1")[0]["hash"])
        page.click("#verify-run")
        page.wait_for_function("document.getElementById('verify-result').textContent.length > 0", timeout=20_000)
        problems += _violations(page)
        code = cli.json("invite", "Aki")["join_path"]
        _ready(page, base + code, "form button[type=submit]")
        problems += _violations(page)  # the join page
        page.click("form button[type=submit]")
        page.wait_for_selector("#call-list li.call button.roll-call", timeout=10_000)
        problems += _violations(page)  # the player's home, a call pending
        gm = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme).new_page()
        _ready(gm, base + cli.json("invite", "GM", "--gm")["join_path"], "form button[type=submit]")
        gm.click("form button[type=submit]")
        gm.wait_for_selector("#call-list li.call", timeout=10_000)
        problems += _violations(gm)  # the GM's home
        gm.context.close()
        spectator.close()
    assert not problems, "\n".join(problems)

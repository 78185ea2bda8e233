"""Browser test fixtures: Debian's Chromium (never a downloaded one), the table campaign.

CAMPAIGN_TEST_BROWSER=required (set by .ci/run) turns a missing Chromium or Playwright
into a failure; otherwise those tests are skipped with the reason.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser import support

REQUIRED = os.environ.get("CAMPAIGN_TEST_BROWSER", "auto") == "required"


def _need_browser() -> None:
    problem = support.chromium_problem()
    if problem:
        if REQUIRED:
            pytest.fail(f"CAMPAIGN_TEST_BROWSER=required but {problem}", pytrace=False)
        pytest.skip(problem)


@pytest.fixture(scope="module")
def browser():
    """Module-scoped, not session: Playwright's sync API keeps an asyncio loop running in
    this thread while it is open, and other test directories call asyncio.run()."""
    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = support.launch_chromium(playwright)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    """A fresh context (no cookies) per test; dialogs are recorded, never accepted."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.dialogs = []

    def on_dialog(dialog):
        page.dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    yield page
    context.close()


@pytest.fixture(scope="session")
def table_template(tmp_path_factory):
    """The table campaign, built once by CLI commands; each test gets its own copy."""
    _need_browser()
    root = tmp_path_factory.mktemp("table")
    env = dict(os.environ)
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        env[name] = str(root / name.lower())
    db = root / "table.db"
    return db, support.build_table_campaign(db, env)


@pytest.fixture
def table(table_template, tmp_path) -> tuple[Path, dict]:
    db, info = table_template
    return support.copy_database(db, tmp_path / "table.db"), dict(info)


@pytest.fixture(scope="session")
def lan_host():
    """A non-loopback IPv4 of this machine: opening the server there gives a page that is
    not a secure context (as on a phone at the table). Made with a dummy interface when
    the machine has none and we are root."""
    address = support.lan_address()
    made = False
    if address is None and os.geteuid() == 0:
        address = support.add_dummy_address()
        made = address is not None
    if address is None:
        message = "this machine has no non-loopback IPv4 address and cannot make one (not root)"
        if REQUIRED:
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    yield address
    if made:
        support.remove_dummy_address()

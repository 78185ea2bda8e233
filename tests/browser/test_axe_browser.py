"""axe-core (bundled by axe-playwright-python) on every page of `campaign serve`, in
Debian's Chromium at 390 and 1280 px, light and dark (prefers-color-scheme emulated):
the spectator's pages, the player's and the GM's home, history with its verify panel
run, luck, an entry, the join page and the error pages. Any violation of any impact
fails, named with the elements it was found on.

The same pages at 390 px with the text at 200 % (the root font size doubled, as a
phone's large-text setting does): nothing scrolls sideways, each page has exactly one
<h1>, every visible button is a tap target of at least 44x44 px, and no two buttons
share a name."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import served

pytestmark = pytest.mark.slow
SPECTATOR_PAGES = [
    "/",
    "/overview",
    "/characters",
    "/characters/" + quote("鈴音"),
    "/missing",
    "/scenarios",
    "/scenarios/1",
    "/history",
    "/luck",
    "/characters/nobody",  # an error page
    "/join/not-a-code-at-all",  # an unknown invite
]


def _violations(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [
        f"{page.url}: {v['id']} ({v['impact']}): {v['help']} at "
        + ", ".join(str(node["target"]) for node in v["nodes"][:8])
        for v in found
    ]


def _ready(page, url: str, wait: str | None = None) -> None:
    page.goto(url)
    if wait:
        page.wait_for_selector(wait, timeout=10_000)


def _evening(cli: Cli) -> int:
    """A fright with its trait, a missing character, a pending call; the last seq."""
    cli.run("skill", "add", "鈴音", "回避", "12")
    cli.run("scenario", "start", "第一話", "--with", "鈴音", "--with", "刀矢")
    cli.run("fright", "鈴音", "--pick", "暗所恐怖症", "--reason", "屋敷の地下", "--dice", "6,5,5,6,6,6")
    cli.run("missing", "mark", "刀矢", "--reason", "霧の中に消えた")
    cli.json("call", "fright", "鈴音", "--mod", "-2")
    cli.run("--as", "Aki", "roll", "3D6<=12", "回避", "--char", "鈴音", "--dice", "3,4,5")
    return cli.json("history", "--limit", "1")[0]["seq"]


def _pages(browser, cli: Cli, base: str, seq: int, width: int, scheme: str, check, locale: str = "en-US") -> None:
    """Every page a spectator, a player and the GM see, each handed to `check(page)`."""
    size = {"width": width, "height": 844}
    context = browser.new_context(viewport=size, color_scheme=scheme, locale=locale)
    page = context.new_page()
    for path in [*SPECTATOR_PAGES, f"/entries/{seq}"]:
        _ready(page, base + path)
        check(page)
    _ready(page, base + "/history")
    page.fill("#verify-head", cli.json("history", "--limit", "1")[0]["hash"])
    page.click("#verify-run")
    page.wait_for_function("document.getElementById('verify-result').textContent.length > 0", timeout=20_000)
    check(page)
    _ready(page, base + cli.json("invite", "Aki")["join_path"], "form button[type=submit]")
    check(page)  # the join page
    page.click("form button[type=submit]")
    page.wait_for_selector("#call-list li.call button.roll-call", timeout=10_000)
    page.wait_for_selector("#latest-list li button", timeout=10_000)
    check(page)  # the player's home, a call pending
    gm = context.browser.new_context(viewport=size, color_scheme=scheme, locale=locale).new_page()
    _ready(gm, base + cli.json("invite", "GM", "--gm")["join_path"], "form button[type=submit]")
    gm.click("form button[type=submit]")
    gm.wait_for_selector("#call-list li.call", timeout=10_000)
    check(gm)  # the GM's home
    gm.locator("#gm-tools details summary").first.click()
    gm.evaluate("() => document.querySelectorAll('#gm-tools details').forEach(fold => { fold.open = true; })")
    check(gm)  # with every tool open
    gm.context.close()
    context.close()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [390, 1280])
def test_no_accessibility_violation_on_any_page(browser, gurps, scheme, width, monkeypatch):
    monkeypatch.delenv("CAMPAIGN_LANG", raising=False)  # Japanese pages, as the players read them
    cli = gurps
    seq = _evening(cli)
    problems: list[str] = []
    with served(cli.db, []) as base:
        _pages(browser, cli, base, seq, width, scheme, lambda page: problems.extend(_violations(page)), "ja-JP")
    assert not problems, "\n".join(problems)


LAYOUT = """() => {
  const small = [];
  for (const b of document.querySelectorAll("button, summary, input[type=checkbox]")) {
    const box = b.getBoundingClientRect();
    if (!box.width || !box.height) continue;  // folded away
    const target = b.type === "checkbox" ? b.closest("label").getBoundingClientRect() : box;
    if (target.width < 44 || target.height < 44)
      small.push(`${b.textContent.trim()} ${Math.round(target.width)}x${Math.round(target.height)}`);
  }
  const wide = document.documentElement.scrollWidth, width = document.documentElement.clientWidth;
  const over = [];  // the outermost elements that stick out, to name in the failure
  for (const e of document.body.querySelectorAll("*")) {
    const box = e.getBoundingClientRect();
    if (box.right > width + 1 && e.parentElement.getBoundingClientRect().right <= width + 1)
      over.push(`${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""}.${e.className} ${Math.round(box.right)}`);
  }
  const names = [...document.querySelectorAll("button, summary")].filter(b => b.getClientRects().length)
    .map(b => (b.getAttribute("aria-label") || b.textContent).trim());
  const twice = names.filter((name, i) => names.indexOf(name) !== i);
  return {wide, over: over.slice(0, 6), h1: document.querySelectorAll("h1").length, small, twice};
}"""


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("locale", ["ja-JP", "en-US"])
def test_large_text_on_a_phone_keeps_every_page_in_its_width(browser, gurps, locale, monkeypatch):
    monkeypatch.delenv("CAMPAIGN_LANG", raising=False)  # the phone's language chooses the page's
    cli = gurps
    seq = _evening(cli)
    problems: list[str] = []

    def check(page) -> None:
        page.evaluate("document.documentElement.style.fontSize = '200%'")  # CSSOM: allowed by the CSP
        found = page.evaluate(LAYOUT)
        if found["wide"] > 390:
            problems.append(f"{page.url}: {found['wide']} px wide at 200 % text: {found['over']}")
        if found["h1"] != 1:
            problems.append(f"{page.url}: {found['h1']} <h1>")
        problems.extend(f"{page.url}: tap target {small}" for small in found["small"])
        problems.extend(f"{page.url}: two buttons named {name}" for name in found["twice"])

    with served(cli.db, []) as base:
        _pages(browser, cli, base, seq, 390, "light", check, locale)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_dark_mode_styles_the_form_controls(browser, gurps):
    """In dark mode an input is dark with light text (color-scheme and the page's colours),
    not a bright white box."""
    cli = gurps
    with served(cli.db, []) as base:
        context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme="dark")
        page = context.new_page()
        _ready(page, base + cli.json("invite", "Aki")["join_path"], "form button[type=submit]")
        page.click("form button[type=submit]")
        page.wait_for_selector("#roll-command")
        looks = page.evaluate(
            """() => ["#roll-command", "#roll-char", "#roll-form button"].map(s => {
                 const style = getComputedStyle(document.querySelector(s));
                 return [style.colorScheme, style.backgroundColor, style.color];
               })"""
        )
        context.close()
    assert looks == [["light dark", "rgb(34, 34, 38)", "rgb(236, 236, 240)"]] * 3


CHECKBOXES = """() => [...document.querySelectorAll("#gm-tools input[type=checkbox]")].map(box => {
  const own = box.getBoundingClientRect(), label = box.closest("label").getBoundingClientRect();
  const form = box.closest("form").getBoundingClientRect();
  return {name: box.name, box: [Math.round(own.width), Math.round(own.height)],
          label: [Math.round(label.width), Math.round(label.height)],
          beside: own.top >= label.top && own.bottom <= label.bottom && own.left <= label.left + 1,
          inForm: label.left >= form.left - 1 && label.right <= form.right + 1};
})"""


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("width", [390, 1280])
def test_the_gm_forms_checkboxes_are_boxes_tapped_through_their_labels(browser, gurps, width, monkeypatch):
    """Each checkbox of the GM's forms (the invite's GM rights among them) is drawn at its
    own size, beside its words, and its label is the 44 px tap target, one line on a phone."""
    monkeypatch.delenv("CAMPAIGN_LANG", raising=False)
    cli = gurps
    with served(cli.db, []) as base:
        context = browser.new_context(viewport={"width": width, "height": 844}, locale="ja-JP")
        gm = context.new_page()
        _ready(gm, base + cli.json("invite", "GM", "--gm")["join_path"], "form button[type=submit]")
        gm.click("form button[type=submit]")
        gm.wait_for_selector("#gm-invites", timeout=10_000)
        gm.evaluate("() => document.querySelectorAll('#gm-tools details').forEach(fold => { fold.open = true; })")
        boxes = {found.pop("name"): found for found in gm.evaluate(CHECKBOXES)}
        gm.locator("label:has(#invite-gm)").click()
        checked = gm.is_checked("#invite-gm")
        context.close()
    assert sorted(boxes) == ["call", "gm", "npcs", "searchers"]
    for name, found in boxes.items():
        assert found["box"] == [22, 22], name  # 1.4rem, not stretched to the row
        assert found["label"][1] >= 44 and found["label"][0] >= 44, (name, found)
        assert found["beside"] and found["inForm"], (name, found)
    assert boxes["gm"]["label"][1] == 44  # 「GMの権限つき」 on one line beside its box
    assert checked  # a tap on the label checks the box

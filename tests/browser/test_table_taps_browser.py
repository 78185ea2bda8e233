"""One tap, one write, and a page that keeps the player's place, in Debian's Chromium on
a Japanese phone (390x844, ja-JP):

- every kind of button on the table page (a skill, a palette line, the free box by tap
  and by Enter, a call's answer, a void request, and the GM's fright call, call form and
  reunion form), tapped 2 and 12 times within 300 ms, writes exactly once, and shows it is
  busy (disabled, aria-busy) until the answer;
- another player's roll arriving over the feed leaves the roll form's character choice
  (「（なし）」 or a character), the focused control, an open fold and the untouched
  items' nodes as they were, and is announced in the polite live region, as a new call
  for this seat is;
- every button's accessible name says what it acts on, and no two are alike."""

from __future__ import annotations

import time

import pytest

from tests.browser.test_table_browser import head
from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import Browser, served

pytestmark = pytest.mark.slow

# `count` clicks spread over 280 ms, each on the button the selector finds at that moment
# (a live update may have rebuilt it), as fingers on a phone would.
BURST = """([selector, count]) => new Promise(done => {
  const gap = count > 1 ? 280 / (count - 1) : 0;
  let n = 0, busy = null;
  const tick = () => {
    const button = document.querySelector(selector);
    if (button) {
      button.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true}));
      if (busy === null) busy = [button.disabled, button.getAttribute("aria-busy")];
    }
    if (++n < count) setTimeout(tick, gap); else done(busy);
  };
  tick();
})"""
SUBMITS = """count => new Promise(done => {
  let n = 0;
  const tick = () => { if (n++ < count) { document.getElementById("roll-form").requestSubmit(); setTimeout(tick, 20); }
                       else done(); };
  tick();
})"""
NAMES = """() => {
  const names = [];
  for (const b of document.querySelectorAll("button, summary")) {
    if (!b.getClientRects().length) continue;
    names.push((b.getAttribute("aria-label") || b.textContent).trim());
  }
  return names;
}"""


@pytest.fixture(autouse=True)
def _readers_language(monkeypatch):
    """The phones' Accept-Language (ja-JP) chooses the page's language, as at a real table."""
    monkeypatch.delenv("CAMPAIGN_LANG", raising=False)


def phone(browser, base: str, join_path: str, width: int = 390):
    """A Japanese phone that followed its invite; its page is live."""
    context = browser.new_context(viewport={"width": width, "height": 844}, locale="ja-JP", has_touch=True)
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept("押し間違い"))
    page.goto(base + join_path)
    page.click("form button[type=submit]")
    page.wait_for_selector('#conn[data-state="connected"]', timeout=10_000)
    page.wait_for_selector("#sheets article.sheet", timeout=10_000)
    return context, page


def burst(page, selector: str, count: int) -> None:
    """Tap `count` times within 300 ms; the first tap leaves the button busy."""
    page.wait_for_selector(selector + ":not([disabled])", timeout=10_000)
    disabled, busy = page.evaluate(BURST, [selector, count])
    assert (disabled, busy) == (True, "true"), f"{selector} did not show it was busy"
    page.wait_for_function("s => !document.querySelector(s + '[disabled]')", arg=selector, timeout=10_000)


def calls(cli: Cli) -> int:
    return len(cli.json("call", "list", "--all")["calls"])


@pytest.mark.parametrize("count", [2, 12])
def test_a_burst_of_taps_on_any_button_writes_once(browser, gurps, count):
    cli = gurps
    cli.run("skill", "add", "鈴音", "回避", "12")
    cli.run("--as", "Aki", "roll", "2D6", "--char", "鈴音", "--dice", "3,4")
    with served(cli.db, None) as base:
        aki_context, aki = phone(browser, base, cli.json("invite", "Aki")["join_path"])
        gm_context, gm = phone(browser, base, cli.json("invite", "GM", "--gm")["join_path"])
        try:
            writes = [
                ("a skill", aki, "#sheets article.mine button.skill", head),
                ("a palette line", aki, _plain_palette_line(aki), head),
            ]
            for what, page, selector, measure in writes:
                before = measure(cli)
                burst(page, selector, count)
                time.sleep(0.5)
                assert measure(cli) == before + 1, what

            aki.fill("#roll-command", "3D6")
            before = head(cli)
            burst(aki, "#roll-form button[type=submit]", count)
            time.sleep(0.5)
            assert head(cli) == before + 1, "the free box"
            before = head(cli)
            aki.focus("#roll-command")
            aki.keyboard.press("Enter")  # Enter submits the form: the same tap
            aki.evaluate(SUBMITS, count - 1)  # and a held-down Enter's repeats, within 300 ms
            aki.wait_for_function("() => !document.querySelector('#roll-form button[disabled]')", timeout=10_000)
            time.sleep(0.5)
            assert head(cli) == before + 1, "the free box by Enter"

            cli.json("call", "success", "回避", "鈴音")
            before = head(cli)
            burst(aki, "#call-list button.roll-call", count)
            time.sleep(0.5)
            assert head(cli) == before + 1, "a call's answer"

            before = head(cli)
            burst(aki, "#latest-list li button.small", count)
            time.sleep(0.5)
            assert head(cli) == before + 1, "a void request"
            assert cli.json("history", "--limit", "1")[0]["kind"] == "void_request"

            before = calls(cli)
            burst(gm, '#sheets button[aria-label="恐怖判定を呼ぶ（鈴音）"]', count)
            time.sleep(0.5)
            assert calls(cli) == before + 1, "the GM's fright call"
            cli.run("call", "cancel", str(cli.json("call", "list")["calls"][0]["call_id"]))
            gm.fill("#call-roll", "回避")
            gm.select_option("#call-char", "鈴音")
            before = calls(cli)
            burst(gm, "#call-form button[type=submit]", count)
            time.sleep(0.5)
            assert calls(cli) == before + 1, "the GM's call form"
            cli.run("call", "cancel", str(cli.json("call", "list")["calls"][0]["call_id"]))

            tool = gm.locator("#gm-tools details", has=gm.locator("form[data-gm-action=award]"))
            tool.locator("summary").click()
            tool.locator("[name=cp]").fill("1")
            tool.locator("[name=to]").fill("鈴音")
            before = head(cli)
            burst(gm, "#gm-tools form[data-gm-action=award] button[type=submit]", count)
            time.sleep(0.5)
            assert head(cli) == before + 1, "a GM tool"

            cli.run("scenario", "start", "第一話", "--with", "鈴音", "--with", "刀矢")
            cli.run("missing", "mark", "刀矢", "--reason", "霧の中")
            gm.wait_for_selector("#reunion-form button[type=submit]", state="visible", timeout=10_000)
            gm.fill("#reunion-award", "3")
            before = calls(cli)
            burst(gm, "#reunion-form button[type=submit]", count)
            time.sleep(0.5)
            assert calls(cli) == before + 1, "the GM's reunion form"
        finally:
            aki_context.close()
            gm_context.close()
    cli.run("history", "verify")


def _plain_palette_line(page) -> str:
    """A palette button that is a plain roll (a fright line writes its sub-entries too)."""
    texts = page.locator("#sheets article.mine .palette button").all_text_contents()
    index = next(i for i, line in enumerate(texts) if "恐怖" not in line)
    return f"#sheets article.mine .palette button:nth-child({index + 1})"


def test_another_players_roll_keeps_the_form_the_focus_and_the_place(browser, gurps):
    from playwright.sync_api import expect

    cli = gurps
    cli.run("skill", "add", "鈴音", "回避", "12")
    cli.run("--as", "Aki", "roll", "2D6", "--char", "鈴音", "--dice", "3,4")
    with served(cli.db, None) as base:
        aki_context, aki = phone(browser, base, cli.json("invite", "Aki")["join_path"])
        gm_context, gm = phone(browser, base, cli.json("invite", "GM", "--gm")["join_path"], width=1280)
        ren = Browser(base)
        ren.join(cli.json("invite", "Ren")["join_path"])
        try:
            assert aki.input_value("#roll-char") == "鈴音"  # the first fill picks her own character
            overview = gm_context.new_page()
            overview.goto(base + "/overview")
            overview.wait_for_timeout(500)  # the feed's first state event
            overview.evaluate("document.querySelector('#live-characters').firstElementChild.kept = true")
            for choice in ("", "鈴音"):  # 「（なし）」, then a character
                aki.select_option("#roll-char", choice)
                aki.fill("#roll-command", "2D6+1")
                aki.focus("#roll-command")
                aki.evaluate("document.querySelector('#latest-list li').kept = true")  # a node to follow
                gm.locator("#sheets details.palette-fold summary").first.click()
                seq = head(cli) + 1
                answer = ren.post("/api/rolls", {"command": "2D6", "character": "刀矢"})
                assert answer.status_code == 201, answer.text
                expect(aki.locator("#latest-list li").first).to_contain_text(f"#{seq}", timeout=5_000)
                expect(gm.locator("#latest-list li").first).to_contain_text(f"#{seq}", timeout=5_000)
                aki.wait_for_timeout(300)  # the state event after the entry
                assert aki.input_value("#roll-char") == choice
                assert aki.evaluate("document.activeElement.id") == "roll-command"
                assert aki.input_value("#roll-command") == "2D6+1"
                assert aki.evaluate("document.querySelector('#latest-list li:nth-child(2)').kept") is True
                assert gm.locator("#sheets details.palette-fold").first.evaluate("d => d.open") is True
                expect(aki.locator("#announce")).to_contain_text(f"新しい記録: #{seq}")
                gm.locator("#sheets details.palette-fold summary").first.click()  # closed again for the next round

            # the overview's characters did not change: the same nodes, not a rebuilt part
            expect(overview.locator("#history-table tbody tr").first).to_contain_text(f"#{seq}")
            assert overview.evaluate("document.querySelector('#live-characters').firstElementChild.kept") is True

            # a changed sheet is rebuilt, and the focus stays on the same button in it
            aki.focus("#sheets article.mine button.skill")
            cli.run("char", "damage", "鈴音", "HP", "2", "--reason", "落石")
            expect(aki.locator("#sheets article.mine")).to_contain_text("HP 9 / 11", timeout=5_000)
            assert aki.evaluate("document.activeElement.dataset.focus") == "skill\u0000鈴音\u0000回避"

            # a tap by keyboard: the locked button gives the focus back once it is free
            seq = head(cli) + 1
            aki.keyboard.press("Enter")
            expect(aki.locator("#latest-list li").first).to_contain_text(f"#{seq}", timeout=5_000)
            aki.wait_for_function("() => !document.querySelector('#sheets button[disabled]')", timeout=5_000)
            assert aki.evaluate("document.activeElement.dataset.focus") == "skill\u0000鈴音\u0000回避"

            # a new call for this seat is announced; one for another seat is not
            cli.json("call", "success", "IQ", "刀矢")
            cli.json("call", "success", "回避", "鈴音")
            expect(aki.locator("#announce")).to_contain_text("新しい呼び出し: ", timeout=5_000)
            assert "刀矢" not in aki.text_content("#announce").split("新しい呼び出し")[-1]
        finally:
            ren.close()
            aki_context.close()
            gm_context.close()


def test_every_button_says_what_it_acts_on(browser, gurps):
    cli = gurps
    cli.run("skill", "add", "鈴音", "回避", "12")
    cli.run("skill", "add", "刀矢", "回避", "12")
    for char, player in (("鈴音", "Aki"), ("鈴音", "Aki"), ("刀矢", "Ren")):
        cli.run("--as", player, "roll", "2D6", "--char", char, "--dice", "3,4")
    cli.json("call", "success", "回避", "鈴音")
    cli.json("call", "success", "回避", "刀矢")
    with served(cli.db, None) as base:
        aki_context, aki = phone(browser, base, cli.json("invite", "Aki")["join_path"])
        gm_context, gm = phone(browser, base, cli.json("invite", "GM", "--gm")["join_path"], width=1280)
        try:
            aki.wait_for_selector("#latest-list li button.small")
            first = cli.json("history", "--limit", "3")[-1]["seq"]
            assert aki.get_by_role("button", name=f"#{first} の取消を依頼", exact=True).count() == 1
            burst(aki, "#latest-list li button.small", 1)
            gm.wait_for_selector("#request-list li button.gm", timeout=10_000)
            for page in (aki, gm):
                names = page.evaluate(NAMES)
                assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
            assert gm.get_by_role("button", name="回避 12（刀矢）", exact=True).count() == 1
            assert aki.locator("#call-list button.roll-call").first.get_attribute("aria-label").startswith("呼び出し #")
        finally:
            aki_context.close()
            gm_context.close()

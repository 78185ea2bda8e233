"""A GURPS evening run from the browser: one GM at a laptop and four Japanese touch phones
(390x844) at one table server, and no terminal command after the server starts. The GM
invites from the page, calls a success roll for everyone and two fright checks (one
failure leaves a trait the GM names), marks a character missing, ends two scenarios with
the reunion called (the second with two searchers and their award), and answers a void
request; a player adds a second device from her page. After each step the ledger and
`char show --json` say what the pages did.

The server is a real `campaign serve` process, on the URL it prints; started with
`--dice`, it deals the evening's faces in order (recorded as typed dice), so every entry
the test asserts has known dice."""

from __future__ import annotations

import pytest

from tests.browser.test_japanese_pages_browser import PAGES, english_words, unfolded_text
from tests.browser.test_result_in_view_browser import PHONE
from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.web.test_serve import Server

pytestmark = pytest.mark.slow

PLAYERS = {"明": "鈴音", "蓮": "刀矢", "葵": "千景", "湊": "湊斗"}

#: Every die of the evening, in the order the taps roll them: the success roll of each
#: phone (3D6 vs 聞き耳 12), 刀矢's fright check (3D6 vs Will 11-2), 鈴音's failed one and
#: its fright table, then 鈴音's two reunion dice (1d6).
SUCCESS = [1, 2, 3]
FRIGHT = {"刀矢": [1, 1, 1], "鈴音": [6, 5, 5, 6, 5, 5]}
REUNIONS = [6, 3]
FACES = [*SUCCESS * len(PLAYERS), *FRIGHT["刀矢"], *FRIGHT["鈴音"], *REUNIONS]


def setup(cli) -> None:
    cli.run("init", "夜の卓", "--ruleset", "gurps3-ja")
    for player, character in PLAYERS.items():
        cli.run("player", "add", player)
        cli.run(
            "char",
            "add",
            character,
            "--player",
            player,
            "--cp",
            "100",
            "--stat",
            "IQ=12",
            "--stat",
            "HT=11",
            "--stat",
            "Will=11",
        )
        cli.run("skill", "add", character, "聞き耳", "12")
    cli.run("char", "relate", "刀矢", "鈴音")
    cli.run("char", "relate", "千景", "鈴音")


def head(cli) -> int:
    return cli.json("history", "--limit", "1")[0]["seq"]


def newer(cli, since: int) -> list[dict]:
    return [e for e in reversed(cli.json("history", "--limit", "60")) if e["seq"] > since]


def gm_form(gm, action: str):
    selector = f'form[data-gm-action="{action}"]'
    gm.evaluate("s => { document.querySelector(s).closest('details').open = true; }", selector)
    return gm.locator(selector)


def submit(expect, form) -> None:
    form.locator("output").evaluate("out => { out.textContent = ''; out.dataset.outcome = ''; }")  # the last answer
    form.locator("button[type=submit]").click()
    expect(form.locator("output")).to_have_attribute("data-outcome", "success", timeout=10_000)


def tap_call(expect, phone) -> None:
    button = phone.locator("#call-list button.roll-call").first
    expect(button).to_be_visible(timeout=10_000)
    phone.evaluate("() => { document.getElementById('roll-result').textContent = ''; }")  # the last result read
    button.tap()
    expect(phone.locator("#roll-result")).not_to_be_empty(timeout=10_000)


def test_an_evening_from_the_gm_page_and_four_phones(browser, cli, monkeypatch):
    from playwright.sync_api import expect

    monkeypatch.delenv("CAMPAIGN_LANG")
    monkeypatch.setenv("TZ", "Asia/Tokyo")  # the GM's machine, whose zone `init` records
    setup(cli)
    gm_path = cli.json("invite", "GM", "--gm")["join_path"]
    contexts = []
    server = Server(cli.db, "--dice", ",".join(map(str, FACES)))
    assert server.first_line.startswith("http://127.0.0.1:")  # the URL `serve` prints, on a real socket
    base = server.first_line.rstrip("/")
    try:
        gm_context = browser.new_context(locale="ja-JP", viewport={"width": 1280, "height": 900})
        contexts.append(gm_context)
        gm = gm_context.new_page()
        gm.on("dialog", lambda dialog: dialog.accept())
        gm.goto(base + gm_path)
        gm.click("form button[type=submit]")
        gm.wait_for_selector('#conn[data-state="connected"]', timeout=10_000)

        # invites made on the GM's page, opened on each phone
        phones = {}
        gm.evaluate("() => { document.getElementById('gm-invites').open = true; }")
        for player in PLAYERS:
            gm.fill("#invite-player", player)
            gm.click("#invite-form button[type=submit]")
            expect(gm.locator("#invite-result")).to_contain_text(player, timeout=10_000)  # this one's
            link = gm.locator("#invite-result a.join-link")
            expect(link).to_contain_text("/join/")
            expect(gm.locator("#invite-result img.qr")).to_be_visible()
            context = browser.new_context(**PHONE)
            contexts.append(context)
            phone = context.new_page()
            phone.on("dialog", lambda dialog: dialog.accept("押し間違い"))
            phone.goto(link.get_attribute("href"))
            phone.tap("form button[type=submit]")
            phone.wait_for_selector('#conn[data-state="connected"]', timeout=10_000)
            phones[player] = phone
        assert sorted(s["player"] for s in cli.json("invite", "list")["sessions"]) == sorted(["GM", *PLAYERS])

        # scenario 1 with everyone
        form = gm_form(gm, "scenario-start")
        form.locator("[name=title]").fill("第一話")
        form.locator("[name=with]").fill("、".join(PLAYERS.values()))
        submit(expect, form)
        assert cli.json("scenario", "list")[-1]["participants"] == list(PLAYERS.values())

        # a GURPS success roll called for everyone taking part; each phone taps its own
        gm.select_option("#call-kind", "success")
        gm.fill("#call-roll", "聞き耳")
        gm.click("#call-form button[type=submit]")
        expect(phones["明"].locator("#call-list button.roll-call")).to_be_visible(timeout=10_000)
        before = head(cli)
        for phone in phones.values():
            tap_call(expect, phone)
        rolls = newer(cli, before)
        assert [(e["actor"], e["character"], e["expression"], e["dice"], e["outcome"], e["source"]) for e in rolls] == [
            (player, character, "3D6<=12", SUCCESS, "success", "manual") for player, character in PLAYERS.items()
        ]

        # two fright calls: 刀矢 stands firm, 鈴音 fails and gains a phobia the GM names
        for character in ("刀矢", "鈴音"):
            gm.select_option("#call-kind", "fright")
            gm.select_option("#call-char", character)
            gm.fill("#call-mod", "-2")
            gm.click("#call-form button[type=submit]")
            player = next(p for p, c in PLAYERS.items() if c == character)
            before = head(cli)
            tap_call(expect, phones[player])
            assert newer(cli, before), (phones[player].text_content("#roll-result"), gm.text_content("#roll-result"))
            fright = newer(cli, before)[0]
            assert (fright["kind"], fright["character"], fright["actor"], fright["dice"]) == (
                "fright",
                character,
                player,
                FRIGHT[character][:3],
            )
        traits = cli.json("char", "show", "鈴音")["traits"]
        assert len(traits) == 1 and traits[0]["name"].startswith("未命名の")
        assert cli.json("char", "show", "刀矢")["traits"] == []
        expect(phones["明"].locator("#roll-result .consequence").first).to_be_visible(timeout=10_000)
        form = gm_form(gm, "trait-rename")
        form.locator("[name=character]").fill("鈴音")
        form.locator("[name=trait]").fill(traits[0]["name"])
        form.locator("[name=name]").fill("暗所恐怖症")
        submit(expect, form)
        assert [t["name"] for t in cli.json("char", "show", "鈴音")["traits"]] == ["暗所恐怖症"]

        # 鈴音 goes missing; scenario 1 ends with the reunion called: her player rolls a 6
        form = gm_form(gm, "missing-mark")
        form.locator("[name=character]").fill("鈴音")
        form.locator("[name=reason]").fill("霧の中に消えた")
        submit(expect, form)
        assert [m["character"] for m in cli.json("missing", "list")] == ["鈴音"]
        form = gm_form(gm, "scenario-end")
        form.locator("[name=award]").fill("2")
        form.locator("[name=call]").check()
        submit(expect, form)
        tap_call(expect, phones["明"])
        expect(phones["明"].locator("#roll-result")).to_contain_text("明", timeout=10_000)
        assert [m["character"] for m in cli.json("missing", "list")] == ["鈴音"]
        cp = {c["name"]: c["cp_total"] for c in cli.json("char", "list")}
        assert (cp["刀矢"], cp["千景"], cp["湊斗"]) == (102, 102, 102)

        # scenario 2: two searchers; the end, reunion called, awards the searchers
        form = gm_form(gm, "scenario-start")
        form.locator("[name=title]").fill("第二話")
        form.locator("[name=with]").fill("湊斗")
        form.locator("[name=search]").fill("刀矢=鈴音、千景=鈴音")
        submit(expect, form)
        assert sorted(s["name"] for s in cli.json("missing", "list")[0]["searchers"]) == ["刀矢", "千景"]
        form = gm_form(gm, "scenario-end")
        form.locator("[name=award]").fill("3")
        form.locator("[name=searchers]").check()
        form.locator("[name=call]").check()
        submit(expect, form)
        tap_call(expect, phones["明"])
        assert cli.json("missing", "list") == []
        cp = {c["name"]: c["cp_total"] for c in cli.json("char", "list")}
        assert (cp["刀矢"], cp["千景"], cp["湊斗"]) == (105, 105, 105)

        # 蓮 asks to void his roll; the GM approves it from the page
        roll_seq = rolls[1]["seq"]
        ask = phones["蓮"].locator("#latest-list li", has_text=f"#{roll_seq} ").locator("button")
        ask.tap()
        approve = gm.locator("#request-list button").first
        expect(approve).to_be_visible(timeout=10_000)
        approve.click()
        expect(gm.locator("#request-list li.none")).to_be_visible(timeout=10_000)
        assert cli.json("history", "show", str(roll_seq))["voided_by"] is not None

        # 明's second phone signs in from her page's device link, with no new invite
        phones["明"].locator("#device-link").tap()
        device = phones["明"].locator("#device-result a.join-link")
        expect(device).to_contain_text("/join/", timeout=10_000)
        expect(phones["明"].locator("#device-result img.qr")).to_be_visible()
        second = browser.new_context(**PHONE)
        contexts.append(second)
        tablet = second.new_page()
        tablet.goto(device.get_attribute("href"))
        tablet.tap("form button[type=submit]")
        tablet.wait_for_selector("#table article.sheet.mine", timeout=10_000)
        assert tablet.locator("#sheets article.sheet.mine h3").first.text_content().startswith("鈴音")
        sessions = [s["player"] for s in cli.json("invite", "list")["sessions"]]
        assert sessions.count("明") == 2 and len(cli.json("invite", "list")["invites"]) == 6

        # every page of the evening, in Japanese, with every fold opened
        found = {}
        for who, page in [*phones.items(), ("GM", gm)]:
            for path in [*PAGES, "/scenarios/2", f"/entries/{roll_seq}", f"/entries/{fright['seq']}"]:
                page.goto(base + path)
                if path == "/":
                    page.wait_for_selector("#table article.sheet")
                if words := english_words(unfolded_text(page)):
                    found[(who, path)] = words
        assert found == {}, found
    finally:
        for context in contexts:
            context.close()
        server.stop()
    cli.run("history", "verify")

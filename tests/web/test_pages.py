"""Every page of `campaign serve` renders the demo-like campaign, on SQLite and
PostgreSQL, with exactly the numbers the fixed dice produce."""

from __future__ import annotations

import html
import re

from tests.web.conftest import XSS, client_for


def rows(page: str) -> list[int]:
    """The seqs of the history rows on a page, in page order."""
    return [int(seq) for seq in re.findall(r'<tr id="entry-(\d+)"', page)]


def test_overview_shows_characters_missing_board_and_latest_entries(table, client):
    cli, seqs = table
    page = client.get("/")
    assert page.status_code == 200
    text = page.text
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in text
    for name in ("鈴音", "刀矢", "管狐", "テスト卓"):
        assert name in text
    # The missing board: 鈴音 with 刀矢 searching, 1d6 <= 2 = 2/6.
    board = text.split('<ul class="missing">')[1].split("</ul>")[0]
    assert "鈴音" in board and "刀矢" in board and "33%" in board and "1d6 ≤ 2" in board
    # Latest entries: newest first, the seal on top, fed live from the head.
    assert rows(text)[0] == seqs["seal"] and len(rows(text)) == 10
    assert f'<table id="history-table" data-feed="/api/feed?after={seqs["seal"]}">' in text


def test_scripts_load_in_order_with_defer_and_css_is_external(client):
    text = client.get("/characters").text
    scripts = re.findall(r'<script src="([^"]+)" defer></script>', text)
    assert scripts == [
        "/static/messages.js",
        "/static/sha256.js",
        "/static/verify.js",
        "/static/recompute.js",
        "/static/fair_check.js",
        "/static/live.js",
    ]
    assert "<style" not in text and " style=" not in text and "<script>" not in text
    for path in (
        "/static/messages.js",
        "/static/sha256.js",
        "/static/verify.js",
        "/static/recompute.js",
        "/static/fair_check.js",
        "/static/receipts.js",
        "/static/live.js",
        "/static/style.css",
    ):
        assert client.get(path).status_code == 200


def test_character_page_shows_stats_pools_and_the_fright_trait_linked_to_its_entry(table, client):
    cli, seqs = table
    page = client.get("/characters/鈴音")
    assert page.status_code == 200
    text = page.text
    assert "<dt>IQ</dt><dd>12</dd>" in text and "<dt>Will</dt><dd>11</dd>" in text
    assert "<dt>HP</dt><dd>11 / 11</dd>" in text
    trait = re.search(r'<li class="trait from-fright">(.*?)</li>', text).group(1)
    assert f'href="/entries/{seqs["fright"]}"' in trait and "暗所恐怖症" in trait and "-10 CP" in trait
    shown = cli.json("char", "show", "鈴音")
    assert f"CP {shown['cp_total']}" in text
    # An NPC page names its summoner; an unknown name is a 404 page.
    assert "Summoner" in client.get("/characters/管狐").text
    missing = client.get("/characters/誰")
    assert missing.status_code == 404 and "no character named" in missing.text


def test_missing_board_lists_searchers_and_odds(client):
    text = client.get("/missing").text
    card = re.search(r'<li class="missing-card">(.*?)</li>', text, re.S).group(1)
    assert ">鈴音</a>" in card and ">刀矢</a> (Ren)" in card
    assert "33%" in card and "霧の中に消えた" in card


def test_scenarios_and_one_scenario(client):
    text = client.get("/scenarios").text
    assert "第一話 霧の館" in text and "第二話 捜索" in text and 'href="/scenarios/2"' in text
    one = client.get("/scenarios/1").text
    assert "第一話 霧の館" in one and "1d6 = 4 ≤ 1? failure" in one
    two = client.get("/scenarios/2").text
    assert "刀矢 (Ren) → 鈴音" in two
    assert client.get("/scenarios/9").status_code == 404


def test_history_filters_match_the_cli(table, client):
    cli, seqs = table
    for query, args in (
        ("char=鈴音", ["--char", "鈴音"]),
        ("kind=fright", ["--kind", "fright"]),
        ("player=Aki", ["--player", "Aki"]),
        ("actor=Aki", ["--actor", "Aki"]),
        ("scenario=1", ["--scenario", "1"]),
        ("outcome=success", ["--outcome", "success"]),
        (
            "since=2000-01-01&until=2999-12-31&kind=roll",
            ["--since", "2000-01-01", "--until", "2999-12-31", "--kind", "roll"],
        ),
    ):
        page = client.get("/history?" + query)
        assert page.status_code == 200, query
        expected = [entry["seq"] for entry in cli.json("history", *args)]
        assert rows(page.text) == expected and expected, query
        assert "data-feed=" not in page.text  # a filtered page is not fed every new entry
    nothing = client.get("/history?until=2000-01-01")
    assert rows(nothing.text) == [] and "No matching entries" in nothing.text
    bad = client.get("/history?outcome=maybe")
    assert bad.status_code == 400 and "--outcome must be one of" in bad.text
    assert client.get("/history?kind=frigth").status_code == 400
    assert client.get("/history?scenario=x").status_code == 400
    assert client.get("/history?char=誰").status_code == 404


def test_a_table_entry_page_shows_the_words_made_from_its_codes(table, client, monkeypatch):
    """The record holds codes (the entry by its range, no reason on the reroll); the page
    shows the printed lines and the reroll's reason, made from them, in the campaign's
    language (here English, CAMPAIGN_LANG=en; Japanese for a server started with ja)."""
    cli, _seqs = table
    rolled = cli.json("table", "roll", "FMB", "--weapon", "crushing", "--dice", "1,1,1,2,2,3")
    seq = rolled["seq"]
    text = client.get(f"/entries/{seq}").text
    assert "3: The weapon breaks" in text and "武器が壊れる" not in text
    assert f"  ↳ #{seq + 1} reroll (only if solid crushing weapon): FMB [2,2,3]=7" in text
    assert '<td class="reason">reroll (only if solid crushing weapon)' in text  # the sub-entry row
    record = text[text.index('<pre class="record">') : text.index("</pre>")]
    assert "&#34;table&#34;: &#34;FMB&#34;" in record and "武器" not in record  # the record: codes
    sub = client.get(f"/entries/{seq + 1}").text
    assert "<dd>reroll (only if solid crushing weapon)</dd>" in sub
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    with client_for(cli.db) as japanese:
        text = japanese.get(f"/entries/{seq}").text
        assert "3: 武器が壊れる。ただし硬い叩き武器(メイス等)は壊れず振り直し。" in text
        assert f"  ↳ #{seq + 1} 振り直し (「硬い叩き武器」の場合のみ): FMB [2,2,3]=7" in text
        assert "<dd>振り直し (「硬い叩き武器」の場合のみ)</dd>" in japanese.get(f"/entries/{seq + 1}").text


def test_entry_page_shows_dice_record_and_hashes(table, client):
    cli, seqs = table
    seq = seqs["fright"]
    shown = cli.json("history", "show", str(seq))
    text = client.get(f"/entries/{seq}").text
    assert '<span class="die">6</span><span class="die">5</span><span class="die">5</span>' in text
    assert shown["hash"] in text and shown["prev_hash"] in text
    assert "屋敷の地下室" in text and "&#34;kind&#34;: &#34;fright&#34;" in text
    assert f'data-from-seq="{seq}"' in text
    # A voided entry names its void.
    void = cli.json("history", "void", str(seqs["roll"]), "--reason", "押し間違い", "--yes")
    voided = client.get(f"/entries/{seqs['roll']}").text
    assert f'voided by <a href="/entries/{void["seq"]}">#{void["seq"]}</a>' in voided
    assert client.get("/entries/9999").status_code == 404


def test_luck_page_draws_svg_charts_server_side(client):
    page = client.get("/luck")
    assert page.status_code == 200
    text = page.text
    assert text.count('<svg class="chart"') >= 2  # at least d6 faces and one success-rate chart
    assert '<rect class="bar"' in text and '<line class="expected"' in text
    # The d6 faces the fixed dice gave: 1,2,3 / 2,5 / 6,5,5 + 6,6,6 / reunion 4 (the secret
    # roll's dice are not in the ledger): 1:1 2:2 3:1 4:1 5:3 6:4, expected 2 each.
    d6 = text.split('<svg class="chart"')[1]
    assert re.findall(r'<text class="count"[^>]*>([^<]*)</text>', d6) == ["1", "2", "1", "1", "3", "4"]
    assert "d6: 12 dice" in text and "manual" in text
    rates = text.split('<svg class="chart"')[2]
    assert re.findall(r'<text class="count"[^>]*>([^<]*)</text>', rates) == ["50%", "68.3%"]


def test_every_text_is_escaped(table, client):
    cli, seqs = table
    escaped = html.escape(XSS, quote=False)
    for path in (
        "/",
        "/characters",
        "/history",
        f"/entries/{seqs['xss_roll']}",
        "/characters/" + XSS.replace("/", "%2F"),
    ):
        page = client.get(path)
        assert page.status_code == 200, path
        assert XSS not in page.text and "<script>alert" not in page.text, path
        assert escaped in page.text, path


def test_a_secret_roll_stays_secret(table, client):
    cli, seqs = table
    seq = seqs["secret"]
    pages = [
        client.get(path).text
        for path in ("/", "/history", f"/entries/{seq}", "/api/chain", "/luck", "/history?kind=roll")
    ]
    for text in pages:
        for secret in (
            "聞き耳ひみつ",
            "3D6&lt;=12 [6,5,4]",
            "[6,5,4]",
            "6,5,4",
            '<span class="die">6</span><span class="die">5</span><span class="die">4</span>',
        ):
            assert secret not in text
    assert "secret roll by GM (commitment" in pages[1]
    # Once revealed, everyone sees it (the reveal entry carries the result).
    cli.run("history", "reveal", str(seq))
    assert "[6,5,4]=15" in client.get("/history").text


def test_security_headers_on_every_response(client):
    for path in ("/", "/history", "/static/style.css", "/api/chain", "/nope"):
        headers = client.get(path).headers
        assert (
            headers["content-security-policy"]
            == "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:"
        )
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "same-origin"


def test_no_write_endpoints(client):
    for path in ("/", "/history", "/api/chain", "/api/feed"):
        assert client.post(path).status_code == 405


def test_every_page_renders_on_both_backends(db_url):
    """The same campaign built on SQLite and PostgreSQL: every page answers, with the
    numbers the fixed dice made."""
    from tests.cli.conftest import Cli
    from tests.web.conftest import build_table, client_for

    cli = Cli(db_url)
    seqs = build_table(cli)
    client = client_for(db_url)
    pages = {
        path: client.get(path)
        for path in (
            "/",
            "/characters",
            "/characters/鈴音",
            "/missing",
            "/scenarios",
            "/scenarios/1",
            "/history",
            "/history?kind=fright",
            f"/history?before={seqs['seal']}",
            f"/entries/{seqs['fright']}",
            "/luck",
            "/api/chain",
            "/api/seals",
        )
    }
    for path, page in pages.items():
        assert page.status_code == 200, path
    assert "33%" in pages["/missing"].text
    assert seqs["fright"] in rows(pages["/history?kind=fright"].text)
    assert rows(pages[f"/history?before={seqs['seal']}"].text)[0] == seqs["seal"] - 1
    assert "暗所恐怖症" in pages["/characters/鈴音"].text
    assert [seal["seq"] for seal in pages["/api/seals"].json()["seals"]] == [seqs["seal"]]
    assert "聞き耳ひみつ" not in pages["/history"].text
    # Hostile query values are malformed input (400), never a server error.
    for query in (
        "actor=%00",
        "char=a%00b",
        "kind=%00",
        "scenario=99999999999",
        "before=-5",
        "before=99999999999999",
        "since=2026-13-40",
    ):
        assert client.get("/history?" + query).status_code in (200, 400, 404), query
    assert client.get("/history?actor=%00").status_code == 400
    assert client.get("/entries/99999999999").status_code == 404
    assert client.get("/scenarios/99999999999").status_code == 404
    assert client.get("/api/chain?from=-3&to=99999999999").status_code == 200


def test_bidi_controls_and_separators_in_text_show_as_escapes(table, client):
    """One text rule for output: a reason may hold a right-to-left override or U+2028
    (free text), but a page shows them as escapes, as the terminal does."""
    cli, _ = table
    seq = cli.json("roll", "2D6", "--reason", "右\u202e左\u2028次", "--dice", "2,5")["seq"]
    text = client.get(f"/entries/{seq}").text
    assert "\u202e" not in text and "\u2028" not in text
    assert "右\\u202e左\\u2028次" in text

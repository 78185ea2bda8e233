"""Which language a page speaks (campaign.web.language), and that every message the
page's scripts show comes from the catalog (campaign.web.script_messages)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from campaign.web.language import accepted, page_language
from campaign.web.script_messages import MESSAGES
from tests.web.conftest import client_for

STATIC = Path(__file__).resolve().parents[2] / "campaign" / "web" / "static"


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("ja-JP,ja;q=0.9,en;q=0.8", "ja"),
        ("en-US,en;q=0.9,ja;q=0.5", "ja"),  # Japanese first: a browser that reads it at all
        ("en-GB,en;q=0.9", "en"),
        ("fr-FR, de;q=0.5", None),
        ("ja;q=0, en", "en"),  # q=0 is "not acceptable"
        ("ja;q=oops", None),  # a malformed quality is not acceptable either, never an error
        ("", None),
        (None, None),
    ],
)
def test_accept_language_asks_for_japanese_first(header, expected):
    assert accepted(header) == expected


def test_the_order_env_then_setting_then_browser_then_ruleset():
    assert page_language("en", "gurps3-ja", "ja", {"CAMPAIGN_LANG": "ja"}) == "ja"
    assert page_language("en", "gurps3-ja", "ja", {}) == "en"
    assert page_language(None, "gurps3", "ja-JP", {}) == "ja"
    assert page_language(None, "gurps3-ja", "en-US", {}) == "en"
    assert page_language(None, "gurps3-ja", None, {}) == "ja"
    assert page_language(None, "gurps3", "fr", {}) == "en"


def test_a_page_follows_the_browser_without_a_setting_and_the_setting_over_it(table, monkeypatch):
    cli, _seqs = table
    monkeypatch.delenv("CAMPAIGN_LANG")
    with client_for(cli.db) as client:
        japanese = client.get("/characters", headers={"accept-language": "ja,en;q=0.5"}).text
        english = client.get("/characters", headers={"accept-language": "en-US"}).text
        missing = client.get("/characters/誰", headers={"accept-language": "ja"})
        refused = client.post("/api/rolls", json={}, headers={"accept-language": "ja"})
    assert '<html lang="ja"' in japanese and "<h1>キャラクター</h1>" in japanese
    assert '<html lang="en"' in english and "<h1>Characters</h1>" in english
    assert missing.status_code == 404 and '<html lang="ja"' in missing.text and ">全体</a>" in missing.text
    assert refused.status_code == 403 and refused.json()["error"] == "別のサイトからの書き込みは受け付けません"
    cli.run("settings", "lang=en")
    with client_for(cli.db) as client:
        page = client.get("/characters", headers={"accept-language": "ja"}).text
    assert '<html lang="en"' in page  # the campaign's setting first


def test_the_scripts_messages_are_rendered_in_the_pages_language(client, monkeypatch):
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    text = client.get("/history").text
    block = re.search(r'<script type="application/json" id="campaign-messages">(.*?)</script>', text, re.S)
    words = json.loads(block.group(1))
    assert words["messages"]["entry #{seq} does not match"] == "#{seq} の記録が改変されています"
    assert words["outcome"]["critical_failure"] == "ファンブル" and words["status"]["missing"] == "行方不明"
    assert "<" not in block.group(1)  # a message can never close the script block


def _script_messages(source: str) -> set[str]:
    """The first argument of every text("...") call, its "..." + "..." pieces joined."""
    found = set()
    for match in re.finditer(r'\btext\(\s*((?:"(?:[^"\\]|\\.)*"\s*\+?\s*)+)[,)]', source):
        pieces = re.findall(r'"((?:[^"\\]|\\.)*)"', match.group(1))
        found.add("".join(pieces).replace('\\"', '"'))
    for match in re.finditer(r'\btext\((?:[^"()?]|"[^"]*")*\?\s*"((?:[^"\\]|\\.)*)"\s*:\s*"((?:[^"\\]|\\.)*)"', source):
        found.update(match.groups())  # text(cond ? "one" : "other")
    return found


def test_every_message_a_script_shows_is_in_the_catalog_list():
    used = set()
    for name in ("verify.js", "fair_check.js", "recompute.js", "receipts.js", "table.js", "gm.js", "invites.js"):
        used |= _script_messages((STATIC / name).read_text(encoding="utf-8"))
    assert len(used) > 50
    assert sorted(used - set(MESSAGES)) == []
    assert sorted(set(MESSAGES) - used) == []  # and none listed that no script shows


def test_the_feed_renders_each_language_once_and_apart(client, table):
    """Two pages in two languages on one feed: each gets its rows in its own words (the
    rendered rows are kept per language, not shared across them)."""
    import asyncio

    from campaign import i18n

    _cli, seqs = table
    feed = client.app.app.state.feed
    after = seqs["seal"] - 2

    def rows(lang: str) -> list[tuple[int, str]]:
        i18n.use(lang)
        try:
            return asyncio.run(feed.rows_after(after))
        finally:
            i18n.use(None)

    english, japanese = rows("en"), rows("ja")
    assert [seq for seq, _ in english] == [seq for seq, _ in japanese] == [seqs["seal"] - 1, seqs["seal"]]
    assert '<td class="kind">seal</td>' in english[-1][1] and '<td class="kind">封印</td>' in japanese[-1][1]
    assert rows("en") == english  # from the cache, still English

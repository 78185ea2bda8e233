"""A running server follows the campaign's `lang` and `timezone` settings as they are
now: each request reads them (campaign.web.app), so `campaign settings lang=en` on the
same database shows on the next page, without a new app. Both backends."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from campaign import i18n
from campaign.web import present
from tests.cli.conftest import Cli, gurps_setup
from tests.conftest import party_copy
from tests.web.conftest import client_for

JA = {"accept-language": "ja"}


@pytest.fixture
def gurps(db_url, request) -> Cli:
    """tests/cli's party on the test's backend (built once per session, copied here)."""
    party_copy(request, "gurps", db_url, lambda db: gurps_setup(Cli(db)), campaign="テスト卓")
    return Cli(db_url)


def _times(at: str) -> tuple[str, str]:
    """The history row's time of `at` in Asia/Tokyo (UTC+9, no summer time) and in UTC."""
    moment = datetime.fromisoformat(at.replace("Z", "+00:00")).astimezone(UTC)
    return f"{moment + timedelta(hours=9):%m-%d %H:%M}", f"{moment:%m-%d %H:%M}"


def test_a_running_server_follows_lang_then_timezone_then_the_browser(gurps: Cli, monkeypatch):
    monkeypatch.delenv("CAMPAIGN_LANG")
    gurps.run("settings", "lang=ja", "timezone=Asia/Tokyo")
    roll = gurps.json("roll", "3D6", "--dice", "1,2,3")
    tokyo, utc = _times(roll["at"])
    assert tokyo != utc
    with client_for(gurps.db) as client:
        first = client.get("/history", headers={"accept-language": "en"}).text
        gurps.run("settings", "lang=en")
        second = client.get("/history", headers=JA).text
        gurps.run("settings", "timezone=UTC")
        third = client.get("/history", headers=JA).text
        entry = client.get(f"/entries/{roll['seq']}", headers=JA).text
        gurps.run("settings", "lang=none")  # no setting: the browser's language decides again
        fourth = client.get("/history", headers=JA).text
    assert (
        '<html lang="ja" data-time-zone="Asia/Tokyo">' in first and "日時 (日本時間)" in first
    )  # the zone in words on a Japanese page
    assert f'<time datetime="{roll["at"]}">{tokyo}</time>' in first
    assert '<html lang="en" data-time-zone="Asia/Tokyo">' in second and "At (Asia/Tokyo)" in second
    assert f'<time datetime="{roll["at"]}">{tokyo}</time>' in second
    assert '<html lang="en" data-time-zone="UTC">' in third and "At (UTC)" in third and "times in UTC" in third
    assert f'<time datetime="{roll["at"]}">{utc}</time>' in third
    assert f"{roll['at'][:10]} {roll['at'][11:19]} UTC</time>" in entry
    assert '<html lang="ja" data-time-zone="UTC">' in fourth and "日時 (UTC)" in fourth


def test_the_live_feed_renders_rows_again_in_a_new_zone(gurps: Cli, monkeypatch):
    """The feed keeps rendered rows per language and zone: after `settings timezone=UTC`
    a stream that starts then is not served the rows rendered in Asia/Tokyo."""
    monkeypatch.delenv("CAMPAIGN_LANG")
    gurps.run("settings", "timezone=Asia/Tokyo")
    roll = gurps.json("roll", "3D6", "--dice", "1,2,3")
    tokyo, utc = _times(roll["at"])
    with client_for(gurps.db) as client:
        feed = client.app.app.state.feed

        def row(zone: str) -> str:
            i18n.use("en")
            present.use_zone(zone)
            try:
                return dict(asyncio.run(feed.rows_after(roll["seq"] - 1)))[roll["seq"]]
            finally:
                i18n.use(None)
                present.use_zone(None)

        assert f">{tokyo}</time>" in row("Asia/Tokyo")
        assert f">{utc}</time>" in row("UTC")

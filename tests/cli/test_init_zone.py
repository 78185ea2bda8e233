"""`init` records the GM machine's time zone as the campaign's (the table server may run
elsewhere); a UTC machine records none, which shows the same times."""

from __future__ import annotations

import pytest

from campaign.services.campaigns.setup import machine_zone
from tests.cli.conftest import cli  # noqa: F401 (fixture)


@pytest.mark.parametrize(("tz", "zone"), [("Asia/Tokyo", "Asia/Tokyo"), (":Asia/Seoul", "Asia/Seoul"), ("UTC", None)])
def test_the_machines_zone_is_read_from_tz(monkeypatch, tz, zone):
    monkeypatch.setenv("TZ", tz)
    assert machine_zone() == zone


def test_init_records_the_machines_zone(cli, monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    cli.run("init", "夜桜", "--ruleset", "gurps3-ja")
    assert cli.json("settings")["settings"]["timezone"] == "Asia/Tokyo"
    cli.run("settings", "timezone=none")
    assert cli.json("settings")["settings"]["timezone"] is None

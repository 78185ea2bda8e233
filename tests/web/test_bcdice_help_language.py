"""The BCDice-API game system info in one language (docs/i18n.md): the help_message a
ココフォリア player reads in the dice bot's description, in the language a page of the
same request would speak (campaign.web.language), Japanese complete or English complete,
and the document itself the BCDice-API v2 one in both. In-process (Starlette's
TestClient) on SQLite and PostgreSQL.
"""

from __future__ import annotations

import pytest

from campaign.seeds import load_tables
from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.web.conftest import client_for

TABLES = " ".join([*load_tables(), "HIT"])
JA_FIRST = "このサーバーのダイスはcampaignの台帳に記録されます。\n例) 2D6+1 / 3D6<=12 回避 / S3D6<=12 (シークレット)\n"
EN_FIRST = (
    "Every roll here is recorded in the campaign's ledger.\nExamples: 2D6+1 / 3D6<=12 dodge / S3D6<=12 (secret)\n"
)
JA_HELP = {
    "GURPS": JA_FIRST + f"成功判定: 3D6<=技能値 または 技能値-3D6。表: {TABLES} (FEAR+n)\n",
    "Campaign2D6": JA_FIRST + "行為判定: 2D6+能力値>=目標値\n",
    "DiceBot": JA_FIRST,
}
EN_HELP = {
    "GURPS": EN_FIRST + f"Success roll: 3D6<=skill or skill-3D6. Tables: {TABLES} (FEAR+n)\n",
    "Campaign2D6": EN_FIRST + "Check: 2D6+attribute>=target\n",
    "DiceBot": EN_FIRST,
}
KEYS = {"ok", "id", "name", "sort_key", "command_pattern", "help_message"}


def infos(cli: Cli, accept: str | None) -> dict[str, dict]:
    base = cli.json("invite", "help-bot", "--bcdice")["base_path"]
    headers = {"accept-language": accept} if accept else {}
    with client_for(cli.db) as client:
        return {system: client.get(f"{base}v2/game_system/{system}", headers=headers).json() for system in JA_HELP}


@pytest.mark.parametrize(
    ("setting", "accept", "expected"),
    [
        ("ja", "en-US", JA_HELP),  # the campaign's setting over the browser
        ("en", "ja", EN_HELP),
        (None, "ja,en;q=0.5", JA_HELP),  # no setting: the player's browser
        (None, "en-GB", EN_HELP),
        (None, None, JA_HELP),  # nothing asked: the ruleset (gurps3-ja)
    ],
)
def test_help_message_speaks_one_language(gurps, monkeypatch, setting, accept, expected):
    monkeypatch.delenv("CAMPAIGN_LANG")
    if setting:
        gurps.run("settings", f"lang={setting}")
    found = infos(gurps, accept)
    assert {system: info["help_message"] for system, info in found.items()} == expected
    assert all(set(info) == KEYS and info["ok"] is True for info in found.values())


def test_campaign_lang_set_for_the_server_overrides_the_setting(gurps, monkeypatch):
    gurps.run("settings", "lang=ja")
    monkeypatch.setenv("CAMPAIGN_LANG", "en")
    assert infos(gurps, "ja")["GURPS"]["help_message"] == EN_HELP["GURPS"]


def test_only_the_help_message_follows_the_language(gurps, monkeypatch):
    """The rest of the document is the same in both: the name, pattern and ids are codes."""
    monkeypatch.delenv("CAMPAIGN_LANG")
    japanese, english = infos(gurps, "ja"), infos(gurps, "en")
    for system in JA_HELP:
        assert {k: v for k, v in japanese[system].items() if k != "help_message"} == {
            k: v for k, v in english[system].items() if k != "help_message"
        }

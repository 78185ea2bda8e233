"""Issue 32: one language per output, chosen by --lang, CAMPAIGN_LANG, the campaign's
`lang` setting, the locale and the ruleset; --json stays the same whatever the language;
--since/--until read in the campaign's time zone."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from campaign import i18n
from campaign.services.ledger.history import parse_when
from tests.cli.conftest import Cli

ROLL = ("roll", "3D6<=12", "--dice", "1,4,6")


def _line(cli: Cli, *global_options: str) -> str:
    return cli.run(*global_options, *ROLL).stdout.strip().split(" ", 1)[1]  # without the seq


def test_the_order_that_decides_the_language():
    environ = {"LANG": "C.UTF-8"}
    assert i18n.resolve(None, None, "gurps3-ja", environ) == "ja"  # a Japanese ruleset
    assert i18n.resolve(None, None, None, environ) == "en"  # nothing says anything
    assert i18n.resolve(None, None, "gurps3-ja", {"LANG": "en_US.UTF-8"}) == "en"  # the locale first
    assert i18n.resolve(None, None, None, {"LANG": "ja_JP.UTF-8"}) == "ja"
    assert i18n.resolve(None, None, None, {"LC_ALL": "en_GB.UTF-8", "LANG": "ja_JP.UTF-8"}) == "en"
    assert i18n.resolve(None, "en", "gurps3-ja", {"LANG": "ja_JP.UTF-8"}) == "en"  # the setting over the locale
    assert i18n.resolve(None, "ja", None, {"LANG": "en_US.UTF-8", "CAMPAIGN_LANG": "en"}) == "en"  # env over it
    assert i18n.resolve("ja", "en", None, {"CAMPAIGN_LANG": "en"}) == "ja"  # --lang over everything
    assert [i18n.parse_language(t) for t in ("JA", "ja_JP.UTF-8", "english", "日本語")] == ["ja", "ja", "en", "ja"]


def test_setting_locale_ruleset_and_overrides_through_the_cli(gurps: Cli, monkeypatch):
    monkeypatch.delenv("CAMPAIGN_LANG")
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    assert _line(gurps) == "3D6<=12 → [1,4,6] = 11 → 成功 (差分 +1)"  # gurps3-ja: Japanese
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    assert _line(gurps) == "3D6<=12 → [1,4,6] = 11 → success (margin +1)"  # the locale says English
    assert gurps.run("settings", "lang=ja").stdout.startswith("設定を変更しました")
    assert _line(gurps) == "3D6<=12 → [1,4,6] = 11 → 成功 (差分 +1)"  # the campaign's setting
    assert _line(gurps, "--lang", "en") == "3D6<=12 → [1,4,6] = 11 → success (margin +1)"
    monkeypatch.setenv("CAMPAIGN_LANG", "en")
    assert _line(gurps) == "3D6<=12 → [1,4,6] = 11 → success (margin +1)"
    assert _line(gurps, "--lang", "ja") == "3D6<=12 → [1,4,6] = 11 → 成功 (差分 +1)"
    # the setting is a ledger entry: voided, the locale decides again
    seq = next(e["seq"] for e in gurps.json("history", "--kind", "setting"))
    gurps.run("history", "void", str(seq), "--yes", "--reason", "test")
    monkeypatch.delenv("CAMPAIGN_LANG")
    assert _line(gurps) == "3D6<=12 → [1,4,6] = 11 → success (margin +1)"


def test_a_bad_language_is_malformed_input_and_changes_nothing(gurps: Cli, monkeypatch):
    before = gurps.json("history", "--all")
    assert gurps.error("settings", "lang=fr", code=2) == "error: setting lang: 'fr' is not a language (ja or en)"
    assert gurps.error("--lang", "klingon", *ROLL, code=2) == "error: --lang: 'klingon' is not a language (ja or en)"
    monkeypatch.setenv("CAMPAIGN_LANG", "xx")
    assert "CAMPAIGN_LANG: 'xx' is not a language" in gurps.error(*ROLL, code=2)
    monkeypatch.setenv("CAMPAIGN_LANG", "en")
    assert gurps.json("history", "--all") == before


def test_json_is_the_same_document_in_both_languages(gurps: Cli):
    gurps.run("fright", "鈴音", "--mod", "-1", "--dice", "6,6,5,1,1,1,4")  # entry 10: stunned, with a sub-roll
    documents = [gurps.run("--lang", lang, "history", "--all", "--json").stdout for lang in ("ja", "en")]
    assert documents[0] == documents[1] and "fright table" in documents[0]


def test_errors_read_in_japanese_with_lang_ja(gurps: Cli):
    message = gurps.error("--lang", "ja", "roll", "3D6<=12", "--dice", "1,4", code=2)
    assert message.startswith("エラー: ") and "\n" not in message


def test_help_follows_the_language():
    from typer.testing import CliRunner

    from campaign.cli.app import app

    shown = CliRunner().invoke(app, ["--lang", "ja", "--help"], env={"COLUMNS": "80"}).stdout
    assert "使い方: campaign" in shown and "オプション" in shown and "コマンド" in shown
    assert "Usage:" not in shown and "Options" not in shown
    english = CliRunner().invoke(app, ["--lang", "en", "--help"], env={"COLUMNS": "80"}).stdout
    assert "Usage: campaign" in english and "使い方" not in english


def test_japanese_help_fits_80_columns_by_east_asian_width_and_lists_every_command_in_japanese():
    from rich.cells import cell_len
    from typer.testing import CliRunner

    from campaign.cli.app import COMMANDS, app

    shown = CliRunner().invoke(app, ["--lang", "ja", "--help"], env={"COLUMNS": "80"}).stdout
    lines = shown.splitlines()
    assert max(cell_len(line) for line in lines) <= 80 and "…" not in shown  # folded, never cut
    listed = {line.split()[1]: line for line in lines if line.startswith("│ ") and line.split()[1] in COMMANDS}
    assert set(listed) == set(COMMANDS)
    untranslated = [
        name for name, line in listed.items() if not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", line.split(name, 1)[1])
    ]
    assert not untranslated


# ------------------------------------------------------------------ times in one zone


def test_a_bare_date_is_midnight_in_the_campaign_zone():
    assert parse_when("2026-12-02", end=False, option="--since", zone="Asia/Tokyo") == "2026-12-01T15:00:00.000000Z"
    assert parse_when("2026-12-02", end=True, option="--until", zone="Asia/Tokyo") == "2026-12-02T15:00:00.000000Z"
    assert (
        parse_when("2026-12-02T09:30", end=False, option="--since", zone="Asia/Tokyo") == "2026-12-02T00:30:00.000000Z"
    )
    # an explicit offset is kept; the zone's own offset follows its rules (DST in New York)
    assert (
        parse_when("2026-12-02T09:30+00:00", end=False, option="--since", zone="Asia/Tokyo")
        == "2026-12-02T09:30:00.000000Z"
    )
    assert (
        parse_when("2026-07-01", end=False, option="--since", zone="America/New_York") == "2026-07-01T04:00:00.000000Z"
    )


def test_since_and_until_read_in_the_campaign_zone(gurps: Cli):
    # a zone whose date differs from UTC's right now, so reading the date in UTC would answer otherwise
    now = datetime.now(UTC)
    zone = "Etc/GMT+12" if now.hour < 12 else "Pacific/Kiritimati"  # UTC-12 / UTC+14
    gurps.run("settings", f"timezone={zone}")
    seq = gurps.json(*ROLL)["seq"]
    from zoneinfo import ZoneInfo

    local_day = (
        datetime.fromisoformat(gurps.json("history", "show", str(seq))["at"].replace("Z", "+00:00"))
        .astimezone(ZoneInfo(zone))
        .date()
    )
    assert local_day != now.date()

    def seqs(*options: str) -> list[int]:
        return [e["seq"] for e in gurps.json("history", "--all", *options)]

    assert seq in seqs("--since", local_day.isoformat(), "--until", local_day.isoformat())
    assert seq not in seqs("--until", (local_day - timedelta(days=1)).isoformat())
    assert seq not in seqs("--since", (local_day + timedelta(days=1)).isoformat())


@pytest.fixture
def gurps_ja(gurps: Cli, monkeypatch) -> Cli:
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    return gurps


# ------------------------------------------------------------------ Japanese-aware matching


def test_did_you_mean_prefers_a_prefix_and_a_reading():
    from campaign.core.suggest import closest

    assert closest("鈴", ["朔", "鈴音"]) == "鈴音"  # by edit distance 朔 (1) was as close as 鈴音 (1)
    assert closest("鈴", ["朔", "鈴音", "鈴"]) == "鈴"  # the same name first
    assert closest("すず", ["朔", "鈴音"], {"鈴音": "すずね"}) == "鈴音"
    assert closest("スズネ", ["朔", "鈴音"], {"鈴音": "すずね", "朔": "さく"}) == "鈴音"  # katakana reads as hiragana
    assert closest("ＡＫ", ["Aki", "Ren"]) == "Aki"  # full-width, and a prefix
    assert closest("刀", ["朔", "鈴音"]) is None  # nothing like it: no suggestion


def test_not_found_suggests_by_prefix_in_both_languages(gurps: Cli):
    assert (
        gurps.error("char", "show", "鈴", code=1)
        == "error: no character named '鈴' in campaign 'テスト卓' (did you mean '鈴音'?)"
    )
    assert (
        gurps.error("--lang", "ja", "char", "show", "鈴", code=1)
        == "エラー: キャンペーン 'テスト卓' にキャラクター '鈴' はいません ('鈴音' のことですか?)"
    )


def test_full_width_numbers_dates_and_dice_are_read_as_typed_in_ココフォリア(gurps: Cli):
    rolled = gurps.json("roll", "３Ｄ６＜＝１２", "--dice", "１,４,６")
    assert (rolled["expression"], rolled["total"], rolled["outcome"]) == ("3D6<=12", 11, "success")
    checked = gurps.json("fright", "鈴音", "--mod", "－２", "--dice", "1,1,1")
    assert checked["check"]["modifier"] == -2 and checked["check"]["target"] == 9
    assert gurps.json("fright", "鈴音", "--mod=＋１", "--dice", "1,1,1")["check"]["modifier"] == 1
    day = rolled["at"][:10]
    wide = "".join(chr(ord(c) + 0xFEE0) if c.isdigit() else "－" for c in day)
    assert [e["seq"] for e in gurps.json("history", "--since", wide, "--kind", "roll")] == [rolled["seq"]]
    # a name is never rewritten: ２号 stays ２号
    gurps.run("char", "add", "２号", "--npc")
    assert gurps.json("char", "show", "２号")["name"] == "２号"


def test_half_width_number_leaves_text_alone():
    from campaign.cli.app import half_width_number

    assert [half_width_number(a) for a in ("－２", "＋３", "１ｈ", "２０２６－１２－０２", "−2", "--mod=－２")] == [
        "-2",
        "+3",
        "1h",
        "2026-12-02",
        "-2",
        "--mod=-2",
    ]
    assert [half_width_number(a) for a in ("鈴音", "ＡＫＩ", "ｶﾀﾅ", "２号", "暗所恐怖症")] == [
        "鈴音",
        "ＡＫＩ",
        "ｶﾀﾅ",
        "２号",
        "暗所恐怖症",
    ]


def test_the_physical_dice_prompt_asks_in_the_output_language():
    import io

    from campaign.cli.physical import PromptDice
    from campaign.errors import Words

    asked = {}
    for lang in ("ja", "en"):
        i18n.use(lang)
        out = io.StringIO()
        # the core names its purposes as Words (campaign.errors), translated when shown
        assert PromptDice(io.StringIO("７\n3\n"), out).take(1, 6, Words("the reunion check")) == [3]
        asked[lang] = out.getvalue()
    i18n.use(None)
    assert asked["ja"] == (
        "再会判定 に使う 1d6、1個中1個目: "
        "  '７': d6 の出目は 1..6 の整数です。もう一度\n再会判定 に使う 1d6、1個中1個目: "
    )
    assert asked["en"] == (
        "1d6 for the reunion check, die 1 of 1:   '７': a d6 shows a whole number 1..6; again\n"
        "1d6 for the reunion check, die 1 of 1: "
    )


def test_a_reading_sorts_the_list_matches_a_typo_and_survives_export_and_import(cli: Cli, tmp_path):
    cli.run("init", "読み")
    cli.run("char", "add", "朔", "--npc", "--reading", "さく")
    cli.run("char", "add", "刀矢", "--npc")
    cli.run("char", "add", "鈴音", "--npc", "--reading", "すずね")
    # by reading where one is recorded (さく, すずね), then the others
    assert [c["name"] for c in cli.json("char", "list")] == ["朔", "鈴音", "刀矢"]
    assert cli.error("char", "show", "スズ", code=1).endswith("(did you mean '鈴音'?)")  # katakana finds すずね
    [op] = cli.json("history", "show", "4")["ops"]
    assert op["reading"] == "すずね" and "reading" not in cli.json("history", "show", "3")["ops"][0]
    export = tmp_path / "out.jsonl"
    cli.run("export", str(export))
    again = Cli(str(tmp_path / "again.db")) if cli.db.endswith(".db") else cli
    if again is not cli:
        again.run("import", str(export))
        assert [c["name"] for c in again.json("char", "list")] == ["朔", "鈴音", "刀矢"]
        assert again.json("history", "verify")["ok"]
    assert cli.json("history", "verify")["ok"]  # the tables equal the replay, reading included
    assert "--reading" in cli.error("char", "add", "陸", "--npc", "--reading", "", code=2)


def test_one_shell_session_speaks_each_campaigns_language(cli: Cli, monkeypatch):
    """The campaign's `lang` is asked per shell line, not kept from the first: after `use`
    of an English campaign the next roll reads in English, and back; --lang given before
    `shell` still wins on every line."""
    from typer.testing import CliRunner

    from campaign.cli.app import app

    monkeypatch.delenv("CAMPAIGN_LANG")
    monkeypatch.delenv("LANG", raising=False)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    for name, lang in (("和卓", "ja"), ("Table", "en")):
        cli.run("init", name)
        cli.run("-c", name, "settings", f"lang={lang}")
    roll = "roll 3D6<=10 --dice 1,1,1"
    script = f"use 和卓\n{roll}\nuse Table\n{roll}\nuse 和卓\n{roll}\n"
    result = CliRunner().invoke(app, ["--db", cli.db, "shell"], input=script)
    assert result.exit_code == 0, result.output
    rolls = [line.split(" → ", 2)[-1] for line in result.stdout.splitlines() if line.startswith("#")]
    assert rolls == ["クリティカル (差分 +7)", "critical success (margin +7)", "クリティカル (差分 +7)"]
    forced = CliRunner().invoke(app, ["--db", cli.db, "--lang", "ja", "shell"], input=f"use Table\n{roll}\n")
    assert forced.stdout.splitlines()[-1].endswith("クリティカル (差分 +7)")

"""One output path for every listing (cli/output.py): table, --json, --csv (+ --bom),
--json with --csv refused, one line for an empty listing, local times with the year,
and tables that stay readable at 80 columns (names whole, long text wrapped, not cut)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from rich.cells import cell_len

from campaign.cli import output

# Every listing command, with what it needs, on the `gurps` party.
LISTINGS = [
    ("char", "list"),
    ("player", "list"),
    ("table", "list"),
    ("trait", "list", "鈴音"),
    ("condition", "list"),
    ("missing", "list"),
    ("scenario", "list"),
    ("history",),
    ("list",),
    ("ref", "list"),
    ("char", "timeline", "鈴音"),
    ("time", "show"),
]


@pytest.mark.parametrize("command", LISTINGS, ids=" ".join)
def test_json_with_csv_is_refused_in_one_line(sqlite_gurps, command):
    before = sqlite_gurps.json("history", "verify")["entries"]
    message = sqlite_gurps.error(*command, "--json", "--csv", code=2)
    assert message == "error: --json and --csv: choose one output format"
    assert sqlite_gurps.json("history", "verify")["entries"] == before


@pytest.mark.parametrize("command", LISTINGS, ids=" ".join)
def test_every_listing_prints_json_csv_with_bom_and_a_table(sqlite_gurps, command):
    document = json.loads(sqlite_gurps.run(*command, "--json").stdout)
    assert isinstance(document, (list, dict))
    csv_text = sqlite_gurps.run(*command, "--csv", "--bom").stdout
    assert csv_text.startswith("\ufeff")
    assert "," in csv_text.splitlines()[0]  # a header line
    plain = sqlite_gurps.run(*command, "--csv").stdout
    assert not plain.startswith("\ufeff")
    assert sqlite_gurps.run(*command).exit_code == 0


@pytest.mark.parametrize(
    "command, line",
    [
        (("missing", "list"), "no missing characters"),
        (("--lang", "ja", "missing", "list"), "行方不明のキャラクターはいません"),
        (("scenario", "list"), "no scenarios yet"),
        (("--lang", "ja", "scenario", "list"), "シナリオはまだありません"),
        (("condition", "list"), "no conditions (now day 1 00:00)"),
        (("trait", "list", "鈴音"), "鈴音 has no traits (CP total 100)"),
        (("history", "--kind", "fright"), "no matching entries"),
        (("time", "show"), "no timed conditions"),
        (("--lang", "ja", "time", "show"), "時間制限のある状態はありません"),
    ],
)
def test_an_empty_listing_is_one_line_not_an_empty_box(sqlite_gurps, command, line):
    result = sqlite_gurps.run(*command)
    assert line in result.stdout and result.stderr == ""  # the listing's result: nothing
    assert line in result.stdout.strip().splitlines()[-1]  # after `time show`'s "now:" line
    assert "┏" not in result.stdout and "─" not in result.stdout
    # JSON and CSV of an empty listing stay data: an empty list, a header line
    assert sqlite_gurps.run(*command, "--csv").stdout.count("\n") == 1


def test_table_list_keeps_japanese_names_whole_at_80_columns(sqlite_gurps, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    names = [t["name"] for t in sqlite_gurps.json("table", "list")]
    out = sqlite_gurps.run("--lang", "ja", "table", "list").stdout
    assert "…" not in out
    for name in names:
        assert any(name in line for line in out.splitlines()), name
    assert max(cell_len(line) for line in out.splitlines()) <= 80


def test_char_show_wraps_stats_instead_of_cutting_them(sqlite_gurps, monkeypatch):
    stats = [
        f"{key}={value}"
        for key, value in [
            ("ST", 10),
            ("DX", 12),
            ("Per", 13),
            ("Dodge", 8),
            ("Luck", 3),
            ("心", 3),
            ("技", 4),
            ("体", 2),
            ("Speed", 6),
            ("Move", 5),
            ("Fright", 11),
            ("Sense", 14),
        ]
    ]
    sqlite_gurps.run("char", "set", "鈴音", *[a for s in stats for a in ("--stat", s)], "--new-stat")
    monkeypatch.setenv("COLUMNS", "80")
    out = sqlite_gurps.run("char", "show", "鈴音").stdout
    assert "…" not in out
    assert max(cell_len(line) for line in out.splitlines()) <= 80
    flat = " ".join(out.split())
    for stat in stats:
        assert stat.replace("=", " ") in flat, stat


def test_history_wraps_the_reason_at_80_columns(sqlite_gurps, monkeypatch):
    reason = "霧の館の地下で鏡の中に誰かがいるのを見つけて回避しようとした (dodged the thing in the mirror)"
    sqlite_gurps.run("roll", "3D6<=12", "--char", "鈴音", "--reason", reason, "--dice", "1,2,2")
    monkeypatch.setenv("COLUMNS", "80")
    out = sqlite_gurps.run("history", "--limit", "1").stdout
    assert "…" not in out
    assert max(cell_len(line) for line in out.splitlines()) <= 80
    # the reason column, read top to bottom, is the whole reason
    column = [line.split("│")[-2].strip() for line in out.splitlines() if line.count("│") >= 8]
    assert "".join(column).replace(" ", "") == reason.replace(" ", "")


def test_history_show_is_key_value_and_json_is_the_raw_record(sqlite_gurps, monkeypatch):
    rolled = sqlite_gurps.json("roll", "3D6<=12", "回避", "--char", "鈴音", "--dice", "1,2,2")
    monkeypatch.setenv("COLUMNS", "80")
    out = sqlite_gurps.run("history", "show", str(rolled["seq"])).stdout
    fields = {}
    for line in out.splitlines()[1:]:
        key, _, value = line.strip().partition("  ")
        fields[key] = value.strip()
    assert fields["roll"] == "3D6<=12 [1, 2, 2] = 5 (target 12): success, margin +7"
    assert (
        fields["reason"] == "回避" and fields["character"] == "鈴音" and fields["dice source"] == "dice typed by the GM"
    )
    assert "groups" not in out and "{" not in out  # no raw JSON in the human view
    raw = sqlite_gurps.json("history", "show", str(rolled["seq"]))
    assert raw["at"].endswith("Z") and raw["detail"]["groups"][0]["faces"] == [1, 2, 2]
    assert fields["when"].endswith(f"({raw['at']})")
    assert fields["when"].startswith(raw["at"][:4])  # the year is shown


def _utc(at: str) -> datetime:
    return datetime.fromisoformat(at.replace("Z", "+00:00"))


def test_times_are_shown_in_the_campaign_time_zone_json_stays_utc(sqlite_gurps, monkeypatch):
    assert "not a time zone" in sqlite_gurps.error("settings", "timezone=Mars/Olympus", code=2)
    sqlite_gurps.run("settings", "timezone=Asia/Tokyo")
    assert sqlite_gurps.json("settings")["settings"]["timezone"] == "Asia/Tokyo"
    entry = sqlite_gurps.json("history", "--limit", "1")[0]
    assert entry["at"].endswith("Z")
    tokyo = (_utc(entry["at"]) + timedelta(hours=9)).strftime("%Y-%m-%d %H:%M")
    monkeypatch.setenv("COLUMNS", "200")
    assert tokyo in sqlite_gurps.run("history", "--limit", "1").stdout
    timeline = sqlite_gurps.json("char", "timeline", "鈴音")[0]
    shown = (_utc(timeline["at"]) + timedelta(hours=9)).strftime("%Y-%m-%d %H:%M")
    assert shown in sqlite_gurps.run("char", "timeline", "鈴音").stdout
    # another zone is one more settings entry; the chain still verifies
    sqlite_gurps.run("settings", "timezone=UTC")
    utc = _utc(entry["at"]).strftime("%Y-%m-%d %H:%M")
    assert utc in sqlite_gurps.run("history", "--limit", "1", "--kind", entry["kind"]).stdout
    assert sqlite_gurps.json("history", "verify")["ok"] is True


def test_local_time_converts_with_the_year():
    assert output.local_time("2026-11-29T18:52:31.964013Z", "Asia/Tokyo") == "2026-11-30 03:52"
    assert output.local_time("2026-12-31T15:00:00Z", "Asia/Tokyo", seconds=True) == "2027-01-01 00:00:00"
    assert output.local_time("2026-11-29T18:52:31Z", "UTC") == "2026-11-29 18:52"
    assert output.local_time(None, "Asia/Tokyo") == ""
    assert output.local_time("not a time", "Asia/Tokyo") == "not a time"


def test_render_rows_formats_from_the_same_rows(capsys):
    rows = [["鈴音", 3], ["刀矢", None]]
    output.render_rows("t", ["name", "n"], rows, output.JSON)
    assert json.loads(capsys.readouterr().out) == [{"name": "鈴音", "n": 3}, {"name": "刀矢", "n": None}]
    output.render_rows("t", ["name", "n"], iter(rows), output.JSON, records=({"x": i} for i in range(3)))
    assert json.loads(capsys.readouterr().out) == [{"x": 0}, {"x": 1}, {"x": 2}]
    output.render_rows("t", ["name", "n"], rows, output.CSV)
    assert capsys.readouterr().out == "name,n\n鈴音,3\n刀矢,\n"
    output.render_rows("t", ["name", "n"], [], output.TABLE, empty="なし (none)")
    captured = capsys.readouterr()
    assert captured.out == "なし (none)\n" and captured.err == ""


def test_progress_is_silent_when_piped(capsys):
    counter = output.Progress.counter("importing")
    counter(5000)
    counter.close()
    bar = output.Progress.bar("verifying", min_total=10)
    bar.start(1_000_000)
    bar.advance(10_000)
    bar.stop()
    assert capsys.readouterr() == ("", "")


def test_one_shell_session_shows_each_campaign_in_its_own_zone(cli, monkeypatch):
    """The zone is asked of the campaign per command, never left in the process: after a
    Tokyo campaign's listing, a UTC campaign's listing in the same shell is in UTC, and
    back again (the in-process runner shares the process, as the shell and the web do)."""
    from typer.testing import CliRunner

    from campaign.cli.app import app

    for name, zone in (("東京卓", "Asia/Tokyo"), ("世界卓", "UTC")):
        cli.run("init", name)
        cli.run("-c", name, "settings", f"timezone={zone}")
    at = {name: _utc(cli.json("-c", name, "history", "--limit", "1")[0]["at"]) for name in ("東京卓", "世界卓")}
    tokyo = (at["東京卓"] + timedelta(hours=9)).strftime("%Y-%m-%d %H:%M")
    utc = at["世界卓"].strftime("%Y-%m-%d %H:%M")
    assert tokyo != utc  # nine hours apart, whatever the clock
    monkeypatch.setenv("COLUMNS", "200")
    script = "use 東京卓\nhistory --limit 1\nuse 世界卓\nhistory --limit 1\nuse 東京卓\nhistory --limit 1\n"
    result = CliRunner().invoke(app, ["--db", cli.db, "shell"], input=script)
    assert result.exit_code == 0, result.output
    shown = [line for line in result.stdout.splitlines() if "│ 2 " in line]
    assert len(shown) == 3, result.stdout
    assert tokyo in shown[0] and utc in shown[1] and tokyo in shown[2]
    assert utc not in shown[0] and tokyo not in shown[1]

"""Campaign time spans and clock text, follow-up penalties (docs/rules.md "Penalty after
waking") and 3e derived stats ("Derived stats")."""

from __future__ import annotations

import pytest

from campaign.core.derived import derived_stats, pool_current, pool_max, pool_name, stat_value
from campaign.core.followup import after_texts, follow_up
from campaign.core.gametime import clock_text, parse_span, span_text, whole_units
from campaign.errors import BadInput
from campaign.seeds import load_stat_aliases

HOUR, DAY = 3600, 86400


@pytest.mark.parametrize(
    "text, seconds, en, ja",
    [
        ("6h", 6 * HOUR, "6 hours", "6時間"),
        ("3day", 3 * DAY, "3 days", "3日"),
        ("2 weeks", 14 * DAY, "2 weeks", "2週間"),
        ("1週", 7 * DAY, "1 week", "1週間"),
        ("45秒", 45, "45 seconds", "45秒"),
        ("3ターン", 3, "3 turns", "3ターン"),
        ("10min", 600, "10 minutes", "10分"),
        ("2turns", 2, "2 turns", "2ターン"),
        ("1turn", 1, "1 turn", "1ターン"),
        ("30m", 1800, "30 minutes", "30分"),
        ("1day6h", DAY + 6 * HOUR, "1 day 6 hours", "1日6時間"),
        ("１日", DAY, "1 day", "1日"),  # full-width digit
        ("2 時間", 2 * HOUR, "2 hours", "2時間"),
        ("1w", 7 * DAY, "1 week", "1週間"),
    ],
)
def test_spans(text, seconds, en, ja):
    span = parse_span(text)
    assert (span.seconds, span.text, span.text_ja) == (seconds, en, ja)


@pytest.mark.parametrize(
    "text, message",
    [
        ("6", "not a span"),
        ("h", "not a span"),
        ("", "not a span"),
        ("6x", "unknown unit"),
        ("0h", "no time at all"),
        ("6h later", "not a span"),
        ("100000w", "longer than the clock"),
        ("-2h", "not a span"),
        # nothing that a dice table reads as dice is a span
        (
            "1d6h",
            r"'1d6h' reads as dice: did you mean 1d6 h\? roll it first \(campaign roll 1D6\) and give what "
            r"it shows, e\.g\. 4h; for 1 day and 6h write 1day6h",
        ),
        ("3d", r"'3d' reads as dice \(3D\); for days write 3day or 3日"),
        ("2D", "reads as dice"),
        ("1d6", "is dice, not a span: roll it first"),
    ],
)
def test_bad_spans(text, message):
    with pytest.raises(BadInput, match=message):
        parse_span(text, "--for")


def test_clock_and_span_text():
    assert clock_text(0) == ("day 1 00:00", "1日目 00:00")
    assert clock_text(DAY + 6 * HOUR + 5) == ("day 2 06:00:05", "2日目 06:00:05")
    assert span_text(DAY + 90) == ("1 day 1 minute 30 seconds", "1日1分30秒")
    assert span_text(0) == ("0 seconds", "0秒")
    assert whole_units(30 * HOUR, "day") == 2 and whole_units(DAY, "day") == 1


LIGHT_COMA = {"after_penalty": -2, "after_duration": 6, "after_unit": "hour"}
CATATONIA = {"duration": 3, "unit": "day", "after_penalty": -2, "after_duration": "same", "after_unit": "day"}


def test_follow_up_for_a_fixed_time():
    assert follow_up(LIGHT_COMA, 0).seconds == 6 * HOUR
    assert follow_up(LIGHT_COMA, 9 * DAY).seconds == 6 * HOUR  # how long the coma lasted does not matter
    assert follow_up({"after_penalty": None}, 10) is None and follow_up({}, 10) is None
    assert after_texts(LIGHT_COMA) == ("for 6 hours", "6時間")


def test_follow_up_as_long_as_it_lasted_is_the_rolled_days():
    """docs/rules.md "Penalty after waking": the -2 lasts as many days as the catatonia
    did, the rolled days, however late the GM clears it."""
    assert (follow_up(CATATONIA, 0).seconds, follow_up(CATATONIA, 0).lasted) == (3 * DAY, 3)  # clock never moved
    assert follow_up(CATATONIA, 5 * DAY).lasted == 3
    assert follow_up(CATATONIA, 4 * DAY + 1).lasted == 3
    assert follow_up({**CATATONIA, "duration": None}, 0).lasted == 1  # never less than one day
    assert after_texts(CATATONIA) == ("for as many days as it lasted", "同じ日数")
    # a GM's timed condition: the follow-up's length in seconds
    assert follow_up({"after_penalty": -1, "after_duration": 5400, "after_unit": "second"}, 0).seconds == 5400


def test_3e_sheet_derives_will_fp_hp():
    sheet = {"ST": 10, "DX": 11, "IQ": 12, "HT": 11}
    assert {k: (v.value, v.derived_from, v.key) for k, v in derived_stats(sheet).items()} == {
        "Will": (12, "IQ", "IQ"),
        "FP": (10, "ST", "ST"),
        "HP": (11, "HT", "HT"),
    }
    assert stat_value(sheet, "Will").derived and pool_max(sheet, "HP") == 11
    assert pool_current(sheet, {}, "FP") == 10 and pool_current(sheet, {"FP": 4}, "FP") == 4


def test_own_stats_win_and_aliases_count():
    names = load_stat_aliases()["gurps3-ja"]  # the ruleset's names, passed in: core reads no file
    sheet = {"知力": 12, "意思": 14, "生命力": 10, "hp": 13}
    assert derived_stats(sheet, names) == {}  # Will and HP given; no ST, so no FP at all
    will = stat_value(sheet, "Will", names)
    assert (will.value, will.key, will.derived) == (14, "意思", False)
    assert pool_max(sheet, "HP", names) == 13 and pool_max(sheet, "FP", names) is None
    assert stat_value({"知力": 9}, "Will", names).derived_from == "IQ"
    assert stat_value({"DX": 9}, "Will", names) is None
    for spelling in ("意志力", "意思力", "ＷＩＬＬ", "ｗｉｌｌ", "意志"):  # every alias, any width
        assert stat_value({spelling: 15, "IQ": 10}, "Will", names).value == 15
    assert stat_value({"ＷＩＬＬ": 15, "IQ": 10}, "Will").value == 15  # without names: the folded name only


def test_pool_names():
    assert (pool_name("hp"), pool_name(" FP "), pool_name("MP")) == ("HP", "FP", None)

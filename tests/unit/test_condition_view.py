"""A condition view reads back from the record it writes, and from an older record's shape."""

from __future__ import annotations

from campaign.core.condition_view import ConditionView
from campaign.effect_words import condition_document
from campaign.i18n import speaking
from campaign.labels import condition_name, condition_shown_words, follow_up_begun

STUN = ConditionView(
    name="stun",
    detail={"source": "gm", "span": [[1, "hour"]]},
    source_seq=5,
    origin="5.1",
    since=0,
    until=3600,
    remaining_seconds=600,
)


def test_record_keeps_codes_in_their_order_and_reads_back():
    record = STUN.record()
    assert list(record) == [
        "name",
        "detail",
        "source_seq",
        "origin",
        "timed",
        "since",
        "until",
        "recovery_due",
        "remaining_seconds",
    ]
    assert record["since"] == {"clock": 0} and record["until"] == {"clock": 3600} and record["timed"] is True
    assert ConditionView.from_record(record) == STUN


def test_an_ended_condition_names_its_character_first_and_its_length_last():
    ended = ConditionView(
        name="毒", detail={"source": "gm"}, source_seq=6, origin="6.1", since=0, character="鈴音", lasted_seconds=0
    )
    record = ended.record()
    assert list(record)[0] == "character" and list(record)[-1] == "lasted_seconds"
    assert record["timed"] is False and record["until"] is None
    assert ConditionView.from_record(record) == ended


def test_an_older_record_reads_back_by_its_codes():
    older = {  # as `condition add` recorded it before records held codes only
        "detail": {"duration_ja": "1時間", "label_ja": "朦朧", "source": "gm"},
        "duration": "1 hour",
        "label_ja": "朦朧",
        "name": "stun",
        "origin": "5.1",
        "recovery_due": None,
        "remaining": "1 hour",
        "remaining_ja": "1時間",
        "remaining_seconds": 3600,
        "since": {"clock": 0, "text": "day 1 00:00", "text_ja": "1日目 00:00"},
        "source_seq": 5,
        "timed": True,
        "until": {"clock": 3600, "text": "day 1 01:00", "text_ja": "1日目 01:00"},
    }
    view = ConditionView.from_record(older)
    assert (view.since, view.until, view.duration, view.remaining_seconds) == (0, 3600, "1 hour", 3600)
    with speaking("ja"):
        assert condition_shown_words(view) == "朦朧 1時間 1日目 01:00 まで"
    with speaking("en"):
        assert condition_shown_words(view) == "stunned 1 hour until day 1 01:00"


def test_words_are_made_at_the_edge_only():
    document = condition_document(STUN)
    assert document["until"] == {"clock": 3600, "text": "day 1 01:00", "text_ja": "1日目 01:00"}
    assert (document["label_ja"], document["remaining"], document["remaining_ja"]) == ("朦朧", "10 minutes", "10分")
    gm_named = ConditionView(name="毒", detail={"label_ja": "毒"}, source_seq=6, origin="6.1", since=0)
    with speaking("ja"):
        assert condition_name(STUN) == "朦朧" and condition_name(gm_named) == "毒"
    follow = ConditionView(
        name="recovering",
        detail={"penalty": -2, "follows": "poisoned", "follows_origin": "4.1", "seconds": 7200},
        source_seq=7,
        origin="7.1",
        since=21600,
        until=28800,
    )
    with speaking("en"):
        begun = follow_up_begun("鈴音", follow)
    assert begun == "鈴音: -2 to every roll for 2 hours after poisoned (until day 1 08:00)"

"""Japanese line breaking for help text (campaign/cli/help_wrap.py), exact offsets."""

from __future__ import annotations

from campaign.cli.help_wrap import break_offsets


def _lines(text: str, width: int) -> list[str]:
    cuts = [0, *break_offsets(text, width), len(text)]
    return [text[a:b].rstrip() for a, b in zip(cuts, cuts[1:])]


def test_latin_text_breaks_at_spaces_only():
    assert _lines("the quick brown fox jumps", 10) == ["the quick", "brown fox", "jumps"]


def test_japanese_breaks_between_characters_and_fills_the_line():
    # each kanji/kana is two cells: five fit in 10 cells
    assert _lines("台帳を再生して比べます", 10) == ["台帳を再生", "して比べま", "す"]


def test_an_option_name_stays_whole_and_japanese_follows_on_its_line():
    assert _lines("--head を付けると確かめます", 17) == ["--head を付けると", "確かめます"]


def test_closing_punctuation_never_starts_a_line():
    # "、" would start the second line at width 8: the break moves one character back
    assert _lines("ダイスを、振る", 8) == ["ダイス", "を、振る"]


def test_no_line_ends_with_an_opening_bracket():
    assert _lines("あいう「えお」", 8) == ["あいう", "「えお」"]


def test_a_run_with_no_opportunity_is_cut_where_the_line_is_full():
    assert _lines("abcdefghij", 4) == ["abcd", "efgh", "ij"]


def test_text_that_fits_is_not_broken():
    assert break_offsets("短い", 80) == []

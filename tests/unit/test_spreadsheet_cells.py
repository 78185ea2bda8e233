"""The CSV formula guard (core.text_rule): every lead a spreadsheet runs is guarded, plain
numbers are not, and taking the guard off gives back exactly the text it was put on."""

from __future__ import annotations

import pytest

from campaign.core.text_rule import FORMULA_LEADS, spreadsheet_safe, spreadsheet_value


@pytest.mark.parametrize("lead", FORMULA_LEADS)
def test_every_formula_lead_is_guarded_and_comes_back(lead):
    for text in (lead, f"{lead}1+1", f'{lead}HYPERLINK("http://x")', f"{lead}cmd|' /C calc'!A0", f"{lead}{lead}"):
        cell = spreadsheet_safe(text)
        assert cell == "'" + text and spreadsheet_value(cell) == text


@pytest.mark.parametrize("text", ["-10", "+3", "-2.5", "12", "", "鈴音", "a=b", " =x", "'plain", "''", "'"])
def test_numbers_and_text_that_runs_nothing_are_left_as_they_are(text):
    assert spreadsheet_safe(text) == text and spreadsheet_value(text) == text


@pytest.mark.parametrize("text", ["'=x", "''=x", "'-10 phobia", "'@home", "'\tx"])
def test_text_that_already_starts_with_the_guard_keeps_it(text):
    cell = spreadsheet_safe(text)
    assert cell == "'" + text  # else reading it back would take the text's own apostrophe
    assert spreadsheet_value(cell) == text


def test_the_guard_is_not_taken_off_what_it_was_not_put_on():
    assert spreadsheet_value("'-10") == "'-10"  # a number with an apostrophe: not a guard
    assert spreadsheet_value("'x") == "'x"

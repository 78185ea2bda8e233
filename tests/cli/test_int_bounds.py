"""Numbers a user can type or accumulate are bounded the same on SQLite (64-bit) and
PostgreSQL (32-bit INTEGER columns): one-line refusals, never an overflow traceback."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.dialect

BIG = str(2**31)
HUGE = str(10**20)


def test_cp_total_accumulated_by_trait_adds_is_bounded(gurps):
    gurps.run("char", "add", "富豪", "--player", "Aki", "--cp", "1000000")
    for i in range(9):
        gurps.run("trait", "add", "富豪", f"財産{i}", "--cp", "1000000")
    assert gurps.json("char", "show", "富豪")["cp_total"] == 10_000_000
    before = gurps.json("history", "--limit", "1")
    message = gurps.error("trait", "add", "富豪", "財産9", "--cp", "1000000", code=1)
    assert "10,000,000" in message
    assert gurps.json("char", "show", "富豪")["cp_total"] == 10_000_000
    assert gurps.json("history", "--limit", "1") == before
    # Downwards too, and removing a negative trait counts the same way.
    gurps.run("char", "add", "借金", "--player", "Aki", "--cp", "-1000000")
    for i in range(9):
        gurps.run("trait", "add", "借金", f"負債{i}", "--cp", "-1000000")
    gurps.error("trait", "add", "借金", "負債9", "--cp", "-1", code=1)
    gurps.run("trait", "add", "富豪", "貧乏", "--cp", "-1000000")
    gurps.run("trait", "add", "富豪", "再起", "--cp", "1000000")
    gurps.error("trait", "remove", "富豪", "貧乏", "--reason", "返済", code=1)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("char", "add", "X", "--player", "Aki", "--cp", BIG), 2),
        (("char", "add", "X", "--player", "Aki", "--stat", f"IQ={BIG}"), 2),
        (("char", "add", "X", "--player", "Aki", "--stat", f"IQ={HUGE}"), 2),
        (("char", "set", "鈴音", "--cp", BIG), 2),
        (("trait", "add", "鈴音", "T", "--cp", BIG), 2),
        (("roll", f"1D{BIG}"), 2),
        (("history", "--scenario", HUGE), 2),
        (("history", "show", HUGE), 1),
    ],
)
def test_out_of_range_values_are_refused_alike(gurps, args, code):
    assert gurps.error(*args, code=code).startswith("error: ")


def test_huge_limit_is_served_alike(gurps):
    assert len(gurps.json("history", "--limit", HUGE)) == len(gurps.json("history", "--limit", BIG)) > 0

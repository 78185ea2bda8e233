"""The table-server load harness (tests.perf.table_load, a `make bench` row) on a small
scale: every roll over HTTP answered 201, in the ledger afterwards and on the feed."""

from __future__ import annotations

import pytest

from tests.perf.table_load import run_load


@pytest.mark.slow
def test_a_small_table_under_load_loses_nothing(tmp_path):
    result = run_load(campaigns=2, players=2, seconds=4.0, workdir=tmp_path, shell_rolls=10)
    assert result.errors == []
    assert result.lost == 0 and result.undelivered == 0
    # 2 x 2 players, about 4 rolls each, besides a warm-up roll each.
    assert 12 <= result.rolls <= 20 and len(result.latencies) == result.rolls
    assert len(result.deliveries) == result.rolls
    assert len(result.shell_rolls) == 5


@pytest.mark.slow
def test_every_roll_reaches_every_watching_page_in_order(tmp_path):
    """`campaign serve` itself (one campaign), 6 players rolling at once, 6 open pages:
    each page is sent every roll, in seq order, none missing (the harness counts a page's
    out-of-order or missing seq as an error)."""
    result = run_load(campaigns=1, players=6, seconds=4.0, workdir=tmp_path, shell_rolls=10, pages=6)
    assert result.errors == []
    assert result.lost == 0 and result.undelivered == 0
    assert 24 <= result.rolls <= 36 and len(result.deliveries) == 6 * result.rolls

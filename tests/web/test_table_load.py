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

"""The table-server load harness (tests.perf.table_load, a `make bench` row) on a small
scale: every roll over HTTP answered 201, in the ledger afterwards and on the feed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.nginx import NGINX
from tests.perf.table_load import run_load, run_load_proxied


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


@pytest.mark.slow
@pytest.mark.postgres
def test_two_processes_behind_nginx_lose_nothing(pg_cluster, tmp_path):
    """The bench's proxied load row, tiny: 5 campaigns in one PostgreSQL database, 4
    players over 2 of them rolling for 5 s over HTTPS through Debian's nginx in front of
    two `campaign serve --all` processes, pages straight on each process: every answered
    roll is in the ledger and on every page, in order."""
    if not Path(NGINX).is_file():
        pytest.skip("Debian's nginx is not installed (.ci/run installs it)")
    db = pg_cluster.create_database(f"proxied_{id(tmp_path)}")
    try:
        got = run_load_proxied(5, 2, 4, 5.0, tmp_path, db=db, watched=2, shell_rolls=0)
    finally:
        pg_cluster.drop_database(f"proxied_{id(tmp_path)}")
    result = got.load
    assert result.errors == []
    assert result.lost == 0 and result.undelivered == 0
    # 4 players, about 5 rolls each (the first within a second of the start), besides a warm-up roll each
    assert 16 <= result.rolls <= 24 and len(result.latencies) == result.rolls
    # 2 watched campaigns of 2 players each: every roll reaches both of its campaign's pages
    assert got.pages == 4 and len(result.deliveries) == 2 * result.rolls
    assert len(got.rss_mb) == 2 and all(rss > 0 for rss in got.rss_mb)

"""The luck page's kept tally (services.ledger.luck_kept) answers exactly what a full tally
answers after appends, voids, a void of a void, a rename and a ledger replaced under the
server, and re-tallies from the first entry only when it must."""

from __future__ import annotations

import pytest

from campaign.db.database import Database
from campaign.services.ledger.history import HistoryFilter
from campaign.services.ledger.luck_kept import KeptTallies
from campaign.services.ledger.luck_stats import luck_report
from tests.cli.conftest import Cli, gurps_setup

NAME = "テスト卓"


def same(kept: KeptTallies, db: Database, character: str | None = None) -> None:
    flt = HistoryFilter(character=character, limit=None)
    assert kept.report(db, NAME, flt) == luck_report(db, NAME, flt)


def test_kept_tally_equals_a_full_tally_and_counts_only_new_entries(db_url):
    cli = gurps_setup(Cli(db_url))
    cli.run("roll", "3D6<=12", "--char", "鈴音", "--dice", "1,2,3")
    db, kept = Database(db_url), KeptTallies()
    try:
        first = kept.report(db, NAME, HistoryFilter())
        assert first.sources[0]["dice"] == 3 and kept.full_tallies == 1
        same(kept, db)
        cli.run("roll", "2D6", "--char", "刀矢", "--dice", "6,6")
        seq = cli.json("roll", "1D6", "--dice", "4")["seq"]
        same(kept, db)
        assert kept.report(db, NAME, HistoryFilter()).sources[0]["dice"] == 6
        assert kept.full_tallies == 1  # appends: only the new entries were read
        # A void takes an entry out of the counts (a re-tally); its void puts it back.
        void = cli.json("history", "void", "--yes", str(seq), "--reason", "test")["seq"]
        same(kept, db)
        assert kept.report(db, NAME, HistoryFilter()).voided_left_out == 1 and kept.full_tallies == 2
        cli.run("history", "void", "--yes", str(void), "--reason", "undo")
        same(kept, db)
        assert kept.report(db, NAME, HistoryFilter()).sources[0]["dice"] == 6 and kept.full_tallies == 3
        # A character's page; a rename keeps her earlier dice under the new name.
        same(kept, db, "鈴音")
        cli.run("char", "rename", "鈴音", "鈴")
        cli.run("roll", "1D6", "--char", "鈴", "--dice", "2")
        same(kept, db, "鈴")
        assert kept.report(db, NAME, HistoryFilter(character="鈴")).sources[0]["dice"] == 4
    finally:
        db.close()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_ledger_replaced_under_the_server_is_tallied_again(db_url, tmp_path):
    """The same campaign name and length, another chain (a copy restored from elsewhere):
    the hash of the last counted entry differs, so nothing of the old tally is kept."""
    other = str(tmp_path / "other.db")
    for url, dice in ((db_url, "1,1,1"), (other, "6,6,6")):
        gurps_setup(Cli(url)).run("roll", "3D6", "--dice", dice)
    db, kept = Database(db_url), KeptTallies()
    try:
        assert kept.report(db, NAME, HistoryFilter()).sources[0]["die_sizes"][0]["faces"][0] == 3
    finally:
        db.close()
    import shutil

    shutil.copy(other, db_url)
    db = Database(db_url)
    try:
        same(kept, db)
        assert kept.full_tallies == 2
    finally:
        db.close()

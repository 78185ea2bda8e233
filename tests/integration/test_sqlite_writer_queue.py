"""One process's writers to an SQLite file queue on a lock of their own before BEGIN
IMMEDIATE (campaign.db.database), so SQLite's busy handler, which sleeps and retries
instead of waking a waiter, arbitrates only between processes.

Shown with the busy timeout at zero: SQLite then refuses at once any writer that finds
the write lock taken ("database is locked"), so every one of 16 threads' 10 rolls going
through means no two of them ever asked SQLite for the lock at the same time.
"""

from __future__ import annotations

import threading

import pytest

from campaign.core.dice_source import SeededDice
from campaign.db import engine as engine_module
from campaign.db.database import Database
from campaign.services.campaigns import setup as campaigns
from campaign.services.checks.rolls import roll
from campaign.services.ledger import history

THREADS = 16
ROLLS_EACH = 10


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_threads_writing_at_once_never_meet_sqlites_lock(db_url, monkeypatch):
    monkeypatch.setattr(engine_module, "SQLITE_BUSY_TIMEOUT_S", 0.0)
    db = Database(db_url)
    other = Database(db_url)  # a second Database on the same file, in this process, queues alike
    monkeypatch.setattr(engine_module, "SQLITE_BUSY_TIMEOUT_S", 60.0)  # the engines keep 0, the queue waits
    try:
        campaigns.create_campaign(db, "race", "gurps3-ja", "GM")
        start = threading.Barrier(THREADS)
        failures: list[BaseException] = []

        def rolling(worker: int) -> None:
            start.wait()
            try:
                for i in range(ROLLS_EACH):
                    target = db if worker % 2 else other
                    roll(target, "race", f"w{worker}", "3D6<=10", SeededDice(worker * 100 + i), reason=f"{worker}-{i}")
            except BaseException as exc:  # noqa: BLE001 - the assertion below shows it
                failures.append(exc)

        threads = [threading.Thread(target=rolling, args=(n,)) for n in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert failures == []
        entries = list(history.iter_history(db, "race", history.HistoryFilter(kind="roll", limit=None)))
        assert sorted(entry["seq"] for entry in entries) == list(range(2, 2 + THREADS * ROLLS_EACH))
        report = history.verify(db, "race")
        assert report.ok and report.entries == 1 + THREADS * ROLLS_EACH, report
    finally:
        db.close()
        other.close()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_writer_held_too_long_is_the_locked_refusal(db_url, monkeypatch):
    """The queue is waited for no longer than SQLite's busy timeout, and then says what
    SQLite's own lock says: the one-line refusal, nothing written."""
    from campaign.errors import RuleRefused

    monkeypatch.setattr(engine_module, "SQLITE_BUSY_TIMEOUT_S", 0.2)
    db = Database(db_url)
    try:
        campaigns.create_campaign(db, "race", "gurps3-ja", "GM")
        holding, release = threading.Event(), threading.Event()

        def hold() -> None:
            with db.write():
                holding.set()
                release.wait(30)

        holder = threading.Thread(target=hold)
        holder.start()
        assert holding.wait(30)
        with pytest.raises(RuleRefused) as refused:
            roll(db, "race", "w", "3D6", SeededDice(1))
        release.set()
        holder.join(30)
        assert str(refused.value) == "the campaign is locked by another session; try again"
        assert history.verify(db, "race").entries == 1
    finally:
        db.close()

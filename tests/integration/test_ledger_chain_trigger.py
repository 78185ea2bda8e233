"""The database refuses a ledger row that does not extend the chain (migration 0010).

PostgreSQL checks everything `history verify` would: seq, link, SHA-256, record against
columns, and the entry's time. SQLite checks seq and link (its file's owner can drop the
trigger anyway; it keeps a stray row from bricking later writes). Rows are written with
the owner's raw connection: the owner is refused too.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

import pytest

from campaign import ledger
from campaign.chain import canonical_json, chain_hash
from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.integration.forge import append_forged, forged_row, head, insert
from tests.integration.rawdb import raw_connection

pytestmark = pytest.mark.dialect

INT_MAX = 2147483647


def _at(delta: timedelta) -> str:
    return (datetime.now(UTC) + delta).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _refusal(db: str, **changes) -> str:
    """Insert the forged row; it must be refused with the ledger unchanged. Its message."""
    with raw_connection(db) as conn:
        before = conn.execute("SELECT count(*), max(seq) FROM ledger").fetchone()
        with pytest.raises(Exception) as refused:
            append_forged(conn, **changes)
        conn.rollback()
        assert conn.execute("SELECT count(*), max(seq) FROM ledger").fetchone() == before
    error = refused.value
    if isinstance(conn, sqlite3.Connection):
        assert isinstance(error, sqlite3.IntegrityError), error
    else:
        assert getattr(error, "sqlstate", None) == "42501", error  # the CLI's "refused by the database"
    return str(error).splitlines()[0]


def test_a_well_formed_row_goes_in_and_verifies(gurps):
    with raw_connection(gurps.db) as conn:
        values = append_forged(conn)
    assert gurps.json("history", "show", str(values["seq"]))["total"] == 6
    assert gurps.json("history", "verify")["ok"]


CHAIN_CASES = {
    "row at seq 2147483647": dict(record={"seq": INT_MAX}),
    "row after a gap (head+2)": "gap",
    "row at the head's seq": "duplicate",
    "row at seq 0": dict(record={"seq": 0}),
    "prev_hash not the head's hash": dict(row={"prev_hash": "ab" * 32}),
}


@pytest.mark.parametrize("case", sorted(CHAIN_CASES))
def test_a_row_that_does_not_follow_the_head_is_refused(gurps, case):
    changes = CHAIN_CASES[case]
    with raw_connection(gurps.db) as conn:
        seq = head(conn)[0]
    if changes == "gap":
        changes = dict(record={"seq": seq + 2})
    elif changes == "duplicate":
        changes = dict(record={"seq": seq})
    message = _refusal(gurps.db, **changes)
    assert "ledger chain" in message or "UNIQUE" in message
    # Nothing is bricked: the next honest write goes on from the real head
    assert gurps.json("roll", "3D6", "--dice", "1,2,3")["seq"] == seq + 1
    assert gurps.json("history", "verify")["ok"]


RECORD_CASES = {
    "hash made up": dict(row={"hash": "ab" * 32}),
    "hash of another text": dict(row={"record": canonical_json({"campaign": "テスト卓", "seq": 0})}),
    "record not JSON": "not json",
    "record a JSON array": "array",
    "record of another campaign": dict(record={"campaign": "別の卓"}),
    "time an hour ahead": dict(record={"at": _at(timedelta(hours=1))}),
    "time before the head's": dict(record={"at": "2020-01-01T00:00:00.000000Z"}),
    "time in another format": dict(record={"at": "2026-12-01 20:00:00"}),
    "time not a date": dict(record={"at": "2026-13-45T25:61:00.000000Z"}),
    # the record's fields the row copies, one by one (the GM forged by a column)
    **{
        f"column {name} differs": dict(row={name: value})
        for name, value in (
            ("actor", "Aki"),
            ("kind", "seal"),
            ("character", "鈴音"),
            ("scenario", 1),
            ("outcome", "success"),
            ("parent_seq", 1),
            ("voids_seq", 1),
            ("at", "2026-12-01T00:00:00.000000Z"),
        )
    },
}


def _rehashed(conn, text: str) -> dict:
    values = forged_row(conn)
    return {**values, "record": text, "hash": chain_hash(values["prev_hash"], text)}


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
@pytest.mark.parametrize("case", sorted(RECORD_CASES))
def test_postgres_refuses_a_row_whose_hash_record_or_time_is_wrong(gurps, case):
    changes = RECORD_CASES[case]
    if isinstance(changes, str):
        with raw_connection(gurps.db) as conn:
            values = _rehashed(conn, "{not json" if changes == "not json" else "[1,2]")
            with pytest.raises(Exception) as refused:
                insert(conn, values)
        # a record that is not JSON fails the trigger's cast (no EXCEPTION block: see 0010)
        assert getattr(refused.value, "sqlstate", None) == ("22P02" if changes == "not json" else "42501")
        message = str(refused.value).splitlines()[0]
        assert message.startswith(
            "invalid input syntax for type json" if changes == "not json" else "ledger chain: entry "
        ), message
    elif case == "time not a date":
        with raw_connection(gurps.db) as conn:
            with pytest.raises(Exception) as refused:
                append_forged(conn, **changes)
        assert getattr(refused.value, "sqlstate", None) == "22008"  # the cast's own refusal
    else:
        message = _refusal(gurps.db, **changes)
        assert message.startswith("ledger chain: entry "), message
    assert gurps.json("history", "verify")["ok"]


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_postgres_names_what_it_refused(gurps):
    with raw_connection(gurps.db) as conn:
        seq = head(conn)[0]
    assert _refusal(gurps.db, record={"seq": INT_MAX}) == (
        f"ledger chain: entry {INT_MAX} refused, the next entry is #{seq + 1}"
    )
    assert _refusal(gurps.db, row={"hash": "ab" * 32}) == (
        f"ledger chain: entry {seq + 1}: hash is not SHA-256(prev_hash || record)"
    )
    assert _refusal(gurps.db, row={"kind": "seal"}) == (
        f"ledger chain: entry {seq + 1}: the record's kind differs from the row's"
    )
    assert _refusal(gurps.db, record={"at": "2020-01-01T00:00:00.000000Z"}).startswith(
        f"ledger chain: entry {seq + 1}: time 2020-01-01T00:00:00.000000Z is before the head's"
    )


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_a_clock_a_minute_ahead_is_within_the_skew(gurps):
    with raw_connection(gurps.db) as conn:
        values = append_forged(conn, record={"at": _at(timedelta(minutes=1))})
    assert gurps.json("history", "verify")["ok"]
    # and the next entry, from a clock a minute behind that, takes the head's time
    rolled = gurps.json("roll", "3D6", "--dice", "1,2,3")
    assert gurps.json("history", "show", str(rolled["seq"]))["at"] == values["at"]


def test_an_entry_never_goes_back_in_time(gurps, monkeypatch):
    """The clock was set back: the entry takes the head's time, on both backends, so an
    honest writer never trips the trigger; its state stamps (a scenario's start) too."""
    first = gurps.json("roll", "3D6", "--dice", "1,2,3")
    head_at = gurps.json("history", "show", str(first["seq"]))["at"]
    monkeypatch.setattr(ledger, "utc_now", lambda: "2001-01-01T00:00:00.000000Z")
    rolled = gurps.json("roll", "3D6", "--dice", "4,5,6")
    started = gurps.json("scenario", "start", "霧の館", "--with", "鈴音")
    assert gurps.json("history", "show", str(rolled["seq"]))["at"] == head_at
    assert gurps.json("history", "show", str(started["seq"]))["at"] == head_at
    assert gurps.json("history", "verify")["ok"]


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_a_writer_whose_clock_runs_ahead_is_refused_in_one_line(gurps, monkeypatch):
    """Honest code with a clock an hour fast: the database's clock decides, the command
    says so in one line and changes nothing."""
    before = gurps.json("history", "--limit", "1000")
    ahead = _at(timedelta(hours=1))
    monkeypatch.setattr(ledger, "utc_now", lambda: ahead)
    message = gurps.error("roll", "3D6", "--dice", "1,2,3", code=1)
    assert message == (
        f"error: refused by the database: ledger chain: entry {len(before) + 1}: time {ahead} is in the future"
    )
    monkeypatch.undo()
    assert gurps.json("history", "--limit", "1000") == before

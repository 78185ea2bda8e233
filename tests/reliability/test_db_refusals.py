"""The database's own refusals: forged ledger rows tried with the owner's raw connection.

Each row is what an attacker with INSERT on the ledger would write (tests/integration/
forge.py): one thing wrong, everything else right. PostgreSQL must refuse every one
(migration 0010's trigger); SQLite refuses those that do not follow the head (seq,
prev_hash) and takes the rest: the exact rules of `history verify` name the forged
hash, record and columns (checked on the row inside the transaction, then rolled
back), but no check reads an entry's time there, so a forged time stays. The figures
feed the section "The database's own refusals" of docs/reliability.md.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

import pytest

from campaign.chain import Walk, chain_hash
from campaign.ledger_scan import StoredRow, row_problem
from tests.integration.forge import forged_row, head, insert
from tests.integration.rawdb import raw_connection
from tests.reliability import support

pytestmark = pytest.mark.dialect

NAME = "拒否卓"
LATER = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _rehashed(text: str):
    def change(values: dict) -> dict:
        return {**values, "record": text, "hash": chain_hash(values["prev_hash"], text)}

    return change


# (case, changes to forged_row, or a function of its values); SQLite refuses the first
# five, verify names the next six, the last three (times) stand.
CASES = [
    ("seq 2147483647 (made every later write overflow)", {"record": {"seq": 2147483647}}),
    ("seq head+2 (a gap)", "gap"),
    ("seq 0", {"record": {"seq": 0}}),
    ("the head's seq again", "again"),
    ("prev_hash not the head's hash", {"row": {"prev_hash": "ab" * 32}}),
    ("hash made up", {"row": {"hash": "ab" * 32}}),
    ("record changed after hashing", lambda v: {**v, "record": v["record"].replace('"total":6', '"total":18')}),
    ("record not JSON, hash recomputed", _rehashed("{not json")),
    ("record of another campaign", {"record": {"campaign": "別の卓"}}),
    ("a GM entry whose record says another actor", {"row": {"actor": "Aki"}}),
    ("kind column not the record's (seal)", {"row": {"kind": "seal"}}),
    ("time before the head's", {"record": {"at": "2020-01-01T00:00:00.000000Z"}}),
    ("time an hour in the future", {"record": {"at": LATER}}),
    ("time not a time", {"record": {"at": "yesterday"}}),
]
SQLITE_REFUSES, SQLITE_TIMES = 5, 3


def _values(conn, changes) -> dict:
    seq = head(conn)[0]
    if changes == "gap":
        return forged_row(conn, campaign=NAME, record={"seq": seq + 2})
    if changes == "again":
        return forged_row(conn, campaign=NAME, record={"seq": seq})
    if callable(changes):
        return changes(forged_row(conn, campaign=NAME))
    return forged_row(conn, campaign=NAME, **changes)


def _try(db: str, changes) -> str:
    """ "refused" by the database; "verify" when it took the row and verify's exact rules
    name it; "taken" when nothing does (the row is rolled back in every case)."""
    with raw_connection(db) as conn:
        seq, prev, _ = head(conn)
        values = _values(conn, changes)
        try:
            insert(conn, values)
        except Exception as exc:
            conn.rollback()
            sqlstate = getattr(exc, "sqlstate", None)
            # 42501: the trigger's refusal; 22P02 / 22008: text that is not JSON or not a date
            assert isinstance(exc, sqlite3.IntegrityError) or sqlstate in ("42501", "22P02", "22008"), exc
            return "refused"
        stored = StoredRow(
            *conn.execute(
                "SELECT seq, prev_hash, hash, record, at, actor, kind, character, scenario, outcome, parent_seq, "
                "voids_seq FROM ledger WHERE campaign_id = 1 ORDER BY seq DESC LIMIT 1"
            ).fetchone()
        )
        problem = row_problem(Walk(NAME, seq + 1, prev), stored)
        conn.rollback()
    return "taken" if problem is None else "verify"


def test_forged_rows_are_refused_by_the_database(request, db_url):
    support.populated(request, db_url, NAME)
    backend = support.backend_of(db_url)
    before = support.dump(db_url)
    outcomes = {case: _try(db_url, changes) for case, changes in CASES}
    assert support.dump(db_url) == before
    expected = (
        ["refused"] * len(CASES)
        if backend == "postgresql"
        else (
            ["refused"] * SQLITE_REFUSES
            + ["verify"] * (len(CASES) - SQLITE_REFUSES - SQLITE_TIMES)
            + ["taken"] * SQLITE_TIMES
        )
    )
    assert list(outcomes.values()) == expected, outcomes
    support.record(
        "db_refusals",
        backend,
        tried=len(CASES),
        refused=sum(outcome == "refused" for outcome in outcomes.values()),
        named_by_verify=sum(outcome == "verify" for outcome in outcomes.values()),
        taken=sum(outcome == "taken" for outcome in outcomes.values()),
        cases=[[case, outcome] for case, outcome in outcomes.items()],
    )  # in CASES' order

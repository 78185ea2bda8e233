"""The ledger is append-only in the database, and every edit is caught by verify."""

from __future__ import annotations

import json
import sqlite3

import pytest

from campaign.core.dice_source import ManualDice
from campaign.db.database import Database
from campaign.services.campaigns import setup as campaigns
from campaign.services.characters import roster as characters
from campaign.services.checks import rolls
from campaign.services.ledger import history
from tests.conftest import party_copy
from tests.integration.rawdb import drop_ledger_guards, execute, raw_connection

pytestmark = pytest.mark.dialect


def _roll_five(url: str) -> None:
    db = Database(url)
    try:
        campaigns.create_campaign(db, "tamper", "gurps3-ja", "GM")
        characters.add_player(db, None, "Aki", "GM")
        characters.add_character(db, None, "鈴音", "GM", player="Aki", stats={"Will": 11})
        for faces in ([1, 2, 3], [4, 5, 6], [6, 6, 6], [1, 1, 1], [2, 3, 4]):
            rolls.roll(db, None, "Aki", "3D6<=11", ManualDice(faces), character="鈴音")
    finally:
        db.close()  # no pooled connection may stay open on a PostgreSQL template


@pytest.fixture
def rolled(db_url, request):
    """A campaign with a character and five rolls: entries 1..8 (written once per session
    and backend through the services, copied per test: tests/conftest.party_copy)."""
    party_copy(request, "rolled", db_url, _roll_five)
    db = Database(db_url)
    assert history.verify(db, None).entries == 8
    yield db_url, db
    db.close()


def test_raw_update_and_delete_are_refused(rolled):
    db_url, db = rolled
    for statement in ("UPDATE ledger SET actor = 'Mallory' WHERE seq = 4", "DELETE FROM ledger WHERE seq = 8"):
        with pytest.raises(Exception, match="append-only"):
            execute(db_url, statement)
    if db.dialect == "postgresql":
        with pytest.raises(Exception, match="append-only"):
            execute(db_url, "TRUNCATE ledger")
    assert history.verify(db, None).ok


def _record(db_url: str, seq: int) -> dict:
    with raw_connection(db_url) as conn:
        row = conn.execute(f"SELECT record FROM ledger WHERE seq = {seq}").fetchone()
    return json.loads(row[0])


EDITS = {
    "a face in the record": lambda r: {**r, "dice": [6, 6, 5]},
    "the total in the record": lambda r: {**r, "total": 3},
    "the actor in the record": lambda r: {**r, "actor": "GM"},
    "the outcome in the record": lambda r: {**r, "outcome": "critical_success"},
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_editing_the_record_is_detected(rolled, edit):
    db_url, db = rolled
    drop_ledger_guards(db_url)
    record = EDITS[edit](_record(db_url, 5))
    execute(
        db_url,
        "UPDATE ledger SET record = ? WHERE seq = 5",
        (json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False),),
    )
    report = history.verify(db, None)
    assert (report.ok, report.bad_seq) == (False, 5)
    assert "edited" in report.reason


@pytest.mark.parametrize(
    "column,value",
    [
        ("actor", "GM"),
        ("kind", "check"),
        ("character", "刀矢"),
        ("outcome", "success"),
        ("at", "2020-01-01T00:00:00Z"),
        ("scenario", 3),
        ("parent_seq", 1),
        ("voids_seq", 2),
        ("hash", "0" * 64),
        ("prev_hash", "f" * 64),
    ],
)
def test_editing_any_column_is_detected(rolled, column, value):
    db_url, db = rolled
    drop_ledger_guards(db_url)
    execute(db_url, f"UPDATE ledger SET {column} = ? WHERE seq = 6", (value,))
    report = history.verify(db, None)
    assert (report.ok, report.bad_seq) == (False, 6), report


def test_deleting_a_row_is_detected(rolled):
    db_url, db = rolled
    drop_ledger_guards(db_url)
    execute(db_url, "DELETE FROM ledger WHERE seq = 4")
    report = history.verify(db, None)
    assert (report.ok, report.bad_seq) == (False, 4)
    assert "missing" in report.reason


def test_truncating_after_a_seal_is_detected_with_the_head(rolled):
    db_url, db = rolled
    sealed = history.seal(db, None, "GM")
    rolls.roll(db, None, "GM", "2D6", ManualDice([1, 2]))
    drop_ledger_guards(db_url)
    execute(db_url, "DELETE FROM ledger WHERE seq >= ?", (sealed.seq,))
    assert history.verify(db, None).ok  # the shortened chain is self-consistent ...
    report = history.verify(db, None, head=sealed.head)  # ... but the sealed head is gone
    assert (report.ok, report.bad_seq, report.code) == (False, None, "head_not_in_chain")
    assert report.reason.startswith("this chain does not contain your seal")


def test_recomputed_chain_after_a_seal_is_detected_with_the_head(rolled):
    """A tamperer who edits an entry and rehashes everything after it passes plain
    verify; the head the players kept from `history seal` exposes it."""
    from campaign.ledger import canonical_json, chain_hash

    db_url, db = rolled
    sealed = history.seal(db, None, "GM")
    drop_ledger_guards(db_url)
    with raw_connection(db_url) as conn:
        rows = conn.execute("SELECT seq, record, prev_hash FROM ledger ORDER BY seq").fetchall()
        prev = rows[0][2]
        for seq, record_json, _ in rows:
            record = json.loads(record_json)
            if seq == 5:  # consistent: dice whose result did not follow would fail verify by themselves
                record["reason"] = "rewritten"
            record_json = canonical_json(record)
            digest = chain_hash(prev, record_json)
            marker = "?" if isinstance(conn, sqlite3.Connection) else "%s"
            conn.execute(
                f"UPDATE ledger SET record = {marker}, prev_hash = {marker}, hash = {marker} WHERE seq = {marker}",
                (record_json, prev, digest, seq),
            )
            prev = digest
        conn.commit()
    assert history.verify(db, None).ok
    report = history.verify(db, None, head=sealed.head)
    assert (report.ok, report.bad_seq, report.code) == (False, None, "head_not_in_chain")
    assert "rewritten after it" in report.reason


def test_reordered_seq_is_detected(rolled):
    db_url, db = rolled
    drop_ledger_guards(db_url)
    execute(db_url, "UPDATE ledger SET seq = 100 WHERE seq = 3")
    execute(db_url, "UPDATE ledger SET seq = 3 WHERE seq = 4")
    execute(db_url, "UPDATE ledger SET seq = 4 WHERE seq = 100")
    report = history.verify(db, None)
    assert (report.ok, report.bad_seq) == (False, 3)


def test_the_verify_service_names_the_kept_seal_by_code_not_wording(rolled):
    """Service level: `head_entry` names the seal; every failure carries a code."""
    from campaign.errors import BadInput
    from campaign.ledger import HEAD_NOT_IN_CHAIN

    db_url, db = rolled
    sealed = history.seal(db, None, "GM", "第一話 終了")
    rolls.roll(db, None, "GM", "2D6", ManualDice([1, 2]))
    report = history.verify(db, None, head=sealed.head[:16].upper())
    assert (report.ok, report.code, report.head_entry.seq, report.head_entry.reason, report.head_entry.since) == (
        True,
        None,
        sealed.seq,
        "第一話 終了",
        1,
    )
    with pytest.raises(BadInput):
        history.verify(db, None, head=sealed.head[:15])
    missing = history.verify(db, None, head="0" * 64)
    assert (missing.ok, missing.code, missing.bad_seq, missing.head_entry) == (False, HEAD_NOT_IN_CHAIN, None, None)
    drop_ledger_guards(db_url)
    execute(db_url, "UPDATE ledger SET actor = 'Mallory' WHERE seq = 3")
    broken = history.verify(db, None, head=sealed.head)
    assert (broken.ok, broken.code, broken.bad_seq, broken.head_entry) == (False, "chain_broken", 3, None)

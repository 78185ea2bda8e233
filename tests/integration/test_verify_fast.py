"""The SQLite fast path of verify (ledger._check_sqlite) answers exactly as the row-by-row rules.

Each case tampers with a generated chain, then compares `ledger.verify` as shipped (one
scan in this process, in tiny batches here so that every case spans several of them)
with the exact path alone (campaign.ledger_scan.row_problem row by row): the same ok,
count, head, first bad seq and reason, with and without a sealed head.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from campaign import ledger, ledger_scan
from campaign.db.database import Database
from campaign.services.ledger import history
from campaign.services.ledger.history import VerifyReport
from campaign.services.ledger.transfer import import_campaign
from tests.integration.rawdb import drop_ledger_guards, execute, raw_connection
from tests.perf.generate import export_lines

ENTRIES = 300


@pytest.fixture(scope="module")
def generated_chain(tmp_path_factory) -> Path:
    """The generated campaigns, imported once; each test tampers with its own copy."""
    path = tmp_path_factory.mktemp("verify-fast") / "chain.db"
    db = Database(str(path))
    import_campaign(db, export_lines("Fast Path", ENTRIES))
    import_campaign(db, export_lines("Neighbour", 50))  # another campaign's rows interleave nothing but exist
    db.close()
    with sqlite3.connect(path) as raw:  # the whole database in the one file
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.fixture
def chain(generated_chain, tmp_path, monkeypatch):
    url = str(tmp_path / "chain.db")
    shutil.copyfile(generated_chain, url)
    monkeypatch.setattr(ledger_scan, "BATCH", 16)
    return url


def _both(url: str, head: str | None = None) -> tuple[VerifyReport, VerifyReport]:
    db = Database(url)
    try:
        fast = history.verify(db, "Fast Path", head)
        original = ledger._check_sqlite
        ledger._check_sqlite = lambda session, campaign, state, progress=None: ledger._check_rows(
            session, state, campaign.id, progress
        )
        try:
            exact = history.verify(db, "Fast Path", head)
        finally:
            ledger._check_sqlite = original
    finally:
        db.close()
    return fast, exact


def _record(url: str, seq: int) -> dict:
    with raw_connection(url) as conn:
        return json.loads(
            conn.execute("SELECT record FROM ledger WHERE campaign_id = 1 AND seq = ?", (seq,)).fetchone()[0]
        )


def _rehash_from(url: str, seq: int, change) -> None:
    """Rewrite entry seq with change(record) and recompute every hash after it."""
    with raw_connection(url) as conn:
        rows = conn.execute(
            "SELECT seq, record, prev_hash FROM ledger WHERE campaign_id = 1 AND seq >= ? ORDER BY seq", (seq,)
        ).fetchall()
        prev = rows[0][2]
        for row_seq, record_json, _ in rows:
            if row_seq == seq:
                record_json = change(record_json)
            digest = ledger.chain_hash(prev, record_json)
            conn.execute(
                "UPDATE ledger SET record = ?, prev_hash = ?, hash = ? WHERE campaign_id = 1 AND seq = ?",
                (record_json, prev, digest, row_seq),
            )
            prev = digest
        conn.commit()


def _rehash_bytes(url: str, seq: int, junk: bytes) -> None:
    """Entry seq's record with bytes that are not UTF-8 inside a string, stored as TEXT
    (SQLite does not check), hashed over those bytes, and every later hash recomputed."""
    import hashlib

    with raw_connection(url) as conn:
        rows = conn.execute(
            "SELECT seq, CAST(record AS BLOB), prev_hash FROM ledger WHERE campaign_id = 1 AND seq >= ? ORDER BY seq",
            (seq,),
        ).fetchall()
        prev = rows[0][2]
        for row_seq, record, _ in rows:
            if row_seq == seq:
                record = record.replace(b'"actor":"GM"', b'"actor":"GM' + junk + b'"')
            digest = hashlib.sha256(prev.encode() + record).hexdigest()
            conn.execute(
                "UPDATE ledger SET record = CAST(? AS TEXT), prev_hash = ?, hash = ? WHERE campaign_id = 1 AND seq = ?",
                (record, prev, digest, row_seq),
            )
            prev = digest
        conn.commit()


def _canonical(change):
    return lambda record_json: ledger.canonical_json(change(json.loads(record_json)))


TAMPER = {
    "nothing": lambda url: None,
    **{
        f"column {name}": (
            lambda name, value: (
                lambda url: execute(url, f"UPDATE ledger SET {name} = ? WHERE campaign_id = 1 AND seq = 77", (value,))
            )
        )(name, value)
        for name, value in [
            ("actor", "Mallory"),
            ("kind", "roll"),
            ("kind", "fright"),
            ("character", "Aki"),
            ("character", None),
            ("outcome", "success"),
            ("at", "2020-01-01T00:00:00.000000Z"),
            ("scenario", 3),
            ("scenario", None),
            ("parent_seq", 1),
            ("voids_seq", 2),
            ("hash", "0" * 64),
            ("prev_hash", "f" * 64),
            ("seq", 5000),
        ]
    },
    **{
        f"late row: column {name}": (
            lambda name, value: (
                lambda url: execute(url, f"UPDATE ledger SET {name} = ? WHERE campaign_id = 1 AND seq = 230", (value,))
            )
        )(name, value)
        for name, value in [
            ("actor", "Mallory"),
            ("kind", "fright"),
            ("scenario", None),
            ("hash", "0" * 64),
            ("prev_hash", "f" * 64),
            ("at", 5),
        ]
    },
    "late row: scenario as a REAL": lambda url: execute(
        url, "UPDATE ledger SET scenario = 2.5 WHERE campaign_id = 1 AND seq = 240"
    ),
    "late row: record edited": lambda url: execute(
        url,
        "UPDATE ledger SET record = replace(record, '\"total\":', '\"total\":1') WHERE campaign_id = 1 AND seq = 260",
    ),
    "late row: record made invalid JSON, chain recomputed": lambda url: _rehash_from(url, 270, lambda r: r[:-1]),
    "late row: record with NaN, chain recomputed": lambda url: _rehash_from(url, 280, lambda r: r[:-1] + ',"zz":NaN}'),
    "row 151 deleted": lambda url: execute(url, "DELETE FROM ledger WHERE campaign_id = 1 AND seq = 151"),
    "row 150 deleted": lambda url: execute(url, "DELETE FROM ledger WHERE campaign_id = 1 AND seq = 150"),
    "row 151 relinked": lambda url: execute(
        url, "UPDATE ledger SET prev_hash = ? WHERE campaign_id = 1 AND seq = 151", ("e" * 64,)
    ),
    "scenario as a REAL": lambda url: execute(
        url, "UPDATE ledger SET scenario = 1.5 WHERE campaign_id = 1 AND seq = 40"
    ),
    "character as a BLOB": lambda url: execute(
        url, "UPDATE ledger SET character = x'00ff' WHERE campaign_id = 1 AND seq = 41"
    ),
    "actor as a number": lambda url: execute(url, "UPDATE ledger SET actor = 5 WHERE campaign_id = 1 AND seq = 42"),
    "record edited": lambda url: execute(
        url,
        "UPDATE ledger SET record = replace(record, '\"total\":', '\"total\":1') WHERE campaign_id = 1 AND seq = 150",
    ),
    "record rehashed, not relinked": lambda url: _rehash_one(url, 99),
    "record rewritten and chain recomputed": lambda url: _rehash_from(
        url, 120, _canonical(lambda r: {**r, "reason": "rewritten"})
    ),
    "record made invalid JSON, chain recomputed": lambda url: _rehash_from(url, 130, lambda r: r[:-1]),
    "record made a list, chain recomputed": lambda url: _rehash_from(url, 131, lambda r: "[" + r + "]"),
    "record of another campaign, chain recomputed": lambda url: _rehash_from(
        url, 132, _canonical(lambda r: {**r, "campaign": "Neighbour"})
    ),
    "record with an escaped spelling, chain recomputed": lambda url: _rehash_from(
        url, 133, lambda r: r.replace('"actor":"GM"', '"actor":"\\u0047M"')
    ),
    "record with a float seq, chain recomputed": lambda url: _rehash_from(
        url, 134, lambda r: r.replace('"seq":134,', '"seq":134.0,')
    ),
    # The record rule (ledger_scan.record_text_problem): exactly canonical JSON, valid UTF-8.
    "record with a lone surrogate escape, chain recomputed": lambda url: _rehash_from(
        url, 135, lambda r: r.replace('"actor":"GM"', '"actor":"GM\\ud800"')
    ),
    "record with keys out of order, chain recomputed": lambda url: _rehash_from(
        url, 136, lambda r: json.dumps(dict(reversed(json.loads(r).items())), ensure_ascii=False, separators=(",", ":"))
    ),
    "record with a space, chain recomputed": lambda url: _rehash_from(url, 137, lambda r: r.replace(",", ", ", 1)),
    "record nested too deep, chain recomputed": lambda url: _rehash_from(
        url, 138, lambda r: r[:-1] + ',"zz":' + "[" * 70 + "]" * 70 + "}"
    ),
    "record not UTF-8, chain recomputed": lambda url: _rehash_bytes(url, 139, b"\xff"),
    "second half: record not UTF-8, chain recomputed": lambda url: _rehash_bytes(url, 290, b"\xed\xa0\x80"),
    "second half: record with a lone surrogate escape, chain recomputed": lambda url: _rehash_from(
        url, 291, lambda r: r.replace('"actor":"GM"', '"actor":"\\udc00"')
    ),
    "first row deleted": lambda url: execute(url, "DELETE FROM ledger WHERE campaign_id = 1 AND seq = 1"),
    "middle row deleted": lambda url: execute(url, "DELETE FROM ledger WHERE campaign_id = 1 AND seq = 64"),
    "range boundary row deleted": lambda url: execute(url, "DELETE FROM ledger WHERE campaign_id = 1 AND seq = 48"),
    "last row deleted": lambda url: execute(url, f"DELETE FROM ledger WHERE campaign_id = 1 AND seq = {ENTRIES}"),
    "tail truncated": lambda url: execute(url, "DELETE FROM ledger WHERE campaign_id = 1 AND seq > 200"),
    "seqs swapped": lambda url: _swap(url, 33, 34),
    "row at seq 0": lambda url: execute(
        url,
        "INSERT INTO ledger SELECT campaign_id, 0, at, actor, kind, character, "
        "scenario, outcome, parent_seq, voids_seq, record, prev_hash, hash FROM "
        "ledger WHERE campaign_id = 1 AND seq = 1",
    ),
    "forged row appended": lambda url: execute(
        url,
        "INSERT INTO ledger SELECT campaign_id, seq + 1, at, actor, kind, character, scenario, outcome, "
        f"parent_seq, voids_seq, record, hash, hash FROM ledger WHERE campaign_id = 1 AND seq = {ENTRIES}",
    ),
}


def _rehash_one(url: str, seq: int) -> None:
    record = ledger.canonical_json({**_record(url, seq), "total": 99})
    with raw_connection(url) as conn:
        prev = conn.execute("SELECT prev_hash FROM ledger WHERE campaign_id = 1 AND seq = ?", (seq,)).fetchone()[0]
    execute(
        url,
        "UPDATE ledger SET record = ?, hash = ? WHERE campaign_id = 1 AND seq = ?",
        (record, ledger.chain_hash(prev, record), seq),
    )


def _swap(url: str, a: int, b: int) -> None:
    execute(url, "UPDATE ledger SET seq = -1 WHERE campaign_id = 1 AND seq = ?", (a,))
    execute(url, "UPDATE ledger SET seq = ? WHERE campaign_id = 1 AND seq = ?", (a, b))
    execute(url, "UPDATE ledger SET seq = ? WHERE campaign_id = 1 AND seq = -1", (b,))


@pytest.mark.parametrize("case", sorted(TAMPER))
def test_fast_path_answers_as_the_exact_rules(chain, case):
    drop_ledger_guards(chain)
    execute(chain, "DROP TRIGGER IF EXISTS ledger_no_replace")
    TAMPER[case](chain)
    fast, exact = _both(chain)
    assert fast == exact
    assert fast.ok == (case in STILL_INTACT), fast
    for words, reason in RULE_REASONS.items():
        if words in case:
            assert reason in fast.reason, fast


# A self-consistent rewrite or truncation passes plain verify (only --head exposes it); a
# record spelled other than canonically (an escape, NaN, keys out of order ...) does not.
STILL_INTACT = {
    "nothing",
    "record rewritten and chain recomputed",
    "last row deleted",
    "tail truncated",
    "record with a float seq, chain recomputed",
}  # canonical: 134.0 is its own spelling


# What the record rule says of each spelling it refuses.
RULE_REASONS = {
    "not UTF-8": "record is not valid UTF-8",
    "lone surrogate": "record holds a lone surrogate",
    "keys out of order": "not in canonical JSON",
    "a space": "not in canonical JSON",
    "escaped spelling": "not in canonical JSON",
    "NaN": "NaN is not JSON",
    "nested too deep": "nests JSON more than 64 levels deep",
}


def test_fast_path_answers_as_the_exact_rules_with_a_head(chain):
    db = Database(chain)
    sealed = history.seal(db, "Fast Path", "GM")
    db.close()
    fast, exact = _both(chain, sealed.head)
    assert fast == exact and fast.ok
    drop_ledger_guards(chain)
    _rehash_from(chain, 200, _canonical(lambda r: {**r, "dice": [6, 6, 6]}))
    fast, exact = _both(chain, sealed.head)
    assert fast == exact and not fast.ok and "rewritten" in fast.reason
    execute(chain, "DELETE FROM ledger WHERE campaign_id = 1 AND seq > 250")
    fast, exact = _both(chain, sealed.head)
    assert fast == exact and not fast.ok


def test_the_fast_path_reads_each_row_once_and_reports_progress(chain, monkeypatch):
    """A clean chain is accepted by the one scan alone: the exact rules never run."""
    monkeypatch.setattr(ledger, "_check_rows", lambda *args, **kwargs: pytest.fail("exact path used"))
    monkeypatch.setattr(ledger_scan, "row_problem", lambda *args: pytest.fail("a row judged exactly"))
    seen = []

    class Progress:
        def start(self, total):
            seen.append(("start", total))

        def advance(self, n):
            seen.append(n)

    db = Database(chain)
    try:
        report = history.verify(db, "Fast Path", progress=Progress(), chain_only=True)
    finally:
        db.close()
    assert report.ok and report.entries == ENTRIES
    assert seen == [("start", ENTRIES)] + [16] * 18 + [12]  # in batches of 16, one scan


def test_a_record_the_fast_reading_refuses_is_judged_by_the_exact_rules_then_the_scan_goes_on(chain, monkeypatch):
    """The fast reading leaves floats to the exact rules (msgspec spells some unlike
    json.dumps): they judge that row, a canonical one, and accept it."""
    drop_ledger_guards(chain)
    _rehash_from(chain, 133, lambda r: r[:-1] + ',"zz":1.5}')
    judged = []
    row_problem = ledger_scan.row_problem
    monkeypatch.setattr(ledger_scan, "row_problem", lambda walk, row: judged.append(row.seq) or row_problem(walk, row))
    monkeypatch.setattr(ledger, "_check_rows", lambda *args, **kwargs: pytest.fail("exact path used"))
    db = Database(chain)
    try:
        report = history.verify(db, "Fast Path", chain_only=True)
    finally:
        db.close()
    assert report.ok and judged == [133]

"""One record rule, four readers: a record's text must be the one canonical spelling of its
value (campaign.ledger_scan.record_text_problem). One table of spellings, each run against
PostgreSQL's insert trigger (migration 0021), `history verify` on SQLite, the standalone
proofcheck.py and fair_check.py: every reader gives every spelling the same verdict.

Each spelling keeps the record's values (the row's columns, its hash over the text): the
only thing wrong with a refused one is how it is written.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from campaign import fair_check, proofcheck
from campaign.chain import GENESIS_HASH, canonical_json, chain_hash
from campaign.db.database import Database
from campaign.services.ledger import history
from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.integration.forge import forged_row, head, insert
from tests.integration.rawdb import raw_connection

pytestmark = pytest.mark.dialect

Spell = Callable[[dict[str, Any]], str]


def _in_detail(token: str) -> Spell:
    """The record with detail {"x": token}, `token` written exactly as given."""
    return lambda entry: canonical_json({**entry, "detail": {"x": "@@"}}).replace('"@@"', token)


def _nested(depth: int) -> Spell:
    """A record nesting `depth` levels in all (the record itself is level 1, detail 2)."""
    return _in_detail("[" * (depth - 2) + "]" * (depth - 2))


# name -> (spelling, whether it is canonical)
CASES: dict[str, tuple[Spell, bool]] = {
    "canonical": (canonical_json, True),
    # key order
    "keys in insertion order": (lambda e: json.dumps(e, separators=(",", ":"), ensure_ascii=False), False),
    "nested keys out of order": (_in_detail('{"b":1,"a":2}'), False),
    "keys in UTF-16 order, not code point order": (_in_detail('{"😀":1,"～":2}'), False),
    "keys in code point order": (_in_detail('{"～":2,"😀":1}'), True),
    # spacing
    "json.dumps' default separators": (lambda e: json.dumps(e, sort_keys=True, ensure_ascii=False), False),
    "a newline after the record": (lambda e: canonical_json(e) + "\n", False),
    "a space before the record": (lambda e: " " + canonical_json(e), False),
    "a space inside an empty object": (_in_detail("{ }"), False),
    # escapes: json.dumps(ensure_ascii=False) escapes exactly ", \\ and control characters
    "the escapes json.dumps writes": (_in_detail('"a\\"b\\\\c\\n\\t\\u001f\\u007f"'.replace("\\u007f", "\x7f")), True),
    "non-ASCII escaped (ensure_ascii)": (
        lambda e: json.dumps(e, sort_keys=True, separators=(",", ":"), ensure_ascii=True),
        False,
    ),
    "a slash escaped": (_in_detail('"a\\/b"'), False),
    "a newline as \\u000a": (_in_detail('"a\\u000ab"'), False),
    "a control escape in capitals": (_in_detail('"\\u001F"'), False),
    "a raw tab in a string": (_in_detail('"a\tb"'), False),
    "an emoji as a surrogate-pair escape": (_in_detail('"\\ud83d\\ude00"'), False),
    "a lone surrogate escape": (_in_detail('"\\ud800"'), False),
    # duplicate keys
    "a top-level key twice": (lambda e: canonical_json(e).replace('"detail":{}', '"detail":{},"detail":{}'), False),
    "a nested key twice": (_in_detail('{"a":1,"a":1}'), False),
    # numbers: integers as digits, floats as Python's repr
    "a large integer": (_in_detail("123456789012345678901234567890"), True),
    "a negative integer": (_in_detail("-7"), True),
    "minus zero as an integer": (_in_detail("-0"), False),
    "a float": (_in_detail("1.5"), True),
    "a whole float": (_in_detail("100.0"), True),
    "minus zero as a float": (_in_detail("-0.0"), True),
    "a small float in exponent form": (_in_detail("1e-05"), True),
    "a small float written out": (_in_detail("0.00001"), False),
    "the smallest float written out": (_in_detail("0.0001"), True),
    "a large float in exponent form": (_in_detail("1e+16"), True),
    "the largest float written out": (_in_detail("1000000000000000.0"), True),
    "a large float written out": (_in_detail("10000000000000000.0"), False),
    "a trailing zero": (_in_detail("1.50"), False),
    "an exponent without a sign": (_in_detail("1e16"), False),
    "a capital E": (_in_detail("1E+16"), False),
    "an exponent on a small number": (_in_detail("1.5e0"), False),
    "more digits than the double holds": (_in_detail("0.10000000000000001"), False),
    "a float beyond the double's range": (_in_detail("1e400"), False),
    "NaN": (_in_detail("NaN"), False),
    "Infinity": (_in_detail("Infinity"), False),
    "-Infinity": (_in_detail("-Infinity"), False),
    # nesting (campaign.read_limits.JSON_DEPTH)
    "nested 64 levels": (_nested(64), True),
    "nested 65 levels": (_nested(65), False),
}
EXPECTED = {name: canonical for name, (_, canonical) in CASES.items()}


def _entry(seq: int, at: str, campaign: str = "テスト卓") -> dict[str, Any]:
    """The record forge.forged_row writes (a roll by the GM), at `seq`."""
    return {
        "campaign": campaign, "seq": seq, "at": at, "actor": "GM", "kind": "roll", "character": None,
        "scenario": None, "parent_seq": None, "voids_seq": None, "expression": "3D6", "dice": [1, 2, 3],
        "total": 6, "target": None, "outcome": None, "margin": None, "source": "manual", "reason": None,
        "detail": {}, "ops": [], "voidable": True,
    }  # fmt: skip


def _row(conn: Any, spell: Spell) -> dict[str, Any]:
    """The next row of the chain with its record spelled by `spell`."""
    values = forged_row(conn)
    text = spell(_entry(values["seq"], values["at"]))
    return {**values, "record": text, "hash": chain_hash(values["prev_hash"], text)}


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_postgres_trigger_gives_every_spelling_the_record_rule_verdict(gurps):
    verdicts = {}
    for name, (spell, _) in CASES.items():
        with raw_connection(gurps.db) as conn:
            before = head(conn)
            try:
                insert(conn, _row(conn, spell))
                conn.commit()
                verdicts[name] = True
            except Exception:
                conn.rollback()
                verdicts[name] = False
                assert head(conn) == before, name
    assert verdicts == EXPECTED
    assert gurps.json("history", "verify")["ok"]  # what went in verifies


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_postgres_names_a_non_canonical_record(gurps):
    with raw_connection(gurps.db) as conn:
        seq = head(conn)[0] + 1
        with pytest.raises(Exception) as refused:
            insert(conn, _row(conn, CASES["json.dumps' default separators"][0]))
    assert getattr(refused.value, "sqlstate", None) == "42501"
    assert str(refused.value).splitlines()[0] == (
        f"ledger chain: entry {seq}: the record is not in canonical JSON (sorted keys, no spaces, UTF-8)"
    )


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_sqlite_verify_gives_every_spelling_the_same_verdict(gurps, tmp_path):
    verdicts = {}
    for number, (name, (spell, _)) in enumerate(CASES.items()):
        copy = tmp_path / f"case{number}.db"
        shutil.copy(gurps.db, copy)
        with raw_connection(str(copy)) as conn:
            insert(conn, _row(conn, spell))  # SQLite's trigger checks seq and link only
            conn.commit()
            seq = head(conn)[0]
        database = Database(str(copy))
        try:
            report = history.verify(database, "テスト卓")
        finally:
            database.close()
        verdicts[name] = report.ok
        assert report.ok or report.bad_seq == seq, (name, report)
    assert verdicts == EXPECTED


def _bundle(spell: Spell) -> dict[str, Any]:
    """A proof bundle of two entries: the spelled record at #1 and a seal at #2."""
    first = spell(_entry(1, "2026-12-04T10:00:00.000000Z"))
    first_hash = chain_hash(GENESIS_HASH, first)
    seal = canonical_json({**_entry(2, "2026-12-04T10:00:01.000000Z"), "kind": "seal", "expression": None,
                           "dice": None, "total": None, "source": None, "voidable": False})  # fmt: skip
    seal_hash = chain_hash(first_hash, seal)
    return {
        "format": proofcheck.FORMAT, "version": proofcheck.VERSION, "campaign": "テスト卓", "seq": 1,
        "anchor": GENESIS_HASH, "head": seal_hash, "head_seq": 2,
        "entries": [
            {"prev_hash": GENESIS_HASH, "hash": first_hash, "record": first},
            {"prev_hash": first_hash, "hash": seal_hash, "record": seal},
        ],
    }  # fmt: skip


def _proofcheck(spell: Spell) -> bool:
    try:
        proofcheck.check(_bundle(spell))
    except proofcheck.Rejected as exc:
        assert exc.seq == 1, exc.reason
        return False
    return True


def _fair_check(spell: Spell, path: Path) -> bool:
    path.write_text(json.dumps(_bundle(spell), ensure_ascii=False), encoding="utf-8")
    try:
        fair_check.check_bundle_file(str(path))
    except fair_check.Unreadable as exc:
        assert str(exc) == "entry 1 of the bundle is not a ledger record"
        return False
    return True


def test_both_standalone_checkers_give_every_spelling_the_same_verdict(tmp_path):
    assert {name: _proofcheck(spell) for name, (spell, _) in CASES.items()} == EXPECTED
    path = tmp_path / "proof.json"
    assert {name: _fair_check(spell, path) for name, (spell, _) in CASES.items()} == EXPECTED


def _verified(engine: Any, campaign: str) -> bool:
    """The chain verifies, read at whatever revision the database is (nothing upgrades it)."""
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from campaign import ledger
    from campaign.db.models import Campaign

    with Session(engine) as session:
        found = session.execute(select(Campaign).where(Campaign.name == campaign)).scalar_one()
        return ledger.verify(session, found).ok


def test_the_demo_campaign_verifies_before_and_after_the_migration(cli):
    from campaign.db.engine import make_engine, resolve_url
    from campaign.db.migrate import HEAD_REVISION, current_revision, downgrade, upgrade

    cli.run("demo")
    name = "百鬼夜翔 夜桜編"  # the campaign `campaign demo` builds
    engine = make_engine(resolve_url(cli.db))
    try:
        assert current_revision(engine) == HEAD_REVISION == "0021"
        downgrade(engine, "0018")
        assert current_revision(engine) == "0018"
        assert _verified(engine, name)
        upgrade(engine, "0021")
        assert _verified(engine, name)
    finally:
        engine.dispose()
    assert cli.json("history", "verify")["ok"]
    # and the upgraded database keeps taking entries
    assert cli.json("roll", "3D6", "--dice", "1,2,3")["total"] == 6

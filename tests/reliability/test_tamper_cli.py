"""Tampering, proven through the CLI: `history verify [--head]` exits 1 naming the seq.

tests/integration/test_ledger_tamper.py covers the service; here every kind of edit
a tamperer with the triggers dropped could make is run through the real command, on
a ledger that also holds a fright check with its sub-entries and a seal. And the
database itself refuses the raw edits, including SQLite's INSERT OR REPLACE.
"""

from __future__ import annotations

import json

import pytest

from campaign.core.dice_source import ManualDice, SeededDice
from campaign.db.database import Database
from campaign.ledger import canonical_json, chain_hash
from campaign.services.campaigns import setup as campaigns
from campaign.services.characters import roster as characters
from campaign.services.checks import fright, rolls
from campaign.services.ledger import history
from tests.cli.conftest import Cli
from tests.conftest import party_copy
from tests.integration.rawdb import drop_ledger_guards, execute, raw_connection, rehash_from
from tests.reliability import support

pytestmark = pytest.mark.dialect

STATS = {"Will": 10, "IQ": 10, "HT": 10, "FP": 10, "HP": 10}


_BUILT: dict[str, dict] = {}  # backend -> what _write_ledger wrote there (seqs and the sealed head)


def _write_ledger(url: str) -> None:
    """#1-3 setup, #4-8 rolls, a fright check with sub-entries, a seal, two more rolls."""
    db = Database(url)
    try:
        campaigns.create_campaign(db, "改竄", "gurps3-ja", "GM")
        characters.add_player(db, None, "Aki", "GM")
        characters.add_character(db, None, "鈴音", "GM", player="Aki", stats=STATS, cp=100)
        for faces in ([1, 2, 3], [4, 5, 6], [6, 6, 6], [1, 1, 1], [2, 3, 4]):
            rolls.roll(db, None, "Aki", "3D6<=11", ManualDice(faces), character="鈴音")
        seed = next(s for s in range(1000) if _fails_with_subrolls(s))
        checked = fright.fright_check(db, None, "GM", "鈴音", SeededDice(seed), modifier=-6)
        sealed = history.seal(db, None, "GM", "end of session 1")
        rolls.roll(db, None, "Aki", "2D6", ManualDice([3, 4]))
        rolls.roll(db, None, "Aki", "2D6", ManualDice([5, 6]))
    finally:
        db.close()  # no pooled connection may stay open on a PostgreSQL template
    _BUILT[support.backend_of(url)] = {
        "fright": checked.seq,
        "subs": [s.seq for s in checked.sub_rolls],
        "seal": sealed.seq,
        "head": sealed.head,
        "last": sealed.seq + 2,
    }


@pytest.fixture
def ledger(db_url, fast_cli, request):
    """A copy of the ledger _write_ledger wrote once per session and backend (through the
    services; tests/conftest.party_copy), with its seqs and sealed head."""
    party_copy(request, "tamper_cli", db_url, _write_ledger)
    return {"url": db_url, "cli": Cli(db_url), **_BUILT[support.backend_of(db_url)]}


def _fails_with_subrolls(seed: int) -> bool:
    from campaign.core.fright import resolve_fright_check
    from campaign.seeds import fright_table

    result = resolve_fright_check(
        10,
        SeededDice(seed),
        modifier=-6,
        combat_reflexes=False,
        severe_phobia=False,
        fright_cap=None,
        traits=[],
        stats=STATS,
        table=fright_table(),
    )
    return result.table is not None and len(result.sub_rolls) >= 1


def _record(url: str, seq: int) -> dict:
    with raw_connection(url) as conn:
        return json.loads(conn.execute(f"SELECT record FROM ledger WHERE seq = {seq}").fetchone()[0])


def _store(url: str, seq: int, record: dict) -> None:
    execute(url, "UPDATE ledger SET record = ? WHERE seq = ?", (canonical_json(record), seq))


def _edit(field, value):
    def edit(case):
        seq = case["pick"](case)
        record = _record(case["url"], seq)
        record[field] = value(record) if callable(value) else value
        _store(case["url"], seq, record)
        return seq

    return edit


def _swap(url: str, a: int, b: int) -> int:
    execute(url, "UPDATE ledger SET seq = 10000 WHERE seq = ?", (a,))
    execute(url, "UPDATE ledger SET seq = ? WHERE seq = ?", (a, b))
    execute(url, "UPDATE ledger SET seq = ? WHERE seq = 10000", (b,))
    return a


def _forge(case) -> int:
    """Append an entry that was never made: right seq and link, made-up hash."""
    url, seq = case["url"], case["last"] + 1
    with raw_connection(url) as conn:
        prev = conn.execute(f"SELECT hash FROM ledger WHERE seq = {seq - 1}").fetchone()[0]
    record = {**_record(url, seq - 1), "seq": seq, "dice": [6, 6], "total": 12}
    execute(
        url,
        "INSERT INTO ledger (campaign_id, seq, at, actor, kind, character, scenario, outcome, parent_seq, "
        "voids_seq, record, prev_hash, hash) SELECT campaign_id, ?, at, actor, kind, character, scenario, "
        "outcome, parent_seq, voids_seq, ?, ?, ? FROM ledger WHERE seq = ?",
        (seq, canonical_json(record), prev, "ab" * 32, seq - 1),
    )
    return seq


def _rehash_one(case) -> int:
    """Edit entry 5 and give it a matching hash: entry 6 no longer links to it."""
    url = case["url"]
    record = {**_record(url, 5), "dice": [6, 6, 6], "total": 18}
    with raw_connection(url) as conn:
        prev = conn.execute("SELECT prev_hash FROM ledger WHERE seq = 5").fetchone()[0]
    record_json = canonical_json(record)
    execute(url, "UPDATE ledger SET record = ?, hash = ? WHERE seq = 5", (record_json, chain_hash(prev, record_json)))
    return 6


# Each edit returns the seq that `history verify` must name.
CHAIN_EDITS = {
    "a face of a roll": lambda c: _edit("dice", [6, 5, 6])({**c, "pick": lambda c: 5}),
    "a face of a fright sub-roll": lambda c: _edit("dice", lambda r: [1] * len(r["dice"]))(
        {**c, "pick": lambda c: c["subs"][0]}
    ),
    "a total": lambda c: _edit("total", 3)({**c, "pick": lambda c: 6}),
    "an actor (record)": lambda c: _edit("actor", "GM")({**c, "pick": lambda c: 7}),
    "an actor (column)": lambda c: (execute(c["url"], "UPDATE ledger SET actor = 'GM' WHERE seq = 7"), 7)[1],
    "what a fright check applied": lambda c: _edit("ops", lambda r: [])({**c, "pick": lambda c: c["fright"]}),
    "a deleted row": lambda c: (execute(c["url"], "DELETE FROM ledger WHERE seq = 4"), 4)[1],
    "a deleted fright sub-entry": lambda c: (
        execute(c["url"], "DELETE FROM ledger WHERE seq = ?", (c["subs"][-1],)),
        c["subs"][-1],
    )[1],
    "a re-ordered seq": lambda c: _swap(c["url"], 5, 6),
    "a forged entry at the end": _forge,
    "an edited entry with its own hash recomputed": _rehash_one,
}


@pytest.mark.parametrize("edit", sorted(CHAIN_EDITS))
def test_verify_names_the_edited_seq(ledger, edit):
    cli = ledger["cli"]
    cli.run("history", "verify")
    drop_ledger_guards(ledger["url"])
    bad = CHAIN_EDITS[edit](ledger)
    message = cli.error("history", "verify", code=1)
    assert f"chain broken at #{bad}:" in message and len(message.splitlines()) == 1, message
    report = json.loads(cli.run("history", "verify", "--json", expect=1).stdout)
    assert (report["ok"], report["bad_seq"]) == (False, bad)
    support.record("tamper", support.backend_of(ledger["url"]), detected=1, cases=1)


def _truncate_from_seal(case) -> None:
    execute(case["url"], "DELETE FROM ledger WHERE seq >= ?", (case["seal"],))


def _truncate_after_seal_and_reseal(case) -> None:
    """Drop the seal and what follows, then append a look-alike seal with a new hash."""
    execute(case["url"], "DELETE FROM ledger WHERE seq >= ?", (case["seal"],))
    db = Database(case["url"])
    history.seal(db, None, "GM", "end of session 1")
    db.close()


def _recompute_after_edit(case) -> None:
    # a consistent rewrite (a result that does not follow from its dice fails verify by itself)
    rehash_from(case["url"], 5, lambda r: r.update(reason="書き換えた理由"))


SEALED_EDITS = {
    "a truncated tail after a seal": _truncate_from_seal,
    "a truncated tail after a seal, resealed": _truncate_after_seal_and_reseal,
    "a recomputed chain after a seal": _recompute_after_edit,
}


@pytest.mark.parametrize("edit", sorted(SEALED_EDITS))
def test_verify_head_exposes_a_self_consistent_rewrite(ledger, edit):
    cli = ledger["cli"]
    cli.run("history", "verify", "--head", ledger["head"])
    drop_ledger_guards(ledger["url"])
    SEALED_EDITS[edit](ledger)
    cli.run("history", "verify")  # the rewritten chain is self-consistent ...
    message = cli.error("history", "verify", "--head", ledger["head"], code=1)  # ... the kept head is not in it
    assert message.startswith(
        "this chain does not contain your seal: the history was rewritten after it, or the hash is mistyped"
    ), message
    report = json.loads(cli.run("history", "verify", "--head", ledger["head"], "--json", expect=1).stdout)
    assert (report["ok"], report["bad_seq"], report["code"]) == (False, None, "head_not_in_chain")
    support.record("tamper", support.backend_of(ledger["url"]), detected=1, cases=1)


RAW_EDITS = [
    "UPDATE ledger SET actor = 'Mallory' WHERE seq = 5",
    "UPDATE ledger SET record = record WHERE seq = 5",
    "DELETE FROM ledger WHERE seq = 5",
    "DELETE FROM ledger",
]
SQLITE_ONLY = [
    "INSERT OR REPLACE INTO ledger SELECT campaign_id, seq, at, 'Mallory', kind, character, scenario, outcome, "
    "parent_seq, voids_seq, record, prev_hash, hash FROM ledger WHERE seq = 5",
    "REPLACE INTO ledger SELECT campaign_id, seq, at, 'Mallory', kind, character, scenario, outcome, "
    "parent_seq, voids_seq, record, prev_hash, hash FROM ledger WHERE seq = 5",
]
POSTGRES_ONLY = [
    "TRUNCATE ledger",
    "INSERT INTO ledger SELECT * FROM ledger WHERE seq = 5 ON CONFLICT (campaign_id, seq) DO UPDATE "
    "SET actor = 'Mallory'",
]


def test_the_database_refuses_every_raw_edit(ledger):
    url = ledger["url"]
    before = support.dump(url)
    statements = RAW_EDITS + (SQLITE_ONLY if support.backend_of(url) == "sqlite" else POSTGRES_ONLY)
    for statement in statements:  # a REPLACE onto seq 5 is also not a row after the head (0010)
        with pytest.raises(Exception, match="append-only|ledger chain"):
            execute(url, statement)
    assert support.dump(url) == before
    ledger["cli"].run("history", "verify", "--head", ledger["head"])
    support.record("tamper", support.backend_of(url), raw_edits_refused=len(statements))

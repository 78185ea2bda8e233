"""`history verify --head H`: the seal H names, the entries since, and the refusals.

The head a player kept is looked up among the chain's own entries (never the
`seal_heads` table), a prefix needs 16 hex digits and names one seal, and a head the
chain does not hold is reported as such, never as a typo of a seal table's row.
"""

from __future__ import annotations

import json

import pytest

from campaign.ledger import canonical_json, chain_hash
from campaign.services.ledger import verification
from tests.integration.rawdb import drop_ledger_guards, execute, raw_connection, rehash_from

NOT_CONTAINED = "this chain does not contain your seal: the history was rewritten after it, or the hash is mistyped"


def _sealed_play(cli) -> dict:
    """A roll, a seal with a reason, then two more rolls; the seal's `history seal --json`."""
    cli.run("roll", "3D6<=12", "回避", "--char", "鈴音", "--dice", "1,4,6")
    sealed = cli.json("history", "seal", "--reason", "第一話 終了")
    cli.run("roll", "2D6", "--dice", "6,6")
    cli.run("roll", "1D6", "--dice", "3")
    return sealed


def _rehash_from(db: str, seq: int, change) -> None:
    """Change entry `seq`'s record and recompute every hash after it: a self-consistent rewrite."""
    drop_ledger_guards(db)
    with raw_connection(db) as conn:
        marker = "?" if type(conn).__module__ == "sqlite3" else "%s"
        rows = conn.execute("SELECT seq, record, prev_hash FROM ledger ORDER BY seq").fetchall()
        prev = None
        for row_seq, record_json, stored_prev in rows:
            prev = stored_prev if prev is None else prev
            record = json.loads(record_json)
            if row_seq == seq:
                change(record)
            record_json = canonical_json(record)
            digest = chain_hash(prev, record_json)
            conn.execute(
                f"UPDATE ledger SET record = {marker}, prev_hash = {marker}, hash = {marker} WHERE seq = {marker}",
                (record_json, prev, digest, row_seq),
            )
            prev = digest
        conn.commit()


def test_a_kept_head_names_its_seal_and_the_entries_since(gurps):
    sealed = _sealed_play(gurps)
    report = gurps.json("history", "verify", "--head", sealed["head"])
    assert report["ok"] and report["code"] is None and report["sealed_head"] == sealed["head"]
    found = report["head_entry"]
    assert (found["seq"], found["hash"], found["kind"], found["reason"], found["since"]) == (
        sealed["seq"],
        sealed["head"],
        "seal",
        "第一話 終了",
        2,
    )
    assert found["at"] == gurps.json("history", "show", str(sealed["seq"]))["at"]
    assert report["entries"] == sealed["seq"] + 2
    human = gurps.run("history", "verify", "--head", "  " + sealed["head"][:16].upper() + " ")
    lines = human.stdout.splitlines()
    assert lines[0] == report["head"]  # today's head, as before
    assert lines[1].startswith(f"your seal #{sealed['seq']} (第一話 終了, 20") and lines[1].endswith(
        ") is in this chain; 2 entries since"
    ), lines
    assert lines[2].startswith(f"chain intact: {sealed['seq'] + 2} entries")


def test_a_seal_without_reason_and_no_entries_since(sqlite_gurps):
    sealed = sqlite_gurps.json("history", "seal")
    line = sqlite_gurps.run("history", "verify", "--head", sealed["head"]).stdout.splitlines()[1]
    assert line.startswith(f"your seal #{sealed['seq']} (20") and line.endswith("is in this chain; 0 entries since")
    sqlite_gurps.run("roll", "1D6", "--dice", "2")
    assert "; 1 entry since" in sqlite_gurps.run("history", "verify", "--head", sealed["head"]).stdout


def test_malformed_heads_are_exit_2(sqlite_gurps):
    head = _sealed_play(sqlite_gurps)["head"]
    for bad in (head[:15], head[:8], "abc", head + "0", "g" * 16, head[:20] + "-" + head[21:], ""):
        message = sqlite_gurps.error("history", "verify", "--head", bad, code=2)
        assert "64 hex digits, or its first 16 or more" in message, bad


def test_a_head_the_chain_does_not_hold_is_not_a_typo_of_a_seal_table(sqlite_gurps):
    cli = sqlite_gurps
    head = _sealed_play(cli)["head"]
    typo = ("0" if head[0] != "0" else "1") + head[1:]
    for given in (typo, typo[:16]):
        message = cli.error("history", "verify", "--head", given, code=1)
        assert message.startswith(NOT_CONTAINED) and "the chain itself holds" in message, message
        assert "typo?" not in message and "not a seal" not in message
        report = cli.json("history", "verify", "--head", given, expect=1)
        assert (report["ok"], report["code"], report["bad_seq"], report["head_entry"]) == (
            False,
            "head_not_in_chain",
            None,
            None,
        )
        assert report["reason"] == NOT_CONTAINED


def test_prefixes_name_seals_only_and_a_full_hash_any_entry(sqlite_gurps):
    cli = sqlite_gurps
    _sealed_play(cli)
    roll = cli.json("history", "--kind", "roll", "--limit", "1")[0]
    assert cli.error("history", "verify", "--head", roll["hash"][:40], code=1).startswith(NOT_CONTAINED)
    report = cli.json("history", "verify", "--head", roll["hash"])  # the head `history verify` printed once
    assert report["ok"] and (report["head_entry"]["kind"], report["head_entry"]["since"]) == ("roll", 0)
    line = cli.run("history", "verify", "--head", roll["hash"]).stdout.splitlines()[1]
    assert line.startswith(f"your head is entry #{roll['seq']} (roll, ") and "; not a seal) in this chain" in line


def test_an_ambiguous_prefix_is_refused(sqlite_gurps, monkeypatch):
    """Two seals sharing 16 hex digits cannot be made on purpose; with a minimum of one
    digit, 17 seals must share one (pigeonhole) and the shared prefix is refused."""
    monkeypatch.setattr(verification, "MIN_HEAD_PREFIX", 1)
    heads = [sqlite_gurps.json("history", "seal")["head"] for _ in range(17)]
    first = {}
    for head in heads:
        first.setdefault(head[0], []).append(head)
    digit, shared = next((d, hs) for d, hs in first.items() if len(hs) > 1)
    message = sqlite_gurps.error("history", "verify", "--head", digit, code=2)
    assert f"--head {digit}: matches seals #" in message and "give more digits" in message
    assert sqlite_gurps.json("history", "verify", "--head", shared[0])["ok"]


def test_a_rewritten_history_checked_against_the_real_head(gurps):
    """The tamperer edits a roll before the seal and re-hashes everything: plain verify
    passes, the player's real head is not in the new chain; the new chain's seal (which a
    server could offer) does name a seal, but it is not the player's."""
    sealed = _sealed_play(gurps)
    before = gurps.json("history", "--kind", "roll", "--all")[-1]
    # a rewrite whose outcome does not follow from its dice fails verify by itself
    _rehash_from(gurps.db, before["seq"], lambda r: r.update(dice=[6, 6, 6], total=18))
    assert gurps.json("history", "verify", expect=1)["reason"] == (
        f"entry #{before['seq']}: its outcome is success, its dice [6, 6, 6] give critical_failure"
    )
    # [1,4,6] = 11 against 12 becomes [2,4,5] = 11: dice, total, outcome and margin agree
    rehash_from(gurps.db, before["seq"], lambda r: r.update(dice=[2, 4, 5], total=11))
    assert gurps.json("history", "verify")["ok"]
    message = gurps.error("history", "verify", "--head", sealed["head"], code=1)
    assert message.startswith(NOT_CONTAINED), message
    assert gurps.error("history", "verify", "--head", sealed["head"][:16], code=1).startswith(NOT_CONTAINED)


def test_the_seal_heads_table_is_not_believed(sqlite_gurps):
    """Rows of `seal_heads` (which whoever holds the database edits at will) neither make
    a head verify nor keep a real one from verifying."""
    cli = sqlite_gurps
    sealed = _sealed_play(cli)
    fake = "ab" * 32
    execute(cli.db, "DELETE FROM seal_heads")
    execute(cli.db, "INSERT INTO seal_heads (campaign_id, seq, hash) VALUES (1, ?, ?)", (sealed["seq"], fake))
    assert cli.error("history", "verify", "--head", fake[:16], code=1).startswith(NOT_CONTAINED)
    assert cli.error("history", "verify", "--head", fake, code=1).startswith(NOT_CONTAINED)
    assert cli.json("history", "verify", "--head", sealed["head"][:16])["head_entry"]["seq"] == sealed["seq"]


def test_a_broken_chain_is_named_before_the_head(gurps):
    sealed = _sealed_play(gurps)
    drop_ledger_guards(gurps.db)
    execute(gurps.db, "UPDATE ledger SET actor = 'Mallory' WHERE seq = ?", (sealed["seq"] - 1,))
    report = gurps.json("history", "verify", "--head", sealed["head"], expect=1)
    assert (report["code"], report["bad_seq"], report["head_entry"]) == ("chain_broken", sealed["seq"] - 1, None)
    assert gurps.error("history", "verify", "--head", sealed["head"], code=1).startswith(
        f"chain broken at #{sealed['seq'] - 1}: "
    )


@pytest.mark.parametrize("flag", [(), ("--chain-only",)])
def test_reason_codes_in_json(sqlite_gurps, flag):
    cli = sqlite_gurps
    secret = cli.json("roll", "S3D6<=12", "聞き耳", "--dice", "2,3,4")
    cli.run("history", "reveal", str(secret["seq"]))
    report = cli.json("history", "verify", *flag)
    assert report["ok"] and report["code"] is None and report["unchecked"] == []
    assert report["secrets"]["revealed"] == 1
    assert report["secrets"]["hidden"] == (None if flag else 1)  # --chain-only leaves the GM's table alone
    execute(cli.db, "UPDATE secret_rolls SET salt = ?", ("0" * 32,))
    if flag:
        assert cli.json("history", "verify", *flag)["ok"]
    else:
        failed = cli.json("history", "verify", expect=1)
        assert (failed["code"], failed["bad_seq"]) == ("secrets_mismatch", secret["seq"])

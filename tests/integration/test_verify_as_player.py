"""A read-only database role verifies the chain without the GM's hidden rows.

Players hold no database role since migration 0016; a group may still make a role by
hand that reads every table but the GM's own (tests' `auditor`), for whoever wants to
check the chain with the CLI. `secret_rolls` is the GM's table (refused by the grants), so
`history verify --chain-only` must not read it, and the full check says what it could
not check instead of failing on "permission denied". PostgreSQL group mode only: SQLite
has no per-table rights.
"""

from __future__ import annotations


def test_a_read_only_role_verifies_without_reading_secret_rows(group):
    gm = group.cli("GM")
    secret = gm.json("roll", "S3D6<=12", "聞き耳", "--dice", "2,3,4")
    sealed = gm.json("history", "seal", "--reason", "第3話")
    aki = group.cli("auditor")
    aki.error("history", "peek", str(secret["seq"]), code=1)  # the hidden row stays hidden

    chain_only = aki.json("history", "verify", "--chain-only", "--head", sealed["head"][:16])
    assert chain_only["ok"] and chain_only["unchecked"] == [] and chain_only["secrets"]["hidden"] is None
    assert chain_only["head_entry"]["seq"] == sealed["seq"]
    said = aki.run("history", "verify", "--chain-only", "--head", sealed["head"]).stdout
    assert f"your seal #{sealed['seq']} (第3話, " in said and "is in this chain; 0 entries since" in said
    full = aki.json("history", "verify")
    assert full["ok"] and full["state"]["ok"] and full["secrets"]["hidden"] is None
    assert full["unchecked"] == [
        "the hidden results of secret rolls (this role may not read them)",
        "the unrevealed seeds of fair dice (this role may not read them)",
    ]
    human = aki.run("history", "verify")
    assert "not checked: the hidden results of secret rolls" in human.stderr and "chain intact" in human.stdout
    # The GM's role reads them and checks them.
    assert gm.json("history", "verify")["secrets"]["hidden"] == 1 and gm.json("history", "verify")["unchecked"] == []


def test_a_revealed_secret_is_checked_for_a_read_only_role_too(group):
    gm = group.cli("GM")
    secret = gm.json("roll", "S3D6<=12", "聞き耳", "--dice", "2,3,4")
    gm.run("history", "reveal", str(secret["seq"]))
    report = group.cli("auditor").json("history", "verify", "--chain-only")
    assert report["ok"] and report["secrets"]["revealed"] == 1

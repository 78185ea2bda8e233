"""`history verify` in the reader's language: what broke, and what was not checked.

--json keeps the English reason (the record of what was proved is language-neutral);
the line a person reads names the fault in Japanese under lang=ja, the chain's reasons in
the words both proof checkers use (campaign.proofcheck's table), the state's difference
with its table named in words.
"""

from __future__ import annotations

import pytest

from tests.cli.conftest import Cli
from tests.integration.rawdb import drop_ledger_guards, execute

# (tampering SQL, verify options, Japanese line, English line)
CASES = [
    (
        "UPDATE ledger SET kind = 'fright' WHERE seq = {seq}",
        (),
        "#{seq} でチェーンが壊れています: 列 'kind' がハッシュされた記録の値と違います",
        "chain broken at #{seq}: column 'kind' differs from the hashed record",
    ),
    (
        "UPDATE ledger SET prev_hash = hash WHERE seq = {seq}",
        ("--chain-only",),
        "#{seq} でチェーンが壊れています: prev_hash が記録 #{prev} につながりません",
        "chain broken at #{seq}: prev_hash does not link to entry #{prev}",
    ),
    (
        "UPDATE characters SET cp_total = cp_total + 5 WHERE name = '鈴音'",
        (),
        "状態が台帳と食い違います: キャラクター 鈴音 の列 cp_total: 台帳では {cp}、テーブルでは {cp5}",
        "state differs from the ledger: characters 鈴音, column cp_total: the ledger says {cp}, the table has {cp5}",
    ),
]


def _tampered(gurps: Cli, sql: str) -> dict[str, int]:
    seq = gurps.json("roll", "3D6", "--dice", "1,2,3")["seq"]
    cp = next(c["cp_total"] for c in gurps.json("char", "list") if c["name"] == "鈴音")
    values = {"seq": seq, "prev": seq - 1, "cp": cp, "cp5": cp + 5}
    drop_ledger_guards(gurps.db)
    execute(gurps.db, sql.format(**values))
    return values


@pytest.mark.parametrize(("sql", "options", "ja", "en"), CASES, ids=["column", "link", "state"])
def test_a_broken_verify_says_why_in_one_language(gurps, monkeypatch, sql, options, ja, en):
    values = _tampered(gurps, sql)
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    japanese = gurps.run("history", "verify", *options, expect=1).stderr.strip().splitlines()
    assert japanese[-1] == ja.format(**values)
    as_json_ja = gurps.run("history", "verify", *options, "--json", expect=1).stdout
    monkeypatch.setenv("CAMPAIGN_LANG", "en")
    english = gurps.run("history", "verify", *options, expect=1).stderr.strip().splitlines()
    assert english[-1] == en.format(**values)
    assert gurps.run("history", "verify", *options, "--json", expect=1).stdout == as_json_ja


def test_a_head_not_in_the_chain_is_said_in_japanese(gurps, monkeypatch):
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    line = gurps.run("history", "verify", "--head", "0123456789abcdef0123", expect=1).stderr.strip()
    assert line.startswith(
        "このチェーンにはあなたの封印がありません: 封印の後で履歴が書き換えられたか、ハッシュの打ち間違いです"
        " (チェーン自体は無傷: "
    )

"""The dice a table row's text names and the rolls a fright row asks for, recomputed by
`history verify` and `import` (docs/fair-dice.md "What is checked"), and table rows that
the table does not have, or that do not hold the result, refused: a careful forger
re-hashes the chain after the change, so only the recomputation can tell (SQLite and
PostgreSQL)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tests.cli.conftest import Cli, cli  # noqa: F401 (fixtures)
from tests.integration.rawdb import drop_ledger_guards, raw_connection, rehash_from
from tests.web.test_fair_dice_abandon import _rehashed


def _rolled(cli: Cli) -> dict[str, int]:
    """A fright whose row stuns for 2d turns, and YSCRT 15's "1d-3 turns (at least 1)"."""
    cli.run("init", "テスト卓", "--no-fair")
    cli.run("char", "add", "管狐", "--npc", "--stat", "Will=10", "--stat", "HT=10")
    fright = cli.json("fright", "管狐", "--dice", "6,6,6,1,1,1,2,5")
    table, stun = fright["sub_rolls"]
    assert (table["expression"], table["total"]) == ("FEAR+8", 11)
    assert (stun["purpose"], stun["expression"], stun["dice"], stun["total"]) == ("stun_turns", "2D", [2, 5], 7)
    blind = cli.json("table", "roll", "YSCRT", "--dice", "5,5,5,2")
    [text] = blind["sub_entries"]
    assert (blind["detail"]["entry"], text["expression"], text["dice"], text["total"]) == ([15, 15], "1D-3", [2], 1)
    assert text["detail"]["text_roll"]["min"] == 1  # new records hold the minimum
    return {
        "fright": fright["seq"],
        "table": table["seq"],
        "stun": stun["seq"],
        "look_up": blind["seq"],
        "text": text["seq"],
    }


def _text(value: int, floor: int | None = None):
    def change(record: dict) -> None:
        record["total"] = value
        record["detail"]["text_roll"]["value"] = value
        if floor is not None:
            record["detail"]["text_roll"]["min"] = floor

    return change


def _detail(**fields):
    return lambda record: record["detail"].update(fields)


def _forgeries(seqs: dict[str, int]) -> list[tuple[int, object, str]]:
    text, look_up, stun, table, fright = seqs["text"], seqs["look_up"], seqs["stun"], seqs["table"], seqs["fright"]

    def longer_stun(record: dict) -> None:  # the stun the fright applied, not the 2d it rolled
        record["detail"]["effects"][0]["duration"] = 12

    def shown_longer(record: dict) -> None:  # the look-up's text shows 1D-3[=2]: from a 5 it did not roll
        record["detail"]["text_rolls"][0].update(faces=[5], value=2)

    return [
        (look_up, shown_longer, f"entry #{look_up}: its detail.text_rolls.0 is [[5], 2], its dice [2] give [[2], 1]"),
        (fright, longer_stun, f"entry #{fright}: its detail.effects.0.duration is 12, its dice [2, 5] give 7"),
        (text, _text(3), f"entry #{text}: its total is 3, its dice [2] give 1"),  # another duration, same draw
        (text, _text(3, floor=3), f"entry #{text}: its total is 3, its dice [2] give 1"),  # and a minimum to fit
        (look_up, _detail(entry=[15, 16]), f"entry #{look_up}: the table YSCRT has no row [15, 16]"),
        (  # row 16 holds no 15, nor the text dice the look-up's copy names
            look_up,
            _detail(entry=[16, 16]),
            f"entry #{look_up}: its detail.text_rolls is [{{'dice': '1D-3', 'faces': [2], 'index': 0, 'min': 1, "
            "'value': 1}], its dice [5, 5, 5] give [None]",
        ),
        (
            look_up,
            _detail(entry=[16, 16], text_rolls=[]),
            f"entry #{look_up}: its detail.entry is [16, 16], its dice [5, 5, 5] give 15",
        ),
        (stun, lambda r: r.update(total=9), f"entry #{stun}: its total is 9, its dice [2, 5] give 7"),
        (stun, _detail(entry=15), f"entry #{stun}: the table FEAR has no row 15"),
        (table, _detail(range=[10, 11]), f"entry #{table}: the table FEAR has no row [10, 11]"),
    ]


@pytest.mark.dialect  # raw edits of the ledger on each backend
def test_verify_recomputes_named_dice_and_refuses_rows_the_table_lacks(cli):
    seqs = _rolled(cli)
    assert cli.json("history", "verify")["ok"]
    drop_ledger_guards(cli.db)
    for seq, change, words in _forgeries(seqs):
        with raw_connection(cli.db) as conn:
            original = json.loads(conn.execute(f"SELECT record FROM ledger WHERE seq = {seq}").fetchone()[0])
        rehash_from(cli.db, seq, change)
        report = cli.json("history", "verify", expect=1)
        assert (report["ok"], report["bad_seq"], report["reason"]) == (False, seq, words), report
        rehash_from(cli.db, seq, lambda record, was=original: (record.clear(), record.update(copy.deepcopy(was))))
    assert cli.json("history", "verify")["ok"]  # every forgery put back: intact again


@pytest.mark.dialect
def test_import_refuses_named_dice_and_rows_verify_refuses(cli, tmp_path: Path):
    seqs = _rolled(cli)
    export = tmp_path / "campaign.jsonl"
    cli.run("export", str(export))
    lines = export.read_text(encoding="utf-8").splitlines()
    forged = tmp_path / "forged.jsonl"
    for seq, change, words in _forgeries(seqs):
        forged.write_text("\n".join(_rehashed(lines, seq, change)) + "\n", "utf-8")
        refused = cli.error("import", str(forged), "--as-name", "写し", code=1)
        assert refused == f"error: fair dice: {words}; nothing imported"
    assert [c["name"] for c in cli.json("list")] == ["テスト卓"]  # nothing written
    plain = tmp_path / "plain.jsonl"
    plain.write_text("\n".join(_rehashed(lines, seqs["text"], lambda r: None)) + "\n", "utf-8")
    assert "chain verified" in cli.run("import", str(plain), "--as-name", "写し").stdout


def test_an_older_text_roll_without_its_minimum_verifies_by_its_rows_own(cli):
    """A record written before the minimum was recorded is recomputed by the row's own."""
    seqs = _rolled(cli)
    drop_ledger_guards(cli.db)
    rehash_from(cli.db, seqs["text"], lambda r: r["detail"]["text_roll"].pop("min"))
    rehash_from(cli.db, seqs["look_up"], lambda r: [code.pop("min") for code in r["detail"]["text_rolls"]])
    assert cli.json("history", "verify")["ok"]
    rehash_from(cli.db, seqs["text"], _text(2))
    assert (
        cli.json("history", "verify", expect=1)["reason"]
        == f"entry #{seqs['text']}: its total is 2, its dice [2] give 1"
    )


def test_a_fright_roll_recorded_before_it_named_its_effect_is_said_not_failed(cli):
    seqs = _rolled(cli)
    drop_ledger_guards(cli.db)
    rehash_from(cli.db, seqs["stun"], lambda r: r["detail"].pop("effect"))
    report = cli.json("history", "verify")
    assert report["ok"] and report["fair"]["unlinked"] == 1
    said = cli.run("history", "verify").stdout
    assert "1 fright rolls recorded before they named their effect: totals recomputed only" in said

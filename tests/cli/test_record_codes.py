"""New ledger records hold codes and numbers; the words are made when shown (campaign.labels).

A fright check records its condition as {"condition": "stun", "duration": 4, "unit":
"turn", "recovery": "auto"}, its table roll as the table's name and entry number, and a
sub-roll by its purpose, never the Japanese or English sentence; `history show` still
reads in Japanese. Records written before (tests/data/round1.db) hold the sentences and
show them unchanged, and the words made from their codes are the very words they hold.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

from campaign import i18n, labels
from campaign.core.fright import FRIGHT_TABLE
from campaign.seeds import load_tables

ROUND1 = Path(__file__).resolve().parents[1] / "data" / "round1.db"
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
ENTRY_10 = ["fright", "鈴音", "--mod", "-1", "--dice", "6,6,5,1,1,1,4"]  # stun for 1D (4) turns


def _raw_records(cli, tmp_path) -> dict[int, dict]:
    """The records exactly as hashed, from an export (the same text proofs and import see)."""
    out = tmp_path / "export.jsonl"
    cli.run("export", str(out))
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return {
        record["seq"]: record for record in (json.loads(line["record"]) for line in lines if line["type"] == "entry")
    }


def test_a_fright_record_holds_codes_and_history_shows_the_words(gurps, tmp_path):
    result = gurps.json(*ENTRY_10)
    seq = result["seq"]
    shown = gurps.json("history", "show", str(seq))
    detail = shown["detail"]
    # the record: codes and numbers only, not one Japanese character
    assert not JAPANESE.search(json.dumps(detail, ensure_ascii=False)), detail
    assert {k: detail["table"][k] for k in ("name", "entry")} == {"name": FRIGHT_TABLE, "entry": 10}
    assert "ja" not in detail["table"] and "en" not in detail["table"]
    [effect] = detail["effects"]
    assert {k: effect[k] for k in ("kind", "condition", "duration", "unit", "recovery")} == {
        "kind": "condition",
        "condition": "stun",
        "duration": 4,
        "unit": "turn",
        "recovery": "will",
    }
    assert not set(labels.CONDITION_TEXT_KEYS) & set(effect)
    raw = _raw_records(gurps, tmp_path)
    assert raw[seq]["detail"] == detail
    assert [raw[s["seq"]]["reason"] for s in shown["sub_entries"]] == [None, None]
    assert [raw[s["seq"]]["detail"]["purpose"] for s in shown["sub_entries"]] == ["table", "stun_turns"]

    # shown: the words, made from the codes, as the fright command itself printed them
    entry = load_tables()[FRIGHT_TABLE].entry_for(10)
    words = shown["detail_shown"]
    assert (words["table"]["ja"], words["table"]["en"]) == (entry.ja, entry.en)
    assert words["effects"] == result["effects"]
    assert (words["effects"][0]["label_ja"], words["effects"][0]["duration_ja"]) == ("朦朧", "4ターン")
    assert [s["reason"] for s in shown["sub_entries"]] == ["fright table", "stun turns"]  # --json: English
    human = gurps.run("--lang", "ja", "history", "show", str(seq)).stdout
    assert "朦朧" in human and "4ターン" in human and entry.ja in human and "朦朧のターン数" in human
    listed = {e["seq"]: e["reason"] for e in gurps.json("history", "--all")}
    assert [listed[s["seq"]] for s in shown["sub_entries"]] == ["fright table", "stun turns"]
    assert gurps.json("history", "verify")["ok"]


def test_every_kind_of_effect_reads_the_same_from_its_codes(sqlite_gurps):
    """Conditions of each recovery, a lost attribute's cascade, a note: the command's words
    (made before the record was written) equal the words made from the record."""
    commands = [
        ["fright", "鈴音", "--mod", "-8", "--dice", "6,6,5,1,1,1,6"],  # 17: unconscious 1D minutes
        ["fright", "鈴音", "--mod", "-19", "--dice", "6,6,5,1,1,1"],  # 28: light coma, HT every 30 min
        ["fright", "鈴音", "--mod", "-23", "--dice", "6,6,5,1,1,1,6,6"],  # 32: heart attack, as the GM rules
        ["fright", "鈴音", "--mod", "-31", "--dice", "6,6,5,1,1,1"],  # 40: IQ lost with its cascade
        ["fright", "刀矢", "--mod", "-7", "--dice", "6,6,5,1,1,1,6,2"],  # 14: fatigue without an FP stat
    ]
    kinds = set()
    for command in commands:
        result = sqlite_gurps.json(*command)
        shown = sqlite_gurps.json("history", "show", str(result["seq"]))
        # names are names (a new trait's placeholder is 未命名の… until renamed); the rest is codes
        codes = [{k: v for k, v in e.items() if k != "name"} for e in shown["detail"]["effects"]]
        assert not JAPANESE.search(json.dumps(codes, ensure_ascii=False)), command
        assert shown["detail_shown"]["effects"] == result["effects"], command
        assert shown["detail_shown"]["notes"] == result["notes"], command
        assert all(isinstance(note, dict) for note in shown["detail"]["notes"])
        kinds |= {(e["kind"], e.get("recovery") or e.get("cascade")) for e in result["effects"]}
        kinds |= {"note" for _ in result["notes"]}
    assert {("condition", "ht"), ("condition", "gm"), ("lose_attribute", "mental"), "note"} <= kinds, kinds
    assert sqlite_gurps.json("history", "verify")["ok"]


def test_old_records_keep_their_words_and_the_codes_give_the_same_words():
    conn = sqlite3.connect(f"file:{ROUND1}?mode=ro", uri=True)
    try:
        records = [json.loads(text) for (text,) in conn.execute("SELECT record FROM ledger WHERE kind = 'fright'")]
    finally:
        conn.close()
    conditions = tables = subs = 0
    for record in records:
        detail = record["detail"]
        assert labels.shown_detail(record) == detail  # an old record is shown exactly as it was
        assert labels.entry_reason(record) == record["reason"]
        for effect in detail.get("effects", []):
            if effect["kind"] == "condition":
                conditions += 1
                assert labels.fright_effect(labels.strip_texts(effect)) == effect
        table = detail.get("table") if record["parent_seq"] is None else None
        if table:
            tables += 1
            codes = {k: v for k, v in table.items() if k not in labels.TABLE_TEXT_KEYS}
            assert labels.fright_table_entry(codes) == table
        if record["parent_seq"] is not None and detail.get("purpose"):
            subs += 1
            # an old record held both languages side by side; its codes give each one alone
            halves = []
            for lang in ("ja", "en"):
                i18n.use(lang)
                halves.append(labels.entry_reason({**record, "reason": None}))
            i18n.use(None)
            assert " / ".join(halves) == record["reason"]
    assert conditions and tables and subs


def test_a_danger_sense_record_holds_its_band_and_shows_the_words(tmp_path):
    """The band's own words live in campaign.core.checks2d6; the record names the band."""
    from campaign.core.checks2d6 import DANGER_BANDS
    from tests.cli.conftest import Cli
    from tests.cli.test_checks import _seed

    _seed(str(tmp_path / "campaign.db"))
    cli = Cli(str(tmp_path / "campaign.db"))
    result = cli.json("check", "danger", "鈴音", "--difficulty", "8", "--dice", "3,4")  # 9 > 8: band 1..3
    band = next(b for b in DANGER_BANDS if b.label == "1..3")
    assert (result["band"], result["band_ja"], result["band_en"]) == ("1..3", band.ja, band.en)
    shown = cli.json("history", "show", str(result["seq"]))
    assert shown["detail"]["band"] == {"lo": 1, "hi": 3, "label": "1..3"}
    assert (shown["detail_shown"]["band"]["ja"], shown["detail_shown"]["band"]["en"]) == (band.ja, band.en)
    # one language per output: the band's words in the language shown, in a sentence
    english = " ".join(cli.run("history", "show", str(result["seq"])).stdout.split())  # Rich folds long lines
    assert f"margin +1 → band 1..3: {band.en}" in english and band.ja not in english
    japanese = "".join(cli.run("--lang", "ja", "history", "show", str(result["seq"])).stdout.split())
    assert f"差+1→帯1..3:{band.ja}" in japanese and "Barely" not in japanese
    old = {"kind": "check", "detail": {"band": {"lo": 1, "hi": 3, "label": "1..3", "ja": "昔の言葉", "en": "old"}}}
    assert labels.shown_detail(old) == old["detail"]  # an older record keeps the words it holds

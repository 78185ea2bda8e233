"""Table records hold codes and numbers; the words are made when shown (campaign.table_labels).

A `table roll` records the table, modifier, raw and clamped result, the entry by its
range, its text dice and directives by their index in that entry, and its sub-entries
with no reason: not one Japanese or English sentence. `table roll`, `history show` and
the web page still read as before. tests/data/table_prose.json holds what the code before
this change printed and recorded for 35 table commands, both languages side by side
(one line "ja / en"); the same commands today print one language at a time (docs/i18n.md),
each the old output's own words in that language, and the words made from today's codes
are the words those records hold.
"""

from __future__ import annotations

import json
import re
import sqlite3

import pytest

from campaign import i18n, labels
from tests.cli.conftest import Cli
from tests.cli.test_record_codes import ROUND1, _raw_records
from tests.data import table_prose

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
JAPANESE_RUN = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]+")
ENGLISH_WORD = re.compile(r"[A-Za-z]{2,}")


def _catalog_words() -> set[str]:
    """The Japanese runs of the catalog's translations: words a Japanese output may add
    where the old output said them in English only ("(raw 48)" is now "(修正前 48)")."""
    import gettext

    from campaign.i18n import LOCALE_DIR

    with (LOCALE_DIR / "ja" / "LC_MESSAGES" / "campaign.mo").open("rb") as handle:
        catalog = gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]
    return {run for text in catalog.values() if isinstance(text, str) for run in JAPANESE_RUN.findall(text)}


CATALOG_WORDS = _catalog_words()


def one_language_each(ja: str, en: str, old: str) -> None:
    """`ja` and `en` say what the bilingual `old` said, each in one language: every
    Japanese run of `ja` is in `old` (or is the catalog's word for what `old` said in
    English), every English word of `en` is in `old`, and `en` adds no Japanese (what it
    keeps, beyond names, is the seed's own text: a reference table's cells)."""
    assert [run for run in JAPANESE_RUN.findall(ja) if run not in old and run not in CATALOG_WORDS] == [], (ja, old)
    assert [word for word in ENGLISH_WORD.findall(en) if word not in old] == [], (en, old)
    for name in ("鈴音", "刀矢", "管狐", "テスト卓", "急所", "回避"):
        en = en.replace(name, "")
    assert len(JAPANESE.findall(en)) <= len(JAPANESE.findall(old)), (en, old)  # a reference row's cells stay


FIXTURE = json.loads(table_prose.FIXTURE.read_text(encoding="utf-8"))
OLD = {
    record["seq"]: record
    for record in (json.loads(line["record"]) for line in FIXTURE["export"] if line["type"] == "entry")
}


def _codes_only(record: dict) -> str:
    """The record without what a person typed or named (a reason, a name, a quoted log line)."""
    detail = {k: v for k, v in record["detail"].items() if k != "ccfolia"}
    return json.dumps(
        {**record, "detail": detail, "reason": None, "campaign": None, "character": None}, ensure_ascii=False
    )


def _bilingual(value: object) -> object:
    """A reference row as the old records held it: a cell the seed now gives in both
    languages ({"ja": "胴体", "en": "torso"}) was one text, "胴体 / torso"."""
    if not isinstance(value, dict):
        return value
    return {
        key: f"{cell['ja']} / {cell['en']}" if isinstance(cell, dict) and set(cell) == {"ja", "en"} else cell
        for key, cell in value.items()
    }


def test_an_fmb_reroll_records_codes_and_reads_as_before(gurps, tmp_path):
    # FMB 3 (the weapon breaks; a solid crushing one rerolls) -> 7 (lose your balance)
    out = gurps.run("table", "roll", "FMB", "--weapon", "crushing", "--dice", "1,1,1,2,2,3").stdout
    seq = int(out.split()[0][1:])
    raw = _raw_records(gurps, tmp_path)
    parent, sub = raw[seq], raw[seq + 1]
    assert parent["detail"] == {
        "table": "FMB",
        "modifier": 0,
        "raw": 3,
        "result": 3,
        "entry": [3, 3],
        "text_rolls": [],
        "directives": [{"kind": "reroll", "condition": "crushing", "index": 0}],
        "declined": [],
        "reroll_stands": False,
        "truncated": False,
        "sub_rolls": 1,
    }
    assert sub["detail"] == {
        "table": "FMB",
        "modifier": 0,
        "raw": 7,
        "result": 7,
        "entry": [7, 7],
        "text_rolls": [],
        "directives": [],
        "declined": [],
        "reroll_stands": False,
        "truncated": False,
        "directive": {"kind": "reroll", "condition": "crushing", "index": 0},
        "requested_in": {"table": "FMB", "entry": [3, 3]},
        "requested_by": seq,
        "depth": 1,
    }
    assert (parent["reason"], sub["reason"]) == (None, None)
    assert not JAPANESE.search(json.dumps([parent, sub], ensure_ascii=False).replace(parent["campaign"], ""))

    reason = "reroll (only if solid crushing weapon)"
    lines = [
        "3: The weapon breaks; a solid crushing weapon (mace and the like) does not: reroll.",
        f"  ↳ #{seq + 1} {reason}: FMB [2,2,3]=7",
        "    7: Lose your balance: no action next turn, active defences -2 until then.",
    ]
    assert out == f"#{seq} FMB → [1,1,1] = 3\n" + "".join(f"  {line}\n" for line in lines)
    shown = gurps.json("history", "show", str(seq))  # --json: English
    assert shown["detail"] == parent["detail"] and shown["detail_shown"]["lines"] == lines
    assert shown["detail_shown"]["name"] == "ベーシック・ファンブル表"
    assert [s["reason"] for s in shown["sub_entries"]] == [reason]
    japanese = [
        "3: 武器が壊れる。ただし硬い叩き武器(メイス等)は壊れず振り直し。",
        f"  ↳ #{seq + 1} 振り直し (「硬い叩き武器」の場合のみ): FMB [2,2,3]=7",
        "    7: 体勢を崩す。次ターンは行動できず、その手番まで能動防御-2。",
    ]
    human = gurps.run("--lang", "ja", "history", "show", str(seq)).stdout
    assert "武器が壊れる" in human and "「硬い叩き武器」の場合のみ" in human  # (Rich folds the long lines)
    out = gurps.run("--lang", "ja", "table", "roll", "FMB", "--weapon", "crushing", "--dice", "1,1,1,2,2,3").stdout
    assert out == f"#{seq + 2} FMB → [1,1,1] = 3\n" + "".join(f"  {line}\n" for line in japanese).replace(
        f"#{seq + 1} ", f"#{seq + 3} "
    )
    assert {e["seq"]: e["reason"] for e in gurps.json("history", "--all")}[seq + 1] == reason
    assert gurps.json("history", "verify")["ok"]


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    """The fixture's commands run on today's code: their output and records."""
    directory = tmp_path_factory.mktemp("table-codes")
    patch = pytest.MonkeyPatch()
    patch.setenv("XDG_CONFIG_HOME", str(directory / "config"))
    patch.setenv("XDG_DATA_HOME", str(directory / "data"))
    try:
        patch.setenv("CAMPAIGN_LANG", "ja")
        japanese, _export = table_prose.run(str(directory / "japanese.db"), directory)
        patch.setenv("CAMPAIGN_LANG", "en")
        outputs, export = table_prose.run(str(directory / "campaign.db"), directory)
        shown = {
            seq: Cli(str(directory / "campaign.db")).json("history", "show", str(seq))
            for seq, record in OLD.items()
            if record["kind"] == "table" and record["parent_seq"] is None
        }
    finally:
        patch.undo()
    records = {
        record["seq"]: record for record in (json.loads(line["record"]) for line in export if line["type"] == "entry")
    }
    return (outputs, japanese), records, shown


def test_the_commands_print_what_they_printed_before_one_language_at_a_time(replayed):
    (outputs, japanese), _, _ = replayed
    assert len(outputs) == len(japanese) == len(FIXTURE["outputs"]) == len(table_prose.COMMANDS)
    for command, before, ja, en in zip(table_prose.COMMANDS, FIXTURE["outputs"], japanese, outputs):
        before = before.replace("log: html-p, utf-8", "log: HTML (<p> export), UTF-8")  # codes became words
        assert en.splitlines()[0] == before.splitlines()[0], command  # the dice line (import-log: its summary)
        if command[0] != "import-log":  # the summary is a sentence, in the output's language
            assert ja.splitlines()[0] == before.splitlines()[0], command
        one_language_each(ja, en, before)


def test_new_table_records_hold_no_words(replayed):
    _, records, _ = replayed
    tables = [r for r in records.values() if r["kind"] == "table"]
    assert len(tables) == len([r for r in OLD.values() if r["kind"] == "table"]) > 50
    for record in tables:
        detail = record["detail"]
        assert not JAPANESE.search(_codes_only(record)), record
        assert not {"name", "name_en", "text_ja", "text_en", "lines"} & set(detail), record
        assert "ja" not in json.dumps(detail.get("text_roll") or {})
        if record["parent_seq"] is not None:
            assert record["reason"] is None
        if record["source"] == "ccfolia":
            assert set(detail["ccfolia"]) >= {"line", "speaker", "table_name"}  # the log, quoted as it was


def test_the_words_made_from_codes_are_the_words_the_old_records_hold(replayed):
    """For the same roll, the old record's words (entry texts, table names, text dice,
    directives, lines, sub-entry reasons) equal those made from the new record's codes."""
    _, records, shown = replayed
    children: dict[int, list[dict]] = {}
    for record in records.values():
        if record["parent_seq"] is not None:
            children.setdefault(record["parent_seq"], []).append(record)
    compared = set()
    for seq, old in OLD.items():
        if old["kind"] != "table":
            continue
        new = records[seq]
        assert {k: new[k] for k in ("kind", "expression", "dice", "total", "parent_seq", "source")} == {
            k: old[k] for k in ("kind", "expression", "dice", "total", "parent_seq", "source")
        }
        subs = sorted(children.get(seq, []), key=lambda r: r["seq"])
        words = labels.shown_detail(new, subs)  # English (CAMPAIGN_LANG=en)
        assert {k: _bilingual(words.get(k)) for k in old["detail"] if k not in ("ccfolia", "lines")} == {
            k: v for k, v in old["detail"].items() if k not in ("ccfolia", "lines")
        }, seq
        i18n.use("ja")
        japanese_words, japanese_reason = labels.shown_detail(new, subs), labels.entry_reason(new)
        i18n.use(None)
        if "lines" in old["detail"]:
            one_language_each(
                "\n".join(japanese_words["lines"]), "\n".join(words["lines"]), "\n".join(old["detail"]["lines"])
            )
        if old["reason"] is None or not old["parent_seq"]:
            assert labels.entry_reason(new) == old["reason"], seq
        else:  # a sub-entry's reason, made from its codes: one language of the old "ja / en"
            one_language_each(japanese_reason, labels.entry_reason(new), old["reason"])
        compared |= set(old["detail"]) | ({"reason"} if old["reason"] and old["parent_seq"] else set())
        if seq in shown:  # `history show`: the same words, the sub-entries' reasons too
            assert shown[seq]["detail_shown"] == words
            for sub in shown[seq]["sub_entries"]:
                one_language_each("", sub["reason"], OLD[sub["seq"]]["reason"])
    assert {
        "name",
        "name_en",
        "entry",
        "text_ja",
        "text_en",
        "text_rolls",
        "directives",
        "declined",
        "directive",
        "text_roll",
        "lines",
        "row",
        "reason",
    } <= compared, compared


def test_old_table_records_still_verify_and_show_their_words(tmp_path):
    """The records the old code wrote, imported: verified, and shown as they are."""
    dump = tmp_path / "old.jsonl"
    dump.write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in FIXTURE["export"]), encoding="utf-8"
    )
    cli = Cli(str(tmp_path / "old.db"))
    cli.run("import", str(dump))
    assert cli.json("history", "verify")["ok"]
    parents = [seq for seq, r in OLD.items() if r["kind"] == "table" and r["parent_seq"] is None]
    for seq in parents:
        shown = cli.json("history", "show", str(seq))
        assert shown["detail"] == OLD[seq]["detail"] and "detail_shown" not in shown
        assert [s["reason"] for s in shown["sub_entries"]] == [OLD[s["seq"]]["reason"] for s in shown["sub_entries"]]
    twice = next(seq for seq in parents if len(OLD[seq]["detail"]["lines"]) > 3)
    human = cli.run("history", "show", str(twice)).stdout
    assert OLD[twice]["detail"]["text_ja"][:12] in human and OLD[twice + 1]["reason"] in human

    conn = sqlite3.connect(f"file:{ROUND1}?mode=ro", uri=True)
    try:
        first = [json.loads(text) for (text,) in conn.execute("SELECT record FROM ledger WHERE kind = 'table'")]
    finally:
        conn.close()
    assert first
    for record in first:  # first-release records, older still: as they are
        assert labels.shown_detail(record) == record["detail"] and labels.entry_reason(record) == record["reason"]


def test_a_record_naming_what_the_seeds_lack_is_shown_as_it_is():
    record = {
        "kind": "table",
        "parent_seq": None,
        "detail": {"table": "NOPE", "modifier": 0, "raw": 7, "result": 7, "entry": [7, 7], "sub_rolls": 0},
    }
    assert labels.shown_detail(record) == record["detail"]
    sub = {
        "kind": "table",
        "parent_seq": 1,
        "reason": None,
        "detail": {"directive": {"kind": "reroll", "index": 5}, "requested_in": {"table": "FMB", "entry": [3, 3]}},
    }
    assert labels.entry_reason(sub) is None

"""The record rule (campaign.ledger_scan.record_text_problem): a record is exactly the
canonical JSON of itself, valid UTF-8, without lone surrogates, shallow; `import` and
`history verify` (both backends; the SQLite fast path in test_verify_fast.py) refuse
anything else, naming the entry.

On main a record holding the escape `\\ud800` imported and verified, after which
`history`, the web pages and every proof failed; records spelled non-canonically (keys
out of order, spaces, escaped characters) imported and made later proofs fail.
"""

from __future__ import annotations

import json

import pytest

from campaign import ledger
from tests.cli.conftest import Cli
from tests.integration.rawdb import drop_ledger_guards, raw_connection

pytestmark = pytest.mark.dialect

SPELLINGS = {
    "a \\ud800 escape": (lambda r: r.replace('"actor":"GM"', '"actor":"GM\\ud800"'), "lone surrogate"),
    "a \\udc00 escape alone": (lambda r: r.replace('"actor":"GM"', '"actor":"\\udc00GM"'), "lone surrogate"),
    "keys out of order": (
        lambda r: json.dumps(dict(reversed(json.loads(r).items())), ensure_ascii=False, separators=(",", ":")),
        "not in canonical JSON",
    ),
    "spaces": (lambda r: json.dumps(json.loads(r), ensure_ascii=False, sort_keys=True), "not in canonical JSON"),
    "characters escaped": (
        lambda r: json.dumps(json.loads(r), sort_keys=True, separators=(",", ":")),
        "not in canonical JSON",
    ),
    "an escaped slash": (lambda r: r.replace('"actor":"GM"', '"actor":"G\\/M"'), "not in canonical JSON"),
    "a key twice": (lambda r: r[:-1] + ',"voidable":true}', "appears twice"),
    "NaN": (lambda r: r[:-1] + ',"zz":NaN}', "NaN is not JSON"),
    "nesting 100 deep": (lambda r: r[:-1] + ',"zz":' + "[" * 100 + "]" * 100 + "}", "more than 64 levels"),
}


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> list[str]:
    folder = tmp_path_factory.mktemp("records")
    source = Cli(str(folder / "source.db"))
    source.run("init", "記録卓")
    source.run("player", "add", "Aki")
    source.run("char", "add", "鈴音", "--player", "Aki", "--stat", "Will=11")
    for faces in ("1,2,3", "4,5,6", "6,6,6"):
        source.run("roll", "3D6<=11", "--char", "鈴音", "--dice", faces)
    path = folder / "c.jsonl"
    source.run("export", str(path))
    return path.read_text(encoding="utf-8").splitlines()


def _respelled(lines: list[str], seq: int, change) -> tuple[list[str], int]:
    """The export with entry seq's record text changed and every later hash recomputed
    (as a forger would): only the spelling rule can catch it. Returns the bad line."""
    out, prev, bad = [], None, 0
    for number, line in enumerate(lines, start=1):
        item = json.loads(line)
        if item["type"] == "entry":
            record = item["record"]
            if json.loads(record)["seq"] == seq:
                record, bad = change(record), number
            if bad:
                item.update(record=record, prev_hash=prev or item["prev_hash"])
                item["hash"] = ledger.chain_hash(item["prev_hash"], record)
            prev = item["hash"]
        elif item["type"] == "footer":
            item["head"] = prev
        out.append(json.dumps(item, ensure_ascii=False))
    return out, bad


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_import_refuses_a_record_not_spelled_canonically(db_url, tmp_path, exported, spelling):
    change, reason = SPELLINGS[spelling]
    lines, bad = _respelled(exported, 5, change)
    path = tmp_path / "respelled.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    target = Cli(db_url)
    message = target.error("import", str(path), code=1)
    assert message.startswith(f"error: line {bad}: entry #5: ") and reason in message, message
    assert message.endswith("; nothing imported") and len(message.splitlines()) == 1
    assert target.json("list") == []


def test_the_untouched_export_imports(db_url, tmp_path, exported):
    lines, _ = _respelled(exported, 5, lambda r: r)
    path = tmp_path / "same.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert Cli(db_url).json("import", str(path))["entries"] == 6


@pytest.mark.parametrize(
    "spelling", ["a \\ud800 escape", "keys out of order", "characters escaped", "NaN", "nesting 100 deep"]
)
def test_verify_refuses_a_stored_record_not_spelled_canonically(db_url, tmp_path, exported, spelling):
    """A tamperer with the database (triggers dropped) rewrites one record and rehashes
    the chain after it: verify names the entry and the rule, on either backend."""
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(exported) + "\n", encoding="utf-8")
    target = Cli(db_url)
    target.run("import", str(path))
    drop_ledger_guards(db_url)
    change, reason = SPELLINGS[spelling]
    with raw_connection(db_url) as conn:
        marker = "?" if conn.__class__.__module__.startswith("sqlite3") else "%s"
        rows = conn.execute("SELECT seq, record, prev_hash FROM ledger WHERE seq >= 4 ORDER BY seq").fetchall()
        prev = rows[0][2]
        for seq, record, _ in rows:
            record = change(record) if seq == 4 else record
            digest = ledger.chain_hash(prev, record)
            conn.execute(
                f"UPDATE ledger SET record = {marker}, prev_hash = {marker}, hash = {marker} WHERE seq = {marker}",
                (record, prev, digest, seq),
            )
            prev = digest
        conn.commit()
    report = target.json("history", "verify", "--chain-only", expect=1)
    assert report["ok"] is False and report["bad_seq"] == 4 and reason in report["reason"], report

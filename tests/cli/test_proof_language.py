"""The proof checkers' rejections in one language: the standalone proofcheck.py words every
line it prints from its own table (English templates, their Japanese), and `campaign proof
check` prints the same sentence for the same fault, in Japanese and in English."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

import campaign.proofcheck as standalone
from campaign import i18n
from campaign.chain import GENESIS_HASH, canonical_json, chain_hash
from campaign.cli.app import app
from campaign.services.ledger import proof as project

SOURCE = Path(standalone.__file__)
SEED_HASH = "ab" * 32


def synthetic(*records: dict | str, campaign: str = "卓") -> dict:
    """A bundle of these records (seq 1, 2, ...; a str is the record's exact text) and a
    seal after them, every hash computed: only the fault put into a record is wrong."""
    prev, entries = GENESIS_HASH, []
    for seq, record in enumerate([*records, {"kind": "seal"}], start=1):
        text = record if isinstance(record, str) else canonical_json({"campaign": campaign, "seq": seq, **record})
        entries.append({"prev_hash": prev, "hash": chain_hash(prev, text), "record": text})
        prev = entries[-1]["hash"]
    return {
        "format": "campaign-proof",
        "version": 1,
        "campaign": campaign,
        "seq": 1,
        "anchor": GENESIS_HASH,
        "head": prev,
        "head_seq": len(entries),
        "entries": entries,
    }


def encoded(bundle: dict) -> bytes:
    return json.dumps(bundle, ensure_ascii=False).encode("utf-8")


def _changed(change: Callable[[dict], object], *records: dict | str) -> bytes:
    bundle = synthetic(*records)
    change(bundle)
    return encoded(bundle)


FAIR_ROLL = {
    "kind": "roll",
    "dice": [1, 2],
    "detail": {"fair": {"commit": 1, "seq": 2, "from": 0, "draws": [[6, 3], [6, 4]]}},
}

# (bundle bytes, the English line, the Japanese line): faults that carry numbers and values.
CASES = {
    "not utf-8": (
        b'{"a": "\xff"}',
        "the bundle is not UTF-8 text (byte 7)",
        "証明の束が UTF-8 のテキストではありません (7 バイト目)",
    ),
    "not json": (
        b'{"format": 1 "x"}',
        "the bundle is not valid JSON (Expecting ',' delimiter: line 1 column 14 (char 13))",
        "証明の束が正しい JSON ではありません (1 行 14 列目、位置 13: 区切りの ',' がありません)",
    ),
    "head_seq": (
        _changed(lambda b: b.update(head_seq=5), {"kind": "roll"}),
        "head_seq 5 does not match 2 entries from #1",
        "head_seq 5 が #1 からの記録 2 件と合いません",
    ),
    "fields": (
        _changed(lambda b: b.update(extra=1) or b.pop("anchor"), {"kind": "roll"}),
        "the bundle's fields are wrong (missing ['anchor'], unexpected ['extra'])",
        "証明の束の項目が違います (不足: ['anchor']、余分: ['extra'])",
    ),
    "record seq": (
        encoded(synthetic({"kind": "roll", "seq": 9})),
        "entry #1: record says seq 9, expected 1",
        "記録 #1: 記録の seq が 9 です (1 のはずです)",
    ),
    "key twice": (
        encoded(synthetic('{"campaign":"卓","seq":1,"seq":1}')),
        "entry #1: record: key 'seq' appears twice in one object",
        "記録 #1: 記録の中身: 1つのオブジェクトにキー 'seq' が2回出てきます",
    ),
    "link": (
        _changed(lambda b: b["entries"][1].update(prev_hash="1" * 64), {"kind": "roll"}),
        "entry #2: prev_hash does not link to entry #1",
        "記録 #2: prev_hash が記録 #1 につながりません",
    ),
    "reveal": (
        encoded(synthetic({"kind": "reveal", "detail": {"reveals": 7}})),
        "entry #1: the reveal names #7, which is no earlier secret roll",
        "記録 #1: 公開が指す #7 は、それより前の秘密のロールではありません",
    ),
    "seed commitment": (
        encoded(synthetic({"kind": "seed_commit", "detail": {"commitment": "xyz"}})),
        "entry #1: fair dice: seed commitment #1 holds no SHA-256 hex digest",
        "記録 #1: 公正なダイス: シードの公約 #1 に SHA-256 の16進ダイジェストがありません",
    ),
    "fair draws": (
        encoded(synthetic({"kind": "seed_commit", "detail": {"commitment": SEED_HASH}}, FAIR_ROLL)),
        "entry #2: fair dice: entry #2: its dice [1, 2] are not the derived draws [3, 4]",
        "記録 #2: 公正なダイス: 記録 #2: 出目 [1, 2] がシードから導いた値 [3, 4] と違います",
    ),
    "fair dice not a list": (  # once a TypeError in both checkers
        encoded(synthetic({"kind": "seed_commit", "detail": {"commitment": SEED_HASH}}, {**FAIR_ROLL, "dice": 5})),
        "entry #2: fair dice: entry #2: its dice 5 are not the derived draws [3, 4]",
        "記録 #2: 公正なダイス: 記録 #2: 出目 5 がシードから導いた値 [3, 4] と違います",
    ),
    "head": (
        _changed(lambda b: b.update(head="a" * 64), {"kind": "roll"}),
        f"entry #2: the last entry's hash is not the bundle's head {'a' * 64}",
        f"記録 #2: 最後の記録のハッシュが証明の束の先頭 {'a' * 64} と一致しません",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_each_checker_words_a_fault_with_its_numbers_in_each_language(case):
    data, english, japanese = CASES[case]
    with pytest.raises(standalone.Rejected) as mine:
        standalone.check(standalone.load(data))
    assert str(mine.value) == english
    assert standalone.rejection(mine.value.reason, mine.value.seq, "ja") == japanese
    assert standalone.rejection(mine.value.reason, mine.value.seq, "en") == english
    for lang, expected in (("en", english), ("ja", japanese)):
        i18n.use(lang)  # the project's checker words its own reasons in the output's language
        try:
            with pytest.raises(project.ProofRejected) as theirs:
                project.check_bundle(project.load_bundle(data))
        finally:
            i18n.use(None)
        assert standalone.rejection(theirs.value.reason, theirs.value.seq, lang) == expected, lang
        assert (theirs.value.english, theirs.value.seq) == (mine.value.reason, mine.value.seq), lang  # --json's


def test_a_copy_of_the_checker_rejects_in_japanese_on_its_own(tmp_path):
    """Copied alone into an empty folder and run isolated (-I: nothing of the project is
    importable), it says what `campaign proof check` says, line for line."""
    player = tmp_path / "player"
    player.mkdir()
    script = player / "proofcheck.py"
    shutil.copy(SOURCE, script)
    data, english, japanese = CASES["fair draws"]
    bundle = player / "証明.json"
    bundle.write_bytes(data)

    def alone(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-I", str(script), str(bundle), *args], capture_output=True, text=True, cwd=player, env=env
        )

    for run in (alone("--lang", "ja"), alone(CAMPAIGN_LANG="ja"), alone(LANG="ja_JP.UTF-8")):
        assert (run.returncode, run.stdout, run.stderr) == (1, "", f"証明は成り立ちません: {japanese}\n")
    assert alone("--lang", "en", LANG="ja_JP.UTF-8").stderr == f"proof rejected: {english}\n"
    as_json = alone("--json", CAMPAIGN_LANG="ja")
    assert json.loads(as_json.stdout) == {"ok": False, "bad_seq": 2, "reason": english.split(": ", 1)[1]}
    missing = subprocess.run(
        [sys.executable, "-I", str(script), "無い.json", "--lang", "ja"], capture_output=True, text=True, cwd=player
    )
    assert (missing.returncode, missing.stderr) == (1, "エラー: 無い.json を読めません: ファイルがありません\n")

    cli = CliRunner().invoke(
        app, ["--lang", "ja", "--db", str(tmp_path / "none" / "x.db"), "proof", "check", str(bundle)]
    )
    assert (cli.exit_code, cli.stderr) == (1, f"証明は成り立ちません: {japanese}\n")


def test_both_checkers_agree_in_japanese_on_every_changed_byte():
    """Every byte of a small bundle (a fair roll, a reveal, a seal) changed: both checkers
    reject it with the same Japanese line, and the standalone's line is translated."""
    data = encoded(
        synthetic(
            {"kind": "seed_commit", "detail": {"commitment": SEED_HASH}},
            {**FAIR_ROLL, "dice": [3, 4]},
            {"kind": "reveal", "detail": {"reveals": 1}},
        )
    )
    with pytest.raises(standalone.Rejected):  # the reveal of a seed commitment: no secret roll
        standalone.check(standalone.load(data))
    lines: set[str] = set()
    i18n.use("ja")
    try:
        for position in range(len(data)):
            tampered = data[:position] + bytes([data[position] ^ 0x01]) + data[position + 1 :]
            with pytest.raises(standalone.Rejected) as mine:
                standalone.check(standalone.load(tampered))
            with pytest.raises(project.ProofRejected) as theirs:
                project.check_bundle(project.load_bundle(tampered))
            line = standalone.rejection(mine.value.reason, mine.value.seq, "ja")
            assert line == standalone.rejection(theirs.value.reason, theirs.value.seq, "ja"), position
            assert theirs.value.english == mine.value.reason, position  # what --json says, in English
            assert standalone.reason_text(mine.value.reason, "ja") != mine.value.reason, mine.value.reason
            lines.add(line)
    finally:
        i18n.use(None)
    assert len(lines) > 10


# --- the table ---------------------------------------------------------------------------

FIELD = re.compile(r"\{(\w+)(?:![rsa])?\}")


def test_every_sentence_of_the_table_has_its_japanese():
    assert len(standalone.JA) > 60
    for english, japanese in standalone.JA.items():
        assert english == english.strip() and japanese, english
        assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", japanese), (english, japanese)  # not an English line
        assert sorted(FIELD.findall(english)) == sorted(FIELD.findall(japanese)), english
        assert "!r" not in japanese, japanese  # a value read back from a line is already its repr


def _worded(tree: ast.AST) -> list[str]:
    """The English templates proofcheck.py passes to Rejected, BadHead and message()."""
    found = []
    for node in ast.walk(tree):
        called = node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else None
        if called in ("Rejected", "BadHead", "message") and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant):
                found.append(first.value)
            elif isinstance(first, ast.Name) and isinstance(getattr(standalone, first.id, None), str):
                found.append(getattr(standalone, first.id))
    return found


def test_every_rejection_the_checker_raises_has_japanese():
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    worded = _worded(tree)
    assert len(worded) > 45
    assert [text for text in worded if text not in standalone.JA] == []
    # Local names holding a template (foreseen = "..."; message(foreseen, ...)) are in the table too.
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    for node in (inner for function in functions for inner in ast.walk(function)):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and "{" in str(node.value.value):
            assert node.value.value in standalone.JA, node.value.value
    # No line is put together from an f-string: only describe() and fair_face() use them.
    for function in functions:
        if function.name not in ("describe", "fair_face", "_pattern"):
            assert not [n for n in ast.walk(function) if isinstance(n, ast.JoinedStr)], function.name


def test_the_project_checkers_own_rejections_are_the_tables_words():
    """`proof check` words its own rejections through the catalog: the same msgids as the
    table, and the catalog's Japanese is the table's, so both checkers read the same."""
    tree = ast.parse(Path(project.__file__).read_text(encoding="utf-8"))
    raised = [
        inner.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("ProofRejected", "BadInput")
        for inner in ast.walk(node)
        if isinstance(inner, ast.Call) and getattr(inner.func, "id", None) in ("_", "N_") and inner.args
    ]
    assert len(raised) > 20
    assert [msgid for msgid in raised if msgid not in standalone.JA and "{path}" not in msgid] == []
    i18n.use("ja")
    try:
        differ = {msgid: (i18n._(msgid), standalone.JA[msgid]) for msgid in raised if msgid in standalone.JA}
    finally:
        i18n.use(None)
    assert {msgid: pair for msgid, pair in differ.items() if pair[0] != pair[1]} == {}


def test_a_line_the_table_does_not_word_is_left_as_it_is():
    already = "証明の束に記録がありません"
    assert standalone.reason_text(already, "ja") == already
    assert standalone.reason_text("something else entirely", "ja") == "something else entirely"
    assert standalone.reason_text("record: NaN is not JSON", "ja") == "記録の中身: NaN は JSON の値ではありません"
    assert standalone.rejection("hash does not match the entry's content (the entry was edited)", 4, "en") == (
        "entry #4: hash does not match the entry's content (the entry was edited)"
    )
    several = "--head 3f1c9a07e2b4d5c6: matches seals #3 and #8; give more digits"
    assert (
        standalone.reason_text(several, "ja")
        == "--head 3f1c9a07e2b4d5c6: 封印 #3 と #8 の両方に一致します。桁を増やしてください"
    )


def test_the_checkers_usage_help_and_argument_errors_are_in_its_language():
    def alone(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-I", str(SOURCE), *args], capture_output=True, text=True, env={})

    usage = "proofcheck [-h] [--head HEAD] [--json] [--lang {ja,en}] bundle"
    shown = alone("--help", "--lang", "ja")
    assert shown.returncode == 0 and shown.stdout.splitlines()[:6] == [
        f"使い方: {usage}",
        "",
        "キャンペーンの証明の束を、オフラインで検証します。",
        "",
        "引数:",
        "  bundle          `campaign history proof` が書いたJSONファイル",
    ]
    assert "\nオプション:\n  -h, --help      このヘルプを表示して終わります\n" in shown.stdout
    assert not re.search(r"\b(usage|options|positional|show)\b", shown.stdout)
    cells = [
        sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line) for line in shown.stdout.splitlines()
    ]
    assert max(cells) <= 80  # argparse counts characters; the Japanese is written to fit 80 cells
    for args, problem in (
        (("--lang", "ja"), "次の引数が必要です: bundle"),
        (("x.json", "--lang", "ja", "--head"), "引数 --head には値を1つ渡してください"),
        (("x.json", "--lang", "ja", "--extra"), "知らない引数です: --extra"),
        (("x.json", "--lang", "ja", "--json=yes"), "引数 --json: 値 'yes' は受け付けません"),
    ):
        refused = alone(*args)
        assert (refused.returncode, refused.stdout, refused.stderr) == (2, "", f"使い方: {usage}\nエラー: {problem}\n")
    english = alone("x.json", "--lang", "en", "--head")
    assert english.stderr == f"usage: {usage}\nerror: argument --head: expected one argument\n"
    assert alone("--help").stdout.startswith(f"usage: {usage}\n\nCheck a campaign proof bundle offline.\n")


# --- --json: the same document in every language -----------------------------------------

JSON_CASES = {**{case: (data, []) for case, (data, _english, _japanese) in CASES.items()}}
JSON_CASES["not your seal"] = (encoded(synthetic({"kind": "roll"})), ["--head", "0" * 64])


@pytest.mark.parametrize("case", JSON_CASES)
def test_proof_check_json_is_the_same_in_both_languages_and_the_text_is_not(tmp_path, case):
    """`proof check --json` of a faulty bundle: byte for byte the same under CAMPAIGN_LANG=ja
    and =en, the English reason the standalone checker's --json gives (ProofRejected.english,
    and --json reads in English anyway: cli/output.py); without --json the line on stderr
    is Japanese under ja."""
    data, args = JSON_CASES[case]
    path = tmp_path / "proof.json"
    path.write_bytes(data)
    with pytest.raises(standalone.Rejected) as mine:
        standalone.check(standalone.load(data), standalone.normalize_head(args[1]) if args else None)

    def run(lang: str, *extra: str) -> tuple[int, str, str]:
        db = str(tmp_path / "none" / "x.db")
        done = CliRunner().invoke(
            app, ["--db", db, "proof", "check", str(path), *args, *extra], env={"CAMPAIGN_LANG": lang}
        )
        return done.exit_code, done.stdout, done.stderr

    (ja_code, ja_json, _ja_line), (en_code, en_json, _en_line) = run("ja", "--json"), run("en", "--json")
    assert (ja_code, en_code) == (1, 1)
    assert ja_json.encode("utf-8") == en_json.encode("utf-8")
    assert json.loads(en_json) == {"ok": False, "bad_seq": mine.value.seq, "reason": mine.value.reason}
    japanese = standalone.rejection(mine.value.reason, mine.value.seq, "ja")
    assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", japanese) and japanese != mine.value.reason
    assert run("ja") == (1, "", f"証明は成り立ちません: {japanese}\n")
    assert run("en") == (1, "", f"proof rejected: {str(mine.value)}\n")

"""Issue 32 for skill, requests, time, export/import, proof and serve: the exact lines a
Japanese table reads, the same results in English, and the standalone proof checker
saying what `proof check` says in each language."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import campaign.proofcheck as standalone
from tests.cli.conftest import Cli


def _seq(line: str) -> str:
    return line.rsplit("#", 1)[1].rstrip(")")


def test_skill_confirmations_in_each_language(gurps: Cli):
    added = gurps.run("--lang", "ja", "skill", "add", "鈴音", "聞き耳", "14", "--attr", "IQ").stdout.strip()
    assert added == f"鈴音: 技能「聞き耳」14 (台帳 #{_seq(added)})"
    changed = gurps.run("--lang", "en", "skill", "set", "鈴音", "聞き耳", "15").stdout.strip()
    assert changed == f"鈴音: skill 聞き耳 15 (ledger #{_seq(changed)})"
    removed = gurps.run("--lang", "ja", "skill", "remove", "鈴音", "聞き耳").stdout.strip()
    assert removed == f"鈴音: 技能「聞き耳」を外しました (台帳 #{_seq(removed)})"


def test_time_and_requests_in_japanese(sqlite_gurps: Cli):
    cli = sqlite_gurps
    advanced = cli.run("--lang", "ja", "time", "advance", "1day6h").stdout.splitlines()
    assert advanced[0] == f"時間が 1日6時間 進みました: 1日目 00:00 → 2日目 06:00 (台帳 #{_seq(advanced[0])})"
    assert cli.run("--lang", "ja", "time", "show").stdout.splitlines() == [
        "現在: 2日目 06:00",
        "時間制限のある状態はありません",
    ]
    assert cli.run("--lang", "ja", "requests", "list").stdout == "未回答の取消依頼はありません\n"
    assert cli.run("--lang", "ja", "requests", "list", "--all").stdout == "取消依頼はありません\n"
    assert cli.run("--lang", "en", "requests", "list").stdout == "no open void requests\n"


def test_export_and_import_lines_in_japanese(gurps: Cli, tmp_path):
    out = tmp_path / "卓.jsonl"
    entries = len(gurps.json("history", "--all"))
    said = gurps.run("--lang", "ja", "export", str(out)).stdout.strip()
    assert said == f"テスト卓 を {out} に書き出しました (台帳 {entries} 件)"
    said = gurps.run("--lang", "ja", "import", str(out), "--as-name", "写しの卓").stdout.strip()
    assert (
        said
        == f"写しの卓 を取り込みました: 台帳 {entries} 件、ハッシュの鎖を検証済み (記録は元の名前「テスト卓」のまま)"
    )
    missing = gurps.error("--lang", "ja", "import", str(tmp_path / "無い.jsonl"), code=2)
    assert missing == f"エラー: {tmp_path / '無い.jsonl'} を読めません: ファイルがありません"


def test_serve_refusals_in_japanese(sqlite_gurps: Cli):
    assert sqlite_gurps.error("--lang", "ja", "serve", "--port", "70000", code=2) == (
        "エラー: --port は 0〜65535 で指定してください (70000 は範囲外です)"
    )
    assert sqlite_gurps.error("--lang", "ja", "serve", "--tls-cert", "x.pem", code=2) == (
        "エラー: --tls-cert と --tls-key は一緒に指定します"
    )


@pytest.fixture
def bundle(sqlite_gurps: Cli, tmp_path) -> tuple[Cli, str, str]:
    cli = sqlite_gurps
    rolled = cli.json("roll", "3D6<=12", "回避", "--char", "鈴音", "--dice", "1,4,6")
    head = cli.json("history", "seal")["head"]
    path = tmp_path / "証明.json"
    cli.run("history", "proof", str(rolled["seq"]), "-o", str(path))
    return cli, str(path), head


def test_proof_check_speaks_japanese_and_the_standalone_checker_says_the_same(bundle, monkeypatch):
    cli, path, head = bundle
    result = cli.run("--lang", "ja", "proof", "check", path, "--head", head)
    lines = result.stdout.splitlines()
    entry = json.loads(open(path, encoding="utf-8").read())
    seq, last = entry["seq"], entry["head_seq"]
    assert lines[0] == head
    assert lines[1] == (
        f"証明は成り立ちます: 記録 #{seq} は「テスト卓」の台帳の #{last} で封印された鎖にあります"
        f" ({last - seq + 1} 件を検証)"
    )
    assert lines[2].startswith(f"  #{seq} ロール 鈴音: 3D6<=12 [1,4,6] = 11 成功 « 回避 » GM が ")
    assert lines[2].endswith("Z に記録") and result.stderr == ""
    for lang in ("ja", "en"):
        monkeypatch.setenv("CAMPAIGN_LANG", lang)
        ours = cli.run("proof", "check", path)
        alone = subprocess.run([sys.executable, "-I", standalone.__file__, path], capture_output=True, text=True)
        assert alone.returncode == 0 and (alone.stdout, alone.stderr) == (ours.stdout, ours.stderr), lang
    tampered = open(path, encoding="utf-8").read().replace("1,4,6", "1,4,5", 1)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(tampered)
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    rejected = cli.error("proof", "check", path, code=1)
    assert rejected == f"証明は成り立ちません: 記録 #{seq}: ハッシュが内容と合いません (記録の書き換え)"
    alone = subprocess.run([sys.executable, "-I", standalone.__file__, path], capture_output=True, text=True)
    assert alone.returncode == 1 and alone.stderr.strip() == rejected
    english = subprocess.run(
        [sys.executable, "-I", standalone.__file__, path, "--lang", "en"], capture_output=True, text=True
    )
    assert (
        english.stderr.strip()
        == f"proof rejected: entry #{seq}: hash does not match the entry's content (the entry was edited)"
    )


def test_the_standalone_checker_picks_its_language():
    assert standalone.language(None, {"CAMPAIGN_LANG": "ja"}) == "ja"
    assert standalone.language("en", {"CAMPAIGN_LANG": "ja"}) == "en"
    assert standalone.language(None, {"LANG": "ja_JP.UTF-8"}) == "ja"
    assert standalone.language(None, {"LC_ALL": "C", "LANG": "ja_JP.UTF-8"}) == "en"
    assert standalone.language(None, {}) == "en"


def test_the_standalone_checkers_words_are_the_catalogs():
    """Kinds and outcomes read as `campaign history` shows them in Japanese."""
    from campaign import i18n
    from campaign.labels import KIND_WORDS, outcome_label

    i18n.use("ja")
    try:
        catalog = {kind: i18n._(kind) for kind in KIND_WORDS}
        assert catalog == standalone.KINDS_JA
        assert standalone.OUTCOMES["ja"] == {code: outcome_label(None, code) for code in standalone.OUTCOMES["ja"]}
    finally:
        i18n.use(None)

"""The standalone fair_check.py in one language: a copy run alone (-I, an empty folder)
prints its usage, a file it cannot read, a wrong die and its summary in Japanese or in
English, chosen as proofcheck.py chooses, with proofcheck.py's Japanese for the lines both
tables word."""

from __future__ import annotations

import ast
import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import campaign.fair_check as fair_check
import campaign.proofcheck as proofcheck
from campaign.core.fair_dice import face
from tests.cli.test_proof_language import encoded, synthetic

SOURCE = Path(fair_check.__file__)
SEED = "a3f1c2e4b5d6978812345678abcdef0011223344556677889900aabbccddeeff"
COMMITMENT = hashlib.sha256(bytes.fromhex(SEED)).hexdigest()
FACES = [face(SEED, 2, "", index, 6) for index in range(2)]


def bundle(faces: list[int]) -> bytes:
    """A seed commitment (#1), a fair roll of 2d6 showing `faces` (#2), the seed's reveal (#3)."""
    return encoded(
        synthetic(
            {"kind": "seed_commit", "detail": {"commitment": COMMITMENT}},
            {
                "kind": "roll",
                "dice": faces,
                "detail": {"fair": {"commit": 1, "seq": 2, "from": 0, "draws": [[6, f] for f in faces]}},
            },
            {"kind": "seed_reveal", "detail": {"reveals": 1, "seed": SEED, "commitment": COMMITMENT}},
        )
    )


CHANGED = FACES[0] % 6 + 1

# What each run prints (exit status, stdout, stderr) in Japanese and in English.
EXPECTED = {
    "holds": (
        0,
        "公正なダイスは成り立ちます: 公開されたシード 1 個から記録 1 件を再計算しました (シードの公開待ち 0 件)\n",
        "",
    ),
    "wrong die": (
        1,
        "",
        f"公正なダイスは成り立ちません: 記録 #2: 1 個目のダイス (d6) の出目は {CHANGED} ですが、"
        f"シードから導くと {FACES[0]} です。ダイスが書き換えられています\n",
    ),
    "missing": (1, "", "エラー: 無い.json を読めません: ファイルがありません\n"),
    "not json": (
        1,
        "",
        "エラー: 壊れた.json を読めません: 証明の束が正しい JSON ではありません "
        "(1 行 14 列目、位置 13: 区切りの ',' がありません)\n",
    ),
    "no entries": (1, "", "エラー: 空.json を読めません: 証明の束ではありません (entries がありません)\n"),
    "too deep": (1, "", "エラー: 深い.json を読めません: 証明の束の入れ子が深すぎて読めません\n"),
    "usage": (2, "", "使い方: python fair_check.py [--lang ja|en] PROOF.json\n"),
}
ENGLISH = {
    "holds": (0, "fair dice hold: 1 entries recomputed from 1 revealed seeds (0 wait for their seed)\n", ""),
    "wrong die": (
        1,
        "",
        f"fair dice rejected: entry #2: die 1 (d6) shows {CHANGED}, the seed gives {FACES[0]}: the die was changed\n",
    ),
    "missing": (1, "", "error: cannot read 無い.json: No such file or directory\n"),
    "not json": (
        1,
        "",
        "error: cannot read 壊れた.json: the bundle is not valid JSON (Expecting ',' delimiter: line 1 column 14 "
        "(char 13))\n",
    ),
    "no entries": (1, "", "error: cannot read 空.json: not a proof bundle (no entries)\n"),
    "too deep": (1, "", "error: cannot read 深い.json: the bundle is nested too deeply to read\n"),
    "usage": (2, "", "usage: python fair_check.py [--lang ja|en] PROOF.json\n"),
}
ARGS = {
    "holds": ["正しい.json"],
    "wrong die": ["書き換え.json"],
    "missing": ["無い.json"],
    "not json": ["壊れた.json"],
    "no entries": ["空.json"],
    "too deep": ["深い.json"],
    "usage": ["正しい.json", "--extra"],
}
JAPANESE_WAYS = {
    "--lang": (["--lang", "ja"], {}),
    "CAMPAIGN_LANG": ([], {"CAMPAIGN_LANG": "ja"}),
    "locale": ([], {"LANG": "ja_JP.UTF-8"}),
}
ENGLISH_WAYS = {
    "--lang": (["--lang=en"], {"LANG": "ja_JP.UTF-8"}),
    "CAMPAIGN_LANG": ([], {"CAMPAIGN_LANG": "en", "LANG": "ja_JP.UTF-8"}),
    "nothing": ([], {}),
}


@pytest.fixture(scope="module")
def player(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty folder holding a copy of fair_check.py and the bundles, nothing else."""
    folder = tmp_path_factory.mktemp("player")
    shutil.copy(SOURCE, folder / "fair_check.py")
    (folder / "正しい.json").write_bytes(bundle(FACES))
    (folder / "書き換え.json").write_bytes(bundle([CHANGED, FACES[1]]))
    (folder / "壊れた.json").write_bytes(b'{"format": 1 "x"}')
    (folder / "空.json").write_bytes(b'{"format": "campaign-proof"}')
    (folder / "深い.json").write_bytes(b"[" * 200_000)
    return folder


def alone(folder: Path, args: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    """A run of the copy, isolated (-I: nothing of the project importable)."""
    done = subprocess.run(
        [sys.executable, "-I", str(folder / "fair_check.py"), *args],
        capture_output=True,
        text=True,
        cwd=folder,
        env=env,
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("case", EXPECTED)
def test_a_copy_run_alone_prints_each_line_in_japanese(player, case):
    for way, (options, env) in JAPANESE_WAYS.items():
        assert alone(player, [*options, *ARGS[case]], env) == EXPECTED[case], way


@pytest.mark.parametrize("case", ENGLISH)
def test_a_copy_run_alone_prints_each_line_in_english(player, case):
    for way, (options, env) in ENGLISH_WAYS.items():
        assert alone(player, [*options, *ARGS[case]], env) == ENGLISH[case], way


def test_a_language_it_does_not_have_is_bad_usage_in_the_chosen_language(player):
    assert alone(player, ["--lang", "fr", "正しい.json"], {"CAMPAIGN_LANG": "ja"}) == EXPECTED["usage"]
    assert alone(player, ["--lang"], {}) == ENGLISH["usage"]


def test_the_module_checks_as_the_copy_does(player):
    """check_bundle_file keeps the English line the project translates itself."""
    assert fair_check.check_bundle_file(str(player / "正しい.json")) == {
        "ok": True,
        "seq": None,
        "problem": None,
        "revealed": 1,
        "checked": 1,
        "pending": 0,
        "abandoned": 0,
        "judged": 0,
        "unlinked": 0,
    }
    wrong = fair_check.check_bundle_file(str(player / "書き換え.json"))
    assert (wrong["seq"], wrong["problem"]) == (2, ENGLISH["wrong die"][2][len("fair dice rejected: ") : -1])
    assert (
        proofcheck.reason_text(wrong["problem"], "ja")
        == EXPECTED["wrong die"][2][len("公正なダイスは成り立ちません: ") : -1]
    )
    with pytest.raises(ValueError, match=re.escape("entry 1 of the bundle is not a ledger record")):
        (player / "番号なし.json").write_text(json.dumps({"entries": [{"record": '{"kind":"roll"}'}]}))
        fair_check.check_bundle_file(str(player / "番号なし.json"))


# --- the table ---------------------------------------------------------------------------


def _worded() -> list[str]:
    """The English templates fair_check.py words a line with: module constants and the
    strings it passes to Unfair, Unreadable and message(), or names holding one."""
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    constants = {name: value for name, value in vars(fair_check).items() if name.isupper() and isinstance(value, str)}
    locals_ = {
        target.id: node.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found = []
    for node in ast.walk(tree):
        called = node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else None
        if called in ("Unfair", "Unreadable", "message") and node.args:
            first = node.args[1] if called == "Unfair" else node.args[0]
            if isinstance(first, ast.Constant):
                found.append(first.value)
            elif isinstance(first, ast.Name) and first.id in constants:
                found.append(constants[first.id])
            elif isinstance(first, ast.Name) and first.id in locals_:
                found.append(locals_[first.id])
    return found


def test_every_line_it_prints_has_its_japanese():
    worded = _worded()
    assert len(worded) >= 20
    assert [text for text in worded if text not in fair_check.JA] == []
    for english, japanese in fair_check.JA.items():
        assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", japanese), english
        assert sorted(re.findall(r"\{(\w+)\}", english)) == sorted(re.findall(r"\{(\w+)\}", japanese)), english
    # No line is put together from an f-string: every one is a template of the table.
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    for function in (node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name != "derive"):
        assert not [n for n in ast.walk(function) if isinstance(n, ast.JoinedStr)], function.name


def test_the_lines_both_checkers_word_are_proofchecks_japanese():
    """Every problem fair_check.py finds, and the file's faults, read in proofcheck.py's
    words (so `proof check`, proofcheck.py and fair_check.py say the same); the lines only
    fair_check.py prints are its usage, verdict, summary and two faults of its own."""
    shared = {english for english in fair_check.JA if english in proofcheck.JA}
    assert {english: fair_check.JA[english] for english in shared} == {
        english: proofcheck.JA[english] for english in shared
    }
    problems = [text for text in _worded() if text.startswith(("entry #", "seed "))]
    assert len(set(problems)) == 15 and set(problems) <= shared
    assert set(fair_check.JA) - shared == {
        fair_check.USAGE,
        fair_check.HOLD,
        fair_check.REJECTED,
        fair_check.UNLINKED,
        fair_check.NO_ENTRIES,
        fair_check.NOT_A_RECORD,
        fair_check.TOO_DEEP,
    }


ENVIRONMENTS = [
    {},
    {"LANG": "ja_JP.UTF-8"},
    {"LANG": "C", "LC_MESSAGES": "ja_JP"},
    {"LC_ALL": "en_US.UTF-8", "LANG": "ja_JP.UTF-8"},
    {"LC_ALL": " ", "LANG": "ja-JP"},
    {"CAMPAIGN_LANG": "JA", "LANG": "en_US"},
    {"CAMPAIGN_LANG": "de", "LANG": "ja_JP.eucJP"},
    {"CAMPAIGN_LANG": "en", "LC_ALL": "ja_JP"},
]


@pytest.mark.parametrize("environ", ENVIRONMENTS)
@pytest.mark.parametrize("option", [None, "ja", "en", "fr", ""])
def test_it_chooses_the_language_as_proofcheck_does(environ, option):
    assert fair_check.language(option, environ) == proofcheck.language(option, environ)

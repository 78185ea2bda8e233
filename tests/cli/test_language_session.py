"""Issue 32's "done when", for the commands converted so far: a scripted session with
lang=ja prints no English word outside names, dice expressions, table codes, stat
abbreviations and what is code (an `option` or a `command` in backticks); the same
session with lang=en prints no Japanese outside names and the seed tables' texts.

Every noun is in the session: the blocks at the end of SESSION run the CLI helpers'
nouns (char show/timeline, trait, condition, award, call, invite, db, import-log, skill,
table, ref, time, requests, stats, proof, export/import, serve), refusals of each kind,
--help of a few commands and the shell fed lines on its stdin.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import pytest

from campaign.seeds import load_tables
from tests.ccfolia_logs import build
from tests.cli.conftest import Cli

# what the session's commands typed: names, reasons, and the typos the errors echo
NAMES = (
    "夜桜",
    "Aki2",
    "Akj",
    "Aki",
    "鈴音",
    "刀矢",
    "第一話",
    "第二話",
    "暗所恐怖症",
    "回避",
    "霧の中に消えた",
    "幼馴染",
    "'fr'",
    "鈴",
    "夜",
    "聞き耳",
    "刀",
    "移動",
    "第一話の終わり",
    "証明.json",
    "夜桜.jsonl",
    "夜桜の写し",
    "無い.jsonl",
    # ja-cli-a
    "闇恐怖症",
    "祖母の鏡",
    "懐中電灯",
    "怪異",
    "第一話.html",
    "'rol'",
    "'roll'",
    "霧が晴れた",
    "間違い",
    "'abc'",
    # ja-seeds
    "表データ/自作表.toml",
    # ja-live
    "'frigth'",
    "'fright'",
    "'zzz'",
    "霊感",
)


@contextmanager
def _broken_table_file() -> Iterator[None]:
    """ja-seeds: the seeds as a GM edits them, with a table file of the GM's own whose
    entries overlap (a copy in the session's directory, read instead of the shipped one)."""
    import shutil
    from pathlib import Path
    from unittest import mock

    from campaign import seeds

    copy = Path("表データ")
    shutil.copytree(seeds.default_seed_dir(), copy)
    (copy / "自作表.toml").write_text(
        'command = "MINE"\nname = "自作表"\nname_en = "My Table"\ndice = "3D6"\nrange = [3, 18]\n'
        '[[entries]]\nrange = [3, 10]\nja = "前半"\nen = "first half"\n'
        '[[entries]]\nrange = [10, 18]\nja = "後半"\nen = "second half"\n',
        encoding="utf-8",
    )
    caches = (seeds._default_tables, seeds._default_references, seeds.load_stat_names)
    with mock.patch.object(seeds, "default_seed_dir", lambda: copy):
        for cached in caches:
            cached.cache_clear()
        try:
            yield
        finally:
            for cached in caches:
                cached.cache_clear()


# a command, its exit status and, for the shell, the lines it reads on stdin (or what the
# command runs inside: a broken seed file)
SESSION: list[
    tuple[tuple[str, ...], int] | tuple[tuple[str, ...], int, str | Callable[[], AbstractContextManager[None]]]
] = [
    (("init", "夜桜"), 0),
    (("player", "add", "Aki"), 0),
    (
        (
            "char",
            "add",
            "鈴音",
            "--player",
            "Aki",
            "--stat",
            "Will=11",
            "--stat",
            "HT=11",
            "--stat",
            "FP=11",
            "--stat",
            "HP=11",
            "--cp",
            "100",
        ),
        0,
    ),
    (("char", "add", "刀矢", "--player", "Aki", "--stat", "Will=13", "--stat", "HT=12", "--cp", "100"), 0),
    (("char", "relate", "刀矢", "鈴音", "--note", "幼馴染"), 0),
    (("scenario", "start", "第一話", "--with", "鈴音", "--with", "刀矢"), 0),
    (("roll", "3D6<=12", "回避", "--char", "鈴音", "--dice", "1,4,6"), 0),
    (("roll", "3D6<=16", "--dice", "6,6,5"), 0),
    (("roll", "x2 3D6<=12", "--dice", "1,1,1,6,6,6"), 0),
    (("roll", "３Ｄ６＜＝１２", "--dice", "１,４,６"), 0),
    (("fright", "鈴音", "--pick", "暗所恐怖症", "--dice", "6,5,5,6,6,6"), 0),
    (("fright", "刀矢", "--dice", "6,5,4,1,3,3"), 0),
    (("fright", "刀矢", "--mod", "－２", "--dice", "1,1,1"), 0),
    (("roll", "CRT", "--dice", "3,4,6"), 0),
    (("table", "roll", "YSFMB", "--dice", "6,6,5,2,2,3"), 0),
    (("table", "roll", "YFMB", "--no-reroll", "--dice", "4,5,5"), 0),
    (("roll", "REACT-5", "--dice", "1,1,1"), 0),
    (("missing", "mark", "鈴音", "--reason", "霧の中に消えた"), 0),
    (("scenario", "end", "--award", "2", "--dice", "鈴音=5"), 0),
    (("settings", "lang=ja"), 0),
    (("history", "--limit", "5"), 0),
    (("list",), 0),
    (("char", "show", "鈴"), 1),
    (("player", "rename", "Akj", "Aki2"), 1),
    (("--campaign", "夜", "history"), 1),
    (("settings", "lang=fr"), 2),
    # ja-errors: refusals of the dice parser, the core rules, a stat and a void's dependents
    (("roll", "3D6<<12"), 2),
    (("roll", "2000D6"), 2),
    (("roll", "3D6<=abc"), 2),
    (("roll", "3D6", "--dice", "1,2,3,4"), 2),
    (("char", "set", "鈴音", "--stat", "HT=abc"), 2),
    (("scenario", "start", "第二話", "--with", "鈴音"), 1),
    (("missing", "found", "鈴音", "--reason", "霧が晴れた"), 0),
    (("history", "void", "22", "--yes", "--reason", "間違い"), 1),  # #22: the missing mark above
    # ja-cli-b
    (("skill", "add", "鈴音", "回避", "12", "--attr", "DX", "--difficulty", "A"), 0),
    (("skill", "set", "鈴音", "回避", "13"), 0),
    (("skill", "add", "鈴", "聞き耳", "12"), 1),
    (("table", "list"), 0),
    (("table", "roll", "FMB", "--weapon", "刀", "--dice", "3,3,3"), 2),
    (("ref", "list"), 0),
    (("ref", "show", "HIT", "--dice", "1,1,1"), 2),
    (("time", "show"), 0),
    (("time", "advance", "6h", "--reason", "移動"), 0),
    (("--campaign", "夜", "time", "show"), 1),
    (("requests", "list"), 0),
    (("requests", "list", "--help"), 0),
    (("--campaign", "夜", "requests", "list"), 1),
    (("stats",), 0),
    (("stats", "--char", "鈴"), 1),
    (("history", "seal", "--reason", "第一話の終わり"), 0),
    (("history", "proof", "7", "-o", "証明.json"), 0),
    (("proof", "check", "証明.json"), 0),
    (("proof", "check", "証明.json", "--head", "0123456789abcdef"), 1),
    (("export", "夜桜.jsonl"), 0),
    (("import", "夜桜.jsonl", "--as-name", "夜桜の写し"), 0),
    (("import", "無い.jsonl"), 2),
    (("serve", "--port", "70000"), 2),
    # ja-cli-a
    (("char", "show", "鈴音"), 0),
    (("trait", "list", "鈴音"), 0),
    (("trait", "rename", "鈴音", "暗所恐怖症", "闇恐怖症"), 0),
    (("trait", "list", "鈴"), 1),
    (("condition", "add", "刀矢", "panic", "--for", "6h", "--reason", "怪異"), 0),
    (("condition", "list"), 0),
    (("condition", "list", "刀矢"), 0),
    (("condition", "clear", "刀矢", "panic"), 0),
    (("condition", "add", "刀", "panic"), 1),
    (("award", "2", "--to", "刀矢", "--reason", "第一話"), 0),
    (("award", "2", "--to", "刀"), 1),
    (("call", "list", "--help"), 0),
    (("call", "fright", "刀矢", "--mod", "-2"), 0),
    (("call", "list"), 0),
    (("call", "cancel", "1"), 0),
    (("call", "list", "--all"), 0),
    (("call", "fright", "刀"), 1),
    (("char", "note", "刀矢", "祖母の鏡"), 0),
    (("char", "item", "add", "刀矢", "懐中電灯"), 0),
    (("char", "damage", "刀矢", "HP", "13"), 0),
    (("char", "show", "刀矢"), 0),
    (("char", "timeline", "刀矢"), 0),
    (("char", "export", "刀矢"), 2),
    (("invite", "list"), 0),
    (("db", "current"), 0),
    (("import-log", "第一話.html"), 2),
    (("rol", "3D6"), 2),
    (("shell",), 0, "roll 3D6 --dice 1,2,3\nrol 3D6\nas\nroll 3D6 --dice 4,5,6\n"),
    # every other noun: use, group and the demo (their help)
    (("use", "夜桜"), 0),
    (("group", "--help"), 0),
    (("demo", "--help"), 0),
    # ja-live: Click's usage errors, the pieces inside refusals, a warning, a category
    (("roll", "3D6", "--bogus"), 2),
    (("award",), 2),
    (("history", "--limit", "abc"), 2),
    (("roll", "3D6", "--dice"), 2),
    (("history", "--kind", "frigth"), 2),
    (("history", "--kind", "zzz"), 2),
    (("--as", "Aki", "history", "void", "3", "--yes", "--reason", "間違い"), 1),
    (("history", "reveal-seed", "9"), 1),
    (("import", "夜桜.jsonl"), 1),
    (("call", "check", "luck", "刀矢", "--target", "3"), 2),
    (("trait", "add", "鈴音", "霊感", "--cp", "5"), 0),
    (("char", "kill", "刀矢", "--reason", "怪異"), 0),
    (("fright", "刀矢"), 1),
    (("roll", "3D6", "--char", "刀矢", "--dice", "1,2,3"), 0),
    (("char", "kill", "刀矢", "--reason", "怪異"), 1),
    (("char", "item", "remove", "刀矢", "懐中電灯"), 0),
    (("history", "--limit", "5"), 0),
    (("scenario", "list"), 0),
    (("scenario", "show", "第一話"), 0),
    (("scenario", "note", "第一話の終わり"), 0),
    (("missing", "list"), 0),
    (("player", "list"), 0),
    (("history", "show", "3"), 0),
    (("history", "show", "12"), 0),  # the table roll of 鈴音's fright check (#11)
    (("history", "show", "6"), 0),  # scenario 1 starts
    (("history", "show", "21"), 0),  # 鈴音 goes missing
    (("history", "show", "22"), 0),  # scenario 1 ends, with 鈴音's reunion check
    (("history", "show", "24"), 0),  # the award at its end
    *((("history", "show", seq), 0) for seq in ("1", "2", "5", "23", "26", "30", "31", "32")),  # (23: reunion)
    # ja-seeds: a broken table file, what a table's extra roll is for, and why it shows in history
    (("table", "roll", "CRT", "--dice", "3,4,6"), 1, _broken_table_file),
    (("table", "roll", "YFMB", "--dice", "4,5,5"), 2),
    (("ref", "show", "HIT", "--roll", "--dice", "1,2"), 2),
    (("table", "roll", "YSFMB", "--dice", "6,6,5,2,2,3"), 0),
    (("history", "--limit", "2"), 0),
    # ja-ccfolia: why a ココフォリア line was not recorded, and the fright result left unapplied
    (("import-log", "第3話.html", "--ccfolia", "--session", "第3話", "--dry-run", "--explain"), 0),
    (
        (
            "import-log",
            "第3話.html",
            "--ccfolia",
            "--session",
            "第3話",
            "--map",
            "すずね=鈴音",
            "--apply-fright",
            "--dice",
            "3,3",
        ),
        0,
    ),
    (("import-log", "第3話.html", "--ccfolia", "--session", "第3話", "--explain"), 0),
]
# ja-ccfolia: the log the import-log block reads, written where the session runs
CCFOLIA_LOG = [
    ("main", "すずね", "3d6<=12 回避 (3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)"),
    ("main", "すずね", "2d6+3 (2D6+3) ＞ 7[3,4]+3 ＞ 12"),
    ("main", "すずね", "x3 3d6 #1 (3D6) ＞ 10[1,4,5] ＞ 10 #2 (3D6) ＞ 9[3,3,3] ＞ 9"),
    ("main", "すずね", "CCB<=50 (1D100<=50) ＞ 6 ＞ スペシャル"),
    ("main", "すずね", "FEAR+3 恐怖表(15)：1D ターン朦朧。"),
    ("main", "GM", "FEAR+3 恐怖表(15)：1D ターン朦朧。"),
]
FILES = {"第3話.html": build(CCFOLIA_LOG)}
NAMES += ("第3話.html", "第3話", "すずね", "'すずね'", *(text for _tab, _speaker, text in CCFOLIA_LOG))
# What may stay Latin in Japanese output: stat abbreviations, dice and table codes, GM/PC/NPC,
# the ruleset's code, and what is code by its form.
ALLOWED = re.compile(
    r"`[^`]*`|^ *(使い方|例): .*$|^│ {1,4}[a-z][a-z_-]*|--[a-z-]+|\b[0-9a-f]{16,64}\b"  # usage, command names, hashes
    r"|(?<![A-Za-z])[A-Z][A-Z_]+(?![A-Za-z])"  # value names (NAME), ST DX IQ HT HP FP CP GM PC NPC JSON
    r"|(?<![A-Za-z])(SHA-256|PostgreSQL|SQLite|gurps3-ja|2d6-ja|ja|en|none|lang|fright_cap)(?![A-Za-z])"
    r"|\b[xX]?\d*[dD]\d*[-+<>=\d]*|\b(YSFMB|YSCRT|YFMB|HCRT|FMB|GFMB|X\d)[-+\d]*",
    re.MULTILINE,
)
ENGLISH_WORD = re.compile(r"[A-Za-z]{2,}")
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff01-\uff5e]")


def _english_left(text: str) -> list[str]:
    for name in sorted(NAMES, key=len, reverse=True):
        text = text.replace(name, " ")
    return ENGLISH_WORD.findall(ALLOWED.sub(" ", text))


def _seed_texts() -> set[str]:
    texts = set()
    for table in load_tables().values():
        texts.add(table.name)
        for entry in table.entries:
            texts.update(filter(None, (entry.ja, entry.label, *(d.ja for d in entry.rolls))))
    return texts


def _japanese_left(text: str, seed: set[str]) -> list[str]:
    for name in sorted((*NAMES, *seed), key=len, reverse=True):
        text = text.replace(name, " ")
    return JAPANESE.findall(text)


def _run(cli: Cli) -> list[tuple[tuple[str, ...], str]]:
    import os
    import tempfile

    outputs = []
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as files:  # where export and proof write
        os.chdir(files)
        for name, text in FILES.items():  # what the session's commands read
            with open(name, "w", encoding="utf-8") as handle:
                handle.write(text)
        try:
            for args, code, *stdin in SESSION:
                if stdin and callable(stdin[0]):  # ja-seeds: inside what it names (a broken seed file)
                    with stdin[0]():
                        result = cli.run(*args, expect=code)
                elif stdin:  # the shell, fed its lines
                    from typer.testing import CliRunner

                    from campaign.cli.app import app

                    result = CliRunner().invoke(app, ["--db", cli.db, *args], input=stdin[0], catch_exceptions=False)
                    assert result.exit_code == code, result.output
                else:
                    result = cli.run(*args, expect=code)
                outputs.append((args, result.stdout + result.stderr))
        finally:
            os.chdir(here)
    return outputs


def test_a_japanese_session_prints_no_english_word(cli: Cli, monkeypatch):
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    leaks = [(args, words) for args, out in _run(cli) if (words := _english_left(out))]
    assert not leaks, "\n".join(f"{' '.join(args)}: {words}" for args, words in leaks)


def test_an_english_session_prints_no_japanese_outside_names_and_seed_texts(cli: Cli, monkeypatch):
    monkeypatch.setenv("CAMPAIGN_LANG", "en")
    seed = _seed_texts()
    leaks = [(args, chars) for args, out in _run(cli) if (chars := _japanese_left(out, seed))]
    assert not leaks, "\n".join(f"{' '.join(args)}: {''.join(chars)}" for args, chars in leaks)


@pytest.mark.parametrize("word", ["Will 11", "failure", "fright table", "critical success"])
def test_the_checker_catches_english(word):
    assert _english_left(f"#10  恐怖判定  3D6<=11  [6,5,5]=16  {word}")

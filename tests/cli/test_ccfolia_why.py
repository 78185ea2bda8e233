"""Why a ココフォリア line was not recorded, in the reader's language (docs/i18n.md).

`import-log --explain` says, for each message it refused, what is wrong with it: in
Japanese with lang=ja, in English with lang=en (the wording the bridge always had), one
language per line. `--json` is the same document in both: the English line in `why`, and
the reason as a code with its values (`why_code`, `why_params`).
"""

from __future__ import annotations

import pytest

from tests.ccfolia_logs import build
from tests.cli.conftest import Cli

LINES = [
    ("main", "すずね", "3d6<=12 (3D6<=12) ＞ 11[1,4,5] ＞ 11 ＞ 成功(成功度：1)"),
    ("main", "すずね", "2d6+3 (2D6+3) ＞ 7[3,4]+3 ＞ 12"),
    ("main", "すずね", "x3 3d6 #1 (3D6) ＞ 10[1,4,5] ＞ 10 #2 (3D6) ＞ 9[3,3,3] ＞ 9"),
    ("main", "すずね", "CCB<=50 (1D100<=50) ＞ 6 ＞ スペシャル"),
    ("main", "すずね", "3D6 (3D6) ＞ 99"),
    ("main", "すずね", "3d6<=12 (3D6<=12) ＞ 18[6,6,6] ＞ 18 ＞ 成功(成功度：-6)"),
    ("main", "すずね", "2D6>=7 (2D6>=7) ＞ 5[2,3] ＞ 5 ＞ 成功"),
    ("main", "すずね", "FEAR+3 恐怖表(2)：何もなし"),
    ("main", "すずね", "3d6<=12 (3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：3)"),
    ("main", "すずね", "CRT 恐怖表(12)：何もなし"),
    ("main", "すずね", "x2 3d6 #1 (3D6) ＞ 10[1,4,5] ＞ 10 #2 (3D6) ＞ 7[1,1,1,4] ＞ 7"),
    ("main", "すずね", "1d6 (1D6) ＞ 9"),
]
WHY_EN = [
    "contradicts itself: 11[1,4,5]: the dice make 10",
    "contradicts itself: faces [3, 4] do not make 12",
    "contradicts itself: x3 shows 2 answers",
    "another system's line: not a command of this ruleset: CCB<=50",
    "contradicts itself: 3D6 cannot make 99",
    "contradicts itself: BCDice's GURPS rules make 18 against 12 a critical failure",
    "contradicts itself: 5 >= 7 is false, yet the log says success",
    "contradicts itself: 恐怖表(2) cannot come of 3D6+3",
    "contradicts itself: a degree of 3 where 12 - 11 is 1",
    "contradicts itself: CRT was answered from 恐怖表",
    "contradicts itself: #2: 4 faces for 3 dice",
    "contradicts itself: --dice: face 1 is 9, outside 1..6 for 1d6 for the roll 1D6",
]
WHY_JA = [
    "自己矛盾: 11[1,4,5]: 出目の合計は 10 です",
    "自己矛盾: 出目 [3, 4] では 12 になりません",
    "自己矛盾: x3 なのに結果が 2 個です",
    "別システムの行: このルールのコマンドではありません: CCB<=50",
    "自己矛盾: 3D6 で 99 は出ません",
    "自己矛盾: BCDiceのGURPSルールでは目標値 12 に出目 18 はファンブルです",
    "自己矛盾: 5 >= 7 は成り立たないのに、ログは成功です",
    "自己矛盾: 3D6+3 で恐怖表(2) は出ません",
    "自己矛盾: 成功度・失敗度が 3 ですが 12 - 11 は 1 です",
    "自己矛盾: CRT に「恐怖表」の結果が返っています",
    "自己矛盾: #2: ダイス 3 個に出目が 4 個あります",
    "自己矛盾: --dice: 1 個目の出目 9 は ロール 1D6 に使う 1d6 の 1〜6 の範囲外です",
]
CODES = [
    ("shown_sum", {"shown": 11, "faces": "1,4,5", "sum": 10}),
    ("faces_total", {"faces": [3, 4], "total": 12}),
    ("repeat_count", {"count": 3, "shown": 2}),
    ("not_command", {"command": "CCB<=50"}),
    ("out_of_range", {"expression": "3D6", "total": 99}),
    ("gurps_outcome", {"raw": 18, "target": 12, "outcome": "critical_failure"}),
    ("comparison_fails", {"total": 5, "comparison": ">=", "target": 7, "outcome": "success"}),
    ("table_range", {"name": "恐怖表", "number": 2, "modifier": "+3"}),
    ("degree", {"degree": 3, "target": 12, "total": 11, "difference": 1}),
    ("answered_from", {"command": "CRT", "name": "恐怖表"}),
    ("repeat_answer", {"number": 2, "why": {"code": "face_count", "params": {"faces": 4, "dice": 3}}}),
    ("dice_refused", {"position": 1, "face": 9, "sides": 6, "request": "1d6 for the roll 1D6"}),
]


def write(tmp_path, items) -> str:
    path = tmp_path / "第3話.html"
    path.write_text(build(items), encoding="utf-8")
    return str(path)


def explained(cli: Cli, log: str, lang: str) -> list[str]:
    out = cli.run("--lang", lang, "import-log", log, "--ccfolia", "--explain").stdout
    return [line.strip() for line in out.splitlines() if line.startswith("  ")]


def test_each_refused_line_says_why_in_the_chosen_language(gurps, tmp_path):
    log = write(tmp_path, LINES)
    english, japanese = explained(gurps, log, "en"), explained(gurps, log, "ja")
    assert english == [
        f"message {n} (すずね) {why}  « {text} »" for n, (why, (_, _, text)) in enumerate(zip(WHY_EN, LINES), 1)
    ]
    assert japanese == [
        f"発言 {n} (すずね) {why}  « {text} »" for n, (why, (_, _, text)) in enumerate(zip(WHY_JA, LINES), 1)
    ]


def test_json_holds_codes_and_is_the_same_in_both_languages(gurps, tmp_path):
    log = write(tmp_path, LINES)
    english = gurps.json("--lang", "en", "import-log", log, "--ccfolia", "--dry-run")
    japanese = gurps.json("--lang", "ja", "import-log", log, "--ccfolia", "--dry-run")
    assert english == japanese
    assert [(item["why_code"], item["why_params"]) for item in japanese["explain"]] == CODES
    assert [f"{item['why']}" for item in japanese["explain"]] == [why.split(": ", 1)[1] for why in WHY_EN]


def test_the_import_s_own_reasons_are_codes_in_json_and_words_on_screen(gurps, tmp_path):
    items = [
        ("main", "すずね", "3d6<=12 回避 (3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)"),
        ("main", "GM", "3D6<=13 恐怖判定 (3D6<=13) ＞ 16[5,6,5] ＞ 16 ＞ 失敗(失敗度：-3)"),
        ("main", "GM", "FEAR+3 恐怖表(15)：1D ターン朦朧。"),
    ]
    log = write(tmp_path, items)
    first = gurps.json("--lang", "ja", "import-log", log, "--ccfolia", "--map", "すずね=鈴音")
    assert [(item["reason"], item["why"], item["why_code"]) for item in first["explain"]] == [
        ("unmapped_speaker", "recorded without a character", "unmapped_speaker"),
        ("unmapped_speaker", "recorded without a character", "unmapped_speaker"),
    ]
    assert [(f["why"], f["why_code"], f["why_params"]) for f in first["frights"]] == [
        ("not applied (--apply-fright applies it)", "not_applied", {})
    ]
    again = gurps.json("--lang", "ja", "import-log", log, "--ccfolia", "--map", "すずね=鈴音")
    assert {(item["why"], item["why_code"]) for item in again["explain"]} == {("imported before", "duplicate")}
    shown = explained(gurps, log, "ja")
    assert shown[0] == "発言 1 (すずね) 取り込み済み  « 3d6<=12 回避 (3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1) »"


@pytest.mark.parametrize(
    ("lang", "applied", "why"),
    [
        (
            "ja",
            "恐怖判定: 鈴音 FEAR 15 (恐怖表 14–15 番) を #8 として適用: 疲労、状態 朦朧",
            "恐怖判定: 発言 2 (GM): GM のキャラクターがいません (--map で指定)",
        ),
        (
            "en",
            "fright: 鈴音 FEAR 15 (entry 14–15) applied as #8: fatigue, condition stunned",
            "fright: message 2 (GM): no character for GM (use --map)",
        ),
    ],
)
def test_a_fright_result_not_applied_says_why_in_the_chosen_language(gurps, tmp_path, lang, applied, why):
    """One result applied, one not (its speaker plays no character): the line says why."""
    items = [
        ("main", "すずね", "FEAR+3 恐怖表(15)：1D ターン朦朧。"),
        ("main", "GM", "FEAR+3 恐怖表(15)：1D ターン朦朧。"),
    ]
    args = ("import-log", write(tmp_path, items), "--ccfolia", "--map", "すずね=鈴音", "--apply-fright")
    out = gurps.run("--lang", lang, *args, "--dice", "3,3").stdout.splitlines()
    assert out[-2:] == [applied, why]

"""Issue 32 for the nouns char show, condition, trait, award, call, invite, db, import-log,
the ココフォリア memo and the shell: the main results as a Japanese reader sees them,
line for line, and --json the same document in both languages."""

from __future__ import annotations

import json

import pytest

from tests.ccfolia_logs import GURPS_SESSION, build


def _lines(result) -> list[str]:
    return [line.rstrip() for line in result.stdout.splitlines()]


def test_char_show_in_japanese_with_the_reading(gurps):
    gurps.run("char", "add", "千早", "--reading", "ちはや", "--player", "Aki", "--stat", "IQ=11", "--cp", "50")
    gurps.run("condition", "add", "千早", "stun", "--for", "3turns")
    lines = _lines(gurps.run("--lang", "ja", "char", "show", "千早"))
    assert lines[:6] == [
        "千早",
        "読み        ちはや",
        "種類        PC",
        "プレイヤー  Aki",
        "状態        活動中",
        "CP総計      50",
    ]

    assert "状態異常    朦朧 3ターン 1日目 00:00:03 まで" in lines
    english = _lines(gurps.run("char", "show", "千早"))
    assert [line.split() for line in english[:3]] == [["千早"], ["reading", "ちはや"], ["kind", "PC"]]
    assert ["condition", "stunned", "3", "turns", "until", "day", "1", "00:00:03"] in [line.split() for line in english]
    shown = gurps.json("char", "show", "千早")
    assert shown["reading"] == "ちはや" and "reading" not in gurps.json("char", "show", "鈴音")
    assert json.dumps(shown) == json.dumps(gurps.json("--lang", "ja", "char", "show", "千早"))


def test_conditions_traits_and_awards_in_japanese(gurps):
    added = _lines(gurps.run("--lang", "ja", "condition", "add", "刀矢", "panic", "--for", "6h"))
    assert added == [f"刀矢: パニック 6時間 1日目 06:00 まで (台帳 #{gurps.json('history')[0]['seq']})"]
    listed = gurps.run("--lang", "ja", "condition", "list", "刀矢").stdout
    assert "刀矢 の状態 (現在 1日目 00:00)" in listed and "1日目 06:00 (残り6時間)" in listed
    cleared = _lines(gurps.run("--lang", "ja", "condition", "clear", "刀矢", "panic"))
    assert cleared[0].startswith("刀矢: パニック を解除 (台帳 #")
    assert _lines(gurps.run("--lang", "ja", "condition", "list", "刀矢")) == ["状態異常はありません (現在 1日目 00:00)"]
    gurps.run("fright", "鈴音", "--pick", "暗所恐怖症", "--dice", "6,5,5,6,6,6")
    table = gurps.run("--lang", "ja", "trait", "list", "鈴音").stdout
    assert "鈴音 (CP総計 90)" in table and "│ 暗所恐怖症 │ 恐怖症 │ -10 │" in table
    assert "│ 暗所恐怖症 │ phobia   │ -10 │" in gurps.run("trait", "list", "鈴音").stdout


def test_a_call_in_japanese_and_its_json_in_english(gurps):
    made = _lines(gurps.run("--lang", "ja", "call", "fright", "鈴音", "--mod", "-2"))
    assert made == [
        "呼び出し #1: 恐怖判定を振ってください: 鈴音 修正 −2",
        "Aki がテーブルサーバーで振るのを待っています (または `campaign call roll 1`)",
    ]
    english = gurps.json("call", "list")
    assert english == gurps.json("--lang", "ja", "call", "list")
    assert english["calls"][0]["prompt"] == "roll your fright check: 鈴音 modifier −2"
    listed = gurps.run("--lang", "ja", "call", "list").stdout
    assert "│ 番号 ┃" not in listed and "待機中" in listed and "恐怖判定を振ってください:" in listed
    assert _lines(gurps.run("--lang", "ja", "call", "cancel", "1")) == ["呼び出し #1 を取り消しました"]
    assert _lines(gurps.run("--lang", "ja", "call", "list")) == ["呼び出しはありません"]


def test_invites_the_database_and_the_shell_in_japanese(gurps):
    assert _lines(gurps.run("--lang", "ja", "invite", "list")) == ["招待はありません", "セッションはありません"]
    assert _lines(gurps.run("--lang", "ja", "db", "current"))[0].endswith("、最新版です)")
    from typer.testing import CliRunner

    from campaign.cli.app import app

    done = CliRunner().invoke(app, ["--db", gurps.db, "--lang", "ja", "shell"], input="rol 3D6\nas\n")
    assert done.stderr.splitlines() == [
        "エラー: コマンド 'rol' はありません。'roll' のことですか?",
        "エラー: `as` には名前を1つ: `as Aki` (`as GM` で戻ります)",
    ]


def test_import_log_summary_in_japanese(gurps, tmp_path):
    log = tmp_path / "session.html"
    log.write_text(build(GURPS_SESSION), encoding="utf-8")
    lines = _lines(gurps.run("--lang", "ja", "import-log", str(log), "--ccfolia", "--map", "すずね=鈴音", "--dry-run"))
    assert lines[0] == "鈴音: 3D6<=12 [1,4,6] = 11 成功  « 回避 »"
    assert lines[-6:-2] == [
        "17 件の発言から 12 件を記録予定: ロール 10、表 2",
        "読み飛ばし: 取り込み済み 0、シークレットダイス 1、別システムの行 1、読めない結果 0、雑談 2。"
        "壊れた段落 1 (うち 1 件は修復)",
        "拒否: 自己矛盾する行 1、途中で切れた行 0 (--explain で一覧)",
        "ログに見えているシークレットダイス 1 件を、秘密として記録しました",
    ]
    assert lines[-2].startswith("ログ: HTML (<p> 形式の出力)、UTF-8。セッション log:")
    assert lines[-1] == "恐怖判定の結果 1 件を記録、キャラクターには未適用 (--apply-fright で適用)"


@pytest.mark.parametrize(
    ("lang", "status", "summoner"),
    [("ja", "状態: 行方不明", "召喚者: 鈴音"), ("en", "status: missing", "summoner: 鈴音")],
)
def test_the_piece_memo_is_in_one_language(gurps, lang, status, summoner):
    gurps.run("missing", "mark", "刀矢")
    lines = gurps.run("--lang", lang, "char", "export", "--all", "--ccfolia").stdout.splitlines()
    pieces = [json.loads(line) for line in lines]  # what a paste puts on the board: the output's language
    memos = {piece["data"]["name"]: piece["data"]["memo"].split("\n") for piece in pieces}
    assert status in memos["刀矢"]
    assert summoner in memos["管狐"]
    neutral = gurps.json("--lang", lang, "char", "export", "--all", "--ccfolia")  # --json: English
    assert "status: missing" in neutral[[p["data"]["name"] for p in neutral].index("刀矢")]["data"]["memo"]

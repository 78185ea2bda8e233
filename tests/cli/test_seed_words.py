"""Issue 32: a GM who edits a seed file and breaks it reads the refusal in the chosen
language, one line naming the file, the entry or row and what is wrong (exit 1, nothing
recorded); and the dice requests of a table's extra rolls, and the reasons `history`
shows for them, read in that language too.

The seeds are a copy in tmp_path (campaign.seeds.default_seed_dir patched, its caches
cleared), so each case breaks one file of its own copy and the real seeds stay whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from campaign import seeds
from tests.cli.conftest import Cli

SEEDS = Path(seeds.default_seed_dir())


def _clear() -> None:
    for cached in (seeds._default_tables, seeds._default_references, seeds.load_stat_names):
        cached.cache_clear()


@pytest.fixture
def seed_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the shipped seeds that the program reads instead of them."""
    import shutil

    copy = tmp_path / "seeds"
    shutil.copytree(SEEDS, copy)
    monkeypatch.setattr(seeds, "default_seed_dir", lambda: copy)
    _clear()
    yield copy
    _clear()


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def _overlap(root: Path) -> Path:
    _edit(root / "crt.toml", "roll = 4\n", "range = [3, 4]\n")
    return root / "crt.toml"


def _backwards(root: Path) -> Path:
    _edit(root / "crt.toml", "roll = 5\n", "range = [9, 7]\n")
    return root / "crt.toml"


def _missing_summary(root: Path) -> Path:
    _edit(
        root / "crt.toml", 'roll = 5\nja = "ダメージ3倍。"\nen = "Triple damage."\n', 'roll = 5\nja = "ダメージ3倍。"\n'
    )
    return root / "crt.toml"


def _not_toml(root: Path) -> Path:
    _edit(root / "crt.toml", "roll = 6\n", "roll = = 6\n")
    return root / "crt.toml"


def _unknown_effect(root: Path) -> Path:
    _edit(root / "crt.toml", "roll = 4\n", 'roll = 4\neffects = [{ kind = "explode" }]\n')
    return root / "crt.toml"


def _unknown_table(root: Path) -> Path:
    _edit(root / "ysfmb.toml", 'table = "HCRT"', 'table = "NOPE"')
    return root / "ysfmb.toml"


def _twice_defined(root: Path) -> Path:
    (root / "zz_mine.toml").write_text((root / "crt.toml").read_text(encoding="utf-8"), encoding="utf-8")
    return root / "zz_mine.toml"


def _row_twice(root: Path) -> Path:
    _edit(root / "ref" / "000_02_hit_location.toml", "roll = [5, 5]", "roll = [4, 5]")
    return root / "ref" / "000_02_hit_location.toml"


def _bad_dice(root: Path) -> Path:
    _edit(root / "fear.toml", 'turns = "1D", recovery = "will"', 'turns = "1D6", recovery = "will"')
    return root / "fear.toml"


def _unknown_field(root: Path) -> Path:
    _edit(root / "crt.toml", "roll = 4\n", 'roll = 4\neffects = [{ kind = "reroll", when = "always" }]\n')
    return root / "crt.toml"


def _no_tables(root: Path) -> Path:
    for path in root.glob("*.toml"):
        path.unlink()
    return root


# (break a file -> the file, command, Japanese line, English line); {path} is that file
CASES: list[tuple[Callable[[Path], Path], tuple[str, ...], str, str]] = [
    (
        _overlap,
        ("table", "roll", "CRT", "--dice", "3,4,6"),
        "エラー: {path}: 項目 3-4: 項目 3 と重なっています",
        "error: {path}: entry 3-4: overlaps entry 3",
    ),
    (
        _backwards,
        ("roll", "CRT", "--dice", "3,4,6"),
        "エラー: {path}: 項目 #3: 範囲 [9, 7] が逆です",
        "error: {path}: entry #3: range [9, 7] is backwards",
    ),
    (
        _missing_summary,
        ("table", "list"),
        "エラー: {path}: 項目 5: 要約 'en' がありません",
        "error: {path}: entry 5: missing 'en' summary",
    ),
    (
        _not_toml,
        ("table", "roll", "CRT", "--dice", "3,4,6"),
        "エラー: {path}: TOML として読めません: 値が正しくありません (32 行 8 文字目)",
        "error: {path}: not valid TOML: Invalid value (line 32, column 8)",
    ),
    (
        _unknown_effect,
        ("fright", "鈴音", "--dice", "1,1,1"),
        "エラー: {path}: 項目 4: 知らない効果の種類 'explode'",
        "error: {path}: entry 4: unknown effect kind 'explode'",
    ),
    (
        _unknown_table,
        ("table", "roll", "YSFMB", "--dice", "1,1,1"),
        "エラー: {path}: 項目 17: roll_table が無い表 'NOPE' を指しています",
        "error: {path}: entry 17: roll_table refers to unknown table 'NOPE'",
    ),
    (
        _twice_defined,
        ("table", "list"),
        "エラー: {path}: コマンド CRT はもう {seeds}/crt.toml で定義されています",
        "error: {path}: command CRT is already defined in {seeds}/crt.toml",
    ),
    (
        _bad_dice,
        ("fright", "鈴音", "--dice", "1,1,1"),
        "エラー: {path}: 項目 10: stun.turns: ダイスは \"2D\" の形にしてください ('1D6' ではなく)",
        "error: {path}: entry 10: stun.turns: dice must look like \"2D\", not '1D6'",
    ),
    (
        _unknown_field,
        ("table", "list"),
        "エラー: {path}: 項目 4: reroll: 知らない項目 when",
        "error: {path}: entry 4: reroll: unknown field(s) when",
    ),
    (
        _no_tables,
        ("table", "list"),
        "エラー: {path}: 表データ (*.toml) がありません",
        "error: {path}: no seed tables (*.toml) found",
    ),
    (
        _row_twice,
        ("ref", "show", "HIT"),
        "エラー: {path}: 2 行目: 出目 4 はもう 1 行目にあります",
        "error: {path}: row 2: roll 4 is already on row 1",
    ),
]


@pytest.mark.parametrize(("breaks", "args", "ja", "en"), CASES, ids=[case[0].__name__.strip("_") for case in CASES])
def test_a_broken_seed_is_refused_in_the_chosen_language(
    sqlite_gurps: Cli, seed_copy: Path, monkeypatch: pytest.MonkeyPatch, breaks, args, ja, en
):
    path = breaks(seed_copy)
    before = sqlite_gurps.json("history", "--limit", "1")
    names = {"path": path, "seeds": seed_copy}
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    assert sqlite_gurps.error(*args, code=1) == ja.format(**names)
    monkeypatch.setenv("CAMPAIGN_LANG", "en")
    assert sqlite_gurps.error(*args, code=1) == en.format(**names)
    assert sqlite_gurps.json("history", "--limit", "1") == before  # nothing recorded


def test_a_broken_stat_names_file_is_refused_in_the_chosen_language(
    sqlite_gurps: Cli, seed_copy: Path, monkeypatch: pytest.MonkeyPatch
):
    path = seed_copy / "rulesets" / "stats.toml"
    _edit(path, 'Move = ["移動力"]', 'Move = "移動力"')
    args = ("char", "set", "鈴音", "--stat", "HT=12")
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    assert sqlite_gurps.error(*args, code=1) == f"エラー: {path}: [gurps3-ja] は能力値ごとに名前の配列を書いてください"
    monkeypatch.setenv("CAMPAIGN_LANG", "en")
    assert sqlite_gurps.error(*args, code=1) == f"error: {path}: [gurps3-ja] must map each stat to a list of names"


# --- what an extra roll is for, in the chosen language ---


@pytest.mark.parametrize(
    ("args", "ja", "en"),
    [
        (
            ("table", "roll", "YFMB", "--dice", "4,5,5"),
            "エラー: --dice: 出目が足りません。あと 3 個必要です: 魔術ファンブル表 (振り直し) に使う 3d6",
            "error: --dice: not enough faces, need 3 more: 3d6 for the sorcery fumble table (reroll)",
        ),
        (
            ("table", "roll", "YSFMB", "--dice", "6,6,5,2"),
            "エラー: --dice: 出目が足りません。あと 2 個必要です: 頭部打撃クリティカル表 (表を引く) に使う 3d6",
            "error: --dice: not enough faces, need 2 more: 3d6 for the head-blow critical table (roll table)",
        ),
        (
            ("ref", "show", "HIT", "--roll", "--char", "鈴音", "--dice", "1,2"),
            "エラー: --dice: 出目が足りません。あと 1 個必要です: 鈴音 の命中部位表 に使う 3d6",
            "error: --dice: not enough faces, need 1 more: 3d6 for the hit location table of 鈴音",
        ),
    ],
)
def test_a_table_s_dice_request_reads_in_the_chosen_language(
    sqlite_gurps: Cli, monkeypatch: pytest.MonkeyPatch, args, ja, en
):
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    assert sqlite_gurps.error(*args, code=2) == ja
    monkeypatch.setenv("CAMPAIGN_LANG", "en")
    assert sqlite_gurps.error(*args, code=2) == en


def _field(shown: str, label: str) -> str:
    """The value of one field of `history show`, its continuation lines joined."""
    lines = shown.splitlines()
    for at, line in enumerate(lines):
        if line.startswith(label + " "):
            width = len(line) - len(line[len(label) :].lstrip())
            value = [line[width:].strip()]
            for more in lines[at + 1 :]:
                if more[:width].strip():
                    break
                value.append(more.strip())
            return " ".join(value)
    raise AssertionError(f"no {label} in {shown}")


def test_history_shows_why_a_table_rolled_again_in_the_chosen_language(gurps: Cli, monkeypatch: pytest.MonkeyPatch):
    """YSFMB 17 sends the roll to the head-blow table: the sub-entry records the directive
    by its codes (no words), and `history show` says why it was rolled and what came up,
    in the reader's language, without the record's English fields."""
    gurps.run("table", "roll", "YSFMB", "--dice", "6,6,5,2,2,3")
    [sub, parent] = gurps.json("history", "--limit", "2")
    assert sub["parent_seq"] == parent["seq"] and sub["detail"]["directive"] == {
        "index": 0,
        "kind": "roll_table",
        "table": "HCRT",
    }
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    shown = gurps.run("history", "show", str(sub["seq"])).stdout
    assert _field(shown, "理由") == "頭部打撃クリティカル表を引く"
    meaning = _field(shown, "内容").replace(" ", "")  # Japanese wraps anywhere: its line breaks are not text
    assert meaning == "7:敵は片目を負傷して朦朧。敏捷力-2。戦闘後の回復は基本ルールの手順で判定。"
    assert "text_en" not in shown and "requested_in" not in shown
    listed = gurps.run("history", "--limit", "1").stdout
    assert "頭部打撃" in listed and "roll on" not in listed
    monkeypatch.setenv("CAMPAIGN_LANG", "en")
    shown = gurps.run("history", "show", str(sub["seq"])).stdout
    assert _field(shown, "reason") == "roll on Critical Head Blow Table"
    assert _field(shown, "what it means") == (
        "7: One of the foe's eyes is hurt; stunned, DX -2. Recovery after the fight follows the basic rules."
    )
    assert "text_ja" not in shown and "頭部" not in shown


def test_history_words_a_conditional_reroll_whole_in_each_language(gurps: Cli, monkeypatch: pytest.MonkeyPatch):
    """YFMB 14: a reroll only if no opposite effect comes to mind, left to the GM; the
    reason is one sentence in each language, not English pieces glued together. The
    damage the rerolled entry names ("3D点ダメージ") says which words its dice belong to."""
    gurps.run("table", "roll", "YFMB", "--dice", "4,5,5,1,1,2,1,1,1")
    [text, reroll, parent] = gurps.json("history", "--limit", "3")
    assert reroll["parent_seq"] == text["parent_seq"] == parent["seq"]
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    shown = gurps.run("history", "show", str(reroll["seq"])).stdout
    assert _field(shown, "理由").replace(" ", "") == "振り直し(「正反対の効果を思いつかない」の場合のみ)[GMの判断]"
    assert _field(gurps.run("history", "show", str(text["seq"])).stdout, "理由") == "本文のダイス: 3D点ダメージ"
    monkeypatch.setenv("CAMPAIGN_LANG", "en")
    shown = gurps.run("history", "show", str(reroll["seq"])).stdout
    assert _field(shown, "reason") == "reroll (only if no opposite effect comes to mind) [the GM's choice]"
    shown = gurps.run("history", "show", str(text["seq"])).stdout
    assert _field(shown, "reason") == "dice in the text: takes 3d"
    assert _field(shown, "what it means") == "dice in the text: takes 3d: 3D [1,1,1]=3"

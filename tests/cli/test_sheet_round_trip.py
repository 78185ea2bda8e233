"""A whole sheet out and back in, on SQLite and PostgreSQL: a ココフォリア piece
(`char export --format ccfolia` -> `char import --format ccfolia` into another
campaign) and the CSV/JSON template give the identical sheet: stats with quarters,
skills with their stat and difficulty, paid traits with their disadvantage-limit split
(counted, uncounted, partly outside after an escalation), notes, items, and the
piece's initiative."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_sheets import _sheet


def _entered(gurps) -> dict:
    """鈴音 as a finished sheet: every kind of line the template carries."""
    gurps.run("char", "set", "鈴音", "--stat", "Speed=5.75", "--stat", "DX=12")
    gurps.run("skill", "add", "鈴音", "回避", "9", "--attr", "DX", "--difficulty", "A")
    gurps.run("skill", "add", "鈴音", "聞き耳", "13")
    gurps.run("skill", "add", "鈴音", "応急手当", "12", "--difficulty", "E")
    gurps.run("trait", "add", "鈴音", "好奇心", "--cp", "-5", "--paid")
    gurps.run("trait", "add", "鈴音", "閉所恐怖症", "--cp", "-10", "--category", "phobia", "--no-counts", "--paid")
    gurps.run("trait", "add", "鈴音", "高所恐怖症", "--cp", "-10", "--category", "phobia", "--paid")
    escalated = gurps.json("fright", "鈴音", "--pick", "高所恐怖症", "--mod", "-16", "--dice", "6,6,5,1,1,1")
    assert [e["kind"] for e in escalated["effects"]] == ["phobia_escalation"]
    gurps.run("char", "note", "鈴音", "左利き")
    gurps.run("char", "item", "add", "鈴音", "懐中電灯")
    gurps.run("char", "item", "add", "鈴音", "手帳")
    sheet = gurps.json("char", "show", "鈴音")
    split = {t["name"]: (t["cp"], t["counts_toward_limit"], t["limit_cp"], t["unlimited_cp"]) for t in sheet["traits"]}
    assert split == {
        "好奇心": (-5, True, -5, 0),
        "閉所恐怖症": (-10, False, 0, -10),
        "高所恐怖症": (-20, True, -10, -10),
    }
    return sheet


def _another_campaign(cli, name: str) -> None:
    cli.run("init", name)
    cli.run("player", "add", "Aki")


# The memo is in the output's language; an English export and a Japanese one (the memo
# every export wrote before) both come back as the same sheet, read in English.
MEMO_WORDS = {"ja": ("特徴", "技能", "メモ", "所持品"), "en": ("trait", "skill", "note", "item")}


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_a_ccfolia_piece_comes_back_as_the_identical_sheet(gurps, tmp_path, lang):
    trait, skill, note, item = MEMO_WORDS[lang]
    before = _entered(gurps)
    piece = gurps.run("--lang", lang, "char", "export", "鈴音", "--format", "ccfolia").stdout
    assert piece == gurps.run("--lang", lang, "char", "export", "鈴音", "--ccfolia").stdout
    data = json.loads(piece)["data"]
    assert data["initiative"] == 5.75
    memo = data["memo"].split("\n")
    assert f"{trait}: 閉所恐怖症 = -10 phobia; uncounted" in memo
    assert f"{trait}: 高所恐怖症 = -20 severe phobia; outside -10" in memo
    assert {f"{skill}: 回避 = 9 DX/A", f"{skill}: 応急手当 = 12 /E", f"{note}: 左利き", f"{item}: 懐中電灯"} <= set(
        memo
    )
    (tmp_path / "piece.json").write_text(piece, encoding="utf-8")
    _another_campaign(gurps, "卓B")
    gurps.run("char", "import", str(tmp_path / "piece.json"), "--format", "ccfolia")
    after = gurps.json("char", "show", "鈴音")
    assert _sheet(after) == _sheet(before)
    again = gurps.run("--lang", lang, "char", "export", "鈴音", "--format", "ccfolia").stdout
    assert again == piece  # the same piece again
    gurps.run("history", "verify")


def test_the_template_carries_the_trait_limit_split(gurps, tmp_path):
    before = _entered(gurps)
    for fmt in ("csv", "json"):
        out = gurps.run("char", "export", "鈴音", "--format", fmt).stdout
        assert "-10 phobia; uncounted" in out and "-20 severe phobia; outside -10" in out
        (tmp_path / f"s.{fmt}").write_text(out, encoding="utf-8")
    for fmt in ("csv", "json"):
        gurps.run("use", "テスト卓")
        _another_campaign(gurps, f"卓{fmt}")
        gurps.run("char", "import", str(tmp_path / f"s.{fmt}"), "--format", fmt)
        assert _sheet(gurps.json("char", "show", "鈴音")) == _sheet(before)
        assert gurps.run("char", "export", "鈴音", "--format", fmt).stdout == (tmp_path / f"s.{fmt}").read_text(
            encoding="utf-8"
        )
        gurps.run("history", "verify")


def test_a_limit_clause_the_template_does_not_know_is_refused(gurps, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps([{"name": "凛", "player": "Aki", "trait:閉所恐怖症": "-10 phobia; maybe"}], ensure_ascii=False),
        encoding="utf-8",
    )
    head = gurps.json("list")[0]["entries"]
    assert gurps.error("char", "import", str(bad), "--format", "json", code=2) == (
        "error: character 1 (凛): trait:閉所恐怖症: 'maybe' is neither 'uncounted' nor 'outside N' (the CP "
        "outside the disadvantage limit)"
    )
    assert gurps.json("list")[0]["entries"] == head


def test_a_third_edition_piece_keeps_hp_and_fp_derived(cli, tmp_path):
    """ST/DX/IQ/HT only: HP and FP are HT and ST (docs/rules.md "Derived stats"). Through a
    piece they stay derived (raising HT still raises HP), and the piece comes back the same;
    a hand-written bar whose maximum differs is the sheet's own stat."""
    from tests.cli.test_time import third_setup

    third_setup(cli)
    before = cli.json("char", "show", "千早")
    assert set(before["stats"]) == {"ST", "DX", "IQ", "HT"}
    piece = cli.run("char", "export", "千早", "--ccfolia").stdout
    bars = {bar["label"]: bar["max"] for bar in json.loads(piece)["data"]["status"]}
    assert (bars["HP"], bars["FP"]) == (11, 10)
    (tmp_path / "piece.json").write_text(piece, encoding="utf-8")
    _another_campaign(cli, "卓B")
    cli.run("char", "import", str(tmp_path / "piece.json"), "--format", "ccfolia")
    after = cli.json("char", "show", "千早")
    assert after["stats"] == before["stats"] and after["derived"]["HP"] == {"value": 11, "from": "HT"}
    assert cli.run("char", "export", "千早", "--ccfolia").stdout == piece
    cli.run("char", "set", "千早", "--stat", "HT=13")
    assert cli.json("char", "show", "千早")["pools"]["HP"]["max"] == 13
    data = json.loads(piece)["data"]
    data["name"] = "凛"
    data["status"] = [{**bar, "max": 15} if bar["label"] == "HP" else bar for bar in data["status"]]
    (tmp_path / "own.json").write_text(json.dumps({"kind": "character", "data": data}), encoding="utf-8")
    cli.run("char", "import", str(tmp_path / "own.json"), "--format", "ccfolia")
    assert cli.json("char", "show", "凛")["stats"]["HP"] == 15


def test_what_a_piece_holds_and_the_campaign_does_not_keep_is_listed(cli, tmp_path):
    """An いあきゃら-like piece: MP and SAN bars, its own palette and initiative. The import
    keeps the sheet and says what it leaves out, in --dry-run, --json and the summary."""
    from tests.cli.test_time import third_setup

    third_setup(cli)
    palette = [
        "CCB<={SAN} 正気度ロール",
        "1d100<=50 目星",
        "CRT",
        "3D6<={DX} 【DX】判定",
        *[f"line {n}" for n in range(5)],
    ]
    piece = {
        "kind": "character",
        "data": {
            "name": "探索者",
            "memo": "PL: Aki",
            "initiative": 12,
            "status": [
                {"label": "HP", "value": 9, "max": 11},
                {"label": "MP", "value": 10, "max": 10},
                {"label": "SAN", "value": 50, "max": 99},
            ],
            "params": [{"label": "ST", "value": "10"}, {"label": "DX", "value": "11"}, {"label": "HT", "value": "11"}],
            "commands": "\n".join(palette),
        },
    }
    (tmp_path / "iachara.json").write_text(json.dumps(piece, ensure_ascii=False), encoding="utf-8")
    dry = cli.json("char", "import", str(tmp_path / "iachara.json"), "--format", "ccfolia", "--dry-run")
    assert dry["characters"][0]["not_kept"] == ["status MP", "status SAN", "palette 7", "initiative 12"]
    said = cli.run("--lang", "ja", "char", "import", str(tmp_path / "iachara.json"), "--format", "ccfolia").stdout
    assert "取り込まないもの: ステータス MP、ステータス SAN、チャットパレット 7行、イニシアティブ 12" in said
    assert cli.json("char", "show", "探索者")["stats"] == {"ST": 10, "DX": 11, "HT": 11}  # HP 11 = HT: derived
    own = cli.run("char", "export", "千早", "--ccfolia").stdout
    (tmp_path / "own.json").write_text(own, encoding="utf-8")
    _another_campaign(cli, "卓B")
    assert (
        cli.json("char", "import", str(tmp_path / "own.json"), "--format", "ccfolia")["characters"][0]["not_kept"] == []
    )  # our own piece loses nothing

"""Characters as GURPS players write them: one stat-name resolver, stats of
each kind the ruleset declares (Basic Speed in quarters, stored exactly)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from campaign.core.stat_names import resolve_stat, stat_number
from campaign.errors import BadInput
from campaign.seeds import load_stat_names


def _full_width(text: str) -> str:
    """ASCII letters and digits in their full-width forms (ＷＩＬＬ): NFKC folds them back."""
    return "".join(chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch for ch in text)


def _every_alias():
    for ruleset, names in load_stat_names().items():
        for canonical, aliases in names.aliases.items():
            for spelling in (canonical, *aliases):
                for form in {spelling, spelling.upper(), spelling.lower(), _full_width(spelling)}:
                    yield ruleset, canonical, form


@pytest.mark.parametrize("ruleset", sorted(load_stat_names()))
def test_every_alias_of_the_ruleset_files_resolves_to_its_stat(ruleset):
    names = load_stat_names()[ruleset]
    checked = 0
    for rs, canonical, form in _every_alias():
        if rs != ruleset:
            continue
        assert resolve_stat(form, {}, names.aliases).name == canonical, form
        # a sheet that stores the alias is read by the canonical name too
        assert resolve_stat(canonical, {form: 1}, names.aliases).name == form
        checked += 1
    assert checked >= 3 * len(names.aliases)


def test_the_issue_spellings_of_will():
    names = load_stat_names()["gurps3-ja"]
    for spelling in ("意志力", "意志", "意思", "意思力", "ＷＩＬＬ", "will", "Will"):
        assert resolve_stat(spelling, {}, names.aliases).name == "Will"
    assert names.kind("Speed") == "quarter" and names.kind("Will") == "derived" and names.kind("IQ") == "integer"


def test_quarter_values_are_exact():
    assert stat_number("5.5", "Speed", "quarter") == "5.5"
    assert stat_number("5.250", "Speed", "quarter") == "5.25"
    assert stat_number("6.0", "Speed", "quarter") == 6
    assert stat_number(5.75, "Speed", "quarter") == "5.75"
    for bad in ("5.3", "5.125", "abc", "", "1e3"):
        with pytest.raises(BadInput, match="not a whole or quarter number"):
            stat_number(bad, "Speed", "quarter")
    with pytest.raises(BadInput, match="not a whole number"):
        stat_number("5.5", "IQ", "integer")


def test_char_add_refuses_an_unknown_stat_as_char_set_does(gurps):
    message = gurps.error("char", "add", "凛", "--npc", "--stat", "Wil=14", code=1)
    assert message == "error: 凛 has no stat 'Wil': did you mean 'Will'? add --new-stat to create it"
    assert "凛" not in gurps.run("char", "list").stdout
    added = gurps.json("char", "add", "凛", "--npc", "--stat", "Luck=3", "--new-stat")
    assert added["stats"] == {"Luck": 3}


def test_will_spellings_are_stored_as_will_and_rolled_as_will(gurps):
    added = gurps.json("char", "add", "凛", "--npc", "--stat", "意志力=14", "--stat", "ＩＱ=9", "--stat", "生命力=10")
    assert added["stats"] == {"Will": 14, "IQ": 9, "HT": 10}
    fright = gurps.json("fright", "凛", "--dice", "3,3,3")
    assert fright["check"]["target"] == 14  # against Will, not the IQ of 9


def test_basic_speed_in_quarters_is_stored_exactly(gurps):
    added = gurps.json(
        "char", "add", "凛", "--npc", "--stat", "DX=12", "--stat", "基本移動速度=5.25", "--stat", "Move=5"
    )
    assert added["stats"] == {"DX": 12, "Speed": "5.25", "Move": 5}
    changed = gurps.json("char", "set", "凛", "--stat", "Speed=5.5")
    assert changed["stats"]["Speed"] == "5.5"
    gurps.json("char", "set", "凛", "--stat", "speed=6.00")
    assert gurps.json("char", "show", "凛")["stats"]["Speed"] == 6
    assert "Speed 6" in gurps.run("char", "show", "凛").stdout
    assert gurps.error("char", "set", "凛", "--stat", "Speed=5.3", code=2) == (
        "error: stat Speed: '5.3' is not a whole or quarter number (5, 5.25, 5.5, 5.75)"
    )
    assert gurps.error("char", "set", "凛", "--stat", "DX=12.5", code=2) == (
        "error: stat DX: '12.5' is not a whole number"
    )
    record = gurps.run("history", "show", str(added["seq"]), "--json").stdout
    assert '"5.25"' in record and "5.25," not in record  # a decimal string, never a float
    gurps.run("history", "verify")
    seq = gurps.json("char", "set", "凛", "--stat", "Speed=5.75")["seq"]
    gurps.run("history", "void", str(seq), "--reason", "typo", "--yes")
    assert gurps.json("char", "show", "凛")["stats"]["Speed"] == 6
    gurps.run("history", "verify")


def test_skills_notes_items_are_ops_voidable_and_shown(gurps):
    added = gurps.json("skill", "add", "鈴音", "回避", "12", "--attr", "dx", "--difficulty", "a")
    assert added["skills"] == {"回避": {"level": 12, "attr": "DX", "difficulty": "A"}}
    gurps.run("skill", "add", "鈴音", "聞き耳", "14")
    changed = gurps.json("skill", "set", "鈴音", "回避", "13")
    assert changed["skills"]["回避"] == {"level": 13, "attr": "DX", "difficulty": "A"}  # kept
    assert gurps.error("skill", "add", "鈴音", "回避", "9", code=1) == (
        "error: 鈴音 already has the skill '回避' (13); change it with `skill set`"
    )
    assert gurps.error("skill", "set", "鈴音", "回選", "9", code=1) == (
        "error: 鈴音 has no skill '回選' (did you mean '回避'?)"
    )
    gurps.run("skill", "add", "鈴音", "刀", "x", expect=2)  # a level is a whole number
    assert gurps.error("skill", "add", "鈴音", "刀", "12", "--difficulty", "Z", code=2) == (
        "error: --difficulty must be one of E, A, H, VH, not 'Z'"
    )
    gurps.run("char", "note", "鈴音", "祖母の形見の鏡")
    gurps.run("char", "item", "add", "鈴音", "懐中電灯")
    gurps.run("char", "item", "add", "鈴音", "脇差")
    removed = gurps.json("char", "item", "remove", "鈴音", "懐中電灯")
    assert removed["items"] == ["脇差"] and removed["notes"] == ["祖母の形見の鏡"]
    shown = gurps.run("char", "show", "鈴音").stdout
    assert "回避 13 (DX/A)" in shown and "聞き耳 14" in shown and "脇差" in shown and "祖母の形見の鏡" in shown
    # void of the skill change restores the previous sheet; the tables match the ledger
    gurps.run("history", "void", str(changed["seq"]), "--reason", "typo", "--yes")
    assert gurps.json("char", "show", "鈴音")["skills"]["回避"]["level"] == 12
    at = gurps.json("char", "show", "鈴音", "--at", str(changed["seq"]))
    assert at["skills"]["回避"]["level"] == 13  # the sheet as that entry left it
    timeline = gurps.run("char", "timeline", "鈴音").stdout
    assert "skill 回避 12 → 13" in timeline and "item removed: 懐中電灯" in timeline
    gurps.run("history", "verify")
    gurps.run("skill", "remove", "鈴音", "聞き耳")
    assert list(gurps.json("char", "show", "鈴音")["skills"]) == ["回避"]
    gurps.run("history", "verify")


def test_roll_a_skill_or_a_stat_from_the_sheet(gurps):
    gurps.run("skill", "add", "鈴音", "回避", "12")
    plain = gurps.json("roll", "回避", "--char", "鈴音", "--dice", "4,4,4")
    assert (plain["expression"], plain["target"], plain["outcome"]) == ("3D6<=12", 12, "success")
    assert plain["detail"]["from_sheet"] == {"skill": "回避", "level": 12, "modifier": 0}
    line = gurps.run("roll", "回避-2", "--char", "鈴音", "--dice", "4,4,3").stdout
    assert "3D6<=10 (回避 12 −2) → [4,4,3] = 11" in line and "failure" in line
    minus = gurps.json("roll", "回避−2", "とっさに", "--char", "鈴音", "--dice", "1,2,3")  # U+2212, a comment
    assert (minus["target"], minus["reason"], minus["detail"]["from_sheet"]["modifier"]) == (10, "とっさに", -2)
    will = gurps.json("roll", "意志力+1", "--char", "刀矢", "--dice", "5,5,4")  # no such skill: the stat
    assert (will["target"], will["detail"]["from_sheet"]) == (14, {"stat": "Will", "level": 13, "modifier": 1})
    derived = gurps.json("roll", "意志", "--char", "鈴音", "--dice", "3,3,3")
    assert derived["target"] == 11
    # without --char (or for a word that is neither) nothing is read off a sheet
    assert gurps.error("roll", "回避", code=2).startswith("error:")
    assert gurps.error("roll", "跳躍", "--char", "鈴音", code=2).startswith("error:")


@pytest.mark.parametrize("mark", ["ー", "ｰ", "‐", "‑", "‒", "–", "—", "―", "－"])
def test_a_japanese_minus_mark_after_a_skill_or_stat_is_a_modifier(sqlite_gurps, mark):
    """The IME's long-vowel mark (and the dashes a phone offers) typed for minus."""
    sqlite_gurps.run("skill", "add", "鈴音", "聞き耳", "12")
    sqlite_gurps.run("skill", "add", "鈴音", "サーベル", "11")
    skill = sqlite_gurps.json("roll", f"聞き耳{mark}2", "--char", "鈴音", "--dice", "4,4,2")
    assert (skill["target"], skill["outcome"]) == (10, "success")
    assert skill["detail"]["from_sheet"] == {"skill": "聞き耳", "level": 12, "modifier": -2}
    stat = sqlite_gurps.json("roll", f"HT{mark}3", "--char", "鈴音", "--dice", "4,4,1")
    assert (stat["target"], stat["detail"]["from_sheet"]["modifier"]) == (8, -3)
    # a long-vowel mark inside a name stays part of it; the last one before digits is the sign
    inside = sqlite_gurps.json("roll", f"サーベル{mark}1", "--char", "鈴音", "--dice", "1,1,1")
    assert inside["detail"]["from_sheet"] == {"skill": "サーベル", "level": 11, "modifier": -1}
    assert sqlite_gurps.json("roll", "サーベル", "--char", "鈴音", "--dice", "1,1,1")["target"] == 11


def test_2d6_check_skill_takes_the_level_from_the_sheet(cli):
    cli.run("init", "夜桜", "--ruleset", "2d6-ja")
    cli.run("char", "add", "陸", "--npc", "--stat", "技=3")
    cli.run("skill", "add", "陸", "運転", "2")
    checked = cli.json("check", "skill", "陸", "技", "運転", "--target", "12", "--dice", "3,4")
    assert (checked["total"], checked["outcome"]) == (12, "success")  # 3 + 7 + 2
    assert cli.error("check", "skill", "陸", "技", "運伝", "--target", "12", "--dice", "3,4", code=1) == (
        "error: 陸 has no skill '運伝' on the sheet (did you mean '運転'?); give its level with --skill N "
        "or record it with `skill add`"
    )
    given = cli.json("check", "skill", "陸", "技", "操縦", "--skill", "1", "--target", "12", "--dice", "3,4")
    assert given["total"] == 11


def test_a_paid_trait_leaves_the_cp_total_as_the_sheet_says(gurps):
    paid = gurps.json("trait", "add", "刀矢", "戦闘即応", "--cp", "15", "--paid")
    assert paid["cp_total"] == 100 and paid["trait"]["cp"] == 15
    unpaid = gurps.json("trait", "add", "刀矢", "鋭敏視覚", "--cp", "4")
    assert unpaid["cp_total"] == 104
    assert gurps.json("char", "show", "刀矢")["cp_total"] == 104
    fright = gurps.json("fright", "刀矢", "--dice", "6,6,3")  # 15 vs Will 13 + 2 for 戦闘即応
    assert fright["check"]["target"] == 15
    gurps.run("history", "void", str(paid["seq"]), "--reason", "typo", "--yes", "--cascade")
    assert gurps.json("char", "show", "刀矢")["cp_total"] == 104
    gurps.run("history", "verify")


PARTY = Path(__file__).parents[1] / "data" / "party_3e.csv"  # five third-edition sheets, written from the rules


def _sheet(view: dict) -> dict:
    """A sheet without what differs between two campaigns (seqs, trait origins)."""
    view = {k: v for k, v in view.items() if k != "seq"}
    view["traits"] = [{k: v for k, v in t.items() if k not in ("origin", "source_seq")} for t in view["traits"]]
    return view


def _party_campaign(cli, name: str) -> None:
    cli.run("init", name)
    for player in ("Aki", "Ren", "Mio", "Sho", "Yu"):
        cli.run("player", "add", player)


def test_a_party_enters_by_csv_rolls_from_the_sheet_and_round_trips(cli, tmp_path):
    _party_campaign(cli, "卓A")
    dry = cli.json("char", "import", str(PARTY), "--format", "csv", "--dry-run")
    assert dry["dry_run"] is True and [c["seq"] for c in dry["characters"]] == [None] * 5
    assert cli.json("char", "list") == []  # a dry run writes nothing
    done = cli.json("char", "import", str(PARTY), "--format", "csv")
    seqs = [c["seq"] for c in done["characters"]]
    assert len(set(seqs)) == 5  # one entry per character
    suzune = cli.json("char", "show", "鈴音")
    assert suzune["stats"] == {"ST": 9, "DX": 12, "IQ": 13, "HT": 11, "Will": 14, "Speed": "5.75"}
    assert suzune["cp_total"] == 100  # traits were already paid for
    assert suzune["skills"]["応急手当"] == {"level": 14, "attr": "IQ", "difficulty": "E"}
    assert len(suzune["skills"]) == 10 and suzune["items"] == ["懐中電灯", "手帳"]
    assert {t["name"]: t["cp"] for t in suzune["traits"]} == {"鋭敏聴覚": 4, "好奇心": -5, "高所恐怖症": -10}
    rolled = cli.json("roll", "聞き耳-3", "--char", "鈴音", "--dice", "4,4,4")
    assert (rolled["target"], rolled["outcome"]) == (12, "success")
    cli.run("history", "verify")
    # out, and into another campaign: the same sheets
    exported = cli.run("char", "export", "--all", "--format", "csv").stdout
    (tmp_path / "out.csv").write_text(exported, encoding="utf-8")
    as_json = cli.run("char", "export", "--all", "--format", "json").stdout
    (tmp_path / "out.json").write_text(as_json, encoding="utf-8")
    before = {c["name"]: _sheet(c) for c in cli.json("char", "list")}
    for fmt in ("csv", "json"):
        _party_campaign(cli, f"卓{fmt}")
        cli.run("char", "import", str(tmp_path / f"out.{fmt}"), "--format", fmt)
        assert {c["name"]: _sheet(c) for c in cli.json("char", "list")} == before
        assert cli.run("char", "export", "--all", "--format", fmt).stdout == (exported if fmt == "csv" else as_json)
        cli.run("history", "verify")
    # a voided import takes its character away again
    cli.run("use", "卓A")
    cli.run("history", "void", str(seqs[0]), "--reason", "wrong file", "--yes")
    assert "鈴音" not in [c["name"] for c in cli.json("char", "list")]
    cli.run("history", "verify")


def test_import_refuses_unknown_fields_and_writes_nothing(cli, tmp_path):
    _party_campaign(cli, "卓A")
    bad = tmp_path / "bad.csv"
    bad.write_text("name,player,IQ,Luck,skill:回避\n凛,Aki,12,3,6\n", encoding="utf-8")
    assert cli.error("char", "import", str(bad), "--format", "csv", code=2) == (
        "error: character 1 (凛): unknown field(s) 'Luck' (not a stat of the ruleset; "
        "a skill is skill:NAME, a trait trait:NAME)"
    )
    bad.write_text("name,IQ,skill:回避\n凛,12,six\n", encoding="utf-8")
    assert "is not a skill level" in cli.error("char", "import", str(bad), "--format", "csv", code=2)
    good = tmp_path / "good.json"
    good.write_text(
        json.dumps(
            [{"name": "凛", "IQ": 12, "skill:回避": 6}, {"name": "鈴音", "kind": "npc", "DX": 10}], ensure_ascii=False
        ),
        encoding="utf-8",
    )
    assert cli.error("char", "import", str(good), "--format", "json", code=2) == (
        "error: 凛: a PC needs a player (a player column, or --player)"
    )
    cli.run("char", "import", str(good), "--format", "json", "--player", "Aki")
    assert sorted(c["name"] for c in cli.json("char", "list")) == ["凛", "鈴音"]
    assert "already in" in cli.error("char", "import", str(good), "--format", "json", "--player", "Aki", code=1)


def test_entry_25_pick_near_a_mild_phobia_is_refused_and_no_pick_names_them(gurps):
    gurps.run("trait", "add", "鈴音", "高所恐怖症", "--cp", "-10", "--category", "phobia", "--paid")
    head = gurps.json("list")[0]["entries"]
    assert gurps.error("fright", "鈴音", "--pick", "高所恐怖", "--mod", "-16", "--dice", "6,6,5,1,1,1", code=1) == (
        "error: --pick '高所恐怖': did you mean '高所恐怖症'? (鈴音's mild phobia: its exact name worsens it on "
        "entry 25; another name adds a new trait)"
    )
    assert gurps.json("list")[0]["entries"] == head  # refused before any die
    unpicked = gurps.json("fright", "鈴音", "--mod", "-16", "--dice", "6,6,5,1,1,1")
    assert unpicked["table"]["entry"] == 25
    assert (
        "鈴音 has the mild phobia(s) 高所恐怖症: to worsen one instead of the new trait, void this check and "
        "roll again with --pick NAME, or change it with `trait` commands"
    ) in unpicked["notes"]
    other = gurps.json("fright", "鈴音", "--pick", "閉所恐怖症", "--mod", "-16", "--dice", "6,6,5,1,1,1")
    assert [t["name"] for t in other["traits_added"]] == ["閉所恐怖症"]  # far from it: a new trait, as asked


def test_ccfolia_pieces_enter_and_the_palette_rolls_what_the_rules_roll(cli, tmp_path):
    _party_campaign(cli, "卓A")
    piece = {
        "kind": "character",
        "data": {
            "name": "凛",
            "memo": "PL: Aki\n探索者",
            "initiative": 6,
            "status": [{"label": "HP", "value": 9, "max": 12}],
            "params": [
                {"label": "DX", "value": "12"},
                {"label": "IQ", "value": "13"},
                {"label": "ＨＴ", "value": "11"},
                {"label": "意志力", "value": "14"},
                {"label": "基本移動速度", "value": "5.75"},
                {"label": "回避", "value": "6"},
            ],
            "commands": "3D6<={意志力} 恐怖判定\n3D6<={回避} 回避\n3D6<=15 聞き耳\n3D6<={DX} 【DX】判定\nCRT",
        },
    }
    path = tmp_path / "piece.json"
    path.write_text(json.dumps(piece, ensure_ascii=False), encoding="utf-8")
    cli.run("char", "import", str(path), "--format", "ccfolia")
    rin = cli.json("char", "show", "凛")
    assert rin["player"] == "Aki"
    assert rin["stats"] == {"HP": 12, "DX": 12, "IQ": 13, "HT": 11, "Will": 14, "Speed": "5.75"}
    assert {k: v["level"] for k, v in rin["skills"].items()} == {"回避": 6, "聞き耳": 15}
    cli.run("trait", "add", "凛", "高所恐怖症", "--cp", "-20", "--category", "severe phobia", "--paid")
    out = json.loads(cli.run("char", "export", "凛", "--ccfolia").stdout)["data"]
    assert out["initiative"] == 5.75  # Basic Speed where the sheet records it
    assert out["commands"].split("\n") == [
        "3D6<={Will} 恐怖判定",
        "3D6<={Will}-4 恐怖判定（強い恐怖症）",
        "3D6<={DX} 【DX】判定",
        "3D6<={IQ} 【IQ】判定",
        "3D6<={HT} 【HT】判定",
        "3D6<={Will} 【Will】判定",
        "3D6<={回避} 回避",
        "3D6<={聞き耳} 聞き耳",
        "CRT",
        "FMB",
        "HCRT",
        "YSCRT",
        "YSFMB",
        "YFMB",
        "FEAR",
    ]  # no HP, no Speed: nobody rolls against them
    # the exported piece comes back in as the same sheet (in another campaign)
    (tmp_path / "back.json").write_text(
        json.dumps({"kind": "character", "data": out}, ensure_ascii=False), encoding="utf-8"
    )
    _party_campaign(cli, "卓B")
    cli.run("char", "import", str(tmp_path / "back.json"), "--format", "ccfolia")
    again = cli.json("char", "show", "凛")
    assert again["stats"] == rin["stats"] and again["skills"] == {
        k: {**v, "attr": None, "difficulty": None} for k, v in rin["skills"].items()
    }
    odd = dict(
        piece,
        data={**piece["data"], "name": "澪", "params": [*piece["data"]["params"], {"label": "SAN", "value": "50"}]},
    )
    path.write_text(json.dumps(odd, ensure_ascii=False), encoding="utf-8")
    # a param the campaign does not keep: a note, named in every report, the rest imported
    dry = cli.json("char", "import", str(path), "--format", "ccfolia", "--dry-run")
    assert [(c["name"], c["noted_params"], c["seq"]) for c in dry["characters"]] == [("澪", ["SAN"], None)]
    said = cli.run("--lang", "ja", "char", "import", str(path), "--format", "ccfolia").stdout
    assert (
        said.startswith("PC 澪 を追加: CP ")
        and "メモに残したパラメータ: SAN、取り込まないもの: イニシアティブ 6 (台帳 #" in said
    )
    mio = cli.json("char", "show", "澪")
    assert "param SAN: 50" in mio["notes"] and mio["stats"] == rin["stats"]


def test_campaign_export_import_carries_skills_notes_and_items(gurps, tmp_path):
    gurps.run("skill", "add", "鈴音", "回避", "12", "--attr", "DX", "--difficulty", "A")
    gurps.run("char", "note", "鈴音", "左利き")
    gurps.run("char", "item", "add", "鈴音", "懐中電灯")
    gurps.run("char", "set", "鈴音", "--stat", "Speed=5.25")
    before = gurps.json("char", "show", "鈴音")
    dump = tmp_path / "c.jsonl"
    gurps.run("export", str(dump))
    other = type(gurps)(str(tmp_path / "other.db"))
    other.run("import", str(dump))
    other.run("history", "verify")
    other.run("use", "テスト卓")
    assert other.json("char", "show", "鈴音") == before


@pytest.mark.parametrize("ruleset", sorted(load_stat_names()))  # every ruleset the seeds define
def test_every_palette_line_is_a_dice_command_once_its_params_are_filled(cli, ruleset):
    """What ココフォリア sends is the line with {label} replaced by the piece's value: that
    must parse with the grammar the log import uses (core.dice_parse), or be a table name."""
    import re

    from campaign.core.dice_parse import parse, split_comment
    from campaign.seeds import load_tables
    from campaign.web.routes_bcdice import pattern_of

    SYSTEMS = {"gurps3-ja": "GURPS", "2d6-ja": "Campaign2D6"}  # noqa: N806 (the test's table)

    cli.run("init", "卓", "--ruleset", ruleset)
    if ruleset == "gurps3-ja":
        cli.run(
            "char",
            "add",
            "凛",
            "--npc",
            "--stat",
            "DX=12",
            "--stat",
            "IQ=13",
            "--stat",
            "Speed=5.5",
            "--stat",
            "Move=5",
            "--stat",
            "HP=12",
        )
        cli.run("skill", "add", "凛", "回避", "6")
        cli.run("trait", "add", "凛", "高所恐怖症", "--cp", "-20", "--category", "severe phobia", "--paid")
    else:
        cli.run("char", "add", "凛", "--npc", "--stat", "心=3", "--stat", "感=2")
    data = json.loads(cli.run("char", "export", "凛", "--ccfolia").stdout)["data"]
    values = {p["label"]: p["value"] for p in data["params"]}
    tables = set(load_tables())
    for line in data["commands"].split("\n"):
        filled = line
        for label, value in values.items():
            filled = filled.replace("{" + label + "}", value)
        assert "{" not in filled, line
        # a command of the ruleset's BCDice system, as this server's BCDice-API takes it
        assert re.match(pattern_of(SYSTEMS[ruleset]), filled, re.IGNORECASE), (SYSTEMS[ruleset], filled)
        expression = split_comment(filled)[0]
        if expression in tables:
            continue
        parse(expression)  # raises on anything BCDice-style dice would not read


@pytest.mark.parametrize("encoding", ["shift_jis", "cp932"])
def test_excel_s_shift_jis_csv_imports_as_its_utf8_twin(cli, tmp_path, encoding):
    """Excel's CSV on a Japanese Windows is Shift_JIS (CP932): the same sheets as UTF-8."""
    text = PARTY.read_text(encoding="utf-8")
    (tmp_path / "excel.csv").write_bytes(text.replace("\n", "\r\n").encode(encoding))
    _party_campaign(cli, "卓UTF8")
    cli.run("char", "import", str(PARTY), "--format", "csv")
    expected = {c["name"]: _sheet(c) for c in cli.json("char", "list")}
    exported = cli.run("char", "export", "--all", "--format", "csv").stdout
    _party_campaign(cli, "卓SJIS")
    cli.run("char", "import", str(tmp_path / "excel.csv"), "--format", "csv")
    assert {c["name"]: _sheet(c) for c in cli.json("char", "list")} == expected and len(expected) == 5
    assert cli.run("char", "export", "--all", "--format", "csv").stdout == exported


def test_a_csv_in_no_encoding_it_reads_is_one_line_and_writes_nothing(cli, tmp_path):
    _party_campaign(cli, "卓")
    (tmp_path / "odd.csv").write_bytes("name,player\n鈴音,Aki\n".encode()[:-6] + b"\x80\xfd\xff\n")
    head = cli.json("history", "--all")
    assert cli.error("char", "import", str(tmp_path / "odd.csv"), "--format", "csv", code=2) == (
        f"error: {tmp_path / 'odd.csv'} is not text in UTF-8 or Shift_JIS (CP932)"
    )
    assert cli.json("history", "--all") == head


def test_the_import_summary_lists_only_what_the_sheet_holds(cli, tmp_path):
    _party_campaign(cli, "卓")
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps([{"name": "凛", "player": "Aki"}], ensure_ascii=False), encoding="utf-8")
    ja = cli.run("--lang", "ja", "char", "import", str(bare), "--format", "json", "--dry-run").stdout
    assert ja == "PC 凛 を追加予定: CP 0\n"  # not 「CP 0、、技能 0、特徴 0」
    full = cli.run("--lang", "en", "char", "import", str(PARTY), "--format", "csv", "--dry-run").stdout
    assert full.splitlines()[0].startswith("would add PC ") and ", 10 skills, 3 traits" in full.splitlines()[0]

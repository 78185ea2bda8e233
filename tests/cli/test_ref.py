"""`campaign ref` (docs/rules.md "Reference tables"): look-ups write nothing; `--roll` on hit location is
logged like `table roll`, on SQLite and PostgreSQL."""

from __future__ import annotations

import re
from csv import DictReader

import pytest

from tests.cli.conftest import Cli
from tests.unit.test_reference import WANTED

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def test_ref_list_shows_every_reference_table(sqlite_gurps: Cli):
    rows = sqlite_gurps.json("ref", "list")
    assert [r["name"] for r in rows] == WANTED
    assert [r["origin"] for r in rows] == ["000"] * 9 + ["001"] * 2 + ["002"]
    assert [(r["name"], r["command"]) for r in rows if r["rollable"]] == [("命中部位表", "HIT")]
    out = sqlite_gurps.run("--lang", "ja", "ref", "list").stdout
    for name in WANTED:
        assert name in out
    assert out.splitlines()[0].strip() == "参照表" and "行数" in out and "seed" not in out
    english = sqlite_gurps.run("--lang", "en", "ref", "list").stdout
    assert "Hit Location" in english and "命中部位表" not in english and "参照表" not in english
    csv = sqlite_gurps.run("ref", "list", "--csv").stdout.splitlines()
    assert csv[0] == "name,name_en,seed,rows,roll" and len(csv) == 1 + len(WANTED)


def test_ref_show_prints_an_aligned_table_and_json(sqlite_gurps: Cli):
    before = sqlite_gurps.json("history", "--all")
    view = sqlite_gurps.json("ref", "show", "姿勢")
    assert (view["key"], view["name"], view["rollable"]) == ("posture", "姿勢表", False)
    assert [c["key"] for c in view["columns"]] == ["posture", "attack", "defense", "move"]
    assert view["data"][2] == {
        "index": 3,
        "posture": {"ja": "膝つき", "en": "kneeling"},
        "attack": "-2",
        "defense": "長射程武器で狙うと-2、能動防御-2",
        "move": "1ヘクスにつき移動力+2",
    }
    out = sqlite_gurps.run("ref", "show", "姿勢表").stdout
    assert out.startswith("Postures (GURPS ベーシック完訳版 P259)") and "│ kneeling " in out and "…" not in out
    assert "Posture" in out and "姿勢 / Posture" not in out  # headers in one language
    japanese = sqlite_gurps.run("--lang", "ja", "ref", "show", "姿勢表").stdout
    assert japanese.startswith("姿勢表 (GURPS ベーシック完訳版 P259)") and "Postures" not in japanese
    assert "│ 膝つき " in japanese and "kneeling" not in japanese and "│ 膝つき " not in out
    hit = sqlite_gurps.json("ref", "show", "命中部位")
    assert [(row["roll"], row["mod"]) for row in hit["data"][:3]] == [([3, 4], "-7"), ([5, 5], "-5"), (None, "-9")]
    csv = sqlite_gurps.run("ref", "show", "HIT", "--csv").stdout.splitlines()
    assert csv[0] == "roll,part,mod,effect" and csv[1].startswith("3-4,skull,-7,")
    guide = sqlite_gurps.json("ref", "show", "目標値")
    assert [row["target"] for row in guide["data"]] == ["0〜6", "7〜9", "10〜13", "14〜17", "18〜21", "22〜"]
    assert sqlite_gurps.json("history", "--all") == before


def test_ref_roll_on_hit_location_is_logged(gurps: Cli):
    rolled = gurps.json("ref", "show", "命中部位", "--roll", "--char", "刀矢", "--dice", "3,3,4", "--reason", "狙わず")
    assert (rolled["kind"], rolled["expression"], rolled["dice"], rolled["total"]) == ("table", "HIT", [3, 3, 4], 10)
    assert (rolled["character"], rolled["reason"], rolled["source"]) == ("刀矢", "狙わず", "manual")
    # the record names the table and the row; the row's words are made when shown
    assert rolled["detail"] == {
        "reference": "hit_location",
        "table": "HIT",
        "result": 10,
        "row": {"index": rolled["detail"]["row"]["index"], "roll": [9, 11]},
    }
    assert rolled["detail_shown"]["row"]["part"] == {"ja": "胴体", "en": "torso"} and rolled["detail_shown"]["row"][
        "roll"
    ] == [9, 11]
    shown = gurps.json("history", "show", str(rolled["seq"]))
    assert shown["total"] == 10 and shown["detail_shown"]["row"]["mod"] == "0"
    assert shown["detail_shown"]["lines"] == ["9-11: torso / 0 / 特になし。"]
    out = gurps.run("ref", "show", "HIT", "--roll", "--dice", "1,1,2").stdout
    assert "HIT → [1,1,2] = 4" in out and "3-4: skull / -7 / " in out and "頭 /" not in out
    assert gurps.json("history", "--kind", "table", "--limit", "1")[0]["total"] == 4


def test_hit_locations_read_in_one_language(sqlite_gurps: Cli, monkeypatch: pytest.MonkeyPatch):
    """Issue 32: a part the seed names in both languages shows in the output's only."""
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    japanese = sqlite_gurps.run("ref", "show", "命中部位表").stdout
    assert "│ 頭 " in japanese and "│ 胴体 " in japanese and "skull" not in japanese and "torso" not in japanese
    csv = [row.split(",")[1] for row in sqlite_gurps.run("ref", "show", "HIT", "--csv").stdout.splitlines()]
    assert csv[:4] == ["part", "頭", "顔", "目"] and csv[-1] == "武器落し"
    monkeypatch.setenv("CAMPAIGN_LANG", "en")
    english = sqlite_gurps.run("ref", "show", "命中部位表").stdout
    assert "│ skull " in english and "│ torso " in english and "│ 頭 " not in english and "│ 胴体 " not in english
    csv = [row.split(",")[1] for row in sqlite_gurps.run("ref", "show", "HIT", "--csv").stdout.splitlines()]
    assert csv[:4] == ["part", "skull", "face", "eye"] and csv[-1] == "disarm"
    assert not any(JAPANESE.search(part) for part in csv)
    # --json: both, as the seed gives them, whatever the language
    assert sqlite_gurps.json("ref", "show", "HIT")["data"][0]["part"] == {"ja": "頭", "en": "skull"}


def test_every_cell_given_in_both_languages_prints_one(sqlite_gurps: Cli, monkeypatch: pytest.MonkeyPatch):
    """Every seed table: a {ja, en} cell of --json is, in --csv, the output's language."""
    both = 0
    for table in sqlite_gurps.json("ref", "list"):
        view = sqlite_gurps.json("ref", "show", table["key"])
        keys = [c["key"] for c in view["columns"]]
        for language in ("ja", "en"):
            monkeypatch.setenv("CAMPAIGN_LANG", language)
            text = sqlite_gurps.run("ref", "show", table["key"], "--csv").stdout
            rows = list(DictReader(text.splitlines()))
            assert len(rows) == len(view["data"]), table["key"]
            for shown, data in zip(rows, view["data"]):
                for key in keys:
                    cell = data[key]
                    wanted = cell[language] if isinstance(cell, dict) else cell
                    assert shown[key].removeprefix("'") == wanted, (table["key"], key)  # ' guards "-3"
                    both += isinstance(cell, dict)
    assert both == 2 * 99  # the seeds' short names: 20 hit locations, 6 postures, ...


def test_ref_refusals_write_nothing(gurps: Cli):
    before = gurps.json("history", "--all")
    assert "no reference table 'nothing'" in gurps.error("ref", "show", "nothing", code=1)
    assert "Postures is a look-up, not a roll table (rollable: Hit Location)" in gurps.error(
        "ref", "show", "姿勢", "--roll", code=2
    )
    assert "only 3 used" in gurps.error("ref", "show", "HIT", "--roll", "--dice", "1,1,1,1", code=2)
    assert "go with --roll" in gurps.error("ref", "show", "HIT", "--dice", "1,1,1", code=2)
    assert "no character" in gurps.error("ref", "show", "HIT", "--roll", "--char", "誰", "--dice", "1,1,1", code=1)
    assert gurps.json("history", "--all") == before


def test_ref_speaks_the_campaigns_language_like_every_other_command(
    sqlite_gurps: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path
):
    """A gurps3-ja campaign under the C locale: `ref list` and `ref show` print Japanese
    table, column and location names, as `roll` does; the `lang` setting turns it."""
    monkeypatch.delenv("CAMPAIGN_LANG")
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    listed = sqlite_gurps.run("ref", "list").stdout
    assert listed.splitlines()[0].strip() == "参照表" and "命中部位表" in listed and "Hit Location" not in listed
    shown = sqlite_gurps.run("ref", "show", "HIT").stdout
    assert "│ 頭 " in shown and "skull" not in shown
    sqlite_gurps.run("settings", "lang=en")
    english = sqlite_gurps.run("ref", "show", "HIT").stdout
    assert "│ skull " in english and "│ 頭 " not in english
    assert "Hit Location" in sqlite_gurps.run("ref", "list").stdout
    # no database at all: the locale alone decides, and nothing is created
    nowhere = Cli(str(tmp_path / "none" / "campaign.db"))
    assert "Hit Location" in nowhere.run("ref", "list").stdout
    assert not (tmp_path / "none").exists()

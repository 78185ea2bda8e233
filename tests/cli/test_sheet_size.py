"""Big sheets (docs/sheets.md, "Limits"): a sheet of thousands of traits imports whole,
one entry, and verifies; a trait name given twice (in any case) is still refused however
deep in the sheet; a sheet past the field limit is refused in one line, nothing written.
Times are `make bench` (row sheet_import), not asserted here."""

from __future__ import annotations

import json

import pytest

from campaign.services.characters.sheet_transfer import FIELD_LIMIT
from tests.cli.conftest import cli  # noqa: F401 (fixture)

pytestmark = pytest.mark.dialect


def _sheet(traits: int, **more: str) -> dict[str, object]:
    """An NPC whose traits cost 1, -1, 2, -2 ... CP (names 特徴0 ...); the disadvantages
    past the 10th keep 1 CP outside the disadvantage limit."""
    record: dict[str, object] = {"name": "多芸", "kind": "npc", "cp": 0}
    for i in range(traits):
        cp = (i // 2 + 1) * (1 if i % 2 == 0 else -1)
        value = str(cp) if cp > 0 or i < 10 else f"{cp} disadvantage; outside -1"
        record[f"trait:特徴{i}"] = value
    return {**record, **more}


def _import(cli, tmp_path, records: list[dict[str, object]], code: int = 0):
    path = tmp_path / "sheet.json"
    path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    if code:
        return cli.error("char", "import", str(path), "--format", "json", code=code)
    return cli.json("char", "import", str(path), "--format", "json")


@pytest.mark.parametrize("traits", [1_000, 8_000])
def test_a_sheet_of_thousands_of_traits_imports_whole(cli, tmp_path, traits):
    cli.run("init", "大判卓")
    done = _import(cli, tmp_path, [_sheet(traits)])
    assert [(c["name"], c["traits"]) for c in done["characters"]] == [("多芸", traits)]
    shown = cli.json("char", "show", "多芸")
    got = {t["name"]: (t["cp"], t.get("unlimited_cp")) for t in shown["traits"]}
    assert len(got) == traits
    assert got["特徴0"] == (1, 0)
    assert got["特徴9"] == (-5, 0)
    assert got["特徴11"] == (-6, -1)
    last = traits - 1  # odd: a disadvantage
    assert got[f"特徴{last}"] == (-(last // 2 + 1), -1)
    # one entry for the whole sheet, after the campaign's own
    assert [e["kind"] for e in cli.json("history", "--limit", "100")] == ["character", "campaign"]
    assert cli.json("history", "verify")["ok"]


def test_a_trait_given_twice_deep_in_a_big_sheet_is_refused_and_nothing_written(cli, tmp_path):
    cli.run("init", "大判卓")
    sheet = _sheet(3_000, **{"trait:Trait": "1", "trait:tRAIT": "2"})  # the same name but for case
    assert _import(cli, tmp_path, [sheet], code=2) == "error: 多芸: the trait 'tRAIT' is given twice"
    assert cli.json("char", "list") == []
    assert [e["kind"] for e in cli.json("history", "--limit", "10")] == ["campaign"]


def test_names_stay_unique_among_thousands_of_traits(cli, tmp_path):
    """The op's own clash check (an index of names, kept across adds and renames)."""
    cli.run("init", "大判卓")
    _import(cli, tmp_path, [_sheet(3_000)])
    refused = cli.error("trait", "add", "多芸", "特徴2999", "--cp", "1", code=1)
    assert refused == "error: 多芸 already has a trait named '特徴2999'"
    cli.run("trait", "rename", "多芸", "特徴0", "Keen Hearing")
    assert cli.error("trait", "add", "多芸", "keen hearing", "--cp", "1", code=1) == (
        "error: 多芸 already has a trait named 'keen hearing'"
    )
    cli.run("trait", "add", "多芸", "特徴0", "--cp", "1")  # the old name is free again
    names = [t["name"] for t in cli.json("char", "show", "多芸")["traits"]]
    assert len(names) == 3_001 and names.count("特徴0") == 1 and "Keen Hearing" in names
    assert cli.json("history", "verify")["ok"]


def test_a_sheet_past_the_field_limit_is_refused_in_one_line(cli, tmp_path):
    cli.run("init", "大判卓")
    wide = _sheet(FIELD_LIMIT)  # name, kind and cp make it three past the limit
    assert _import(cli, tmp_path, [_sheet(2), wide], code=2) == (
        f"error: character 2 has {FIELD_LIMIT + 3} fields: a sheet holds at most {FIELD_LIMIT}"
    )
    header = ["name", "kind", *(f"trait:特徴{i}" for i in range(FIELD_LIMIT - 1))]
    path = tmp_path / "wide.csv"
    path.write_text(",".join(header) + "\n" + "\n", encoding="utf-8")
    assert cli.error("char", "import", str(path), "--format", "csv", code=2) == (
        f"error: character 1 has {FIELD_LIMIT + 1} fields: a sheet holds at most {FIELD_LIMIT}"
    )
    assert cli.json("char", "list") == []
    assert [e["kind"] for e in cli.json("history", "--limit", "10")] == ["campaign"]

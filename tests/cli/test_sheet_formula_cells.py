"""`char export --format csv` writes no live formula, and `char import` reads the file
back to the identical sheet (SQLite and PostgreSQL). Every lead a spreadsheet runs is
tried in a name, a note, an item and a skill's name."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)

pytestmark = pytest.mark.dialect

# Names, notes and items are kept without surrounding space, so the tab and carriage
# return leads reach no cell from here: tests/unit/test_spreadsheet_cells.py tries them.
NAMES = ["=1+1", "+SUM(A1)", "-cmd", "@HYPERLINK"]
TEXTS = ['=HYPERLINK("http://evil.example")', "+1 ring", "-2 to hit", "@home", "'=already"]


def _cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_formula_cells_are_guarded_and_the_round_trip_is_identical(gurps, tmp_path):
    for name in NAMES:  # after `--`: a name starting with - is no option
        gurps.run("char", "add", "--player", "Aki", "--stat", "IQ=10", "--", name)
    for text in TEXTS:
        gurps.run("char", "note", "--", NAMES[0], text)
        gurps.run("char", "item", "add", "--", NAMES[1], text)
    gurps.run("skill", "add", "--", NAMES[2], "=skill", "12")
    gurps.run("trait", "add", "--cp", "-10", "--paid", "--", NAMES[3], "臆病")
    exported = gurps.run("char", "export", "--format", "csv", "--", *NAMES).stdout
    rows = _cells(exported)
    leads = ("=", "+", "-", "@", "\t", "\r")
    for row in rows:
        for cell in row:
            assert not cell.startswith(leads) or cell.lstrip("+-").replace(".", "").isdigit(), cell
    header = rows[0]
    assert "'skill:=skill" not in header and "skill:=skill" in header  # a column name runs nothing
    by_name = {row[header.index("name")]: row for row in rows[1:]}
    assert set(by_name) == {"'" + name for name in NAMES}
    trait = by_name["'@HYPERLINK"][header.index("trait:臆病")]
    assert trait.startswith("'-10") or trait == "-10", trait  # guarded unless a plain number
    # one cell holds every note, a line each: its first character is what a spreadsheet reads
    assert by_name["'=1+1"][header.index("note")] == "'" + "\n".join(TEXTS)
    assert by_name["'+SUM(A1)"][header.index("item")] == "'" + "\n".join(TEXTS)
    before = {name: json.loads(gurps.run("char", "show", "--json", "--", name).stdout) for name in NAMES}
    path = tmp_path / "party.csv"
    path.write_text(exported, encoding="utf-8")
    gurps.run("init", "卓B")
    gurps.run("player", "add", "Aki")
    gurps.run("char", "import", str(path), "--format", "csv")
    assert gurps.run("char", "export", "--format", "csv", "--", *NAMES).stdout == exported
    for name in NAMES:
        after = json.loads(gurps.run("char", "show", "--json", "--", name).stdout)
        assert after["notes"] == before[name]["notes"] and after["items"] == before[name]["items"]
        assert after["skills"] == before[name]["skills"] and after["name"] == name
    gurps.run("history", "verify")

"""docs/cli.md is the command tree as it is now, in both languages (`make docs` writes it)."""

from __future__ import annotations

from pathlib import Path

from tests import cli_reference

DOC = Path(__file__).parents[2] / "docs" / "cli.md"


def test_docs_cli_md_matches_the_command_tree():
    assert DOC.read_text(encoding="utf-8") == cli_reference.render(), "docs/cli.md is out of date: run `make docs`"


def test_the_reference_lists_every_command_in_both_languages():
    text = cli_reference.render()
    ja, _, en = text.partition("\n## English\n")
    assert "### campaign fright" in ja and "### campaign fright" in en
    assert ja.count("\n### ") == en.count("\n### ") > 100
    assert "恐怖判定" in ja and "Roll a fright check" in en
    assert "| `--json` | 表の代わりに JSON を1つ出力します。 |" in ja

"""campaign.seeds: the one module that reads rule data from disk, and what it hands core."""

from __future__ import annotations

import pytest

from campaign.core.stat_names import build_stat_aliases
from campaign.errors import DataError
from campaign.seeds import fright_table, load_stat_aliases, load_tables


def test_shipped_stat_names_per_ruleset():
    aliases = load_stat_aliases()
    assert set(aliases) == {"gurps3-ja", "2d6-ja"}
    assert aliases["gurps3-ja"]["Will"] == ("意思", "意志", "意思力", "意志力")
    assert aliases["2d6-ja"]["心"] == ("こころ", "kokoro", "Mind")


def test_stat_names_file_missing_or_broken(tmp_path):
    with pytest.raises(DataError, match=r"stats\.toml: cannot read stat names"):
        load_stat_aliases(tmp_path)
    (tmp_path / "rulesets").mkdir()
    (tmp_path / "rulesets" / "stats.toml").write_text("[x\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"stats\.toml: not valid TOML: Expected ']' at the end of a table declaration"):
        load_stat_aliases(tmp_path)


def test_stat_names_shape_is_checked_by_core():
    assert build_stat_aliases("s.toml", {"r": {"HT": ["生命力"]}}) == {"r": {"HT": ("生命力",)}}
    with pytest.raises(DataError, match=r"^s\.toml: \[r\] must map each stat to a list of names$"):
        build_stat_aliases("s.toml", {"r": {"HT": "生命力"}})
    with pytest.raises(DataError, match=r"\[r\] must map"):
        build_stat_aliases("s.toml", {"r": {"HT": [""]}})


def test_fright_table_is_the_shipped_fear_table():
    table = fright_table()
    assert table.command == "FEAR"
    assert (table.lo, table.hi) == (4, 40)
    assert load_tables()["FEAR"] is table  # the same parsed table, read once

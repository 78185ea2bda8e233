"""What the ledger proves does not depend on what is installed beside it (docs/rules.md
"Derived stats"): replay and `history verify` read no seed file.

An existing campaign (the file tests/data/before_pool_stats.jsonl, exported by the code
of the time: its pool ops name no stat, and 鈴音's sheet has 耐久, a stat the seeds did
not know; then entries of today's code: damage and heal naming their stat, a fright
check on the fear table, a critical table roll, a void) is checked while every seed
file, in turn, is edited in a scratch copy of the seeds: an edit that changes what the
file means (耐久 becomes an alias of HP, as a reviewer once did; the stat names are
emptied or swapped; a table's effects move to other rows), the file made into something
that is not TOML, and the file deleted. Each time the campaign still verifies, and its
export imports (import replays the ledger) and verifies too.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from campaign import seeds
from campaign.errors import DataError
from tests.cli.conftest import Cli

BEFORE = Path(__file__).resolve().parents[1] / "data" / "before_pool_stats.jsonl"
SHIPPED = seeds.default_seed_dir()
SEED_FILES = sorted(path.relative_to(SHIPPED).as_posix() for path in SHIPPED.rglob("*.toml"))
STATS = "rulesets/stats.toml"
NOT_TOML = "this is = = not TOML [\n"

Edit = Callable[[Path], None]


def _rewrite(path: Path, change: Callable[[str], str]) -> None:
    text = path.read_text(encoding="utf-8")
    changed = change(text)
    assert changed != text, f"the edit of {path.name} changed nothing"
    path.write_text(changed, encoding="utf-8")


def _hp_alias(path: Path) -> None:
    """The reviewer's edit: 耐久 means HP (鈴音's 耐久 12 would be her HP maximum, not HT)."""
    _rewrite(
        path,
        lambda text: text.replace(
            'aliases = ["ヒットポイント", "耐久力"]', 'aliases = ["ヒットポイント", "耐久力", "耐久"]'
        ),
    )


def _no_names(path: Path) -> None:
    """Every ruleset keeps its name and loses every stat and alias."""
    _rewrite(path, lambda text: "\n".join(line for line in text.splitlines() if line.startswith("[")) + "\n")


def _swapped(path: Path) -> None:
    """HT and ST trade names, and HP is no longer derived (a 3e sheet's HP is not HT)."""

    def swap(text: str) -> str:
        text = text.replace('ST = ["体力"]', 'ST = ["生命力"]').replace('HT = ["生命力"]', 'HT = ["体力"]')
        return text.replace('HP = { aliases = ["ヒットポイント", "耐久力"], kind = "derived" }', 'HP = ["耐久力"]')

    _rewrite(path, swap)


_NUMBER = re.compile(r"= (-?)(\d+)\b")
_TEXT = re.compile(r'^((?:ja|en) = ".*)"$', re.M)


def _rows_changed(path: Path) -> None:
    """Every number in a row's one-line `effects` grows by one (-10 CP is -11, 1 turn is
    2), each row's `tags` move to the next row that has some, and every row's text says
    more: a valid table whose rows now do and say other things."""

    def change(text: str) -> str:
        lines = _TEXT.sub(lambda m: f'{m[1]} (改)"', text).splitlines(keepends=True)
        for i, line in enumerate(lines):
            if line.startswith("effects = [") and "as_entry" not in line:
                lines[i] = _NUMBER.sub(lambda m: f"= {m[1]}{int(m[2]) + 1}", line)
        tags = [i for i, line in enumerate(lines) if line.startswith("tags = [")]
        for i, line in zip(tags, [lines[i] for i in tags[1:] + tags[:1]], strict=True):
            lines[i] = line
        return "".join(lines)

    _rewrite(path, change)


def _not_toml(path: Path) -> None:
    path.write_text(NOT_TOML, encoding="utf-8")


def _deleted(path: Path) -> None:
    path.unlink()


def _edits() -> Iterator[tuple[str, str, Edit]]:
    """(seed file, what the edit does, the edit) for every seed file."""
    for name in SEED_FILES:
        if name == STATS:
            yield name, "耐久 is HP", _hp_alias
            yield name, "no stat names", _no_names
            yield name, "ST and HT swapped, HP not derived", _swapped
        elif "/" not in name:  # a rule table (the reference tables are in ref/)
            yield name, "rows changed", _rows_changed
        yield name, "not TOML", _not_toml
        yield name, "deleted", _deleted


def _forget_loaded_seeds() -> None:
    """The shipped seeds are read once per process: empty those caches."""
    for cached in (seeds._default_tables, seeds._default_references, seeds.load_stat_names):
        cached.cache_clear()


@pytest.fixture
def install_seeds(monkeypatch) -> Iterator[Callable[[Path], None]]:
    """install_seeds(directory): the seeds are read from `directory` from now on; after
    the test, the shipped ones again."""

    def install(directory: Path) -> None:
        monkeypatch.setattr(seeds, "default_seed_dir", lambda: directory)
        _forget_loaded_seeds()

    yield install
    monkeypatch.undo()
    _forget_loaded_seeds()


def _existing_campaign(cli: Cli) -> None:
    cli.run("import", str(BEFORE))
    cli.run("use", "古い池の卓")  # the copies imported below are not chosen
    cli.run("char", "damage", "鈴音", "HP", "2")  # HP is HT's (11): the op names HT
    cli.run("char", "heal", "鈴音", "HP", "1")
    cli.run("char", "damage", "刀也", "FP", "1")  # 刀也's own FP
    cli.run("fright", "刀也", "--dice", "6,6,5,1,1,1,3")  # the fear table's 10: stunned 3 turns
    cli.run("table", "roll", "CRT", "--char", "鈴音", "--dice", "3,3,4")
    cli.run("char", "heal", "刀也", "FP", "1")
    cli.run("history", "void", "30", "--reason", "取り消し", "--yes")
    assert cli.json("history", "verify")["ok"]


def _pools(cli: Cli, name: str) -> dict[str, dict[str, int]]:
    return cli.json("char", "show", name)["pools"]


def test_every_seed_file_edited_in_turn_and_the_campaign_still_verifies(cli: Cli, tmp_path, install_seeds):
    _existing_campaign(cli)
    export = tmp_path / "before-edits.jsonl"
    cli.run("export", str(export))
    assert _pools(cli, "鈴音") == {"FP": {"max": 10, "current": 10}, "HP": {"max": 11, "current": 8}}
    tried = []
    for number, (name, what, edit) in enumerate(_edits()):
        scratch = tmp_path / f"seeds-{number}"
        shutil.copytree(SHIPPED, scratch)
        edit(scratch / name)
        install_seeds(scratch)
        report = cli.json("history", "verify")
        assert report["ok"], (name, what, report)
        assert report["entries"] == 31
        copy = f"写し{number}"
        cli.run("import", str(export), "--as-name", copy)
        assert cli.json("--campaign", copy, "history", "verify")["ok"], (name, what)
        tried.append((name, what))
        if what == "耐久 is HP":  # installed: a new damage would read 耐久 (12) as the maximum
            assert _pools(cli, "鈴音")["HP"] == {"max": 12, "current": 8}
        elif what == "not TOML":  # installed: whatever reads the file fails
            with pytest.raises(DataError, match="not valid TOML"):
                seeds.load_stat_names() if name == STATS else seeds.load_tables() | seeds.load_references()
    assert {name for name, _ in tried} == set(SEED_FILES)
    assert len(SEED_FILES) >= 20  # tables, reference tables, stat names
    assert ("fear.toml", "rows changed") in tried and ("crt.toml", "rows changed") in tried


def test_with_the_reviewers_alias_installed_voids_rebuilds_and_past_sheets_replay(cli: Cli, tmp_path, install_seeds):
    """The other replays: `char show --at`, a void (the projection without the entry)
    and `db upgrade --rebuild`. The old code's pool ops name no stat and today's name
    HT: with 耐久 read as HP, neither kind may move."""
    _existing_campaign(cli)
    scratch = tmp_path / "seeds"
    shutil.copytree(SHIPPED, scratch)
    _hp_alias(scratch / STATS)
    install_seeds(scratch)
    assert cli.json("char", "show", "鈴音", "--at", "10")["pools"]["HP"]["current"] == 11  # #10 healed to HT's 11
    assert cli.json("char", "show", "鈴音", "--at", "24")["pools"]["HP"]["current"] == 8
    cli.run("history", "void", "24", "--reason", "取り消し", "--yes")  # the heal of today's code
    cli.run("history", "void", "20", "--reason", "取り消し", "--yes")  # a damage the old code wrote
    assert _pools(cli, "鈴音")["HP"]["current"] == 9  # 11 - 2 (#23); #20's 2 and #24's 1 voided
    cli.run("db", "upgrade", "--rebuild")
    assert cli.json("history", "verify")["ok"]


def test_the_edits_change_what_the_seeds_say(tmp_path):
    """Each meaning-changing edit gives seeds the loader accepts and that differ."""
    for number, (name, what, edit) in enumerate(_edits()):
        if what in ("not TOML", "deleted"):
            continue
        scratch = tmp_path / f"seeds-{number}"
        shutil.copytree(SHIPPED, scratch)
        edit(scratch / name)
        if name == STATS:
            assert seeds.load_stat_names(scratch) != seeds.load_stat_names(SHIPPED), what
        else:
            edited, shipped = seeds.load_tables(scratch), seeds.load_tables(SHIPPED)
            assert edited.keys() == shipped.keys() and edited != shipped, (name, what)


def test_a_campaign_written_before_pool_ops_named_their_stat_still_verifies(cli: Cli):
    """The export made by the code of that time: its pool ops have no `stat`, and they
    replay against the stat names frozen in campaign.projection.frozen_names."""
    lines = [json.loads(line) for line in BEFORE.read_text(encoding="utf-8").splitlines()]
    ops = [op for line in lines if line["type"] == "entry" for op in json.loads(line["record"]).get("ops") or []]
    pool_ops = [op for op in ops if op["op"] == "pool_delta"]
    assert len(pool_ops) == 9 and not any("stat" in op for op in pool_ops)
    cli.run("import", str(BEFORE))
    report = cli.json("history", "verify")
    assert (report["ok"], report["entries"]) == (True, 22)
    assert _pools(cli, "鈴音") == {"FP": {"max": 10, "current": 10}, "HP": {"max": 11, "current": 9}}
    assert _pools(cli, "刀也") == {"FP": {"max": 9, "current": 9}, "HP": {"max": 14, "current": -11}}
    assert cli.json("char", "show", "鈴音", "--at", "8")["pools"]["HP"] == {"max": 10, "current": 7}


def test_new_pool_ops_name_the_stat_their_maximum_was_read_from(cli: Cli):
    cli.run("import", str(BEFORE))
    cli.run("char", "damage", "鈴音", "HP", "2")
    cli.run("char", "damage", "刀也", "HP", "1")
    ops = [cli.json("history", "show", str(seq))["ops"] for seq in (23, 24)]
    assert ops == [
        [{"op": "pool_delta", "character": "鈴音", "pool": "HP", "delta": -2, "stat": "HT"}],
        [{"op": "pool_delta", "character": "刀也", "pool": "HP", "delta": -1, "stat": "HP"}],
    ]

"""A pool op replays from what it recorded (docs/rules.md "Derived stats"): the sheet stat
its maximum was read from, or, for an op written before it named one, the stat names
frozen in campaign.projection.frozen_names. No seed is read: every loader of
campaign.seeds refuses while these run."""

from __future__ import annotations

import pytest

from campaign import seeds
from campaign.projection import ops as o
from campaign.projection.state import CharacterRow, State

AT = o.EntryContext(seq=9, at="2026-12-05T08:00:00.000000Z", scenario=None)


@pytest.fixture(autouse=True)
def no_seed_is_read(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a seed file was read")

    for loader in ("load_stat_names", "stat_names_for", "load_tables", "load_references", "default_seed_dir"):
        monkeypatch.setattr(seeds, loader, refuse)


def _state(stats: dict[str, int | str], ruleset: str | None = "gurps3-ja", **pools: int) -> State:
    state = State()
    state.ruleset = ruleset
    state.characters["鈴音"] = CharacterRow("pc", None, None, dict(stats), 100, dict(pools))
    return state


def _apply(state: State, delta: int, pool: str = "HP", stat: str | None = None) -> dict[str, int]:
    o.PoolChanged("鈴音", pool, delta, stat=stat).apply(state, AT)
    return state.characters["鈴音"].pools


@pytest.mark.parametrize(
    ("stats", "pool", "maximum"),
    [
        ({"HT": 10}, "HP", 10),  # derived from HT
        ({"生命力": 11}, "HP", 11),  # a sheet from before names were canonical: HT's alias
        ({"HT": 10, "耐久力": 13}, "HP", 13),  # HP's alias beats the derivation
        ({"HT": 10, "耐久": 13}, "HP", 10),  # 耐久 was never a name of HP: a stat of its own
        ({"体力": 9}, "FP", 9),  # FP from ST's alias
        ({"ＨＴ": 12}, "HP", 12),  # width and case never needed a name
    ],
)
def test_an_op_without_a_stat_uses_the_frozen_names(stats, pool, maximum):
    state = _state(stats)
    assert _apply(state, -3, pool) == {pool: maximum - 3}
    with pytest.raises(o.OpConflict, match=f"above the maximum {maximum}"):
        _apply(state, 4, pool)


def test_an_unknown_ruleset_had_no_names():
    with pytest.raises(o.OpConflict, match="has no HP stat"):
        _apply(_state({"生命力": 11}, ruleset="d20"), -1)
    assert _apply(_state({"HT": 11}, ruleset=None), -1) == {"HP": 10}


@pytest.mark.parametrize(("stats", "stat"), [({"HT": 10, "耐久": 13}, "耐久"), ({"生命力": 13}, "生命力")])
def test_an_op_reads_the_stat_it_names_and_no_other(stats, stat):
    state = _state(stats)
    assert _apply(state, -5, stat=stat) == {"HP": 8}
    assert _apply(state, 5, stat=stat) == {"HP": 13}
    with pytest.raises(o.OpConflict, match="above the maximum 13"):
        _apply(state, 1, stat=stat)


def test_the_maximum_moves_with_the_named_stat():
    state = _state({"HT": 10})
    _apply(state, -4, stat="HT")
    o.StatSet("鈴音", "HT", 12).apply(state, AT)
    assert _apply(state, 6, stat="HT") == {"HP": 12}


def test_a_named_stat_the_sheet_lacks_or_that_is_no_whole_number_is_a_conflict():
    with pytest.raises(o.OpConflict, match="鈴音 has no HP stat"):
        _apply(_state({"HT": 10}), -1, stat="HP")
    with pytest.raises(o.OpConflict, match="鈴音's Speed is 5.25, not a whole number to measure HP against"):
        _apply(_state({"HT": 10, "Speed": "5.25"}), -1, stat="Speed")


def test_the_record_names_the_stat_only_when_there_is_one():
    old = {"op": "pool_delta", "character": "鈴音", "pool": "HP", "delta": -2}
    assert o.parse_op(old).to_json() == old  # an old record reads back as it was hashed
    new = {**old, "stat": "HT"}
    assert o.parse_op(new) == o.PoolChanged("鈴音", "HP", -2, stat="HT")
    assert o.parse_op(new).to_json() == new
    with pytest.raises(o.BadOp):
        o.parse_op({**old, "stat": 7})

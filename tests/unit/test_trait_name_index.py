"""The index of trait names behind the clash check (State.traits_named): whatever adds,
renames, removes or swaps the traits, a clash is found and a free name is free."""

from __future__ import annotations

import copy

from campaign.projection import ops as o
from campaign.projection.state import State

AT = "2026-12-04T00:00:00.000000Z"


def _apply(state: State, seq: int, *ops: o.Op) -> None:
    for op in ops:
        op.apply(state, o.EntryContext(seq, AT, None))


def _state() -> State:
    state = State(ruleset="gurps3-ja")
    _apply(
        state, 1, o.CharacterAdded("鈴音", "npc", None, None, {}, 0), o.CharacterAdded("刀矢", "npc", None, None, {}, 0)
    )
    _apply(state, 2, *(o.TraitAdded("鈴音", f"2.{i}", f"特徴{i}", "advantage", 1, True) for i in range(50)))
    return state


def _clashes(state: State, character: str, name: str, seq: int = 9) -> bool:
    try:
        _apply(state, seq, o.TraitAdded(character, f"{seq}.1", name, "advantage", 1, True))
    except o.OpConflict:
        return True
    return False


def test_a_name_in_any_case_clashes_and_another_characters_does_not():
    state = _state()
    assert _clashes(copy.deepcopy(state), "鈴音", "特徴49")
    assert not _clashes(copy.deepcopy(state), "刀矢", "特徴49")
    _apply(state, 3, o.TraitAdded("鈴音", "3.1", "Keen Hearing", "advantage", 1, True))
    assert _clashes(copy.deepcopy(state), "鈴音", "KEEN HEARING")


def test_a_rename_moves_the_name_and_a_removal_frees_it():
    state = _state()
    _apply(state, 3, o.TraitRenamed("鈴音", "2.0", "Acute Taste"))
    assert _clashes(copy.deepcopy(state), "鈴音", "acute taste")
    assert not _clashes(copy.deepcopy(state), "鈴音", "特徴0")
    _apply(state, 4, o.TraitRemoved("鈴音", "2.1"))
    assert not _clashes(copy.deepcopy(state), "鈴音", "特徴1")


def test_traits_changed_behind_the_index_are_still_seen():
    """Rows put in by hand (as the tables' loader does) or a new dict: the index rebuilds."""
    state = _state()
    assert not _clashes(copy.deepcopy(state), "鈴音", "Loaded")  # the index is built now
    state.traits["7.1"] = copy.copy(state.traits["2.5"])
    state.traits["7.1"].name = "Loaded"
    assert _clashes(copy.deepcopy(state), "鈴音", "loaded")
    state.traits = dict(state.traits)
    state.traits["2.6"].name = "Swapped"  # same size, another dict: rebuilt, not trusted
    assert _clashes(state, "鈴音", "swapped")


def test_a_character_rename_carries_its_traits_names():
    state = _state()
    assert not _clashes(copy.deepcopy(state), "刀矢", "特徴3")  # the index is built now
    _apply(state, 3, o.CharacterRenamed("鈴音", "白狐"))
    assert _clashes(copy.deepcopy(state), "白狐", "特徴3")
    assert not _clashes(copy.deepcopy(state), "刀矢", "特徴3")

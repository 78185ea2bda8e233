"""Export and import spell the state tables from their declaration (state_mapping.TABLES),
so a new state field round-trips with no hand mapping: here a scratch copy of the
conditions table gains a field, and its value goes out in the line and comes back."""

from __future__ import annotations

import dataclasses
import json

import pytest

from campaign.db.state_mapping import BY_SECTION, TABLES
from campaign.projection.state import ConditionRow, State, TraitRow
from campaign.services.ledger import state_lines


@dataclasses.dataclass
class _ScratchConditionRow(ConditionRow):
    mood: str = "calm"  # the new state field: a column a later revision adds


def _scratch_tables() -> dict:
    tables = dict(BY_SECTION)
    tables["conditions"] = dataclasses.replace(BY_SECTION["conditions"], row=_ScratchConditionRow)
    return tables


def _state(row: ConditionRow) -> State:
    state = State()
    state.conditions["7.1"] = row
    return state


def test_a_new_state_field_round_trips_with_no_hand_mapping():
    tables = _scratch_tables()
    row = _ScratchConditionRow("鈴音", "shaken", "scene", {"by": 2}, 7, None, 30, 90, mood="grim")
    lines = [(kind, fields) for kind, fields in state_lines.state_lines(_state(row), tables)]
    assert lines == [
        (
            "condition",
            {
                "character": "鈴音",
                "name": "shaken",
                "duration": "scene",
                "detail": {"by": 2},
                "origin": "7.1",
                "source_seq": 7,
                "cleared_seq": None,
                "since_clock": 30,
                "until_clock": 90,
                "mood": "grim",
            },
        )
    ]
    item = json.loads(json.dumps({"type": "condition", **lines[0][1]}))
    claimed = State()
    state_lines.claim(claimed, state_lines.BY_TYPE["condition"], item, tables["conditions"])
    assert claimed.conditions == {"7.1": row}


def test_a_file_older_than_the_new_field_reads_its_default():
    tables = _scratch_tables()
    item = {
        "type": "condition",
        "character": "鈴音",
        "name": "shaken",
        "duration": None,
        "detail": {},
        "origin": "7.1",
        "source_seq": 7,
        "cleared_seq": None,
    }
    claimed = State()
    state_lines.claim(claimed, state_lines.BY_TYPE["condition"], item, tables["conditions"])
    assert claimed.conditions["7.1"] == _ScratchConditionRow("鈴音", "shaken", None, {}, 7, None, 0, None, "calm")


def test_a_field_version_1_wrote_is_still_required():
    item = {"type": "trait", "character": "鈴音", "name": "x", "category": "mental", "cp": -5, "origin": "3.1"}
    item.update(counts_toward_limit=True, source_seq=3)  # removed_seq left out
    with pytest.raises(KeyError, match="removed_seq"):
        state_lines.claim(State(), state_lines.BY_TYPE["trait"], item)


def test_a_trait_from_before_unlimited_cp_reads_it_from_its_limit():
    base = {"character": "鈴音", "name": "x", "category": "mental", "cp": -5, "source_seq": 3, "removed_seq": None}
    claimed = State()
    state_lines.claim(claimed, state_lines.BY_TYPE["trait"], {**base, "origin": "3.1", "counts_toward_limit": False})
    state_lines.claim(claimed, state_lines.BY_TYPE["trait"], {**base, "origin": "3.2", "counts_toward_limit": True})
    assert claimed.traits == {
        "3.1": TraitRow("鈴音", "x", "mental", -5, False, 3, None, -5),
        "3.2": TraitRow("鈴音", "x", "mental", -5, True, 3, None, 0),
    }


def test_every_declared_table_has_a_line():
    assert {line.section for line in state_lines.LINES} == {table.section for table in TABLES}

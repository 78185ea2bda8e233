"""Op parsing is derived from each op's field types (projection/op_base.decode): every op
kind round-trips encode -> decode, and a field of the wrong type, out of range or with a
name the text rule refuses is refused as BadOp, the same in every op that has it."""

from __future__ import annotations

import dataclasses
import typing

import pytest

from campaign.projection.op_base import decoding_plan
from campaign.projection.ops import OPS, BadOp, Op, parse_op

# One value per field name that every op holding the field accepts.
SAMPLES: dict[str, typing.Any] = {
    "a": "鈴音",
    "b": "刀矢",
    "attr": "DX",
    "category": "disadvantage",
    "character": "鈴音",
    "condition": "朦朧",
    "counted_at": 12,
    "counts_toward_limit": True,
    "cp": -10,
    "delta": -3,
    "detail": {"penalty": -2, "why": ["x"]},
    "difficulty": "VH",
    "duration": "1時間",
    "faces": 6,
    "key": "fright_cap",
    "kind": "npc",
    "length": 3600,
    "level": 12,
    "new": "新名",
    "note": "幼馴染\n二行目",
    "number": 3,
    "origin": "7.2",
    "participants": ["鈴音", "刀矢"],
    "player": "Aki",
    "pool": "HP",
    "reading": "すずね",
    "reason": "森で",
    "roll": 2,
    "ruleset": "gurps3-ja",
    "scenario": 3,
    "searcher": "刀矢",
    "seconds": 600,
    "settings": {"fright_cap": 30, "timezone": "Asia/Tokyo"},
    "since_seq": 5,
    "skill": "回避",
    "started_seq": 9,
    "stat": "Will",
    "stats": {"IQ": 11, "Basic Speed": "5.25"},
    "status": "dead",
    "success": True,
    "summoner": "刀矢",
    "text": "ロープ 10m",
    "threshold": 2,
    "title": "雨の森",
    "trait": "暗所恐怖症",
}
VALUES = {("stat_set", "value"): "5.25", ("setting", "value"): {"nested": [1, 2.5, None]}}


def sample(cls: type[Op]) -> Op:
    values = {f.name: VALUES.get((cls.name, f.name), SAMPLES.get(f.name, 14)) for f in dataclasses.fields(cls)}
    return cls(**values)


@pytest.mark.parametrize("kind", sorted(OPS))
def test_every_op_kind_round_trips(kind):
    op = sample(OPS[kind])
    encoded = op.to_json()
    assert encoded["op"] == kind
    assert parse_op(encoded) == op
    assert parse_op(parse_op(encoded).to_json()).to_json() == encoded


@pytest.mark.parametrize("kind", sorted(OPS))
def test_every_field_is_checked(kind):
    """A list where any field belongs is refused (no field goes through unchecked)."""
    encoded = sample(OPS[kind]).to_json()
    for name, _optional, _rule in decoding_plan(OPS[kind]):
        if name in ("value",) and kind == "setting":
            continue  # a setting's value is any JSON value
        with pytest.raises(BadOp):
            parse_op({**encoded, name: [object()]})


def test_ranges_and_the_name_rule_come_with_the_field_name():
    base = sample(OPS["missing_started"]).to_json()
    for faces in (0, 1001, True, 2.0, "6"):
        with pytest.raises(BadOp):
            parse_op({**base, "faces": faces})
    assert parse_op({**base, "faces": 1000}).faces == 1000
    for name in ("A\u2028B", " 鈴音", "鈴\u200b音", "", "x" * 201, None, 7):
        with pytest.raises(BadOp):
            parse_op({**base, "character": name})
    # a field that may be null may also be left out; a required one may not
    assert parse_op({k: v for k, v in base.items() if k != "reason"}).reason is None
    with pytest.raises(BadOp):
        parse_op({k: v for k, v in base.items() if k != "faces"})
    with pytest.raises(BadOp, match="unknown fields"):
        parse_op({**base, "extra": 1})


def test_an_op_rule_of_its_own():
    character = sample(OPS["character_added"]).to_json()
    with pytest.raises(BadOp, match="pc, npc"):
        parse_op({**character, "kind": "monster"})
    skill = sample(OPS["skill_set"]).to_json()
    with pytest.raises(BadOp):
        parse_op({**skill, "difficulty": "X"})
    with pytest.raises(BadOp):
        parse_op({**skill, "level": 1001})
    assert parse_op({**skill, "difficulty": None}).difficulty is None
    with pytest.raises(BadOp, match="non-empty line"):
        parse_op({**sample(OPS["note_added"]).to_json(), "text": "  "})
    with pytest.raises(BadOp, match="origin"):
        parse_op({**sample(OPS["trait_removed"]).to_json(), "origin": "7"})

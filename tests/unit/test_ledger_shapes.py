"""The record shapes of `history verify`'s fast path (campaign.ledger_shapes): sound
(fields sorted, nesting bounded, only canonical bytes read back the same) and matching
what the engine really writes, so a clean ledger's rolls take the shaped reading."""

from __future__ import annotations

import json
import sqlite3

import msgspec
import pytest

from campaign.chain import canonical_json
from campaign.ledger_scan import record_text_problem
from campaign.ledger_shapes import SHAPES, STRUCTS, readers
from campaign.read_limits import JSON_DEPTH
from tests.cli.conftest import Cli, gurps_setup


def depth(kind: object, seen: tuple[object, ...] = ()) -> int:
    """The deepest nesting of arrays and objects a type can decode (recursion would be infinite)."""
    info = msgspec.inspect.type_info(kind) if not isinstance(kind, msgspec.inspect.Type) else kind
    if isinstance(info, msgspec.inspect.UnionType):
        return max(depth(t, seen) for t in info.types)
    if isinstance(info, msgspec.inspect.StructType):
        assert info.cls not in seen, f"{info.cls.__name__} nests in itself"
        return 1 + max(depth(f.type, (*seen, info.cls)) for f in info.fields)
    if isinstance(info, (msgspec.inspect.ListType, msgspec.inspect.VarTupleType)):
        return 1 + depth(info.item_type, seen)
    if isinstance(info, msgspec.inspect.TupleType):
        return 1 + max((depth(t, seen) for t in info.item_types), default=0)
    assert not isinstance(info, (msgspec.inspect.AnyType, msgspec.inspect.FloatType, msgspec.inspect.DictType)), info
    return 0


def test_every_shape_is_sorted_float_free_and_shallow():
    for struct in STRUCTS:
        names = list(struct.__struct_fields__)
        assert names == sorted(names), struct.__name__
    for shape in SHAPES.values():
        assert depth(shape) <= 8 < JSON_DEPTH


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_engines_rolls_and_passed_frights_read_by_their_shape(db_url):
    cli = gurps_setup(Cli(db_url))
    for argv in (
        ["roll", "3D6<=12", "回避", "--dice", "1,2,3"],
        ["roll", "X3 2D6", "--dice", "1,2,3,4,5,6"],
        ["roll", "4D6KH3", "--dice", "1,2,3,4"],
        ["roll", "3B6>=4", "--dice", "3,5,4"],
        ["fright", "鈴音", "--dice", "3,3,3"],
    ):
        cli.run(*argv)
    with sqlite3.connect(db_url) as conn:
        rows = conn.execute("SELECT kind, record FROM ledger WHERE kind IN ('roll', 'fright') ORDER BY seq").fetchall()
    assert [kind for kind, _ in rows] == ["roll"] * 6 + ["fright"]  # X3 is three entries
    encode, read = msgspec.json.Encoder(order="sorted").encode, readers()
    for kind, record in rows:
        data = record.encode()
        assert encode(read[kind](data)) == data, record
        # Any other spelling of the same value does not read back the same.
        value = json.loads(record)
        for spelling in (
            json.dumps(value, sort_keys=True, separators=(",", ":")),
            json.dumps(value, ensure_ascii=False, sort_keys=True),
            json.dumps(dict(reversed(value.items())), ensure_ascii=False, separators=(",", ":")),
            record[:-1] + ',"voidable":true}',
        ):
            if spelling == canonical_json(value):
                continue
            assert record_text_problem(spelling) is not None
            try:
                assert encode(read[kind](spelling.encode())) != spelling.encode()
            except msgspec.DecodeError:
                pass

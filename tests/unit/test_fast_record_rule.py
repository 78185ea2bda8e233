"""The record rule, fast and exact: `history verify`'s fast reading (msgspec, in
campaign.ledger_scan.scan) vouches for a record's bytes only when the one rule,
`ledger_scan.record_text_problem`, accepts them, and it vouches for every record
ledger.append writes (so a clean chain never needs the exact rules)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from campaign.chain import canonical_json
from campaign.ledger_scan import _fast_reader, record_text_problem
from campaign.read_limits import JSON_DEPTH

decode, encode, render, refused = _fast_reader()


def fast_vouches(data: bytes) -> bool:
    """The scan's own test, as it runs per row (minus hash and columns)."""
    if data.count(b"[") + data.count(b"{") > JSON_DEPTH:
        return False
    try:
        return encode(decode(data)) == data
    except refused:
        return False


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)  # any character UTF-8 can carry
SCALAR = st.none() | st.booleans() | st.integers(-(10**30), 10**30) | TEXT
VALUE = st.recursive(
    SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3), max_leaves=12
)
OPTIONAL_TEXT, OPTIONAL_INT = st.none() | TEXT, st.none() | st.integers(-(2**31), 2**31)
RECORD = st.fixed_dictionaries(
    {
        "actor": TEXT,
        "at": TEXT,
        "campaign": TEXT,
        "character": OPTIONAL_TEXT,
        "detail": st.dictionaries(TEXT, VALUE, max_size=4),
        "dice": st.none() | st.lists(st.integers(1, 100)),
        "expression": OPTIONAL_TEXT,
        "kind": TEXT,
        "margin": OPTIONAL_INT,
        "ops": st.lists(st.dictionaries(TEXT, VALUE, max_size=4), max_size=3),
        "outcome": OPTIONAL_TEXT,
        "parent_seq": OPTIONAL_INT,
        "reason": OPTIONAL_TEXT,
        "scenario": OPTIONAL_INT,
        "seq": st.integers(1, 2**31),
        "source": OPTIONAL_TEXT,
        "target": OPTIONAL_INT,
        "total": OPTIONAL_INT,
        "voidable": st.booleans(),
        "voids_seq": OPTIONAL_INT,
    }
)


def _spellings(record: dict) -> list[str]:
    """The same value written other ways than canonical_json (each is refused by the rule)."""
    text = canonical_json(record)
    return [
        json.dumps(record, sort_keys=True, separators=(",", ":")),  # non-ASCII escaped
        json.dumps(dict(reversed(record.items())), ensure_ascii=False, separators=(",", ":")),  # keys unsorted
        json.dumps(record, ensure_ascii=False, sort_keys=True),  # spaces
        text.replace('"actor":"', '"actor":"\\ud800', 1),  # a lone surrogate escape
        text.replace('"actor":"', '"actor":"\\u0041', 1),  # an escape for a plain letter
        text[:-1] + ',"voidable":true}',  # a key twice
        text[:-1] + ',"zz":1.5}',  # a float (canonical, but the fast reading leaves it to the exact rules)
        text[:-1] + ',"zz":' + "[" * (JSON_DEPTH + 1) + "]" * (JSON_DEPTH + 1) + "}",
    ]


@settings(max_examples=250, deadline=None)
@given(record=RECORD)
def test_the_fast_reading_vouches_exactly_for_canonical_records(record):
    text = canonical_json(record)
    assert record_text_problem(text) is None
    data = text.encode("utf-8")
    # Past JSON_DEPTH brackets (strings' included) the scan leaves a row to the exact rules.
    assert fast_vouches(data) == (data.count(b"[") + data.count(b"{") <= JSON_DEPTH)
    for spelling in _spellings(record):
        if spelling != text and fast_vouches(spelling.encode("utf-8", "surrogatepass")):
            raise AssertionError(f"the fast reading vouched for {spelling!r}")
        if spelling != text and ',"zz":1.5}' not in spelling:
            assert record_text_problem(spelling) is not None, spelling


def test_bytes_that_are_not_utf8_are_refused_by_both():
    text = canonical_json({"actor": "GM", "seq": 1}).encode()
    for junk in (b"\xff", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80"):
        data = text.replace(b'"GM"', b'"G' + junk + b'M"')
        assert not fast_vouches(data)
        assert record_text_problem(data) == "record is not valid UTF-8"


def test_msgspec_writes_every_character_as_canonical_json_does():
    everything = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    assert encode(everything) == canonical_json(everything).encode("utf-8")

"""campaign.read_limits: the nesting measure agrees with the real depth of any JSON, and
the line and total limits stop where they say."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campaign.errors import BadInput, DataError
from campaign.read_limits import BoundedBinary, TextFile, json_too_deep, lines


def _depth(value) -> int:
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    return 0


# Strings full of brackets, quotes and backslashes: a bracket inside a string is text.
TRICKY = st.text(alphabet='[]{}"\\:,ab\n\u3042', max_size=8)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | TRICKY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TRICKY, inner, max_size=3),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(value=JSON, pretty=st.booleans())
def test_the_measure_is_the_real_depth(value, pretty):
    text = json.dumps(value, ensure_ascii=False, indent=1 if pretty else None)
    depth = _depth(value)
    assert not json_too_deep(text, limit=depth)
    if depth:
        assert json_too_deep(text, limit=depth - 1)


@pytest.mark.parametrize(
    "text, limit, deep",
    [
        ("[" * 64 + "]" * 64, 64, False),
        ("[" * 65 + "]" * 65, 64, True),
        ('{"a":' * 65 + "1" + "}" * 65, 64, True),
        ('["' + "[" * 500 + '"]', 64, False),  # brackets inside a string
        ('["\\"' + "[" * 500 + '"]', 64, False),  # after an escaped quote, still inside the string
        ("[" * 1_000_000, 64, True),  # never closed: refused, not recursed into
        ("[]" * 100_000, 64, False),  # many, but flat
    ],
)
def test_cases_at_and_past_the_limit(text, limit, deep):
    assert json_too_deep(text, limit=limit) is deep


def test_a_million_levels_answer_without_recursion():
    text = "[" * 500_000 + "]" * 500_000
    assert json_too_deep(text)  # json.loads would raise RecursionError here


def test_lines_stop_at_the_line_and_total_limits():
    assert list(lines(io.StringIO("ab\ncd\n"), line=3, total=6)) == ["ab\n", "cd\n"]
    with pytest.raises(DataError, match=r"^line 2: longer than 3 characters; x$"):
        list(lines(io.StringIO("ab\ncdef\n"), line=3, suffix="; x"))
    with pytest.raises(DataError, match=r"^part 3: the input passes 5 characters in all$"):
        list(lines(io.StringIO("a\nb\ncd\n"), label="part", line=3, total=5))
    endless = io.StringIO("\x00" * 100)  # /dev/zero in small: no newline ever
    with pytest.raises(DataError, match="line 1: longer than 10"):
        next(lines(endless, line=10))
    assert endless.tell() == 11  # read one past the limit, not the whole stream


def test_text_file_names_the_file_that_is_not_utf8():
    with pytest.raises(BadInput, match=r"^s\.jsonl is not UTF-8 text$"):
        list(lines(TextFile(io.TextIOWrapper(io.BytesIO(b"ok\n\xff\n"), encoding="utf-8"), "s.jsonl")))


def test_bounded_binary_refuses_past_its_limit():
    assert BoundedBinary(io.BytesIO(b"x" * 10), limit=10).read() == b"x" * 10
    with pytest.raises(DataError, match="log.html is larger than 10 bytes"):
        BoundedBinary(io.BytesIO(b"x" * 11), limit=10, name="log.html").read()
    reader = BoundedBinary(io.BytesIO(b"a\n" * 10), limit=10)
    with pytest.raises(DataError):
        list(reader)

"""How much any reader of outside input takes in: one place for the limits.

Every file or stream the project reads from a user (an export for `import`, a secrets
file, a chat log, `campaign shell` lines, proof bundles) may be hostile or simply wrong:
`/dev/zero`, a log that never ends, one line of a hundred megabytes, JSON nested a
million deep. Each reader here stops at a limit per line and in all and says so in one
line (DataError, exit 1) instead of growing until the machine gives out; JSON text is
measured for nesting before it is parsed, so it never ends in a RecursionError.

`json_too_deep` is standard library only and self-contained on purpose: the standalone
proof checker (campaign/proofcheck.py) carries a copy of the same few lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from campaign.errors import BadInput, DataError

# Characters in one line of an export, a secrets file or a shell script. The longest
# line our own exports hold is one ledger entry; nothing we write comes near this.
LINE_CHARS = 1 << 20
# Characters in a whole file or stream, by what it is. An export of a million-entry
# ledger is about 2 GB; secrets are a small part of it; a chat log is a few megabytes.
EXPORT_CHARS = 1 << 34
SECRETS_CHARS = 1 << 31
SHELL_CHARS = 1 << 30
LOG_BYTES = 1 << 28
# Levels of JSON nesting (arrays and objects). Our records nest about five deep.
JSON_DEPTH = 64


def lines(
    source: Iterable[str], *, label: str = "line", total: int = EXPORT_CHARS, line: int = LINE_CHARS, suffix: str = ""
) -> Iterator[str]:
    """The lines of `source` (a text file, read with a bounded readline, or any iterable
    of lines), refused once one is longer than `line` characters or all together pass
    `total`. The refusal names the line: "{label} 7: longer than ... characters{suffix}"."""
    readline = getattr(source, "readline", None)
    stream = iter(lambda: readline(line + 1), "") if readline is not None else iter(source)
    seen = 0
    for number, text in enumerate(stream, start=1):
        if len(text) > line:
            raise DataError(f"{label} {number}: longer than {line} characters{suffix}")
        seen += len(text)
        if seen > total:
            raise DataError(f"{label} {number}: the input passes {total} characters in all{suffix}")
        yield text


class TextFile:
    """A text file whose bytes that are not UTF-8 give one line naming it (BadInput),
    wherever in the file they are; a context manager closing the file."""

    def __init__(self, handle: Any, name: str) -> None:
        self._handle = handle
        self.name = name

    def readline(self, size: int = -1) -> str:
        try:
            line: str = self._handle.readline(size)
            return line
        except UnicodeDecodeError:
            raise BadInput(f"{self.name} is not UTF-8 text") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self.readline, "")

    def __enter__(self) -> TextFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()


class BoundedBinary:
    """A binary file that refuses to be read past `limit` bytes (read, readline and
    iteration; everything else passes through to the file)."""

    def __init__(self, handle: Any, limit: int = LOG_BYTES, name: str = "the file") -> None:
        self._handle = handle
        self._limit = limit
        self._name = name
        self._read = 0

    def _count(self, data: bytes) -> bytes:
        self._read += len(data)
        if self._read > self._limit:
            raise DataError(f"{self._name} is larger than {self._limit} bytes; nothing recorded")
        return data

    def read(self, size: int = -1) -> bytes:
        room = self._limit - self._read + 1  # one byte past the limit tells "too large" from "exactly full"
        return self._count(self._handle.read(room if size is None or size < 0 else min(size, room)))

    def readline(self, size: int = -1) -> bytes:
        room = self._limit - self._read + 1
        return self._count(self._handle.readline(room if size is None or size < 0 else min(size, room)))

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.readline, b"")

    def __enter__(self) -> BoundedBinary:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]]+")
_ONE_BRACKET = str.maketrans("{}", "[]")


def json_too_deep(text: str, limit: int = JSON_DEPTH) -> bool:
    """Whether JSON `text` nests arrays and objects more than `limit` deep (or has so
    many unmatched brackets that it might): linear, no recursion, so it is safe to ask
    before json.loads, which recurses once per level.

    Strings are taken out (a bracket inside one is text), then each pass removes every
    empty pair "[]", which is one level of the deepest nesting."""
    if text.count("[") + text.count("{") <= limit:
        return False
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text).translate(_ONE_BRACKET))
    for _ in range(limit + 1):  # after k passes what is left nests k levels less
        if not brackets:
            return False
        shorter = brackets.replace("[]", "")
        if len(shorter) == len(brackets):  # unmatched brackets: not JSON; refuse, do not recurse
            return True
        brackets = shorter
    return True


def depth_problem(text: str, limit: int = JSON_DEPTH) -> str | None:
    """The refusal for JSON nested past the limit, or None."""
    return f"JSON nested more than {limit} levels deep" if json_too_deep(text, limit) else None

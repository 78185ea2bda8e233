"""ココフォリア's JSON log export, read one message at a time.

    {"messages": [{"name": "鈴音", "text": "3d6<=12 回避", "channel": "main", "channelName": "メイン",
                   "createdAt": 1744459421512,
                   "extend": {"roll": {"result": "(3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)"}}}, ...],
     "images": {...}}

The standard library has no streaming JSON parser, so the top-level object is walked by
hand and each value handed to json's raw_decode as soon as the buffer holds all of it:
memory is one message (or one other top-level value), never the file. A file that ends
inside the message list yields its last, unfinished message marked incomplete.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

from campaign.bridges.ccfolia_log import MAX_FIELD, Message, clean
from campaign.errors import BadInput
from campaign.i18n import _

MAX_VALUE = 4 << 20  # one message (or "images" entry) larger than this is not an export
_WHITE = " \t\r\n"


class _Truncated(Exception):
    """The text ended inside a value."""


class _Buffer:
    def __init__(self, chunks: Iterable[str]) -> None:
        self._chunks = iter(chunks)
        self.text = ""
        self.pos = 0
        self.eof = False

    def more(self) -> bool:
        if self.eof:
            return False
        if self.pos > CHUNK_TRIM:
            self.text, self.pos = self.text[self.pos :], 0
        for chunk in self._chunks:
            if chunk:
                self.text += chunk
                return True
        self.eof = True
        return False

    def skip_white(self) -> str:
        """The next significant character (not consumed); "" at the end."""
        while True:
            while self.pos < len(self.text) and self.text[self.pos] in _WHITE:
                self.pos += 1
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self.more():
                return ""

    def expect(self, char: str) -> None:
        found = self.skip_white()
        if found == "":
            raise _Truncated
        if found != char:
            raise BadInput(
                _("this is not a ココフォリア export; its JSON has {found!r} where {char!r} belongs").format(
                    found=found, char=char
                )
            )
        self.pos += 1

    def value(self) -> object:  # a JSON value: whatever the export holds
        decoder = json.JSONDecoder()
        self.skip_white()
        while True:
            try:
                value, end = decoder.raw_decode(self.text, self.pos)
            except json.JSONDecodeError:
                if len(self.text) - self.pos > MAX_VALUE:
                    raise BadInput(
                        _("this is not a ココフォリア export; one JSON value is larger than {value} MB").format(
                            value=MAX_VALUE >> 20
                        )
                    ) from None
                if not self.more():
                    raise _Truncated from None
                continue
            if end == len(self.text) and not self.eof and self.more():
                continue  # a number may go on in the next chunk
            self.pos = end
            return value


CHUNK_TRIM = 1 << 16


def _time(value: object) -> str | None:
    """createdAt: milliseconds since the epoch (or Firestore's {seconds, nanoseconds})."""
    if isinstance(value, dict):
        value = value.get("seconds", value.get("_seconds"))
        value = None if value is None else value * 1000
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        moment = datetime.fromtimestamp(value / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _text(value: object) -> str:
    return clean(value[:MAX_FIELD]) if isinstance(value, str) else ""


class JsonReader:
    """Messages of a JSON log export given as text chunks; counts as LogReader's."""

    def __init__(self, chunks: Iterable[str], *, start: int = 0) -> None:
        self._chunks = chunks
        self.malformed = self.repaired = self.incomplete = self.paragraphs = 0
        self.index = start
        self.saw_messages = False

    def __iter__(self) -> Iterator[Message]:
        buffer = _Buffer(self._chunks)
        try:
            buffer.expect("{")
            while True:
                found = buffer.skip_white()
                if found == "}":
                    break
                if found == ",":
                    buffer.pos += 1
                    continue
                key = buffer.value()
                buffer.expect(":")
                if key == "messages" and buffer.skip_white() == "[":
                    self.saw_messages = True
                    buffer.pos += 1
                    yield from self._messages(buffer)
                else:
                    buffer.value()
        except _Truncated:
            pass
        if not self.saw_messages:
            raise BadInput(_('this is not a ココフォリア export; a JSON document without a "messages" list'))

    def _messages(self, buffer: _Buffer) -> Iterator[Message]:
        while True:
            found = buffer.skip_white()
            if found == "]":
                buffer.pos += 1
                return
            if found == ",":
                buffer.pos += 1
                continue
            if found == "":
                return
            try:
                item = buffer.value()
            except _Truncated:
                self.paragraphs += 1
                self.incomplete += 1
                yield Message(index=self.index, tab=None, speaker="", text="", incomplete=True)
                self.index += 1
                raise
            self.paragraphs += 1
            message = self._message(item)
            if message is None:
                self.malformed += 1
                continue
            self.index += 1
            yield message

    def _message(self, item: object) -> Message | None:
        if not isinstance(item, dict) or not ("text" in item or "name" in item):
            return None
        extend = found if isinstance(found := item.get("extend"), dict) else {}
        roll = found if isinstance(found := extend.get("roll"), dict) else {}
        tab = item.get("channelName") or item.get("channel")
        return Message(
            index=self.index,
            tab=tab.strip() or None if isinstance(tab, str) else None,
            speaker=_text(item.get("name")),
            text=_text(item.get("text")),
            color=item.get("color") if isinstance(item.get("color"), str) else None,
            result=_text(roll.get("result")) or None,
            timestamp=_time(item.get("createdAt")),
            secret=roll.get("secret") is True,
        )

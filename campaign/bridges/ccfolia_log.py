"""The message of a ココフォリア export, and the oldest export format: one `<p>` per message.

Before v1.37 the export ("ログ出力", ルーム名.html) wrote one paragraph per message:

    <p style="color:#e91e63;">
      <span> [main]</span>
      <span>鈴音</span> :
      <span>3d6&lt;=12 回避 (3D6&lt;=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)</span>
    </p>

(some versions put it all on one line). The first top-level span is the tab, the second
the speaker, the third the text (`<br>` is a line break). Older or hand-edited logs lack
the tab span; a paragraph with two spans is read as speaker and text. An empty speaker
(`<span></span> :`) is still a message: its dice count. Logs from the wild are also
truncated or mangled, so the parser never raises: a paragraph it cannot read is counted
in `malformed` and skipped; one the file ends inside is yielded marked `incomplete`
(its text may be cut anywhere, so it is never recorded).

The standard library's html.parser is fed the text in chunks: it keeps only an
unfinished tag between chunks, so a 10 MB log costs what one message costs.
"""

from __future__ import annotations

import codecs
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import BinaryIO

CHUNK = 1 << 16
# A field longer than this is not a chat message (a pasted document or a broken file
# where a </p> never comes): its text is cut, and the message counted malformed.
MAX_FIELD = 20_000


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message as the export shows it. `index` counts messages from 0 across the
    whole log (every part of a split export).

    `result` is BCDice's answer when the format keeps it apart from the typed text (v1.37+
    HTML, JSON); older exports have it inside `text`. `timestamp` is UTC, to the second,
    where the format has one. `legacy_index` is the position the reader before log
    identities gave the message (it skipped empty speakers), None when it would not have
    read it: fingerprints stored by that reader are matched with it.
    """

    index: int
    tab: str | None  # "main", "雑談" ...; None when the export has no tab
    speaker: str  # "" for an empty speaker
    text: str
    color: str | None = None
    result: str | None = None
    timestamp: str | None = None
    secret: bool = False  # the export marks the roll secret (JSON extend.roll.secret)
    incomplete: bool = False  # the file ends inside this message
    legacy_index: int | None = None


def clean(text: str) -> str:
    """NFC, each line stripped, blank lines dropped: the export indents freely."""
    lines = (line.strip() for line in unicodedata.normalize("NFC", text).splitlines())
    return "\n".join(line for line in lines if line)


def _tab_name(raw: str) -> str | None:
    name = raw.strip()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1].strip()
    return name or None


def color_of(style: str | None) -> str | None:
    for part in (style or "").split(";"):
        key, _, value = part.partition(":")
        if key.strip().lower() == "color" and value.strip():
            return value.strip()
    return None


class _LogParser(HTMLParser):
    """Collects the top-level spans of each <p>; nested markup only adds its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        # (fields, color, markup repaired, text cut off, ended by the end of the file)
        self.done: list[tuple[list[str], str | None, bool, bool, bool]] = []
        self._fields: list[str] | None = None  # spans of the open paragraph
        self._color: str | None = None
        self._depth = 0  # span nesting inside the paragraph
        self._current: list[str] = []
        self._size = 0
        self._cut = False

    # A <p> inside a <p> cannot exist in HTML: the open one ended without its </p>.
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "p":
            if self._fields is not None:
                self._finish(broken=True)
            self._fields, self._color = [], color_of(dict(attrs).get("style"))
            self._depth, self._current, self._size, self._cut = 0, [], 0, False
        elif self._fields is None:
            return
        elif tag == "span":
            self._depth += 1
            if self._depth == 1:
                self._current, self._size = [], 0
        elif tag == "br" and self._depth:
            self._add("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br" and self._fields is not None and self._depth:
            self._add("\n")

    def handle_endtag(self, tag: str) -> None:
        if self._fields is None:
            return
        if tag == "p":
            self._finish(broken=self._depth != 0)
        elif tag == "span" and self._depth:
            self._depth -= 1
            if self._depth == 0:
                self._fields.append("".join(self._current))
        elif tag in ("body", "html"):
            self._finish(broken=True)

    def handle_data(self, data: str) -> None:
        if self._fields is not None and self._depth:
            self._add(data)

    def _add(self, data: str) -> None:
        room = MAX_FIELD - self._size
        if room <= 0:
            self._cut = True
            return
        if len(data) > room:
            data, self._cut = data[:room], True
        self._current.append(data)
        self._size += len(data)

    def _finish(self, broken: bool, at_end: bool = False) -> None:
        fields = self._fields or []
        if self._depth and self._current:  # a span left open: keep what it held
            fields.append("".join(self._current))
        self.done.append((fields, self._color, broken, self._cut, at_end))
        self._fields, self._depth, self._current = None, 0, []

    def close(self) -> None:
        # Text the parser still holds (an unfinished tag, say) belongs to the open paragraph.
        super().close()
        if self._fields is not None:
            self._finish(broken=True, at_end=True)


class LogReader:
    """Iterate over the messages of a `<p>` export given as chunks of bytes (UTF-8) or text.

    Counts: `paragraphs` every <p> seen; `malformed` those it could not read (no speaker
    span or no text span, or text beyond MAX_FIELD), which are skipped; `repaired` those
    with broken markup (an unclosed <p> or <span>) that were still read; `incomplete`
    the one the file ended inside. `bytes_read` lets a caller show progress;
    `undecodable` says some bytes were not text in the encoding read.
    `start` / `legacy_start` continue the numbering of an earlier part of the same log.
    """

    def __init__(self, chunks: Iterable[bytes | str], *, start: int = 0, legacy_start: int = 0) -> None:
        self._chunks = chunks
        self.malformed = 0
        self.repaired = 0
        self.incomplete = 0
        self.paragraphs = 0
        self.bytes_read = 0
        self.undecodable = False
        self.index = start
        self.legacy_index = legacy_start

    def __iter__(self) -> Iterator[Message]:
        parser = _LogParser()
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        for chunk in self._chunks:
            if isinstance(chunk, bytes):
                self.bytes_read += len(chunk)
                text = decoder.decode(chunk)
                if "\ufffd" in text:
                    self.undecodable = True
            else:
                text = chunk
            parser.feed(text)
            yield from self._drain(parser)
        parser.feed(decoder.decode(b"", final=True))
        parser.close()
        yield from self._drain(parser)

    def _drain(self, parser: _LogParser) -> Iterator[Message]:
        done, parser.done = parser.done, []
        for fields, color, repaired, cut, at_end in done:
            self.paragraphs += 1
            message = None if cut else self._message(fields, color, at_end)
            if message is None:
                self.malformed += 1
                continue
            if at_end:
                self.incomplete += 1
            else:
                self.repaired += repaired
            self.index += 1
            yield message

    def _message(self, fields: list[str], color: str | None, at_end: bool) -> Message | None:
        if len(fields) >= 3:
            tab, speaker, text = _tab_name(fields[0]), fields[1], "".join(fields[2:])
        elif len(fields) == 2 and not fields[0].strip().startswith("["):  # no tab span
            tab, speaker, text = None, fields[0], fields[1]
        else:
            return None
        speaker, text = clean(speaker), clean(text)
        legacy = None
        if speaker and text:  # what the reader before log identities read, and how it numbered it
            legacy, self.legacy_index = self.legacy_index, self.legacy_index + 1
        return Message(
            index=self.index, tab=tab, speaker=speaker, text=text, color=color, incomplete=at_end, legacy_index=legacy
        )


def read_chunks(handle: BinaryIO, size: int = CHUNK) -> Iterator[bytes]:
    """A binary file as chunks, for the readers."""
    while True:
        chunk = handle.read(size)
        if not chunk:
            return
        yield chunk

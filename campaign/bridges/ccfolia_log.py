"""Reading a ココフォリア chat-log export, one message at a time, in constant memory.

The export ("ログ出力", ルーム名.html) writes one paragraph per message:

    <p style="color:#e91e63;">
      <span> [main]</span>
      <span>鈴音</span> :
      <span>3d6&lt;=12 回避 (3D6&lt;=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)</span>
    </p>

The first top-level span is the tab, the second the speaker, the third the text
(`<br>` is a line break). Older or hand-edited logs lack the tab span; a paragraph with
two spans is read as speaker and text. Logs from the wild are also truncated or
mangled, so the parser never raises: a paragraph it cannot read is counted in
`LogReader.malformed` and skipped.

The standard library's html.parser is fed the file in chunks: it keeps only an
unfinished tag between chunks, so a 10 MB log costs what one message costs.
"""

from __future__ import annotations

import codecs
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser

CHUNK = 1 << 16
# A paragraph longer than this is not a chat message (a pasted document or a broken
# file where a </p> never comes): its text is cut, and the message counted malformed.
MAX_FIELD = 20_000


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message as the export shows it. `index` counts messages from 0."""

    index: int
    tab: str | None  # "main", "雑談" ...; None when the export has no tab span
    speaker: str
    text: str
    color: str | None = None


def _clean(text: str) -> str:
    """NFC, each line stripped, blank lines dropped: the export indents freely."""
    lines = (line.strip() for line in unicodedata.normalize("NFC", text).splitlines())
    return "\n".join(line for line in lines if line)


def _tab_name(raw: str) -> str | None:
    name = raw.strip()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1].strip()
    return name or None


def _color(style: str | None) -> str | None:
    for part in (style or "").split(";"):
        key, _, value = part.partition(":")
        if key.strip().lower() == "color" and value.strip():
            return value.strip()
    return None


class _Parser(HTMLParser):
    """Collects the top-level spans of each <p>; nested markup only adds its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        # (fields, color, markup repaired, text cut off) per finished paragraph
        self.done: list[tuple[list[str], str | None, bool, bool]] = []
        self._fields: list[str] | None = None  # spans of the open paragraph
        self._color: str | None = None
        self._depth = 0  # span nesting inside the paragraph
        self._current: list[str] = []
        self._size = 0
        self._cut = False

    # A <p> inside a <p> cannot exist in HTML: the open one ended without its </p>.
    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "p":
            if self._fields is not None:
                self._finish(broken=True)
            self._fields, self._color = [], _color(dict(attrs).get("style"))
            self._depth, self._current, self._size, self._cut = 0, [], 0, False
        elif self._fields is None:
            return
        elif tag == "span":
            self._depth += 1
            if self._depth == 1:
                self._current, self._size = [], 0
        elif tag == "br" and self._depth:
            self._add("\n")

    def handle_startendtag(self, tag: str, attrs) -> None:
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

    def _finish(self, broken: bool) -> None:
        fields = self._fields or []
        if self._depth and self._current:  # a span left open: keep what it held
            fields.append("".join(self._current))
        self.done.append((fields, self._color, broken, self._cut))
        self._fields, self._depth, self._current = None, 0, []

    def close(self) -> None:
        super().close()
        if self._fields is not None:
            self._finish(broken=True)


class LogReader:
    """Iterate over the messages of an export given as chunks of bytes (or text).

    Counts: `paragraphs` every <p> seen; `malformed` those it could not read (no
    speaker or text, or text beyond MAX_FIELD), which are skipped; `repaired` those
    with broken markup (an unclosed <p> or <span>) that were still read. `bytes_read`
    lets a caller show progress; `undecodable` says bytes were not UTF-8.
    """

    def __init__(self, chunks: Iterable[bytes | str]) -> None:
        self._chunks = chunks
        self.malformed = 0
        self.repaired = 0
        self.paragraphs = 0
        self.bytes_read = 0
        self.undecodable = False
        self._index = 0

    def __iter__(self) -> Iterator[Message]:
        parser = _Parser()
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        for chunk in self._chunks:
            if isinstance(chunk, bytes):
                self.bytes_read += len(chunk)
                text = decoder.decode(chunk)
                if "\ufffd" in text:
                    self.undecodable = True
            else:
                self.bytes_read += len(chunk.encode("utf-8", "surrogatepass"))
                text = chunk
            parser.feed(text)
            yield from self._drain(parser)
        parser.feed(decoder.decode(b"", final=True))
        parser.close()
        yield from self._drain(parser)

    def _drain(self, parser: _Parser) -> Iterator[Message]:
        done, parser.done = parser.done, []
        for fields, color, repaired, cut in done:
            self.paragraphs += 1
            message = None if cut else self._message(fields, color, self._index)
            if message is None:
                self.malformed += 1
                continue
            self.repaired += repaired
            self._index += 1
            yield message

    @staticmethod
    def _message(fields: list[str], color: str | None, index: int) -> Message | None:
        if len(fields) >= 3:
            tab, speaker, text = _tab_name(fields[0]), fields[1], "".join(fields[2:])
        elif len(fields) == 2 and not fields[0].strip().startswith("["):  # no tab span
            tab, speaker, text = None, fields[0], fields[1]
        else:
            return None
        speaker, text = _clean(speaker), _clean(text)
        if not speaker or not text:
            return None
        return Message(index=index, tab=tab, speaker=speaker, text=text, color=color)


def read_chunks(handle, size: int = CHUNK) -> Iterator[bytes]:
    """A binary file as chunks, for LogReader."""
    while True:
        chunk = handle.read(size)
        if not chunk:
            return
        yield chunk

"""ココフォリア's HTML export since v1.37: one `<article class="message">` per message.

    <article class="message" data-channel="main" style="color:#e91e63">
      <span class="speaker">鈴音</span>
      <time class="timestamp" datetime="2025-04-12T12:03:41.512Z">21:03</time>
      <div class="message-text">3d6&lt;=12 回避</div>
      <span class="roll-result">(3D6&lt;=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)</span>
    </article>

The typed text is in `.message-text` (a `div` in some exports, a `p` in others) and
BCDice's answer apart, in `span.roll-result`. Fields are found by class, whatever the
element and however deep, so wrappers a later version adds do not matter. As for the
`<p>` format, the parser is fed chunks and never raises: an article without a speaker
field is malformed, one the file ends inside is yielded marked incomplete.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Any

from campaign.bridges.ccfolia_log import MAX_FIELD, Message, clean, color_of

FIELDS = {"speaker": "speaker", "message-text": "text", "roll-result": "result", "timestamp": "time"}
VOID = frozenset({"br", "img", "hr", "input", "meta", "link", "wbr", "source", "area", "col", "embed"})


def utc_second(value: str | None) -> str | None:
    """An ISO 8601 time (any offset) as UTC to the second, or None when it is not one.

    Seconds, not milliseconds: the HTML and the JSON export of one session then give a
    message the same time, so either export dedupes against the other."""
    if not value:
        return None
    text = value.strip().replace("Z", "+00:00").replace("z", "+00:00")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class _ArticleParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        # (fields, repaired, at the end of the file); fields: texts by name, and "cut": bool
        self.done: list[tuple[dict[str, Any], bool, bool]] = []
        self._open: dict[str, Any] | None = None
        self._depth = 0  # element nesting inside the article
        self._field: str | None = None
        self._field_depth = 0
        self._parts: list[str] = []
        self._size = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if tag == "article" and "message" in classes:
            if self._open is not None:
                self._finish(repaired=True)
            self._open = {
                "tab": attributes.get("data-channel-name") or attributes.get("data-channel"),
                "color": color_of(attributes.get("style")),
                "cut": False,
            }
            self._depth = 0
            return
        if self._open is None:
            return
        if tag == "br":
            self._add("\n")
            return
        if tag == "time" and attributes.get("datetime") and "time" not in self._open:
            self._open["time"] = attributes["datetime"]
        if tag in VOID:
            return
        self._depth += 1
        if self._field is None:
            for name in classes:
                if name in FIELDS and FIELDS[name] != "time":
                    self._field, self._field_depth, self._parts, self._size = FIELDS[name], self._depth, [], 0
                    break

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br" and self._open is not None:
            self._add("\n")

    def handle_endtag(self, tag: str) -> None:
        if self._open is None:
            return
        if tag == "article":
            self._finish(repaired=self._field is not None)
            return
        if tag in ("body", "html"):
            self._finish(repaired=True)
            return
        if tag in VOID:
            return
        if self._field is not None and self._depth == self._field_depth:
            self._open.setdefault(self._field, "".join(self._parts))
            self._field = None
        self._depth = max(0, self._depth - 1)

    def handle_data(self, data: str) -> None:
        if self._field is not None:
            self._add(data)

    def _add(self, data: str) -> None:
        if self._field is None or self._open is None:  # a field is only ever open in an article
            return
        room = MAX_FIELD - self._size
        if len(data) > room:
            data = data[: max(room, 0)]
            self._open["cut"] = True
        self._parts.append(data)
        self._size += len(data)

    def _finish(self, repaired: bool, at_end: bool = False) -> None:
        if self._open is None:  # every caller has an article open
            return
        if self._field is not None:  # a field left open: keep what it held
            self._open.setdefault(self._field, "".join(self._parts))
        self.done.append((self._open, repaired, at_end))
        self._open, self._field, self._depth = None, None, 0

    def close(self) -> None:
        super().close()
        if self._open is not None:
            self._finish(repaired=True, at_end=True)


class ArticleReader:
    """Messages of a v1.37+ export given as text chunks; counts as LogReader's."""

    def __init__(self, chunks: Iterable[str], *, start: int = 0) -> None:
        self._chunks = chunks
        self.malformed = self.repaired = self.incomplete = self.paragraphs = 0
        self.index = start

    def __iter__(self) -> Iterator[Message]:
        parser = _ArticleParser()
        for chunk in self._chunks:
            parser.feed(chunk)
            yield from self._drain(parser)
        parser.close()
        yield from self._drain(parser)

    def _drain(self, parser: _ArticleParser) -> Iterator[Message]:
        done, parser.done = parser.done, []
        for fields, repaired, at_end in done:
            self.paragraphs += 1
            if fields["cut"] or "speaker" not in fields:
                self.malformed += 1
                continue
            if at_end:
                self.incomplete += 1
            else:
                self.repaired += repaired
            result = clean(fields.get("result") or "")
            tab = (fields.get("tab") or "").strip() or None
            yield Message(
                index=self.index,
                tab=tab,
                speaker=clean(fields["speaker"]),
                text=clean(fields.get("text") or ""),
                color=fields.get("color"),
                result=result or None,
                timestamp=utc_second(fields.get("time")),
                incomplete=at_end,
            )
            self.index += 1

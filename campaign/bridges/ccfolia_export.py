"""Which ココフォリア export a file is, in which encoding; its messages, part after part.

Detected from the content, never from the file name: a ZIP (a split export: `_1.html`,
`_2.html` ... read in order as one log), a JSON log export, the v1.37+ `<article>` HTML
or the older `<p>` HTML. Text is UTF-8 (with or without a byte order mark), UTF-16 with
a byte order mark, or Shift_JIS / CP932 (old Windows tools save it so); bytes that are
none of these, or text that is none of the formats, are refused in one line that
starts "this is not a ココフォリア export", before anything is read as chat.
"""

from __future__ import annotations

import codecs
import re
import zipfile
from collections.abc import Iterator
from typing import IO, BinaryIO, Protocol

from campaign.bridges.ccfolia_article import ArticleReader
from campaign.bridges.ccfolia_json import JsonReader
from campaign.bridges.ccfolia_log import CHUNK, LogReader, Message
from campaign.errors import BadInput
from campaign.i18n import _

SAMPLE = 1 << 16
NOT_EXPORT = "this is not a ココフォリア export"
_PART = re.compile(r"_(\d+)\.(?:html?|json)$", re.IGNORECASE)
MAX_PART = 1 << 30  # a ZIP member larger than this uncompressed is refused, not inflated
_ODD = re.compile("[\x80-\x9f\ue000-\uf8ff]")
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def plausible_cp932(text: str) -> bool:
    """CP932 decodes almost any bytes: C1 controls and the private use area it maps the
    unassigned bytes to mean the bytes were not Shift_JIS text."""
    return _ODD.search(text) is None


def _encoding(sample: bytes) -> str:
    for bom, name in _BOMS:
        if sample.startswith(bom):
            return name
    if b"\x00" in sample:
        raise BadInput(
            _("this is not a ココフォリア export; it holds binary data (UTF-16 is read only with a byte order mark)")
        )
    for name in ("utf-8", "cp932"):
        try:
            # never final: a sample (or a cut-off file) may end inside a character
            text = codecs.getincrementaldecoder(name)().decode(sample, final=False)
        except UnicodeDecodeError:
            continue
        # CP932 decodes almost any bytes: C1 controls and the private use area it maps
        # the unassigned bytes to mean the bytes were not Shift_JIS text
        if name == "cp932" and not plausible_cp932(text):
            continue
        return name
    raise BadInput(_("this is not a ココフォリア export; its bytes are not text in UTF-8, UTF-16 or Shift_JIS"))


class _Reader(Protocol):
    """What Export reads of each format's reader: its messages, counts and next index."""

    paragraphs: int
    malformed: int
    repaired: int
    incomplete: int
    index: int

    def __iter__(self) -> Iterator[Message]: ...


def _part_number(name: str) -> int:
    match = _PART.search(name)
    return int(match.group(1)) if match else 0  # only numbered names are sorted by it


def _sample(stream: IO[bytes]) -> bytes:
    """The first SAMPLE bytes (fewer only at the end of the file): a read may return less."""
    parts, size = [], 0
    while size < SAMPLE:
        chunk = stream.read(SAMPLE - size)
        if not chunk:
            break
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)


def _shape(text: str) -> str:
    head = text.lstrip("\ufeff \t\r\n")
    if head.startswith("{"):
        return "json"
    lowered = text.lower()
    if re.search(r"<article[^>]*class=[\"'][^\"']*\bmessage\b", lowered):
        return "html-article"
    if "<p" in lowered and "<span" in lowered:
        return "html-p"
    raise BadInput(
        _(
            "this is not a ココフォリア export; expected the HTML log ココフォリア exports (ログ出力), "
            "a ZIP of its parts or its JSON log"
        )
    )


class Export:
    """The messages of one export file, counted as they are read.

    `format` is html-p / html-article / json, with "zip:" in front for a split export;
    `encoding` the first part's. Counts sum over the parts."""

    def __init__(self, handle: BinaryIO) -> None:
        self._handle = handle
        self.format: str | None = None
        self.encoding: str | None = None
        self.parts = 0
        self.bytes_read = 0
        self.undecodable = False
        self._readers: list[_Reader] = []
        self._index = 0
        self._legacy = 0

    def _sum(self, name: str) -> int:
        return sum(getattr(reader, name) for reader in self._readers)

    paragraphs = property(lambda self: self._sum("paragraphs"))
    malformed = property(lambda self: self._sum("malformed"))
    repaired = property(lambda self: self._sum("repaired"))
    incomplete = property(lambda self: self._sum("incomplete"))

    def __iter__(self) -> Iterator[Message]:
        first = _sample(self._handle)
        if first.startswith(b"PK\x03\x04") or first.startswith(b"PK\x05\x06"):
            yield from self._zip()
            return
        yield from self._part(first, self._handle, counted=True)

    def _zip(self) -> Iterator[Message]:
        self._handle.seek(0)
        try:
            archive = zipfile.ZipFile(self._handle)
            members = [
                info
                for info in archive.infolist()
                if not info.is_dir() and info.filename.lower().endswith((".html", ".htm", ".json"))
            ]
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise BadInput(_("this is not a ココフォリア export; a damaged ZIP ({exc})").format(exc=exc)) from None
        numbered = [info for info in members if _PART.search(info.filename)]
        parts = (
            sorted(numbered, key=lambda info: _part_number(info.filename))
            if numbered
            else sorted(members, key=lambda info: info.filename)
        )
        if not parts:
            raise BadInput(_("this is not a ココフォリア export; a ZIP without HTML or JSON log parts"))
        with archive:
            for info in parts:
                if info.file_size > MAX_PART:
                    raise BadInput(
                        _("this is not a ココフォリア export; {filename} would inflate to {file_size} bytes").format(
                            filename=info.filename, file_size=info.file_size
                        )
                    )
                try:
                    with archive.open(info) as member:
                        yield from self._part(_sample(member), member, counted=False)
                except (zipfile.BadZipFile, OSError, EOFError, RuntimeError) as exc:
                    raise BadInput(
                        _("this is not a ココフォリア export; {filename} cannot be read from the ZIP ({exc})").format(
                            filename=info.filename, exc=exc
                        )
                    ) from None
                self.bytes_read = self._handle.tell() if self._handle.seekable() else self.bytes_read

    def _part(self, first: bytes, stream: IO[bytes], counted: bool) -> Iterator[Message]:
        if not first:
            raise BadInput(_("this is not a ココフォリア export; the file is empty"))
        encoding = _encoding(first)
        decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
        sample = decoder.decode(first)
        shape = _shape(sample)
        if self.format is None:
            self.format, self.encoding = shape, encoding
        elif self.format.removeprefix("zip:") != shape:
            raise BadInput(
                _("this is not a ココフォリア export; its parts are in different formats ({format}, {shape})").format(
                    format=self.format, shape=shape
                )
            )
        if not counted and not self.format.startswith("zip:"):
            self.format = "zip:" + self.format
        self.parts += 1
        if counted:
            self.bytes_read += len(first)

        def texts() -> Iterator[str]:
            yield sample
            while True:
                chunk = stream.read(CHUNK)
                if not chunk:
                    break
                if counted:
                    self.bytes_read += len(chunk)
                text = decoder.decode(chunk)
                if "\ufffd" in text:
                    self.undecodable = True
                yield text
            yield decoder.decode(b"", final=True)

        if "\ufffd" in sample:
            self.undecodable = True
        reader: _Reader
        if shape == "html-p":
            reader = LogReader(texts(), start=self._index, legacy_start=self._legacy)
        elif shape == "html-article":
            reader = ArticleReader(texts(), start=self._index)
        else:
            reader = JsonReader(texts(), start=self._index)
        self._readers.append(reader)
        yield from reader
        self._index = reader.index
        self._legacy = getattr(reader, "legacy_index", self._legacy)

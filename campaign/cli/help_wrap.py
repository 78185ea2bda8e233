"""Line breaking for help text that mixes Japanese and Latin words.

Rich wraps at spaces only. Japanese has no spaces between words, so a Japanese sentence
after an option name (`--head を付けると…`) is one 70-cell "word" for Rich: it moves to
the next line whole and leaves `--head` alone on its own. Japanese text may break between
any two characters except before closing punctuation and small kana, and after an opening
bracket (the basic 禁則 rules); Latin words and option names stay whole. That is what
`break_offsets` does, measuring in terminal cells (a kanji is two).
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.text import Text

if TYPE_CHECKING:
    from rich.console import Console, JustifyMethod, OverflowMethod
    from rich.containers import Lines

# never at the start of a line (行頭禁則) / never at the end of one (行末禁則)
NO_LINE_START = set(
    "、。，．・：；？！ー〜…‥）〕］｝〉》」』】)]}>,.:;?!ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ々"
)
NO_LINE_END = set("（〔［｛〈《「『【([{<")


def _wide(character: str) -> bool:
    return unicodedata.east_asian_width(character) in ("W", "F")


def _may_break_before(text: str, index: int) -> bool:
    """Whether a line may start at text[index] (0 < index < len(text))."""
    before, after = text[index - 1], text[index]
    if before.isspace():
        return not after.isspace()
    if after.isspace() or after in NO_LINE_START or before in NO_LINE_END:
        return False
    return _wide(before) or _wide(after)


def break_offsets(text: str, width: int) -> list[int]:
    """Where to start each new line so that no line is wider than `width` cells.

    Greedy: a line takes everything up to the last break opportunity that still fits;
    spaces at a break are left at the end of the line (the caller strips them). A run
    without any opportunity that is wider than a line is cut where the line is full."""
    offsets: list[int] = []
    start = 0
    while cell_len(text[start:].rstrip()) > width:
        last_fit, used, index = None, 0, start
        while index < len(text):
            used += cell_len(text[index])
            if used > width and not text[index].isspace():
                break
            index += 1
            if index < len(text) and _may_break_before(text, index):
                last_fit = index
        cut = last_fit if last_fit is not None and last_fit > start else max(index, start + 1)
        offsets.append(cut)
        start = cut
    return offsets


class BreakingText(Text):
    """A Rich Text that wraps with `break_offsets` where it holds wide (Japanese) characters."""

    __slots__ = ()

    def wrap(
        self,
        console: Console,
        width: int,
        *,
        justify: JustifyMethod | None = None,
        overflow: OverflowMethod | None = None,
        tab_size: int = 8,
        no_wrap: bool | None = None,
    ) -> Lines:
        if no_wrap or not any(_wide(character) for character in self.plain):
            return super().wrap(console, width, justify=justify, overflow=overflow, tab_size=tab_size, no_wrap=no_wrap)
        from rich.containers import Lines

        lines = Lines()
        for line in self.split(allow_blank=True):
            pieces = line.divide(break_offsets(line.plain, width))
            for piece in pieces:
                piece.rstrip_end(width)
                piece.rstrip()
            lines.extend(pieces)
        return lines


def breaking(made: Any) -> Any:
    """A Text from Typer's help rendering, made to wrap Japanese (anything else as it is)."""
    if type(made) is Text:
        made.__class__ = BreakingText
    return made

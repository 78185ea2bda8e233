""" "Did you mean …?": the known name closest to one that was mistyped.

Names are compared folded (NFKC, so full-width ＡＫＩ and half-width ｶﾀﾅ meet their
usual forms, then case-folded), by edit distance. A suggestion is offered only when
it is close enough to be a slip, not merely the least distant of unrelated names.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping


def fold(name: str) -> str:
    """The form two spellings of one name share: NFKC, case-folded, trimmed."""
    return unicodedata.normalize("NFKC", name).casefold().strip()


def distance(a: str, b: str) -> int:
    """Levenshtein distance (insert, delete, substitute: 1 each)."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def kana(text: str) -> str:
    """Katakana as hiragana (スズネ -> すずね), after fold: a reading typed either way."""
    return "".join(chr(ord(ch) - 0x60) if "\u30a1" <= ch <= "\u30f6" else ch for ch in fold(text))


def closest(name: str, known: Iterable[str], readings: Mapping[str, str] | None = None) -> str | None:
    """The known name `name` most likely meant, or None.

    Same folded form first (ｱｷ for アキ, WILL for Will); then a name that starts with what
    was typed (`鈴` for 鈴音: a Japanese name is often typed by its first character, and
    the edit distance of one character to two says nothing); then a name whose reading
    (`readings`: name -> reading in kana, where one is recorded) is, or starts with, what
    was typed in either kana (すず, スズネ); else the smallest edit distance, at most a
    third of the longer name (and at least 1) and short of changing every character
    (刀 is not a slip for 朔). Ties go to the first.
    """
    target = fold(name)
    if not target:
        return None
    candidates = list(known)
    folded = [(candidate, fold(candidate)) for candidate in candidates]
    for candidate, form in folded:
        if form == target:
            return candidate
    prefixed = [candidate for candidate, form in folded if form.startswith(target)]
    if prefixed:
        return min(prefixed, key=lambda candidate: len(fold(candidate)))
    typed_kana = kana(name)
    for candidate in candidates:
        reading = (readings or {}).get(candidate)
        if reading and kana(reading).startswith(typed_kana):
            return candidate
    best: tuple[int, str] | None = None
    for candidate, form in folded:
        d = distance(target, form)
        longer = max(len(target), len(form))
        if d <= max(1, longer // 3) and d < longer and (best is None or d < best[0]):
            best = (d, candidate)
    return None if best is None else best[1]


def did_you_mean(
    name: str,
    known: Iterable[str],
    readings: Mapping[str, str] | None = None,
    phrase: str = " (did you mean {found!r}?)",
) -> str:
    """' (did you mean 'X'?)' or '' — to append to a not-found message (services pass the
    phrase in the output's language)."""
    found = closest(name, known, readings)
    return "" if found is None else phrase.format(found=found)

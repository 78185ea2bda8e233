""""Did you mean …?": the known name closest to one that was mistyped.

Names are compared folded (NFKC, so full-width ＡＫＩ and half-width ｶﾀﾅ meet their
usual forms, then case-folded), by edit distance. A suggestion is offered only when
it is close enough to be a slip, not merely the least distant of unrelated names.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable


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


def closest(name: str, known: Iterable[str]) -> str | None:
    """The known name `name` most likely meant, or None.

    Same folded form first (ｱｷ for アキ, WILL for Will); else the smallest edit
    distance, at most a third of the longer name (and at least 1), ties to the first.
    """
    target = fold(name)
    best: tuple[int, str] | None = None
    for candidate in known:
        folded = fold(candidate)
        if folded == target:
            return candidate
        d = distance(target, folded)
        if d <= max(1, max(len(target), len(folded)) // 3) and (best is None or d < best[0]):
            best = (d, candidate)
    return None if best is None else best[1]


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """' (did you mean 'X'?)' or '' — to append to a not-found message."""
    found = closest(name, known)
    return "" if found is None else f" (did you mean {found!r}?)"

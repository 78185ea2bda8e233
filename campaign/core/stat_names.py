"""One stat, one name: Will, WILL, ｗｉｌｌ and 意思 all mean the sheet's `Will`.

The ruleset's names come from seeds/rulesets/stats.toml (read by campaign.seeds,
checked by `build_stat_aliases`, passed in here). Resolving a typed name tries, in order: the character's own keys, the
ruleset's canonical names and aliases, all compared folded (NFKC + case-fold). What
matches none of them would create a new stat, and the caller decides whether that is
wanted (`--new-stat`) or a typo (with the closest name as a suggestion).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from campaign.core.suggest import closest, fold
from campaign.errors import DataError


@dataclass(frozen=True)
class StatName:
    name: str            # the key to store or read
    known: bool          # on the sheet or in the ruleset (False: a new stat)
    suggestion: str | None = None


def resolve_stat(typed: str, sheet: Iterable[str], aliases: Mapping[str, Iterable[str]]) -> StatName:
    target = fold(typed)
    sheet = list(sheet)
    canonical_of: dict[str, str] = {}
    for canonical, others in aliases.items():
        for spelling in (canonical, *others):
            canonical_of.setdefault(fold(spelling), canonical)
    # A ruleset name resolves to its canonical form, or to the sheet's key for that stat
    # (a sheet written before the names were canonical may say 意思 for Will).
    canonical = canonical_of.get(target)
    for key in sheet:
        folded = fold(key)
        if folded == target or (canonical is not None and canonical_of.get(folded) == canonical):
            return StatName(key, True)
    if canonical is not None:
        return StatName(canonical, True)
    return StatName(typed, False, closest(typed, [*sheet, *aliases]))


def build_stat_aliases(path: str, data: Mapping[str, Any]) -> dict[str, dict[str, tuple[str, ...]]]:
    """{ruleset: {canonical stat: (aliases...)}} from the parsed stats.toml, checked."""
    aliases: dict[str, dict[str, tuple[str, ...]]] = {}
    for ruleset, stats in data.items():
        if not isinstance(stats, dict) or not all(
                isinstance(v, list) and all(isinstance(a, str) and a for a in v) for v in stats.values()):
            raise DataError(f"{path}: [{ruleset}] must map each stat to a list of names")
        aliases[ruleset] = {canonical: tuple(names) for canonical, names in stats.items()}
    return aliases

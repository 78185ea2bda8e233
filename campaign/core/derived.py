"""Derived stats of GURPS 3rd-edition sheets (docs/rules.md "Derived stats"): Will from
IQ, FP from ST, HP from HT.

A 3e sheet lists ST/DX/IQ/HT only; Will, fatigue and hit points are read off them. A
sheet that gives its own Will (FP, HP) uses that instead, so 3e and 4e-style sheets both
work. Derived values are never stored: they are computed from the base stat each time,
which is what makes them move with it (entry 40's IQ loss lowers a derived Will, entry
31's HT loss lowers a derived HP maximum) and keeps the ledger free of copies to update.

Pure: a mapping of the sheet's stats in, numbers and names out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from campaign.core.stat_names import sheet_key

Aliases = Mapping[str, Iterable[str]] | None  # the ruleset's names (core.stat_names); None: the name only

# (derived stat, the base stat it equals when the sheet has no stat of its own)
DERIVATIONS: tuple[tuple[str, str], ...] = (("Will", "IQ"), ("FP", "ST"), ("HP", "HT"))
POOLS = ("FP", "HP")


@dataclass(frozen=True, slots=True)
class StatValue:
    """A stat as the rules read it: its value, the sheet key it came from, and, for a
    derived one, the base stat it was derived from."""

    name: str  # canonical: "Will", "HP" ...
    value: int
    key: str  # the sheet's own key ("意思", or "IQ" for a derived Will)
    derived_from: str | None = None  # "IQ" when Will is IQ's value

    @property
    def derived(self) -> bool:
        return self.derived_from is not None


def _base_of(canonical: str) -> str | None:
    for derived, base in DERIVATIONS:
        if derived.casefold() == canonical.casefold():
            return base
    return None


def stat_value(stats: Mapping[str, int | str], canonical: str, aliases: Aliases = None) -> StatValue | None:
    """The sheet's own stat if it has one, else the derived value, else None."""
    key = sheet_key(stats, canonical, aliases)
    if key is not None:
        return StatValue(canonical, int(stats[key]), key)
    base = _base_of(canonical)
    if base is not None:
        base_key = sheet_key(stats, base, aliases)
        if base_key is not None:
            return StatValue(canonical, int(stats[base_key]), base_key, derived_from=base)
    return None


def derived_stats(stats: Mapping[str, int | str], aliases: Aliases = None) -> dict[str, StatValue]:
    """Every stat this sheet derives (it lacks the stat and has its base), in rule order."""
    found = {}
    for derived, _base in DERIVATIONS:
        value = stat_value(stats, derived, aliases)
        if value is not None and value.derived:
            found[derived] = value
    return found


def pool_name(text: str) -> str | None:
    """ "hp" -> "HP": the canonical pool a user means, or None when it is not a pool."""
    for pool in POOLS:
        if text.strip().casefold() == pool.casefold():
            return pool
    return None


def pool_max(stats: Mapping[str, int | str], pool: str, aliases: Aliases = None) -> int | None:
    """The pool's maximum: the sheet's FP/HP stat, else ST/HT (3e); None without either."""
    value = stat_value(stats, pool, aliases)
    return None if value is None else value.value


def pool_current(
    stats: Mapping[str, int | str], pools: Mapping[str, int], pool: str, aliases: Aliases = None
) -> int | None:
    """The pool's current value: full (its maximum) until something changed it."""
    maximum = pool_max(stats, pool, aliases)
    if maximum is None:
        return None
    return int(pools.get(pool, maximum))

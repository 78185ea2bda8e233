"""One stat, one name: Will, WILL, ｗｉｌｌ, 意志力 and 意思 all mean the sheet's `Will`.

This module is the only place a stat's name is matched: commands (`char add|set`,
`roll`, `check`), sheet imports, the fright check and the ops that read a pool maximum
all ask `resolve_stat` or `sheet_key`. The ruleset's names and each stat's kind come
from seeds/rulesets/stats.toml (read by campaign.seeds, checked by `build_stat_names`,
passed in here: core reads no file). Names are compared folded (NFKC + case-fold), so
full-width ＷＩＬＬ and 意志力 written in any width need no entry of their own.

Resolving a typed name tries, in order: the character's own keys, the ruleset's
canonical names and aliases. What matches none of them would create a new stat, and the
caller decides whether that is wanted (`--new-stat`) or a typo (with the closest name
as a suggestion).

A stat's kind says which values it takes (docs/rules.md "Derived stats"):
`integer` (ST, IQ ...), `quarter` (Basic Speed: 5, 5.25, 5.5, 5.75) and `derived`
(an integer the sheet may leave out: Will is then IQ). Quarters are stored exactly, as
an int when whole and as a decimal string ("5.25") otherwise: never a binary float.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from campaign.core.suggest import closest, fold
from campaign.errors import N_, BadInput, DataError

KINDS = ("integer", "quarter", "derived")
STAT_LIMIT = 1_000_000
_QUARTER = re.compile(r"[+-]?\d{1,7}(?:\.(?:0+|250*|50*|750*))?")

StatValue = int | str  # an int, or a quarter's decimal string ("5.25")


@dataclass(frozen=True)
class StatName:
    name: str  # the key to store or read
    known: bool  # on the sheet or in the ruleset (False: a new stat)
    suggestion: str | None = None


@dataclass(frozen=True)
class StatNames:
    """One ruleset's stats: {canonical: aliases} and {canonical: kind}."""

    aliases: Mapping[str, tuple[str, ...]]
    kinds: Mapping[str, str]

    def kind(self, canonical: str) -> str:
        return self.kinds.get(canonical, "integer")


def _canonical_of(aliases: Mapping[str, Iterable[str]]) -> dict[str, str]:
    canonical_of: dict[str, str] = {}
    for canonical, others in aliases.items():
        for spelling in (canonical, *others):
            canonical_of.setdefault(fold(spelling), canonical)
    return canonical_of


def resolve_stat(typed: str, sheet: Iterable[str], aliases: Mapping[str, Iterable[str]]) -> StatName:
    target = fold(typed)
    sheet = list(sheet)
    canonical_of = _canonical_of(aliases)
    # A ruleset name resolves to its canonical form, or to the sheet's key for that stat
    # (a sheet written before the names were canonical may say 意思 for Will).
    canonical = canonical_of.get(target)
    for key in sheet:
        folded = fold(key)
        if folded == target or (canonical is not None and canonical_of.get(folded) == canonical):
            return StatName(key, True)
    if canonical is not None:
        return StatName(canonical, True)
    return StatName(typed, False, closest(typed, [*sheet, *aliases, *(a for names in aliases.values() for a in names)]))


def sheet_key(sheet: Iterable[str], stat: str, aliases: Mapping[str, Iterable[str]] | None = None) -> str | None:
    """The sheet's own key for `stat` (Will may be stored as 意思 or ＷＩＬＬ), or None.

    Without `aliases` only the folded name itself matches (will, ＷＩＬＬ for Will)."""
    sheet = list(sheet)
    found = resolve_stat(stat, sheet, aliases or {})
    return found.name if found.known and found.name in sheet else None


def canonical_view(stats: Mapping[str, Any], aliases: Mapping[str, Iterable[str]]) -> dict[str, Any]:
    """The stats keyed by their canonical names (意思 -> Will), for rules that name stats."""
    canonical_of = _canonical_of(aliases)
    return {canonical_of.get(fold(key), key): value for key, value in stats.items()}


def stat_number(value: Any, what: str, kind: str = "integer") -> StatValue:
    """A stat's value as stored: an int, or for a quarter stat a whole or quarter value
    ("5.25"; 5.0 and "5" become 5). Raises BadInput for anything else."""
    if isinstance(value, bool):
        raise BadInput(N_("stat {what}: {value!r} is not a number"), what=what, value=value)
    if kind == "quarter":
        text = value if isinstance(value, str) else (str(value) if isinstance(value, int) else None)
        if isinstance(value, float):
            text = repr(value)
        if text is None or not _QUARTER.fullmatch(text.strip()):
            raise BadInput(
                N_("stat {what}: {value!r} is not a whole or quarter number (5, 5.25, 5.5, 5.75)"),
                what=what,
                value=value,
            )
        whole, _, fraction = text.strip().partition(".")
        fraction = fraction.rstrip("0")
        number = int(whole) if not fraction else None
        if number is not None:
            return _in_range(number, what)
        sign = "-" if whole.startswith("-") else ""
        _in_range(abs(int(whole)), what)
        return f"{sign}{abs(int(whole))}.{fraction}"
    if isinstance(value, str) and re.fullmatch(r"[+-]?\d{1,7}", value.strip()):
        value = int(value)
    if not isinstance(value, int):
        raise BadInput(N_("stat {what}: {value!r} is not a whole number"), what=what, value=value)
    return _in_range(value, what)


def _in_range(value: int, what: str) -> int:
    if abs(value) > STAT_LIMIT:
        raise BadInput(
            N_("stat {what}: {value} is out of range (at most ±{limit})"), what=what, value=value, limit=STAT_LIMIT
        )
    return value


def is_stat_value(value: Any) -> bool:
    """What a record may hold as a stat: an int, or a quarter's canonical decimal string."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    try:
        return isinstance(value, str) and stat_number(value, "", "quarter") == value
    except BadInput:
        return False


def build_stat_names(path: str, data: Mapping[str, Any]) -> dict[str, StatNames]:
    """{ruleset: StatNames} from the parsed stats.toml, checked.

    A stat is either a list of aliases (an integer stat) or a table
    `{aliases = [...], kind = "quarter"}`."""
    names: dict[str, StatNames] = {}
    for ruleset, stats in data.items():
        if not isinstance(stats, dict):
            raise DataError(N_("{path}: [{ruleset}] must map each stat to a list of names"), path=path, ruleset=ruleset)
        aliases: dict[str, tuple[str, ...]] = {}
        kinds: dict[str, str] = {}
        for canonical, spec in stats.items():
            kind = "integer"
            if isinstance(spec, dict):
                kind = spec.get("kind", "integer")
                if kind not in KINDS or set(spec) - {"aliases", "kind"}:
                    raise DataError(
                        N_("{path}: [{ruleset}] {stat}: kind must be one of {kinds} and only aliases/kind are allowed"),
                        path=path,
                        ruleset=ruleset,
                        stat=canonical,
                        kinds=", ".join(KINDS),
                    )
                spec = spec.get("aliases", [])
            if not isinstance(spec, list) or not all(isinstance(a, str) and a for a in spec):
                raise DataError(
                    N_("{path}: [{ruleset}] must map each stat to a list of names"), path=path, ruleset=ruleset
                )
            aliases[canonical], kinds[canonical] = tuple(spec), kind
        names[ruleset] = StatNames(aliases, kinds)
    return names


def build_stat_aliases(path: str, data: Mapping[str, Any]) -> dict[str, dict[str, tuple[str, ...]]]:
    """{ruleset: {canonical stat: (aliases...)}} from the parsed stats.toml, checked."""
    return {ruleset: dict(names.aliases) for ruleset, names in build_stat_names(path, data).items()}

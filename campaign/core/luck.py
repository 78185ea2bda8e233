"""Luck statistics: which die every recorded face came from, what the rules made each
success roll worth, and how far the dice stray from fair.

A ledger entry keeps its faces as one flat list (`dice`) beside its expression, so the
die size of each face is read back from the expression with the same parser that rolled
it: the faces come out in the order the engine takes them (terms left to right, keep-
highest dice included, d66 as two d6, a repeat's body again and again). Table commands
(`CRT`, `FEAR+5`) roll the table's dice, which the caller looks up.

Faces are tallied per source and never mixed: `rng` (the OS rolled them: the only dice
that say anything about the program's fairness; `server`, the same generator drawn by
the table server, is kept beside them), `manual` (typed in with --dice),
`seeded` (demos) and imported sources such as `ccfolia` each get their own counts and
their own tests.

Success rolls are scored against exact probabilities, found by enumerating every way the
dice can fall and judging each with the rules themselves (campaign.core.success for
GURPS 3d6, campaign.core.checks2d6 for the 2d6 checks, criticals included), so this
module never restates a rule. The chi-square tail comes from scipy.special (imported only
when a report is built; scipy.stats would cost a second more of imports for the same
function), the normal tail from math.erfc.

Pure: records in, numbers out; no I/O.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from campaign.core import checks2d6
from campaign.core.dice_parse import (
    ArithmeticRoll,
    BarabaraRoll,
    D66Term,
    DiceTerm,
    Negation,
    Node,
    Number,
    ParsedExpression,
    Product,
    Sum,
    parse,
)
from campaign.core.dice_source import ManualDice
from campaign.core.success import SUCCEEDING_OUTCOMES, judge_success
from campaign.errors import DiceError

OUTCOMES = frozenset({"success", "failure", "critical_success", "critical_failure"})
SOURCE_ORDER = ("rng", "server", "bcdice-api", "manual", "prompted", "seeded")
# Each source in words: what a reader needs to know to weigh its dice. A
# `manual` entry recorded before `prompted` existed may also hold dice asked for with
# --physical; the record did not tell them apart then.
SOURCE_WORDS = {
    "rng": "rolled by the OS",
    "server": "rolled by the table's server",
    "bcdice-api": "rolled by the table's server for a dice bot",
    "manual": "typed (--dice)",
    "prompted": "prompted (--physical)",
    "seeded": "seeded (demos and tests)",
    "unknown": "no source recorded",
}


def source_words(name: str) -> str:
    """What a dice source is, in words; every other source name is an import (ccfolia ...)."""
    return SOURCE_WORDS.get(name, f"imported ({name})")


FAMILIES = {
    "3d6": "3d6 success rolls (GURPS, criticals included)",
    "2d6": "2d6 checks (criticals as the campaign set them)",
    "plain": "other rolls against a target (plain comparison)",
}
# A test needs enough data for its distribution to hold: at least this many expected
# per face (chi-square) or expected successes and failures (success rate).
MIN_EXPECTED = 5
# Enumerating a 2d6 check's dice as multisets: 12 dice are 6,188 of them.
MAX_CHECK_DICE = 12
# Convolving a plain sum: the total faces of its dice (100D6 or 6D100 fit).
MAX_PLAIN_FACES = 600
# 2d6 checks whose success is a fixed target (opposed and hide results depend on the other side).
SCORED_CHECKS = frozenset({"ability", "skill", "cooperative", "danger_sense"})


# --- expressions ------------------------------------------------------------------------


@dataclass(frozen=True)
class ExpressionInfo:
    """What an expression says about its faces and, if it is one, its success test."""

    sides: tuple[int, ...]  # die size of each face, in roll order
    uniform: int | None  # the one die size when all faces share it
    r1_modifier: int | None  # `3D6[+-k]<=N`: the k a GURPS success roll judges with
    plain: tuple[tuple[tuple[int, int, int], ...], int, str] | None  # ((sign, count, sides)...), constant, compare


def _node_sides(node: Node, out: list[int]) -> None:
    """Die sizes in the order campaign.core.dice._value rolls them."""
    if isinstance(node, DiceTerm):
        out.extend([node.sides] * node.count)
    elif isinstance(node, D66Term):
        out.extend((6, 6))
    elif isinstance(node, Sum):
        for _sign, term in node.terms:
            _node_sides(term, out)
    elif isinstance(node, Product):
        _node_sides(node.first, out)
        for _operator, operand, _position in node.rest:
            _node_sides(operand, out)
    elif isinstance(node, Negation):
        _node_sides(node.operand, out)
    elif not isinstance(node, Number):
        raise TypeError(f"not a dice expression node: {node!r}")


def _plain_shape(roll: ArithmeticRoll) -> tuple[tuple[tuple[int, int, int], ...], int] | None:
    """((sign, count, sides)...), constant when the left side is a plain sum of dice."""
    node = roll.expression
    parts = node.terms if isinstance(node, Sum) else ((1, node),)
    terms: list[tuple[int, int, int]] = []
    constant = 0
    for sign, term in parts:
        if isinstance(term, Number):
            constant += sign * term.value
        elif isinstance(term, DiceTerm) and term.keep is None:
            terms.append((sign, term.count, term.sides))
        else:
            return None
    if not terms or sum(count * sides for _, count, sides in terms) > MAX_PLAIN_FACES:
        return None
    return tuple(terms), constant


def expression_info(parsed: ParsedExpression) -> ExpressionInfo:
    roll = parsed.roll
    sides: list[int] = []
    if isinstance(roll, BarabaraRoll):
        for term in roll.terms:
            sides.extend([term.sides] * term.count)
    else:
        _node_sides(roll.expression, sides)
    sides_t = tuple(sides) * (parsed.repeat or 1)
    uniform = sides_t[0] if sides_t and all(s == sides_t[0] for s in sides_t) else None
    r1 = plain = None
    if (
        parsed.repeat is None
        and isinstance(roll, ArithmeticRoll)
        and roll.comparison is not None
        and roll.target is not None
    ):
        r1 = roll.success_roll_modifier
        shape = _plain_shape(roll)
        if shape is not None:
            plain = (shape[0], shape[1] - roll.target, roll.comparison)  # constant moved to the target side
    return ExpressionInfo(sides_t, uniform, r1, plain)


def read_expression(text: str, table_dice: Callable[[str], str | None]) -> ExpressionInfo | None:
    """The info of a recorded expression; a table command rolls `table_dice(text)` (e.g. "3D6").

    None when neither reading works (an imported expression this parser does not know).
    """
    try:
        return expression_info(parse(text))
    except DiceError:
        pass
    dice = table_dice(text)
    if dice is None:
        return None
    try:
        info = expression_info(parse(dice))
    except DiceError:
        return None
    return ExpressionInfo(info.sides, info.uniform, None, None)  # a table roll is not a success roll


# --- exact success probabilities --------------------------------------------------------


@functools.lru_cache(maxsize=4096)
def r1_probability(target: int, modifier: int = 0) -> Fraction:
    """P(success) of `3D6+modifier<=target` (docs/rules.md "Success roll"), over all 216
    ways 3d6 fall."""
    hits = 0
    for faces in itertools.product(range(1, 7), repeat=3):
        raw = faces[0] + faces[1] + faces[2]
        if judge_success(raw, raw + modifier, target).succeeded:
            hits += 1
    return Fraction(hits, 216)


def _orderings(faces: tuple[int, ...]) -> int:
    """How many ordered rolls show this multiset of faces."""
    count = math.factorial(len(faces))
    for repeated in Counter(faces).values():
        count //= math.factorial(repeated)
    return count


@functools.lru_cache(maxsize=4096)
def check_probability(dice: int, need: int, compare: str, cooperative: bool, criticals: bool) -> Fraction:
    """P(success) of a 2d6-family check rolling `dice` d6 whose non-dice terms sum to 0,
    against target `need` (the check's target minus its stat, skill and modifiers).

    Every multiset of faces is judged once by the rule functions themselves (weighted by
    its orderings; no rule depends on the order of equal dice): ability_check for `>=`,
    danger_sense for `>` (exceed the difficulty), cooperative_check (best two of the dice)
    for a cooperative check, with the campaign's critical rule.
    """
    if not 1 <= dice <= MAX_CHECK_DICE:
        raise ValueError(f"can enumerate 1..{MAX_CHECK_DICE} dice, not {dice}")
    rule = checks2d6.CriticalRule(enabled=criticals)
    hits = 0
    for faces in itertools.combinations_with_replacement(range(1, 7), dice):
        source = ManualDice(list(faces))
        result: checks2d6.CheckResult
        if cooperative:  # two participants of stat -1: stat -1, +1 for cooperation, (2+1)+mod dice
            result = checks2d6.cooperative_check([-1, -1], need, source, dice_modifier=dice - 3, criticals=rule)
        elif compare == ">":
            result = checks2d6.danger_sense(0, need, source, dice_modifier=dice - 2, criticals=rule)
        else:
            result = checks2d6.ability_check(0, need, source, dice_modifier=dice - 2, criticals=rule)
        if result.success:
            hits += _orderings(faces)
    return Fraction(hits, 6**dice)


@functools.lru_cache(maxsize=256)
def _sum_distribution(terms: tuple[tuple[int, int, int], ...]) -> tuple[dict[int, int], int]:
    """Ways each total of a signed sum of dice can come up, and all ways together."""
    ways = {0: 1}
    for sign, count, sides in terms:
        for _ in range(count):
            step: dict[int, int] = {}
            for total, n in ways.items():
                for face in range(1, sides + 1):
                    key = total + sign * face
                    step[key] = step.get(key, 0) + n
            ways = step
    return ways, math.prod(sides**count for _, count, sides in terms)


_COMPARE = {"<=": int.__le__, ">=": int.__ge__, "<": int.__lt__, ">": int.__gt__, "=": int.__eq__, "!=": int.__ne__}


@functools.lru_cache(maxsize=4096)
def plain_probability(terms: tuple[tuple[int, int, int], ...], need: int, compare: str) -> Fraction:
    """P(sum of dice `compare` need), exactly, by convolving the dice."""
    ways, total = _sum_distribution(terms)
    test = _COMPARE[compare]
    return Fraction(sum(n for value, n in ways.items() if test(value, need)), total)


@functools.lru_cache(maxsize=8192)
def _as_float(function: Callable[..., Fraction], *args: Any) -> float:
    """The float of an exact probability, cached: a long ledger asks for the same few."""
    return float(function(*args))


# --- tallying records -------------------------------------------------------------------


@dataclass
class SourceTally:
    entries: int = 0
    dice: int = 0
    faces: dict[int, list[int]] = field(default_factory=dict)  # sides -> [unused, count of 1, of 2, ...]
    success: dict[str, list[float]] = field(default_factory=dict)  # family -> [rolls, successes, sum p, sum p(1-p)]
    not_scored: int = 0
    unclassified_entries: int = 0
    unclassified_dice: int = 0

    def counts(self, sides: int) -> list[int]:
        found = self.faces.get(sides)
        if found is None:
            found = self.faces[sides] = [0] * (sides + 1)
        return found


class LuckTally:
    """Constant-memory accumulator over ledger records (the parsed `record` JSON).

    `read` turns an expression into an ExpressionInfo (or None); it is cached here, in a
    cache that is emptied when it grows large, so memory stays flat however varied the
    expressions of a long campaign.
    """

    CACHE_LIMIT = 4096

    def __init__(self, read: Callable[[str], ExpressionInfo | None]) -> None:
        self._read = read
        self._cache: dict[str, ExpressionInfo | None] = {}
        self.sources: dict[str, SourceTally] = {}
        self.entries = 0
        self.shared_entries = 0

    def _info(self, expression: Any) -> ExpressionInfo | None:
        if not isinstance(expression, str):
            return None
        try:
            return self._cache[expression]
        except KeyError:
            if len(self._cache) >= self.CACHE_LIMIT:
                self._cache.clear()
            info = self._cache[expression] = self._read(expression)
            return info

    def add(self, record: dict[str, Any]) -> None:
        self.entries += 1
        dice = record.get("dice")
        if not dice or not isinstance(dice, list):
            return
        detail = record.get("detail")
        if not isinstance(detail, dict):
            detail = {}
        kind = record.get("kind")
        if kind == "check" and detail.get("role") == "participant":
            # A cooperative check's other participants repeat the shared roll: counted once, on the main entry.
            self.shared_entries += 1
            return
        source = record.get("source")
        source = source if isinstance(source, str) and source else "unknown"
        tally = self.sources.get(source)
        if tally is None:
            tally = self.sources[source] = SourceTally()
        tally.entries += 1
        expression = record.get("expression")
        if kind == "reunion" and isinstance(expression, str):
            info = self._info(expression + "<=" + str(record.get("target")))  # rolled "1dF", needed <= target
        else:
            info = self._info(expression)
        if info is None or len(info.sides) != len(dice) or not all(type(face) is int for face in dice):
            tally.unclassified_entries += 1
            tally.unclassified_dice += len(dice)
            return
        uniform = info.uniform
        if uniform is not None:
            if min(dice) < 1 or max(dice) > uniform:
                tally.unclassified_entries += 1
                tally.unclassified_dice += len(dice)
                return
            counts = tally.counts(uniform)
            for face in dice:
                counts[face] += 1
        else:
            if any(not 1 <= face <= sides for face, sides in zip(dice, info.sides)):
                tally.unclassified_entries += 1
                tally.unclassified_dice += len(dice)
                return
            for face, sides in zip(dice, info.sides):
                tally.counts(sides)[face] += 1
        tally.dice += len(dice)

        outcome, target = record.get("outcome"), record.get("target")
        if outcome not in OUTCOMES or type(target) is not int or not isinstance(kind, str):
            return
        scored = self._probability(kind, detail, info, len(dice), target, outcome)
        if scored is None:
            tally.not_scored += 1
            return
        family, p = scored
        acc = tally.success.get(family)
        if acc is None:
            acc = tally.success[family] = [0, 0, 0.0, 0.0]
        acc[0] += 1
        acc[1] += outcome in SUCCEEDING_OUTCOMES
        acc[2] += p
        acc[3] += p * (1.0 - p)

    @staticmethod
    def _probability(
        kind: str, detail: dict[str, Any], info: ExpressionInfo, dice: int, target: int, outcome: str
    ) -> tuple[str, float] | None:
        if kind == "check":
            if detail.get("kind") not in SCORED_CHECKS or detail.get("skipped") or dice > MAX_CHECK_DICE:
                return None
            try:
                base = sum(term["value"] for term in detail["terms"])
                criticals = bool(detail["critical_rule"]["enabled"])
                compare = detail["compare"]
            except (KeyError, TypeError):
                return None
            if compare not in (">=", ">") or type(base) is not int:
                return None
            cooperative = detail.get("kind") == "cooperative"
            return "2d6", _as_float(check_probability, dice, target - base, compare, cooperative, criticals)
        gurps = detail.get("gurps")
        if isinstance(gurps, dict) or (kind == "fright" and info.r1_modifier is not None):
            if info.r1_modifier is None:
                return None
            return "3d6", _as_float(r1_probability, target, info.r1_modifier)
        if info.plain is not None and outcome in ("success", "failure"):
            terms, offset, compare = info.plain
            return "plain", _as_float(plain_probability, terms, -offset, compare)
        return None


# --- the report -------------------------------------------------------------------------


def _source_key(name: str) -> tuple[int, str]:
    return (SOURCE_ORDER.index(name), name) if name in SOURCE_ORDER else (len(SOURCE_ORDER), name)


def _finite(value: float) -> float | None:
    return None if value is None or math.isnan(value) or math.isinf(value) else float(value)


def _two_sided_normal_p(z: float) -> float:
    """P(|Z| >= |z|) for a standard normal Z: 2 * sf(|z|) = erfc(|z| / sqrt 2)."""
    return math.erfc(abs(z) / math.sqrt(2))


def die_report(sides: int, counts: list[int], chi_square_tail: Callable[[int, float], float]) -> dict[str, Any]:
    faces = counts[1:]
    n = sum(faces)
    mean = sum(face * count for face, count in enumerate(faces, start=1)) / n
    expected_mean = (sides + 1) / 2
    row: dict[str, Any] = {
        "sides": sides,
        "dice": n,
        "faces": faces,
        "mean": mean,
        "expected_mean": expected_mean,
        "mean_z": None,
        "mean_p": None,
        "chi_square": None,
        "df": sides - 1,
        "p_value": None,
        "tested": False,
    }
    if sides >= 2 and n / sides >= MIN_EXPECTED:
        each = n / sides  # a fair die's expected count per face
        statistic = sum((count - each) ** 2 / each for count in faces)
        z = (mean - expected_mean) / math.sqrt((sides * sides - 1) / 12 / n)
        row.update(
            chi_square=_finite(statistic),
            p_value=_finite(chi_square_tail(sides - 1, statistic)),
            mean_z=z,
            mean_p=_finite(_two_sided_normal_p(z)),
            tested=True,
        )
    return row


def success_report(family: str, acc: list[float]) -> dict[str, Any]:
    rolls, successes, expected, variance = acc
    row: dict[str, Any] = {
        "family": family,
        "label": FAMILIES[family],
        "rolls": rolls,
        "successes": successes,
        "observed_rate": successes / rolls,
        "expected_rate": expected / rolls,
        "expected_successes": expected,
        "z": None,
        "p_value": None,
        "tested": False,
    }
    if expected >= MIN_EXPECTED and rolls - expected >= MIN_EXPECTED and variance > 0:
        z = (successes - expected) / math.sqrt(variance)
        row.update(z=z, p_value=_finite(_two_sided_normal_p(z)), tested=True)
    return row


def honest_note(tests: int) -> str:
    if tests == 0:
        return (
            "No test was made: too few dice (a test needs at least 5 expected per face, or 5 expected "
            "successes and failures)."
        )
    return (
        f"{tests} tests were made (each p-value is one). Even with perfectly fair dice a p-value falls below "
        f"0.05 one time in 20, so about {tests * 0.05:.1f} of these are expected below 0.05 by chance alone: "
        f"a low p-value here and there is not evidence of unfair dice. Across {tests} tests only a p-value "
        f"below {0.05 / tests:.2g} (0.05 / {tests}) stands out. Only `rng` dice (rolled by the OS) speak to "
        "the program's fairness; typed-in, seeded and imported dice are tallied apart."
    )


def report(tally: LuckTally) -> dict[str, Any]:
    """The numbers of `campaign stats`."""
    from scipy.special import chdtrc  # the chi-square survival function; ~0.3 s of imports, paid here alone

    sources = []
    tests = 0
    for name in sorted(tally.sources, key=_source_key):
        source = tally.sources[name]
        dice_rows = [
            die_report(sides, source.faces[sides], chdtrc)
            for sides in sorted(source.faces)
            if sum(source.faces[sides]) > 0
        ]
        success_rows = [
            success_report(family, source.success[family]) for family in FAMILIES if family in source.success
        ]
        tests += sum(2 for row in dice_rows if row["tested"]) + sum(1 for row in success_rows if row["tested"])
        sources.append(
            {
                "source": name,
                "entries": source.entries,
                "dice": source.dice,
                "die_sizes": dice_rows,
                "success_rolls": success_rows,
                "not_scored": source.not_scored,
                "unclassified_entries": source.unclassified_entries,
                "unclassified_dice": source.unclassified_dice,
            }
        )
    return {
        "entries": tally.entries,
        "shared_entries": tally.shared_entries,
        "sources": sources,
        "tests": tests,
        "note": honest_note(tests),
    }

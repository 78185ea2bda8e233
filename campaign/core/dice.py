"""The dice engine: BCDice-style expressions in, frozen results out.

Faces only ever come from the `source` handed in, so the same code serves OS
randomness, seeded demos and physical dice typed in with --dice, and the ledger can
say which one produced a roll. Parsing (and every limit) happens before the first
face is taken; see `campaign.core.dice_parse` for the grammar.

Grammar summary (case-insensitive, full-width accepted):
    NdM, 1D (=1D6), D6 (=1D6), D66, NdMKHk / NdMKLk, + - * / ( ), unary minus,
    `/` rounds down; a comparison `<= >= < > = !=` against a fixed target;
    barabara `nBm[+nBm...]` with an optional comparison counting successes;
    repeat `x3 2D6`; anything after the first space is a comment.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from campaign.core.dice_grammar import target_first
from campaign.core.dice_parse import (
    COMPARISONS,
    MAX_DICE_PER_TERM,
    MAX_EXPRESSION_LENGTH,
    MAX_NESTING,
    MAX_REPEAT,
    MAX_SIDES,
    MAX_TOTAL_DICE,
    ArithmeticRoll,
    BarabaraRoll,
    D66Term,
    DiceTerm,
    ExpressionProblem,
    LocatedExpression,
    Negation,
    Node,
    Number,
    ParsedExpression,
    Product,
    Sum,
    normalize_expression,
    parse,
    parse_normalized,
    split_comment,
)
from campaign.core.dice_source import roll_dice as request_dice
from campaign.core.success import (
    CRITICAL_FAILURE,
    CRITICAL_SUCCESS,
    FAILURE,
    SUCCEEDING_OUTCOMES,
    SUCCESS,
    SuccessJudgement,
    judge_success,
)
from campaign.errors import N_, DiceError, Words

if TYPE_CHECKING:
    from campaign.core.dice_source import DiceSource

__all__ = [
    "COMPARISONS",
    "CRITICAL_FAILURE",
    "CRITICAL_SUCCESS",
    "FAILURE",
    "MAX_DICE_PER_TERM",
    "MAX_EXPRESSION_LENGTH",
    "MAX_NESTING",
    "MAX_REPEAT",
    "MAX_SIDES",
    "MAX_TOTAL_DICE",
    "SUCCESS",
    "DiceGroup",
    "DiceResult",
    "ParsedExpression",
    "SuccessJudgement",
    "evaluate",
    "normalize_expression",
    "parse",
    "roll_expression_total",
    "roll_parsed",
    "split_comment",
]

_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "<=": operator.le,
    ">=": operator.ge,
    "<": operator.lt,
    ">": operator.gt,
    "=": operator.eq,
    "!=": operator.ne,
}


@dataclass(frozen=True, slots=True)
class DiceGroup:
    """The dice of one term, so the ledger can show which faces counted and which not."""

    kind: str  # "dice", "d66" or "barabara"
    count: int
    sides: int
    faces: tuple[int, ...]  # in the order rolled, dropped ones included
    kept_indices: tuple[int, ...]  # indices into faces that make up `value`
    value: int  # what the term contributed: sum of kept faces, or the d66 reading
    keep: str | None = None  # "KH" / "KL"
    keep_count: int | None = None
    successes: int | None = None  # barabara with a comparison
    hit_indices: tuple[int, ...] | None = None  # barabara dice that met the target

    @property
    def kept(self) -> tuple[int, ...]:
        return tuple(self.faces[index] for index in self.kept_indices)

    @property
    def dropped_indices(self) -> tuple[int, ...]:
        kept = set(self.kept_indices)
        return tuple(index for index in range(len(self.faces)) if index not in kept)

    @property
    def dropped(self) -> tuple[int, ...]:
        return tuple(self.faces[index] for index in self.dropped_indices)

    def to_detail(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "count": self.count,
            "sides": self.sides,
            "faces": list(self.faces),
            "kept": list(self.kept),
            "dropped": list(self.dropped),
            "kept_indices": list(self.kept_indices),
            "keep": None if self.keep is None else f"{self.keep}{self.keep_count}",
            "value": self.value,
            "successes": self.successes,
            "hit_indices": None if self.hit_indices is None else list(self.hit_indices),
        }


@dataclass(frozen=True, slots=True)
class DiceResult:
    """One evaluated expression; for `xN`, the repetitions are in `repeats`.

    `total` is the left side for comparisons, the number of successes for a compared
    barabara roll, and the sum of the repetitions' totals for a repeat. `faces` is
    every die rolled, in order; for a repeat it spans all repetitions, and `groups`
    concatenates theirs.
    """

    expression: str
    total: int
    faces: tuple[int, ...]
    groups: tuple[DiceGroup, ...]
    comparison: str | None = None
    target: int | None = None
    outcome: str | None = None
    margin: int | None = None
    successes: int | None = None
    repeats: tuple[DiceResult, ...] = ()
    comment: str | None = None
    source_kind: str | None = None
    judgement: SuccessJudgement | None = None  # set when a GURPS success roll was judged

    @property
    def succeeded(self) -> bool | None:
        """True/False for a judged roll, None when there was nothing to judge."""
        if self.outcome is None:
            return None
        return self.outcome in SUCCEEDING_OUTCOMES

    def to_detail(self) -> dict[str, Any]:
        """A JSON-able record for the ledger; every key is always present.

        A repeat lists its repetitions under `repeats` and leaves `groups` empty, so
        no die appears twice in the stored record.
        """
        return {
            "expression": self.expression,
            "total": self.total,
            "faces": list(self.faces),
            "groups": [] if self.repeats else [group.to_detail() for group in self.groups],
            "comparison": self.comparison,
            "target": self.target,
            "outcome": self.outcome,
            "margin": self.margin,
            "successes": self.successes,
            "repeats": [repetition.to_detail() for repetition in self.repeats],
            "comment": self.comment,
            "source": self.source_kind,
            "gurps": None if self.judgement is None else self.judgement.to_detail(),
        }

    def describe(self) -> str:
        """A one-line English rendering, e.g. `2D6>=7 → [3,4] = 7 → success (margin 0)`."""
        if self.repeats:
            return " / ".join(repetition.describe() for repetition in self.repeats)
        dice = " ".join(_describe_group(group) for group in self.groups)
        counted = f"{self.successes} successes" if self.successes is not None else str(self.total)
        parts = [self.expression, f"{dice} = {counted}"]
        if self.outcome is not None:
            verdict = self.outcome.replace("_", " ")
            if self.margin is not None:
                verdict += f" (margin {self.margin})"
            parts.append(verdict)
        return " → ".join(parts)


def _describe_group(group: DiceGroup) -> str:
    if group.kind == "d66":
        return f"[{group.faces[0]}{group.faces[1]}]"
    kept = set(group.kept_indices)
    marked = (str(face) if index in kept else f"({face})" for index, face in enumerate(group.faces))
    return "[" + ",".join(marked) + "]"


# --- evaluation ---------------------------------------------------------------------


def _value(node: Node, roll: Callable[[int, int], tuple[int, ...]], groups: list[DiceGroup]) -> int:
    """`roll(count, sides)` gives that many faces as one request (see dice_source.roll_dice)."""
    kind = type(node)
    if kind is Number:
        return node.value  # type: ignore[union-attr]
    if kind is DiceTerm:
        return _roll_term(node, roll, groups)  # type: ignore[arg-type]
    if kind is Sum:
        total = 0
        for sign, term in node.terms:  # type: ignore[union-attr]
            if sign > 0:
                total += _value(term, roll, groups)
            else:
                total -= _value(term, roll, groups)
        return total
    if kind is Product:
        value = _value(node.first, roll, groups)  # type: ignore[union-attr]
        for operation, operand, position in node.rest:  # type: ignore[union-attr]
            right = _value(operand, roll, groups)
            if operation == "*":
                value *= right
            elif right == 0:
                raise ExpressionProblem(N_("division by zero"), position)
            else:
                value //= right
        return value
    if kind is Negation:
        return -_value(node.operand, roll, groups)  # type: ignore[union-attr]
    if kind is not D66Term:
        raise TypeError(f"not a dice expression node: {node!r}")
    tens, ones = roll(2, 6)
    value = tens * 10 + ones
    groups.append(DiceGroup("d66", 2, 6, (tens, ones), (0, 1), value))
    return value


def _roll_term(term: DiceTerm, roll: Callable[[int, int], tuple[int, ...]], groups: list[DiceGroup]) -> int:
    sides = term.sides
    faces = roll(term.count, sides)
    if term.keep is None:
        value = sum(faces)
        groups.append(DiceGroup("dice", term.count, sides, faces, tuple(range(term.count)), value))
        return value
    # sorted() stays stable with reverse=True, so among equal faces the earlier die is kept.
    ranked = sorted(range(term.count), key=faces.__getitem__, reverse=term.keep == "KH")
    kept_indices = tuple(sorted(ranked[: term.keep_count]))
    value = sum(faces[index] for index in kept_indices)
    groups.append(DiceGroup("dice", term.count, sides, faces, kept_indices, value, term.keep, term.keep_count))
    return value


def _margin(comparison: str, total: int, target: int) -> int | None:
    if comparison in ("<=", "<"):
        return target - total
    if comparison in (">=", ">"):
        return total - target
    return None


def _requester(source: DiceSource, text: str) -> Callable[[int, int], tuple[int, ...]]:
    """Each dice term is one request, named after the expression ("2d6 for the roll 2D6+1")."""
    purpose = Words(N_("the roll {text}"), text=text)

    def request(count: int, sides: int) -> tuple[int, ...]:
        return request_dice(source, count, sides, purpose)

    return request


def _roll_arithmetic(
    spec: ArithmeticRoll, text: str, source: DiceSource, gurps: bool, comment: str | None, sorcery: bool = False
) -> DiceResult:
    groups: list[DiceGroup] = []
    total = _value(spec.expression, _requester(source, text), groups)
    faces = groups[0].faces if len(groups) == 1 else tuple(face for group in groups for face in group.faces)
    comparison = spec.comparison
    if comparison is None:
        return DiceResult(text, total, faces, tuple(groups), comment=comment, source_kind=source.kind)
    target: int = spec.target  # type: ignore[assignment]
    judgement = None
    if gurps and spec.success_roll_modifier is not None:
        judgement = judge_success(groups[0].value, total, target, faces=faces, sorcery=sorcery)
        outcome, margin = judgement.outcome, judgement.margin
    else:
        outcome = SUCCESS if _COMPARE[comparison](total, target) else FAILURE
        margin = _margin(comparison, total, target)  # type: ignore[assignment]  # None only for an unknown comparison
    return DiceResult(
        text,
        total,
        faces,
        tuple(groups),
        comparison,
        target,
        outcome,
        margin,
        comment=comment,
        source_kind=source.kind,
        judgement=judgement,
    )


def _roll_barabara(spec: BarabaraRoll, text: str, source: DiceSource, comment: str | None) -> DiceResult:
    roll = _requester(source, text)
    comparison = spec.comparison
    compare = None if comparison is None else _COMPARE[comparison]
    target: int = spec.target  # type: ignore[assignment]
    groups: list[DiceGroup] = []
    successes = 0
    for term in spec.terms:
        sides = term.sides
        faces = roll(term.count, sides)
        hits = None if compare is None else tuple(i for i, face in enumerate(faces) if compare(face, target))
        if hits is not None:
            successes += len(hits)
        groups.append(
            DiceGroup(
                "barabara",
                term.count,
                sides,
                faces,
                tuple(range(term.count)),
                sum(faces),
                successes=None if hits is None else len(hits),
                hit_indices=hits,
            )
        )
    faces_rolled = tuple(face for group in groups for face in group.faces)
    if compare is None:
        return DiceResult(
            text, sum(faces_rolled), faces_rolled, tuple(groups), comment=comment, source_kind=source.kind
        )
    return DiceResult(
        text,
        successes,
        faces_rolled,
        tuple(groups),
        comparison,
        target,
        successes=successes,
        comment=comment,
        source_kind=source.kind,
    )


def _roll(
    parsed: ParsedExpression, source: DiceSource, gurps: bool, comment: str | None, sorcery: bool = False
) -> DiceResult:
    spec = parsed.roll
    if sorcery and not (gurps and type(spec) is ArithmeticRoll and spec.success_roll_modifier is not None):
        raise DiceError(N_("--sorcery applies only to a GURPS success roll such as 3D6<=12 (in a gurps3-ja campaign)"))
    if parsed.repeat is None:
        if type(spec) is ArithmeticRoll:
            return _roll_arithmetic(spec, parsed.text, source, gurps, comment, sorcery)
        return _roll_barabara(spec, parsed.text, source, comment)  # type: ignore[arg-type]
    body = parsed.body_text
    if type(spec) is ArithmeticRoll:
        repeats = tuple(_roll_arithmetic(spec, body, source, gurps, None, sorcery) for _ in range(parsed.repeat))
    else:
        repeats = tuple(_roll_barabara(spec, body, source, None) for _ in range(parsed.repeat))  # type: ignore[arg-type]
    successes = None
    if spec.comparison is not None:
        if type(spec) is ArithmeticRoll:
            successes = sum(1 for repetition in repeats if repetition.outcome in SUCCEEDING_OUTCOMES)
        else:
            successes = sum(repetition.successes or 0 for repetition in repeats)
    return DiceResult(
        parsed.text,
        sum(repetition.total for repetition in repeats),
        tuple(face for repetition in repeats for face in repetition.faces),
        tuple(group for repetition in repeats for group in repetition.groups),
        spec.comparison,
        spec.target,
        successes=successes,
        repeats=repeats,
        comment=comment,
        source_kind=source.kind,
    )


# --- public entry points ------------------------------------------------------------


def evaluate(text: str, source: DiceSource, *, gurps: bool = False, sorcery: bool = False) -> DiceResult:
    """Parse `text` (expression plus optional comment) and roll it with `source`.

    With `gurps=True`, `3D6[+-k]<=N` (and its target-first spelling `N-3D6[+-k]`) is
    judged as a GURPS success roll (docs/rules.md "Success roll": criticals, margin);
    every other shape keeps plain success/failure. `sorcery=True` marks such a success
    roll as sorcery (17 and 18 always critically fail) and refuses any other shape.
    """
    located = LocatedExpression(text)
    normalized = located.normalized
    if gurps:  # `12-3D6+1` is BCDice GURPS's `3D6+1<=12`, also after a repeat prefix
        head, _, body = normalized.rpartition(" ")
        rewritten = target_first(body)
        if rewritten is not None:
            normalized = f"{head} {rewritten}" if head else rewritten
    try:
        parsed = parse_normalized(normalized)
        return _roll(parsed, source, gurps, located.comment, sorcery)
    except ExpressionProblem as problem:
        raise located.error(problem) from None


def roll_parsed(
    parsed: ParsedExpression, source: DiceSource, *, gurps: bool = False, comment: str | None = None
) -> DiceResult:
    """Roll an expression validated earlier with `parse`.

    Columns in errors raised here count in the normalised text `parsed.text`.
    """
    try:
        return _roll(parsed, source, gurps, comment)
    except ExpressionProblem as problem:
        raise DiceError(problem.message, column=problem.position + 1, **problem.params) from None


def roll_expression_total(text: str, source: DiceSource) -> int:
    """The total of a sub-roll such as `1D` or `3D6`, when only the number matters."""
    return evaluate(text, source).total

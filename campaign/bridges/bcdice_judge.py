"""Whether a BCDice answer agrees with itself: its dice, its total, its target, its word.

A log line is what the group saw, but a line can contradict itself (hand-edited, pasted
from another tool, or cut short): `3D6<=12 ＞ 18[6,6,6] ＞ 18 ＞ 成功`, `(3D6) ＞ 99`.
Such a line is refused, never recorded as given. The checks judge the line by BCDice's
own GURPS rules (what the bot printed), which are not quite the campaign's (docs/rules.md "Success roll") (BCDice
judges "10 over the target" on the raw dice): the campaign's own judgement is recorded
beside the log's word, as `rules_outcome`.
"""

from __future__ import annotations

import re

from campaign.bridges.bcdice_why import Why, outcome_why
from campaign.core.dice_tree import DiceTerm, Negation, Node, Number, Sum
from campaign.errors import N_

_SUMMED = re.compile(r"(-?[0-9]+)\[([0-9,\s]+)\]")


def bcdice_gurps_outcome(raw: int, total: int, target: int) -> str:
    """The outcome BCDice's GURPS bot prints for a 3d6 success roll (raw: the dice alone)."""
    if raw <= 4 or (raw == 5 and target >= 15) or (raw == 6 and target >= 16):
        return "critical_success"
    if raw >= 18 or (raw == 17 and target <= 15) or raw - target >= 10:
        return "critical_failure"
    if raw >= 17 or total > target:
        return "failure"
    return "success"


def compares(total: int, comparison: str, target: int) -> bool:
    return {
        "<=": total <= target,
        "<": total < target,
        ">=": total >= target,
        ">": total > target,
        "=": total == target,
        "==": total == target,
        "!=": total != target,
        "<>": total != target,
    }.get(comparison, True)


def value_range(node: Node) -> tuple[int, int] | None:
    """(lowest, highest) an expression of sums of plain dice and numbers can make; None
    for anything else (products, kept dice ...), which is then not range-checked."""
    if isinstance(node, Number):
        return node.value, node.value
    if isinstance(node, DiceTerm):
        if node.keep is not None:
            return None
        return node.count, node.count * node.sides
    if isinstance(node, Negation):
        inner = value_range(node.operand)
        return None if inner is None else (-inner[1], -inner[0])
    if isinstance(node, Sum):
        low = high = 0
        for sign, term in node.terms:
            inner = value_range(term)
            if inner is None:
                return None
            low, high = (low + inner[0], high + inner[1]) if sign > 0 else (low - inner[1], high - inner[0])
        return low, high
    return None


def shown_sums_agree(display: str) -> Why | None:
    """Each `11[1,4,6]` in the answer: the number must be its dice's sum."""
    for shown, faces in _SUMMED.findall(display):
        values = [int(face) for face in faces.replace(" ", "").split(",") if face]
        if values and int(shown) != sum(values):
            return Why(
                "shown_sum", N_("{shown}[{faces}]: the dice make {sum}"), shown=int(shown), faces=faces, sum=sum(values)
            )
    return None


def word_agrees(
    outcome: str,
    degree: int | None,
    *,
    comparison: str | None,
    target: int | None,
    total: int,
    raw: int | None,
    gurps_roll: bool,
) -> Why | None:
    """Why the log's outcome word (and its 成功度/失敗度) cannot be so, or None.

    A word with a degree is the GURPS bot's: judged by its rules. A plain 成功/失敗 (the
    generic bot) must agree with the comparison; other words are not judged."""
    if comparison is None or target is None:
        return None
    if degree is not None and gurps_roll and raw is not None:
        expected = bcdice_gurps_outcome(raw, total, target)
        if expected != outcome:
            return Why(
                "gurps_outcome",
                N_("BCDice's GURPS rules make {raw} against {target} a {outcome}"),
                raw=raw,
                target=target,
                outcome=outcome_why(expected),
            )
        if degree != target - total and not (outcome.endswith("failure") and degree == total - target):
            return Why(
                "degree",
                N_("a degree of {degree} where {target} - {total} is {difference}"),
                degree=degree,
                target=target,
                total=total,
                difference=target - total,
            )
        return None
    if outcome in ("success", "failure"):
        holds = compares(total, comparison, target)
        if holds != (outcome == "success"):
            values = {"total": total, "comparison": comparison, "target": target, "outcome": outcome_why(outcome)}
            if holds:
                return Why(
                    "comparison_holds",
                    N_("{total} {comparison} {target} is true, yet the log says {outcome}"),
                    **values,
                )
            return Why(
                "comparison_fails", N_("{total} {comparison} {target} is false, yet the log says {outcome}"), **values
            )
    return None

"""The shared mechanics of a 2d6 check: normalising modifiers, taking dice from the
source, keeping the best two, judging criticals and totals, and one plain check.

Used by the 2d6 checks (core.checks2d6) and danger sense and hiding
(core.danger_sense); the order dice are taken in is described in core.checks2d6.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from campaign.core.check_results import (
    BASE_DICE,
    CRITICAL_FAILURE,
    CRITICAL_SUCCESS,
    FAILURE,
    SIDES,
    SUCCESS,
    ZERO_DICE,
    CheckResult,
    Contestant,
    CriticalRule,
    Modifiers,
    Scaling,
    Term,
    apply_scaling,
)
from campaign.core.dice_source import DiceSource
from campaign.errors import N_, BadInput, Words


def modifier_terms(modifiers: Modifiers) -> tuple[Term, ...]:
    """Normalise any accepted modifier shape into labelled terms (zero ints dropped)."""
    if isinstance(modifiers, bool):
        raise BadInput(N_("a modifier must be a whole number"))
    if isinstance(modifiers, int):
        return (Term("mod", modifiers),) if modifiers else ()
    items = modifiers.items() if isinstance(modifiers, Mapping) else modifiers
    terms: list[Term] = []
    for item in items:
        if isinstance(item, tuple):
            label, value = item
        else:
            label, value = "mod", item
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadInput(N_("modifier {label!r} must be a whole number, not {value!r}"), label=label, value=value)
        terms.append(Term(str(label), value))
    return tuple(terms)


_PURPOSES = {
    "ability": N_("the ability check"),
    "skill": N_("the skill check"),
    "danger_sense": N_("the danger sense check"),
    "cooperative": N_("the cooperative check"),
    "opposed": N_("the opposed check"),
    "hide": N_("the hide check"),
}


def roll_check_dice(source: DiceSource, count: int, kind: str, name: str | None = None) -> tuple[int, ...]:
    """`count` d6 for one check, named for a person typing dice ("2d6 for the ability check of 鈴音")."""
    from campaign.core.dice_source import roll_dice as request_dice

    purpose = Words(_PURPOSES[kind]) if kind in _PURPOSES else Words(N_("the {kind} check"), kind=kind)
    return request_dice(
        source, count, SIDES, Words(N_("{purpose} of {name}"), purpose=purpose, name=name) if name else purpose
    )


def best_two(dice: Sequence[int]) -> tuple[int, ...]:
    """Indices of the two highest faces (earliest wins ties), in roll order."""
    order = sorted(range(len(dice)), key=lambda i: (-dice[i], i))
    return tuple(sorted(order[:2]))


_CRITICAL_RANKS = {CRITICAL_FAILURE: 0, None: 1, CRITICAL_SUCCESS: 2}


def critical_rank(critical: str | None) -> int:
    """How a critical ranks in a contest (docs/rules.md "Opposed checks"): failure 0 <
    none 1 < success 2."""
    return _CRITICAL_RANKS[critical]


def beats(critical: str | None, total: int, other_critical: str | None, other_total: int) -> bool:
    """Whether one side strictly beats another: criticals first, then totals
    (docs/rules.md "Opposed checks", "Hiding")."""
    return (critical_rank(critical), total) > (critical_rank(other_critical), other_total)


def judge(total: int, target: int | None, critical: str | None, compare: str) -> str:
    if critical is not None:
        return critical
    if target is None:
        return SUCCESS
    reached = total > target if compare == ">" else total >= target
    return SUCCESS if reached else FAILURE


def plain_check(
    kind: str,
    terms: tuple[Term, ...],
    target: int | None,
    source: DiceSource,
    *,
    dice_modifier: int,
    criticals: CriticalRule,
    compare: str = ">=",
    name: str | None = None,
    occasion: str | None = None,
    result_type: type[CheckResult] = CheckResult,
    doubles: int = 0,
    halves: int = 0,
    **extra: Any,
) -> Any:
    """Roll 2 + dice_modifier d6, add them all to the terms, scale (x2/x1/2) and judge."""
    count = max(0, BASE_DICE + dice_modifier)
    base = sum(term.value for term in terms)
    if count == 0:
        total, scaling = scaled(base, doubles, halves)
        return result_type(
            kind=kind,
            total=total,
            target=target,
            outcome=FAILURE,
            dice=(),
            kept_indices=(),
            terms=terms,
            dice_count=0,
            compare=compare,
            criticals=criticals,
            name=name,
            occasion=occasion,
            skipped=ZERO_DICE,
            scaling=scaling,
            **extra,
        )
    dice = roll_check_dice(source, count, kind, name)
    total, scaling = scaled(base + sum(dice), doubles, halves)
    critical = criticals.judge(dice)
    return result_type(
        kind=kind,
        total=total,
        target=target,
        outcome=judge(total, target, critical, compare),
        dice=dice,
        kept_indices=tuple(range(count)),
        terms=terms,
        dice_count=count,
        critical=critical,
        compare=compare,
        criticals=criticals,
        name=name,
        occasion=occasion,
        scaling=scaling,
        **extra,
    )


def stat_term(stat: int, stat_name: str | None) -> Term:
    return Term(stat_name or "stat", stat)


def scaled(total: int, doubles: int, halves: int) -> tuple[int, Scaling | None]:
    """The total after the x2 / x1/2 (no stacking, docs/rules.md "2d6 checks") and the
    record of it (None if none asked)."""
    if not doubles and not halves:
        return total, None
    return apply_scaling(total, doubles, halves), Scaling(doubles, halves, total)


def contestant_terms(side: Contestant, default_stat_name: str | None) -> tuple[Term, ...]:
    terms: tuple[Term, ...] = (stat_term(side.stat, side.stat_name or default_stat_name),)
    if side.skill:
        terms += (Term("skill", side.skill),)
    return terms + modifier_terms(side.modifiers)

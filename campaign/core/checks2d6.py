"""2d6 action checks and danger sense / hiding (docs/rules.md "2d6 checks", "Hiding").

Everything here is pure: plain numbers and a dice source in, frozen results out. The
service layer turns a result into a ledger entry with `to_detail()`.

Dice order
    Every die is taken from the source with `source.roll(6)`, in one fixed order, so the
    faces a player types with `--dice` line up with the dice on the table:
    - plain / skill / danger-sense checks: their dice, left to right;
    - cooperative check: all (n+1) dice, left to right (the best two are picked after);
    - opposed check: the active side's dice first, then each passive side in the order
      given; a side that does not roll (or whose dice drop to 0) takes no faces;
    - hiding: the hider's dice first, then each observer's danger sense in order.

Decisions where the sources are silent (documented here once)
    - Criticals (大成功/大失敗) are a campaign setting, `CriticalRule`. They are judged on
      the dice that count: every die of a plain check, the two kept dice of a
      cooperative check. A critical needs at least two counting dice that all show 6
      (critical success: succeeds whatever the target) or all show 1 (critical failure:
      fails whatever the total). A 1-die check can therefore never be critical.
    - Dice-count modifiers (e.g. "-1d6" in deep water): a plain check rolls 2 + modifier
      dice and adds *all* of them; "keep the best two" belongs to the cooperative check
      only. A cooperative check with a dice modifier still keeps the best two of
      whatever it rolls. When the count drops to 0 (or below) the check fails outright
      and nothing is rolled; its total is then the dice-free part (stat + skill + mods).
    - Opposed checks: the highest result wins; a tie between the active side and a
      passive side goes to the passive side; among tied passive sides the first listed
      wins. A side that cannot or does not roll, or whose dice drop to 0, has result 0.
      Criticals decide before totals: a critical success beats every side without
      one, a critical failure loses to every side without one (a side that does not
      roll included); sides with the same kind of critical compare totals as usual.
      `OpposedResult.decided_by` says whether a critical, the totals or the tie rule
      picked the winner.
    - Hiding: each observer rolls danger sense with the hider's total as the difficulty
      and notices only by strictly beating the hider (a tie does not notice, as in
      danger sense; this overrides the opposed-check tie rule). Criticals decide as in
      opposed checks: a critical success beats a non-critical, a critical failure loses
      to one, and equal criticals compare totals, a tie keeping the hider hidden (so a
      hider's 1-1 is not noticed by an observer's 1-1 with a total no higher, and 6-6
      against 6-6 is decided by the totals). An observer's
      outcome is whether it noticed; its `critical` keeps what its dice showed. An
      observer who does not roll (CHAR:-) never notices. A hider whose dice drop to 0
      fails outright: nobody rolls and every
      observer counts as noticing. With no observers at all the character is hidden.
    - Danger-sense bands come from result - difficulty, then are clamped so they never
      contradict the outcome: a (critical) success shows at least the "1..3" band, a
      failure at most the "-2..0" band.
    - Doubling then halving: at most one x2 and one x1/2 apply, the x2 first, so the two
      cancel exactly (5 -> 10 -> 5); halving rounds down (floor, also for negatives).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from campaign.core.check_dice import (
    beats,
    best_two,
    contestant_terms,
    critical_rank,
    judge,
    modifier_terms,
    plain_check,
    roll_check_dice,
    scaled,
    stat_term,
)
from campaign.core.check_results import (
    BASE_DICE,
    CRITICAL_FAILURE,
    CRITICAL_SUCCESS,
    DANGER_BANDS,
    DEFAULT_CRITICALS,
    DID_NOT_ROLL,
    FAILURE,
    SIDES,
    SUCCESS,
    ZERO_DICE,
    CheckResult,
    Contestant,
    CooperativeResult,
    CriticalRule,
    DangerBand,
    DangerSenseResult,
    HideResult,
    Modifiers,
    OpposedResult,
    OpposedSideResult,
    Scaling,
    Term,
    apply_scaling,
    danger_band,
    double,
    halve,
)
from campaign.core.danger_sense import danger_sense, hide_check
from campaign.core.dice_source import DiceSource
from campaign.errors import N_, BadInput, RuleRefused

# Callers use this module as the one name for the 2d6 rules (`checks2d6.danger_sense`,
# `checks2d6.CheckResult`); the pieces live in the modules imported above.
__all__ = [
    "BASE_DICE",
    "CRITICAL_FAILURE",
    "CRITICAL_SUCCESS",
    "DANGER_BANDS",
    "DEFAULT_CRITICALS",
    "DID_NOT_ROLL",
    "FAILURE",
    "SIDES",
    "SUCCESS",
    "ZERO_DICE",
    "CheckResult",
    "Contestant",
    "CooperativeResult",
    "CriticalRule",
    "DangerBand",
    "DangerSenseResult",
    "HideResult",
    "Modifiers",
    "OpposedResult",
    "OpposedSideResult",
    "Scaling",
    "Term",
    "ability_check",
    "apply_scaling",
    "beats",
    "cooperative_check",
    "critical_rank",
    "danger_band",
    "danger_sense",
    "double",
    "halve",
    "hide_check",
    "modifier_terms",
    "opposed_check",
    "skill_check",
]

# --------------------------------------------------------------------------- 2d6 checks


def ability_check(
    stat: int,
    target: int,
    source: DiceSource,
    *,
    modifiers: Modifiers = (),
    dice_modifier: int = 0,
    criticals: CriticalRule = DEFAULT_CRITICALS,
    stat_name: str | None = None,
    name: str | None = None,
    occasion: str | None = None,
    doubles: int = 0,
    halves: int = 0,
) -> CheckResult:
    """能力判定: stat + 2d6 + modifiers >= target (the total x2 / x1/2 first, if asked)."""
    terms = (stat_term(stat, stat_name),) + modifier_terms(modifiers)
    result: CheckResult = plain_check(
        "ability",
        terms,
        target,
        source,
        dice_modifier=dice_modifier,
        criticals=criticals,
        name=name,
        occasion=occasion,
        doubles=doubles,
        halves=halves,
    )
    return result


def skill_check(
    stat: int,
    skill: int,
    target: int,
    source: DiceSource,
    *,
    modifiers: Modifiers = (),
    dice_modifier: int = 0,
    criticals: CriticalRule = DEFAULT_CRITICALS,
    stat_name: str | None = None,
    name: str | None = None,
    occasion: str | None = None,
    doubles: int = 0,
    halves: int = 0,
) -> CheckResult:
    """技能判定: stat + skill level + 2d6 + modifiers >= target (scaled first, if asked)."""
    terms = (stat_term(stat, stat_name), Term("skill", skill)) + modifier_terms(modifiers)
    result: CheckResult = plain_check(
        "skill",
        terms,
        target,
        source,
        dice_modifier=dice_modifier,
        criticals=criticals,
        name=name,
        occasion=occasion,
        doubles=doubles,
        halves=halves,
    )
    return result


def cooperative_check(
    stats: Sequence[int],
    target: int,
    source: DiceSource,
    *,
    skill: int = 0,
    modifiers: Modifiers = (),
    dice_modifier: int = 0,
    criticals: CriticalRule = DEFAULT_CRITICALS,
    participants: Sequence[str] | None = None,
    stat_name: str | None = None,
    occasion: str | None = None,
    doubles: int = 0,
    halves: int = 0,
) -> CooperativeResult:
    """協力判定 for n >= 2 participants.

    Highest stat among them, +1 per participant beyond the first, one skill level
    (only one participant's skill counts), (n+1)d6 (+ dice_modifier) keeping the best
    two; criticals are judged on the two kept dice (6,6,x is a critical success whatever x;
    1,1,1 keeps 1,1 and is a critical failure).
    """
    n = len(stats)
    if n < 2:
        raise RuleRefused(N_("a cooperative check needs at least 2 participants"))
    names = tuple(participants) if participants is not None else tuple(f"#{i + 1}" for i in range(n))
    if len(names) != n:
        raise BadInput(N_("{names} participant names for {stats} stats"), names=len(names), stats=n)
    stat_from = max(range(n), key=lambda i: (stats[i], -i))
    terms: tuple[Term, ...] = (stat_term(stats[stat_from], stat_name),)
    if skill:
        terms += (Term("skill", skill),)
    terms += (Term("cooperation", n - 1),) + modifier_terms(modifiers)
    base = sum(term.value for term in terms)
    count = max(0, n + 1 + dice_modifier)
    common: dict[str, Any] = dict(
        kind="cooperative",
        target=target,
        terms=terms,
        dice_count=count,
        criticals=criticals,
        occasion=occasion,
        participants=names,
        stats=tuple(stats),
        stat_from=stat_from,
    )
    if count == 0:
        total, scaling = scaled(base, doubles, halves)
        return CooperativeResult(
            total=total, outcome=FAILURE, dice=(), kept_indices=(), skipped=ZERO_DICE, scaling=scaling, **common
        )
    dice = roll_check_dice(source, count, "cooperative", "・".join(names) if names else None)
    kept_indices = best_two(dice)
    kept = tuple(dice[i] for i in kept_indices)
    total, scaling = scaled(base + sum(kept), doubles, halves)
    critical = criticals.judge(kept)
    return CooperativeResult(
        total=total,
        outcome=judge(total, target, critical, ">="),
        dice=dice,
        kept_indices=kept_indices,
        critical=critical,
        scaling=scaling,
        **common,
    )


def _contest_winner(keys: Sequence[tuple[int, int]]) -> int:
    """Index of the highest key; the active side (0) loses ties, the first passive keeps them."""
    winner = 0
    for index in range(1, len(keys)):
        if keys[index] > keys[winner] or (winner == 0 and keys[index] == keys[0]):
            winner = index
    return winner


def opposed_check(
    active: Contestant,
    passives: Sequence[Contestant],
    source: DiceSource,
    *,
    criticals: CriticalRule = DEFAULT_CRITICALS,
    occasion: str | None = None,
) -> OpposedResult:
    """対抗判定: active side rolls first, then each passive side in order.

    Each side's result is stat + skill + modifiers + its dice (0 when it does not
    roll or its dice drop to 0). A critical success beats and a critical failure loses
    to any side without one; otherwise, and between equal criticals, the highest
    result wins; ties go to a passive side, the first listed among tied passives.
    """
    if not passives:
        raise RuleRefused(N_("an opposed check needs at least one passive side"))
    contestants = (active, *passives)
    rolled: list[tuple[int, tuple[int, ...], tuple[Term, ...], str | None, int, str | None]] = []
    for side in contestants:
        terms = contestant_terms(side, None)
        count = max(0, BASE_DICE + side.dice_modifier)
        if not side.rolls or count == 0:
            rolled.append((0, (), terms, None, count, DID_NOT_ROLL if not side.rolls else ZERO_DICE))
            continue
        dice = roll_check_dice(source, count, "opposed", side.name)
        total = sum(t.value for t in terms) + sum(dice)
        rolled.append((total, dice, terms, criticals.judge(dice), count, None))

    # Passive sides come after the active side, so a later index wins ties except
    # among passives, where the first listed keeps the win. Criticals rank first
    # (docs/rules.md "Opposed checks").
    keys = [(critical_rank(r[3]), r[0]) for r in rolled]
    winner = _contest_winner(keys)
    if winner != _contest_winner([(1, r[0]) for r in rolled]):
        decided_by = "critical"  # the totals alone would have picked another side
    elif any(keys[i] == keys[winner] for i in range(len(keys)) if i != winner):
        decided_by = "tie"
    else:
        decided_by = "total"

    sides = []
    for index, (side, (total, dice, terms, critical, count, skipped)) in enumerate(zip(contestants, rolled)):
        best_other = max(r[0] for i, r in enumerate(rolled) if i != index)
        sides.append(
            OpposedSideResult(
                kind="opposed",
                role="active" if index == 0 else "passive",
                name=side.name,
                total=total,
                target=best_other,
                outcome=SUCCESS if index == winner else FAILURE,
                dice=dice,
                kept_indices=tuple(range(len(dice))),
                terms=terms,
                dice_count=count,
                critical=critical,
                criticals=criticals,
                occasion=occasion,
                skipped=skipped,
            )
        )
    return OpposedResult(sides=tuple(sides), winner_index=winner, occasion=occasion, decided_by=decided_by)

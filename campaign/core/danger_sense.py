"""Danger sense and hiding (docs/rules.md "Danger sense", "Hiding"): 感 + 2d6 must
exceed the difficulty, and a hider's 技 check that each observer's danger sense tries to beat.

The decisions the sources leave open (ties, criticals against a hider, bands) are
documented once in core.checks2d6 and in docs/rules.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from campaign.core.check_dice import beats, contestant_terms, modifier_terms, plain_check, roll_check_dice, stat_term
from campaign.core.check_results import (
    BASE_DICE,
    CRITICAL_FAILURE,
    CRITICAL_SUCCESS,
    DANGER_BANDS,
    DEFAULT_CRITICALS,
    DID_NOT_ROLL,
    FAILURE,
    FIRST_SUCCESS_BAND,
    SUCCESS,
    ZERO_DICE,
    CheckResult,
    Contestant,
    CriticalRule,
    DangerSenseResult,
    HideResult,
    Modifiers,
    Term,
    danger_band,
)
from campaign.core.dice_source import DiceSource


def danger_sense(
    stat: int,
    difficulty: int,
    source: DiceSource,
    *,
    modifiers: Modifiers = (),
    dice_modifier: int = 0,
    criticals: CriticalRule = DEFAULT_CRITICALS,
    stat_name: str | None = "感",
    name: str | None = None,
    occasion: str | None = None,
    doubles: int = 0,
    halves: int = 0,
) -> DangerSenseResult:
    """危険感知/感知判定: 感 + 2d6 + modifiers must EXCEED the difficulty (tie fails)."""
    terms = (stat_term(stat, stat_name),) + modifier_terms(modifiers)
    return _danger(
        terms,
        difficulty,
        source,
        dice_modifier=dice_modifier,
        criticals=criticals,
        name=name,
        occasion=occasion,
        doubles=doubles,
        halves=halves,
    )


def _danger(
    terms: tuple[Term, ...],
    difficulty: int,
    source: DiceSource,
    *,
    dice_modifier: int,
    criticals: CriticalRule,
    name: str | None,
    occasion: str | None,
    rolls: bool = True,
    doubles: int = 0,
    halves: int = 0,
) -> DangerSenseResult:
    if rolls:
        result = plain_check(
            "danger_sense",
            terms,
            difficulty,
            source,
            dice_modifier=dice_modifier,
            criticals=criticals,
            compare=">",
            name=name,
            occasion=occasion,
            result_type=DangerSenseResult,
            band=DANGER_BANDS[0],
            doubles=doubles,
            halves=halves,
        )
    else:
        result = DangerSenseResult(
            kind="danger_sense",
            total=0,
            target=difficulty,
            outcome=FAILURE,
            dice=(),
            kept_indices=(),
            terms=terms,
            dice_count=max(0, BASE_DICE + dice_modifier),
            compare=">",
            criticals=criticals,
            name=name,
            occasion=occasion,
            skipped=DID_NOT_ROLL,
            band=DANGER_BANDS[0],
        )
    return _with_band(result)


def _with_band(result: DangerSenseResult) -> DangerSenseResult:
    """Band from the margin, clamped so it agrees with the outcome (see module notes)."""
    index = DANGER_BANDS.index(danger_band(result.margin))
    index = max(index, FIRST_SUCCESS_BAND) if result.success else min(index, FIRST_SUCCESS_BAND - 1)
    return replace(result, band=DANGER_BANDS[index])


def _against_hider(sensed: DangerSenseResult, hider_critical: str | None) -> DangerSenseResult:
    """An observer's outcome is whether it noticed: criticals first, then it must exceed
    the hider's total. One that took no dice never notices."""
    if sensed.skipped is not None:
        return sensed
    assert sensed.target is not None  # the hider's total
    # one rule with contests: a critical beats a non-critical, equal criticals compare
    # totals, and a tie keeps the hider hidden (docs/rules.md "Hiding")
    noticed = beats(sensed.critical, sensed.total, hider_critical, sensed.target)
    if noticed:
        outcome = CRITICAL_SUCCESS if sensed.critical == CRITICAL_SUCCESS else SUCCESS
    else:
        outcome = CRITICAL_FAILURE if sensed.critical == CRITICAL_FAILURE else FAILURE
    return _with_band(replace(sensed, outcome=outcome))


def hide_check(
    hider: Contestant,
    observers: Sequence[Contestant],
    source: DiceSource,
    *,
    criticals: CriticalRule = DEFAULT_CRITICALS,
    occasion: str | None = None,
) -> HideResult:
    """隠れる判定: hider's 技 + 2d6, then each observer's danger sense against it.

    `hider.stat` is its 技 and each observer's `stat` its 感. An observer notices when
    it beats the hider: criticals first (see the module notes), then strictly greater.
    """
    hider_terms = contestant_terms(hider, "技")
    count = max(0, BASE_DICE + hider.dice_modifier)
    hider_dice: tuple[int, ...]
    if count == 0:  # fails outright: nobody rolls, everyone notices
        skipped = ZERO_DICE
        hider_total, hider_dice, hider_critical = sum(t.value for t in hider_terms), (), None
    elif not hider.rolls:  # result 0, observers still roll against it
        skipped = DID_NOT_ROLL
        hider_total, hider_dice, hider_critical = 0, (), None
    else:
        skipped = None
        hider_dice = roll_check_dice(source, count, "hide", hider.name)
        hider_total = sum(t.value for t in hider_terms) + sum(hider_dice)
        hider_critical = criticals.judge(hider_dice)

    results: list[DangerSenseResult] = []
    if skipped == ZERO_DICE:
        noticed_by = tuple(obs.name for obs in observers)
    else:
        for obs in observers:
            sensed = _danger(
                contestant_terms(obs, "感"),
                hider_total,
                source,
                dice_modifier=obs.dice_modifier,
                criticals=criticals,
                name=obs.name,
                occasion=occasion,
                rolls=obs.rolls,
            )
            results.append(_against_hider(sensed, hider_critical))
        noticed_by = tuple(r.name or "" for r in results if r.success)

    best_observer = max((r.total for r in results), default=None)
    hider_result = CheckResult(
        kind="hide",
        name=hider.name,
        total=hider_total,
        target=best_observer,
        outcome=FAILURE if noticed_by else SUCCESS,
        dice=hider_dice,
        kept_indices=tuple(range(len(hider_dice))),
        terms=hider_terms,
        dice_count=count,
        critical=hider_critical,
        criticals=criticals,
        occasion=occasion,
        skipped=skipped,
    )
    return HideResult(hider=hider_result, observers=tuple(results), noticed_by=noticed_by)

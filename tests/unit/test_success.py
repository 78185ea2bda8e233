"""GURPS success roll (docs/rules.md "Success roll"), at every boundary."""

from __future__ import annotations

import json

import pytest

from campaign.core.dice_source import ManualDice
from campaign.core.success import CRITICAL_FAILURE, CRITICAL_SUCCESS, FAILURE, SUCCESS, judge_success, success_roll
from campaign.errors import DiceError


def expected_outcome(total: int, target: int) -> str:
    """The rule restated as thresholds, independently of the implementation's branches."""
    highest_critical_success = 6 if target >= 16 else 5 if target >= 15 else 4
    lowest_critical_failure = min(18 if target >= 16 else 17, target + 10)
    if total <= highest_critical_success:
        return CRITICAL_SUCCESS
    if total >= lowest_critical_failure:
        return CRITICAL_FAILURE
    if total >= 17:
        return FAILURE
    return SUCCESS if total <= target else FAILURE


TABLE = [(target, total) for target in range(3, 21) for total in range(3, 19)]


@pytest.mark.parametrize(("target", "total"), TABLE)
def test_table(target, total):
    judgement = judge_success(total, total, target)
    assert judgement.outcome == expected_outcome(total, target)
    assert judgement.margin == target - total
    assert judgement.effective_target == target


@pytest.mark.parametrize(
    ("total", "target", "outcome"),
    [
        (3, 3, CRITICAL_SUCCESS),
        (4, 3, CRITICAL_SUCCESS),  # 3 and 4 always, even above the target
        (4, 20, CRITICAL_SUCCESS),
        (5, 14, SUCCESS),
        (5, 15, CRITICAL_SUCCESS),
        (5, 4, FAILURE),
        (6, 15, SUCCESS),
        (6, 16, CRITICAL_SUCCESS),
        (7, 20, SUCCESS),
        (16, 16, SUCCESS),
        (16, 15, FAILURE),
        (17, 15, CRITICAL_FAILURE),
        (17, 16, FAILURE),  # automatic failure, not critical
        (17, 20, FAILURE),
        (18, 20, CRITICAL_FAILURE),
        (18, 3, CRITICAL_FAILURE),
        (13, 3, CRITICAL_FAILURE),  # 10 or more above the target
        (12, 3, FAILURE),
        (14, 4, CRITICAL_FAILURE),
        (15, 5, CRITICAL_FAILURE),
        (15, 6, FAILURE),
        (16, 6, CRITICAL_FAILURE),
        (10, 10, SUCCESS),
        (11, 10, FAILURE),
    ],
)
def test_named_boundaries(total, target, outcome):
    judgement = judge_success(total, total, target)
    assert judgement.outcome == outcome
    assert judgement.succeeded is (outcome in (SUCCESS, CRITICAL_SUCCESS))
    assert judgement.critical is (outcome in (CRITICAL_SUCCESS, CRITICAL_FAILURE))


def test_modifier_changes_the_total_but_criticals_use_the_raw_sum():
    judgement = judge_success(4, 5, 12)  # 3D6+1<=12 with a raw 4
    assert judgement.outcome == CRITICAL_SUCCESS
    assert (judgement.raw, judgement.total, judgement.margin, judgement.effective_target) == (4, 5, 7, 11)


@pytest.mark.parametrize(
    ("raw", "total", "target", "outcome"),
    [
        # As BCDice: every critical threshold compares the raw 3d6 with the written target.
        (5, 6, 15, CRITICAL_SUCCESS),  # 3D6+1<=15, raw 5: critical although the total is 6
        (5, 4, 14, SUCCESS),  # 3D6-1<=14, raw 5: target below 15, not critical
        (6, 5, 15, SUCCESS),  # raw 6 needs a written target of 16
        (6, 7, 16, CRITICAL_SUCCESS),
        (17, 16, 16, FAILURE),  # within the target, but a raw 17 always fails; target 16 > 15
        (17, 18, 16, FAILURE),  # target 16: a raw 17 is an automatic failure (自動失敗)
        (17, 16, 15, CRITICAL_FAILURE),  # target 15: a raw 17 is critical
        (15, 20, 10, FAILURE),  # the total is 10 over the target, the raw 3d6 only 5
        (13, 3, 3, CRITICAL_FAILURE),  # 3D6-10<=3 with 6,6,1: the raw 13 is 10 over
        (12, 17, 5, FAILURE),  # 3D6+5<=5 with 4,4,4: the raw 12 is 7 over (was a fumble)
        (14, 19, 10, FAILURE),
        (10, 8, 8, SUCCESS),
        (10, 9, 8, FAILURE),
    ],
)
def test_modified_rolls(raw, total, target, outcome):
    assert judge_success(raw, total, target).outcome == outcome


@pytest.mark.parametrize("raw", [2, 19, 0, -3])
def test_impossible_raw_sum_is_refused(raw):
    with pytest.raises(DiceError):
        judge_success(raw, raw, 10)


def test_success_roll_uses_three_dice_from_the_source():
    source = ManualDice([1, 1, 2])
    judgement = success_roll(12, source)
    assert source.used == 3
    assert judgement.faces == (1, 1, 2)
    assert (judgement.raw, judgement.total, judgement.outcome, judgement.margin) == (4, 4, CRITICAL_SUCCESS, 8)


def test_success_roll_with_modifier():
    judgement = success_roll(12, ManualDice([4, 4, 4]), modifier=1)
    assert (judgement.raw, judgement.total, judgement.outcome, judgement.margin) == (12, 13, FAILURE, -1)
    judgement = success_roll(12, ManualDice([4, 4, 4]), modifier=-2)
    assert (judgement.total, judgement.outcome, judgement.margin) == (10, SUCCESS, 2)


def test_success_roll_rejects_bad_manual_faces():
    with pytest.raises(DiceError):
        success_roll(12, ManualDice([1, 7, 1]))
    with pytest.raises(DiceError):
        success_roll(12, ManualDice([1, 1]))


def test_judgement_detail_is_json():
    detail = json.loads(json.dumps(success_roll(15, ManualDice([2, 2, 1])).to_detail()))
    assert detail == {
        "rule": "R1",
        "outcome": CRITICAL_SUCCESS,
        "margin": 10,
        "raw": 5,
        "total": 5,
        "target": 15,
        "effective_target": 15,
        "faces": [2, 2, 1],
    }


def test_sorcery_makes_17_and_18_critical_failures_whatever_the_target():
    """docs/rules.md "Success roll"."""
    from campaign.core.success import CRITICAL_FAILURE, FAILURE, SUCCESS, judge_success

    assert judge_success(17, 17, 16).outcome == FAILURE  # ordinary: 17 at 16+ is a plain failure
    seventeen = judge_success(17, 17, 20, sorcery=True)
    assert seventeen.outcome == CRITICAL_FAILURE and seventeen.sorcery_fumble
    assert seventeen.to_detail()["sorcery"] is True and seventeen.to_detail()["sorcery_fumble"] is True
    assert judge_success(18, 18, 25, sorcery=True).outcome == CRITICAL_FAILURE
    # 17 at 15 or less was a critical failure anyway: not the sorcery rule's doing
    assert not judge_success(17, 17, 15, sorcery=True).sorcery_fumble
    assert judge_success(16, 16, 17, sorcery=True).outcome == SUCCESS
    assert "sorcery" not in judge_success(16, 16, 17).to_detail()

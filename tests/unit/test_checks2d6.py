"""2d6 checks (docs/rules.md "2d6 checks") with fixed faces: every expected value is exact."""

import json

import pytest

from campaign.core.checks2d6 import (
    CRITICAL_FAILURE,
    CRITICAL_SUCCESS,
    DANGER_BANDS,
    DID_NOT_ROLL,
    FAILURE,
    SUCCESS,
    ZERO_DICE,
    Contestant,
    CriticalRule,
    Term,
    ability_check,
    apply_scaling,
    cooperative_check,
    danger_band,
    danger_sense,
    double,
    halve,
    hide_check,
    modifier_terms,
    opposed_check,
    skill_check,
)
from campaign.core.dice_source import ManualDice
from campaign.errors import BadInput, DiceError, RuleRefused


def dice(*faces: int) -> ManualDice:
    return ManualDice(list(faces))


# --------------------------------------------------------------------- ability / skill


def test_ability_equal_to_target_succeeds():
    result = ability_check(3, 10, dice(3, 4))
    assert (result.total, result.outcome, result.success) == (10, SUCCESS, True)
    assert result.dice == (3, 4) and result.kept == (3, 4)


def test_ability_one_below_target_fails():
    result = ability_check(3, 11, dice(3, 4))
    assert (result.total, result.outcome, result.success) == (10, FAILURE, False)


def test_skill_check_adds_skill_and_modifiers_in_breakdown():
    result = skill_check(2, 3, 12, dice(2, 3), modifiers={"道具": 2, "水中": -2}, stat_name="技", occasion="標準")
    assert result.total == 2 + 3 + 2 - 2 + 5
    assert result.outcome == FAILURE
    assert result.terms == (Term("技", 2), Term("skill", 3), Term("道具", 2), Term("水中", -2))
    assert result.kind == "skill" and result.occasion == "標準"


def test_double_six_is_critical_success_against_impossible_target():
    result = ability_check(0, 99, dice(6, 6))
    assert result.total == 12
    assert result.outcome == CRITICAL_SUCCESS and result.success
    assert result.critical == CRITICAL_SUCCESS


def test_double_one_is_critical_failure_against_trivial_target():
    result = ability_check(10, 0, dice(1, 1))
    assert result.total == 12
    assert result.outcome == CRITICAL_FAILURE and not result.success


def test_criticals_can_be_switched_off():
    rule = CriticalRule(enabled=False)
    assert ability_check(0, 99, dice(6, 6), criticals=rule).outcome == FAILURE
    assert ability_check(10, 0, dice(1, 1), criticals=rule).outcome == SUCCESS
    assert ability_check(0, 99, dice(6, 6), criticals=rule).critical is None


def test_zero_dice_fails_and_rolls_nothing():
    source = dice(6, 6)
    result = ability_check(10, 2, source, dice_modifier=-2)
    assert result.outcome == FAILURE and result.skipped == ZERO_DICE
    assert result.dice == () and result.dice_count == 0
    assert result.total == 10
    assert source.used == 0


def test_dice_count_below_zero_also_fails_without_rolling():
    source = dice(6)
    assert ability_check(10, 2, source, dice_modifier=-5).outcome == FAILURE
    assert source.used == 0


def test_one_die_check_cannot_be_critical():
    result = ability_check(0, 99, dice(6), dice_modifier=-1)
    assert result.dice == (6,) and result.total == 6
    assert result.outcome == FAILURE and result.critical is None
    result = ability_check(10, 0, dice(1), dice_modifier=-1)
    assert result.outcome == SUCCESS and result.critical is None


def test_extra_dice_on_a_plain_check_are_all_summed():
    result = ability_check(1, 10, dice(1, 2, 6), dice_modifier=+1)
    assert result.dice == (1, 2, 6) and result.kept == (1, 2, 6)
    assert result.total == 10 and result.outcome == SUCCESS
    assert ability_check(0, 99, dice(6, 6, 6), dice_modifier=1).outcome == CRITICAL_SUCCESS
    assert ability_check(0, 0, dice(6, 6, 5), dice_modifier=1).critical is None


def test_short_manual_dice_is_refused():
    with pytest.raises(DiceError):
        ability_check(1, 5, dice(3))


def test_modifier_shapes():
    assert modifier_terms(0) == ()
    assert modifier_terms(-2) == (Term("mod", -2),)
    assert modifier_terms([1, ("風", -2)]) == (Term("mod", 1), Term("風", -2))
    with pytest.raises(BadInput):
        modifier_terms([("x", "3")])


def test_to_detail_is_json_able():
    detail = skill_check(2, 1, 9, dice(4, 5), modifiers=1).to_detail()
    assert json.loads(json.dumps(detail, ensure_ascii=False)) == detail
    assert detail["total"] == 13 and detail["outcome"] == SUCCESS
    assert detail["dice"] == [4, 5] and detail["kept"] == [4, 5]
    assert detail["critical_rule"] == {"enabled": True}
    assert detail["terms"][1] == {"label": "skill", "value": 1}


# --------------------------------------------------------------------- cooperative


@pytest.mark.parametrize(
    "stats, faces, kept_indices, bonus",
    [
        ((2, 4), (1, 5, 3), (1, 2), 1),
        ((2, 4, 3), (2, 6, 1, 6), (1, 3), 2),
        ((1, 1, 5, 2), (3, 3, 3, 2, 1), (0, 1), 3),
        ((0, 0, 0, 0, 3), (1, 2, 3, 4, 5, 4), (3, 4), 4),
    ],
)
def test_cooperative_keeps_best_two_of_n_plus_one(stats, faces, kept_indices, bonus):
    source = dice(*faces)
    result = cooperative_check(stats, 10, source, skill=2)
    n = len(stats)
    assert result.dice_count == n + 1 and result.dice == faces
    assert source.used == n + 1
    assert result.kept_indices == kept_indices
    kept = tuple(faces[i] for i in kept_indices)
    assert result.kept == kept
    assert Term("cooperation", bonus) in result.terms
    assert result.total == max(stats) + 2 + bonus + sum(kept)
    assert result.stat_from == stats.index(max(stats))


def test_cooperative_boundary_and_names():
    # 4 (best stat, 技 of Bo) + 1 (two people) + 5 + 6 = 16
    result = cooperative_check([3, 4], 16, dice(5, 1, 6), participants=["Aki", "Bo"])
    assert result.total == 16 and result.outcome == SUCCESS
    assert cooperative_check([3, 4], 17, dice(5, 1, 6)).outcome == FAILURE
    assert result.to_detail()["stat_from"] == "Bo"


def test_cooperative_criticals_judged_on_kept_dice():
    result = cooperative_check([1, 1], 99, dice(6, 1, 6))
    assert result.kept == (6, 6) and result.outcome == CRITICAL_SUCCESS
    # best two of 1,1,2 are 2 and 1: no critical failure
    result = cooperative_check([5, 5], 0, dice(1, 1, 2))
    assert result.kept == (1, 2) and result.outcome == SUCCESS
    result = cooperative_check([5, 5], 0, dice(1, 1, 1))
    assert result.kept == (1, 1) and result.outcome == CRITICAL_FAILURE


def test_cooperative_needs_two_participants():
    with pytest.raises(RuleRefused):
        cooperative_check([5], 10, dice(1, 2, 3))


def test_cooperative_zero_dice():
    source = dice(6, 6, 6)
    result = cooperative_check([3, 3], 2, source, dice_modifier=-3)
    assert result.outcome == FAILURE and result.skipped == ZERO_DICE and source.used == 0


# --------------------------------------------------------------------- opposed


def test_opposed_tie_goes_to_passive():
    result = opposed_check(Contestant("A", 3), [Contestant("B", 4)], dice(4, 3, 2, 4))
    assert [s.total for s in result.sides] == [10, 10]
    assert result.winner == "B" and result.winner_index == 1
    assert result.active.outcome == FAILURE and result.passives[0].outcome == SUCCESS
    assert result.active.target == 10 and result.passives[0].target == 10


def test_opposed_active_wins_by_one_and_dice_order():
    source = dice(5, 6, 2, 4)
    result = opposed_check(Contestant("A", 3, modifiers=1), [Contestant("B", 5, skill=1)], source)
    assert result.active.dice == (5, 6) and result.passives[0].dice == (2, 4)
    assert (result.active.total, result.passives[0].total) == (15, 12)
    assert result.winner == "A"
    assert result.dice == (5, 6, 2, 4) and source.used == 4


def test_opposed_several_passives_first_tied_passive_wins():
    result = opposed_check(
        Contestant("A", 0), [Contestant("B", 0), Contestant("C", 0), Contestant("D", 0)], dice(3, 3, 1, 1, 4, 2, 2, 4)
    )
    assert [s.total for s in result.sides] == [6, 2, 6, 6]
    assert result.winner == "C"
    assert [s.target for s in result.sides] == [6, 6, 6, 6]


def test_opposed_non_rolling_side_has_zero_and_takes_no_dice():
    source = dice(1, 2)
    result = opposed_check(Contestant("A", 1), [Contestant("B", 9, rolls=False)], source)
    assert result.passives[0].total == 0 and result.passives[0].dice == ()
    assert result.passives[0].skipped == DID_NOT_ROLL
    assert result.winner == "A" and source.used == 2


def test_opposed_non_rolling_active_loses_to_zero_passive_on_tie():
    result = opposed_check(Contestant("A", 5, rolls=False), [Contestant("B", 5, rolls=False)], dice())
    assert result.winner == "B"


def test_opposed_zero_dice_side_counts_as_zero():
    source = dice(1, 1)
    result = opposed_check(Contestant("A", 5, dice_modifier=-2), [Contestant("B", -3)], source)
    assert result.active.total == 0 and result.active.skipped == ZERO_DICE
    assert result.passives[0].total == -1
    assert result.winner == "A" and source.used == 2


def test_opposed_critical_success_wins_whatever_the_totals():
    # docs/rules.md "Opposed checks": A's 6-6 makes 12, B's 4,3 + 5 makes 12 too and would win the tie; 6-6 decides
    result = opposed_check(Contestant("A", 0), [Contestant("B", 10)], dice(6, 6, 4, 3))
    assert result.active.critical == CRITICAL_SUCCESS
    assert (result.active.total, result.passives[0].total) == (12, 17)
    assert result.winner == "A" and result.decided_by == "critical"
    assert result.active.outcome == SUCCESS and result.passives[0].outcome == FAILURE


def test_opposed_critical_failure_loses_whatever_the_totals():
    result = opposed_check(Contestant("A", 10), [Contestant("B", 0)], dice(1, 1, 2, 2))
    assert (result.active.total, result.passives[0].total) == (12, 4)
    assert result.winner == "B" and result.decided_by == "critical"
    # ... even to a side that does not roll (result 0)
    lone = opposed_check(Contestant("A", 10), [Contestant("B", 0, rolls=False)], dice(1, 1))
    assert lone.winner == "B" and lone.decided_by == "critical"


def test_opposed_equal_criticals_compare_totals():
    both = opposed_check(Contestant("A", 3), [Contestant("B", 2)], dice(6, 6, 6, 6))
    assert both.winner == "A" and both.decided_by == "total"
    tie = opposed_check(Contestant("A", 2), [Contestant("B", 2)], dice(6, 6, 6, 6))
    assert tie.winner == "B" and tie.decided_by == "tie"
    fumbles = opposed_check(Contestant("A", 3), [Contestant("B", 2)], dice(1, 1, 1, 1))
    assert fumbles.winner == "A"
    # the critical rule switched off: totals alone
    off = opposed_check(
        Contestant("A", 0), [Contestant("B", 10)], dice(6, 6, 4, 3), criticals=CriticalRule(enabled=False)
    )
    assert off.winner == "B" and off.active.critical is None


def test_opposed_needs_a_passive_and_detail_is_json_able():
    with pytest.raises(RuleRefused):
        opposed_check(Contestant("A", 0), [], dice())
    detail = opposed_check(Contestant("A", 0), [Contestant("B", 0)], dice(1, 2, 3, 4)).to_detail()
    assert json.loads(json.dumps(detail)) == detail
    assert detail["winner"] == "B" and detail["dice"] == [1, 2, 3, 4]
    assert [s["role"] for s in detail["sides"]] == ["active", "passive"]


# --------------------------------------------------------------------- scaling


@pytest.mark.parametrize("value, half", [(7, 3), (6, 3), (1, 0), (0, 0), (-1, -1), (-3, -2), (-4, -2)])
def test_halve_rounds_down(value, half):
    assert halve(value) == half


def test_scaling_never_stacks():
    assert double(7) == 14
    assert apply_scaling(7, 0, 0) == 7
    assert apply_scaling(7, 1, 0) == 14
    assert apply_scaling(7, 3, 0) == 14
    assert apply_scaling(7, 0, 1) == 3
    assert apply_scaling(7, 0, 2) == 3  # not 1: x1/2 twice is still x1/2
    assert apply_scaling(7, 2, 2) == 7  # x2 then x1/2, once each
    assert apply_scaling(-5, 0, 1) == -3
    with pytest.raises(BadInput):
        apply_scaling(7, -1, 0)


# --------------------------------------------------------------------- danger sense


def test_danger_equal_to_difficulty_fails():
    result = danger_sense(3, 10, dice(3, 4))
    assert result.total == 10 and result.margin == 0
    assert result.outcome == FAILURE and result.band.label == "-2..0"
    assert result.compare == ">"


def test_danger_one_above_difficulty_succeeds():
    result = danger_sense(3, 9, dice(3, 4))
    assert result.outcome == SUCCESS and result.margin == 1 and result.band.label == "1..3"


@pytest.mark.parametrize(
    "margin, label",
    [
        (-9, "<=-3"),
        (-3, "<=-3"),
        (-2, "-2..0"),
        (0, "-2..0"),
        (1, "1..3"),
        (3, "1..3"),
        (4, "4..6"),
        (6, "4..6"),
        (7, ">=7"),
        (20, ">=7"),
    ],
)
def test_band_edges(margin, label):
    assert danger_band(margin).label == label
    # the same edge through a real roll: 感 2 + 3 + 4 = 9 vs difficulty 9 - margin
    result = danger_sense(2, 9 - margin, dice(3, 4))
    assert result.margin == margin and result.band.label == label
    assert result.success == (margin > 0)


def test_bands_are_data_and_cover_everything():
    assert [b.label for b in DANGER_BANDS] == ["<=-3", "-2..0", "1..3", "4..6", ">=7"]
    assert all(b.ja and b.en for b in DANGER_BANDS)
    for margin in range(-30, 31):
        assert sum(b.contains(margin) for b in DANGER_BANDS) == 1


def test_danger_criticals_clamp_the_band():
    result = danger_sense(0, 30, dice(6, 6))
    assert result.outcome == CRITICAL_SUCCESS and result.margin == -18
    assert result.band.label == "1..3"
    result = danger_sense(20, 0, dice(1, 1))
    assert result.outcome == CRITICAL_FAILURE and result.margin == 22
    assert result.band.label == "-2..0"


def test_danger_zero_dice_fails_without_rolling():
    source = dice(6, 6)
    result = danger_sense(20, 0, source, dice_modifier=-2)
    assert result.outcome == FAILURE and source.used == 0 and result.band.label == "-2..0"
    assert json.loads(json.dumps(result.to_detail()))["band"]["label"] == "-2..0"


# --------------------------------------------------------------------- hiding


def test_hide_observer_must_exceed_hider():
    # hider 技 3 + 4 + 4 = 11; Bo 感 2 + 5 + 4 = 11 (tie, no); Cy 感 2 + 5 + 5 = 12 (yes)
    source = dice(4, 4, 5, 4, 5, 5)
    result = hide_check(Contestant("Aki", 3), [Contestant("Bo", 2), Contestant("Cy", 2)], source)
    assert result.hider.total == 11
    assert [o.total for o in result.observers] == [11, 12]
    assert [o.target for o in result.observers] == [11, 11]
    assert result.noticed_by == ("Cy",) and not result.hidden
    assert result.hider.outcome == FAILURE
    assert result.dice == (4, 4, 5, 4, 5, 5) and source.used == 6


def test_hide_ties_leave_the_hider_hidden():
    result = hide_check(Contestant("Aki", 3), [Contestant("Bo", 2)], dice(4, 4, 5, 4))
    assert result.hidden and result.noticed_by == () and result.hider.outcome == SUCCESS
    detail = result.to_detail()
    assert json.loads(json.dumps(detail, ensure_ascii=False)) == detail
    assert detail["hidden"] is True and detail["hider"]["terms"][0]["label"] == "技"
    assert detail["observers"][0]["terms"][0]["label"] == "感"


def test_hide_observer_critical_success_notices():
    result = hide_check(Contestant("Aki", 10), [Contestant("Bo", 0)], dice(5, 5, 6, 6))
    assert result.observers[0].total == 12 and result.hider.total == 20
    assert result.noticed_by == ("Bo",)


def test_hide_observer_who_does_not_roll_does_not_notice():
    source = dice(1, 1)
    result = hide_check(Contestant("Aki", 0), [Contestant("Bo", 9, rolls=False)], source)
    assert result.observers[0].total == 0 and result.observers[0].skipped == DID_NOT_ROLL
    assert result.hidden and source.used == 2


def test_hide_with_zero_dice_fails_and_nobody_rolls():
    source = dice(6, 6, 6, 6)
    result = hide_check(Contestant("Aki", 5, dice_modifier=-2), [Contestant("Bo", 0)], source)
    assert not result.hidden and result.noticed_by == ("Bo",)
    assert result.hider.skipped == ZERO_DICE and result.observers == ()
    assert source.used == 0


def test_hide_with_no_observers_is_hidden():
    assert hide_check(Contestant("Aki", 0), [], dice(1, 1)).hidden


def test_hide_hider_critical_failure_is_noticed_by_every_rolling_observer():
    # hider 10 + 1,1 = 12; observers 0 + 2,2 = 4 and 0 + 3,1 = 4 still notice
    result = hide_check(Contestant("Aki", 10), [Contestant("Bo", 0), Contestant("Cy", 0)], dice(1, 1, 2, 2, 3, 1))
    assert result.hider.critical == CRITICAL_FAILURE and result.hider.total == 12
    assert result.noticed_by == ("Bo", "Cy") and not result.hidden
    assert [o.outcome for o in result.observers] == [SUCCESS, SUCCESS]
    assert all(o.band.label == "1..3" for o in result.observers)  # clamped to agree with noticing


def test_hide_hider_critical_success_beats_every_observer_without_one():
    hidden = hide_check(Contestant("Aki", 0), [Contestant("Bo", 10)], dice(6, 6, 5, 6))
    assert hidden.observers[0].total == 21 and hidden.hider.total == 12
    assert hidden.hidden and hidden.observers[0].outcome == FAILURE


def test_hide_equal_criticals_compare_totals_as_in_a_contest():
    # 6-6 against 6-6: the totals decide (the old code let any observer's 6-6 notice)
    seen = hide_check(
        Contestant("Aki", 9),
        [Contestant("Bo", 0), Contestant("Cy", 20), Contestant("Di", 9)],
        dice(6, 6, 6, 6, 6, 6, 6, 6),
    )
    assert seen.hider.total == 21 and [o.total for o in seen.observers] == [12, 32, 21]
    assert seen.noticed_by == ("Cy",)  # Bo's 12 is lower, Di's 21 ties: a tie keeps the hider hidden
    assert [o.outcome for o in seen.observers] == [FAILURE, CRITICAL_SUCCESS, FAILURE]
    assert [o.critical for o in seen.observers] == [CRITICAL_SUCCESS] * 3  # what the dice showed


def test_hide_a_fumbling_observer_notices_a_fumbling_hider_only_with_a_higher_total():
    # hider 9 + 1,1 = 11; Bo 0 + 1,1 = 2 (lower), Cy 20 + 1,1 = 22 (higher), Di 9 + 1,1 = 11 (tie);
    # Ed does not roll and never notices. The old code let every 1-1 notice a hider's 1-1.
    result = hide_check(
        Contestant("Aki", 9),
        [Contestant("Bo", 0), Contestant("Cy", 20), Contestant("Di", 9), Contestant("Ed", 5, rolls=False)],
        dice(1, 1, 1, 1, 1, 1, 1, 1),
    )
    assert result.noticed_by == ("Cy",)
    assert [o.outcome for o in result.observers[:3]] == [CRITICAL_FAILURE, SUCCESS, CRITICAL_FAILURE]


def test_hide_observer_critical_failure_misses_a_low_hider():
    result = hide_check(Contestant("Aki", 0), [Contestant("Bo", 10)], dice(2, 1, 1, 1))
    assert result.observers[0].total == 12 and result.hider.total == 3
    assert result.hidden and result.observers[0].outcome == CRITICAL_FAILURE


@pytest.mark.parametrize(
    "doubles, halves, total", [(0, 0, 9), (1, 0, 18), (3, 0, 18), (0, 1, 4), (0, 2, 4), (1, 1, 9), (2, 3, 9)]
)
def test_checks_scale_the_total_without_stacking(doubles, halves, total):
    result = ability_check(2, 10, dice(3, 4), doubles=doubles, halves=halves)
    assert result.total == total and result.success == (total >= 10)
    if doubles or halves:
        assert result.scaling is not None and result.scaling.unscaled == 9
        assert result.to_detail()["scaling"] == {
            "doubles": doubles,
            "halves": halves,
            "doubled": doubles > 0,
            "halved": halves > 0,
            "unscaled": 9,
        }
    else:
        assert result.scaling is None


def test_scaling_reaches_cooperative_and_danger_checks():
    coop = cooperative_check([2, 4], 20, dice(2, 5, 6), doubles=2)
    assert coop.total == 32 and coop.success  # (4 + 1 + 5 + 6) x2, one x2 only
    sensed = danger_sense(2, 4, dice(3, 4), halves=1)
    assert sensed.total == 4 and not sensed.success  # 9 -> 4, a tie fails


@pytest.mark.parametrize(
    "faces, critical",
    [
        ((6, 6, 1), CRITICAL_SUCCESS),
        ((1, 6, 6), CRITICAL_SUCCESS),
        ((6, 6, 6), CRITICAL_SUCCESS),
        ((1, 1, 1), CRITICAL_FAILURE),
        ((1, 1, 2), None),
        ((6, 5, 6), CRITICAL_SUCCESS),
    ],
)
def test_cooperative_criticals_look_at_the_two_dice_kept(faces, critical):
    # docs/rules.md "Cooperative checks": 6,6,x keeps 6,6; 1,1,1 keeps 1,1; 1,1,2 keeps 1,2
    result = cooperative_check([2, 4], 40 if critical == CRITICAL_SUCCESS else 3, dice(*faces))
    assert result.critical == critical
    assert result.outcome == (critical or SUCCESS)

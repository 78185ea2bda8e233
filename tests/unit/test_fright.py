"""Fright checks (docs/rules.md "Fright check") with fixed dice: every table entry's exact effects and sub-rolls."""

from __future__ import annotations

import pytest

from campaign.core.dice_source import ManualDice
from campaign.core.effects_vocabulary import TraitOption
from campaign.core.fright import (
    AddCondition,
    AddTrait,
    KnownTrait,
    LoseAttribute,
    LosePool,
    PhobiaEscalation,
    apply_entry,
    effective_target,
    resolve_fright_check,
)
from campaign.core.stat_names import canonical_view
from campaign.errors import BadInput, RuleRefused
from campaign.seeds import load_stat_aliases, load_tables

HT = {"HT": 10}
FEAR = load_tables()["FEAR"]

# HT check faces used below (HT 10): a plain failure, a success, a critical failure.
HT_FAIL = [4, 4, 4]
HT_PASS = [1, 2, 3]
HT_FUMBLE = [6, 6, 6]


def stun(turns, recovery, entry, dice=None):
    auto = recovery == "auto"
    return AddCondition(
        condition="stun",
        recovery=recovery,
        duration=turns,
        unit="turn",
        duration_dice=dice,
        every=None if auto else 1,
        every_unit=None if auto else "turn",
        entry=entry,
        defense_penalty=-4,  # a stunned character defends at -4
    )


def fp(amount, entry, dice=None):
    return LosePool(pool="FP", amount=amount, dice=dice, entry=entry)


def hp(amount, entry, dice=None):
    return LosePool(pool="HP", amount=amount, dice=dice, entry=entry)


def opt(category, cp, severity=None):
    return TraitOption(category=category, cp=cp, severity=severity)


def trait(category, cp, entry, severity=None, options=None, choice=0, name=None):
    options = options or (opt(category, cp, severity),)
    return AddTrait(
        name=name or "",
        category=category,
        cp=cp,
        severity=severity,
        placeholder=name is None,
        options=options,
        choice=choice,
        entry=entry,
    )


def unconscious(minutes, dice, entry):
    return AddCondition(
        condition="unconscious",
        recovery="ht",
        duration=minutes,
        unit="minute",
        duration_dice=dice,
        every=1,
        every_unit="minute",
        entry=entry,
    )


COMA = AddCondition(
    condition="coma",
    recovery="ht",
    duration=None,
    unit=None,
    every=1,
    every_unit="hour",
    after_penalty=-2,
    after_duration=6,
    after_unit="hour",
    entry=29,  # 28 with 29's overrides
)
PHOBIA_OR_MENTAL_10 = (opt("phobia", -10, "mild"), opt("mental", -10))
PHOBIA_OR_MENTAL_30 = (opt("phobia", -30, "severe"), opt("mental", -30))

# value -> (faces the entry consumes after the table roll, expected effects,
#           expected sub-rolls as (purpose, expression, faces))
CASES = {
    4: ([], [stun(1, "auto", 4)], []),
    5: ([], [stun(1, "auto", 4)], []),
    6: ([], [stun(1, "will_ignoring_penalties", 6)], []),
    7: ([], [stun(1, "will_ignoring_penalties", 6)], []),
    8: ([], [stun(1, "will", 8)], []),
    9: ([], [stun(1, "will", 8)], []),
    10: ([4], [stun(4, "will", 10, "1D")], [("stun_turns", "1D", (4,))]),
    11: ([3, 5], [stun(8, "will", 11, "2D")], [("stun_turns", "2D", (3, 5))]),
    12: ([], [stun(15, "ht", 12)], []),
    13: ([], [trait("quirk", -1, 13)], []),
    14: ([2, 5], [fp(2, 14, "1D"), stun(5, "will", 10, "1D")], [("fatigue", "1D", (2,)), ("stun_turns", "1D", (5,))]),
    15: ([6, 1], [fp(6, 14, "1D"), stun(1, "will", 10, "1D")], [("fatigue", "1D", (6,)), ("stun_turns", "1D", (1,))]),
    16: ([3], [trait("quirk", -1, 16), stun(3, "will", 10, "1D")], [("stun_turns", "1D", (3,))]),
    17: ([6], [unconscious(6, "1D", 17)], [("duration:unconscious", "1D", (6,))]),
    18: (
        HT_FAIL + [2],
        [hp(1, 18), unconscious(2, "1D", 17)],
        [("check:HT", "3D6<=10", (4, 4, 4)), ("duration:unconscious", "1D", (2,))],
    ),
    19: (
        [5, 3, 4],
        [hp(5, 19, "1D"), unconscious(7, "2D", 19)],
        [("injury", "1D", (5,)), ("duration:unconscious", "2D", (3, 4))],
    ),
    20: (
        [1, 2, 3, 4, 6],
        [
            AddCondition(condition="faint", recovery="auto", duration=10, unit="minute", duration_dice="4D", entry=20),
            fp(6, 20, "1D"),
        ],
        [("duration:faint", "4D", (1, 2, 3, 4)), ("fatigue", "1D", (6,))],
    ),
    21: (
        [3],
        [
            AddCondition(
                condition="panic",
                recovery="iq_ignoring_penalties",
                duration=3,
                unit="minute",
                duration_dice="1D",
                every=1,
                every_unit="minute",
                entry=21,
            )
        ],
        [("duration:panic", "1D", (3,))],
    ),
    22: ([], [trait("delusion", -10, 22)], []),
    23: ([], [trait("phobia", -10, 23, "mild", PHOBIA_OR_MENTAL_10)], []),
    24: ([], [trait("physical", -15, 24)], []),
    25: ([], [trait("mental", -10, 25)], []),
    26: (
        HT_FAIL + [3],
        [hp(1, 18), unconscious(3, "1D", 17), trait("delusion", -10, 22)],
        [("check:HT", "3D6<=10", (4, 4, 4)), ("duration:unconscious", "1D", (3,))],
    ),
    27: (
        HT_PASS + [1],
        [unconscious(1, "1D", 17), trait("phobia", -10, 23, "mild", PHOBIA_OR_MENTAL_10)],
        [("check:HT", "3D6<=10", (1, 2, 3)), ("duration:unconscious", "1D", (1,))],
    ),
    28: (
        [],
        [
            AddCondition(
                condition="light_coma",
                recovery="ht",
                duration=None,
                unit=None,
                every=30,
                every_unit="minute",
                after_penalty=-2,
                after_duration=6,
                after_unit="hour",
                entry=28,
            )
        ],
        [],
    ),
    29: ([], [COMA], []),
    30: (
        [4],
        [
            AddCondition(
                condition="catatonia",
                recovery="ht",
                duration=4,
                unit="day",
                duration_dice="1D",
                after_penalty=-2,
                after_duration="same",
                after_unit="day",
                extend="1D",
                hp_drain="escalating_daily",
                entry=30,
            )
        ],
        [("duration:catatonia", "1D", (4,))],
    ),
    31: (
        [2, 3, 4] + HT_FAIL + [5],
        [
            AddCondition(condition="seizure", recovery="auto", duration=2, unit="minute", duration_dice="1D", entry=31),
            fp(7, 31, "2D"),
            hp(5, 31, "1D"),
        ],
        [
            ("duration:seizure", "1D", (2,)),
            ("fatigue", "2D", (3, 4)),
            ("check:HT", "3D6<=10", (4, 4, 4)),
            ("injury", "1D", (5,)),
        ],
    ),
    32: (
        [6, 6],
        [AddCondition(condition="heart_attack", recovery="gm", duration=None, unit=None, entry=32), hp(12, 32, "2D")],
        [("injury", "2D", (6, 6))],
    ),
    33: (
        [3, 4, 5],
        [AddCondition(condition="major_panic", recovery="iq", duration=None, unit=None, severity=12, entry=33)],
        [("severity:major_panic", "3D", (3, 4, 5))],
    ),
    34: ([], [trait("delusion", -15, 34, "severe")], []),
    35: ([], [trait("phobia", -15, 35, "severe", (opt("phobia", -15, "severe"), opt("mental", -15)))], []),
    36: ([], [trait("physical", -20, 36)], []),
    37: ([], [trait("physical", -30, 37)], []),
    38: ([], [COMA, trait("delusion", -15, 34, "severe")], []),
    39: ([], [COMA, trait("phobia", -30, 39, "severe", PHOBIA_OR_MENTAL_30)], []),
    40: (
        [],
        [
            COMA,
            trait("phobia", -30, 39, "severe", PHOBIA_OR_MENTAL_30),
            LoseAttribute(stat="IQ", amount=1, cascade="mental", entry=40),
        ],
        [],
    ),
}


def test_every_entry_has_a_case():
    assert sorted(CASES) == list(range(4, 41))


@pytest.mark.parametrize("value", sorted(CASES))
def test_each_entry_through_a_failed_check(value):
    """Check 17 vs target (20 - value) fails by value - 3; table dice 1,1,1 then land on value."""
    extra, effects, subs = CASES[value]
    dice = ManualDice([6, 6, 5, 1, 1, 1, *extra])
    result = resolve_fright_check(10, dice, modifier=10 - value, stats=HT, table=FEAR)
    assert result.check.target == 20 - value
    assert result.check.total == 17
    assert result.check.outcome in ("failure", "critical_failure")
    assert result.table is not None
    assert result.table.dice == (1, 1, 1)
    assert result.table.margin_added == value - 3
    assert result.table.raw == result.table.result == value
    assert result.table.entry.covers(value)
    assert list(result.effects) == effects
    assert [(s.purpose, s.expression, s.faces) for s in result.sub_rolls] == subs
    assert all(s.total == sum(s.faces) for s in result.sub_rolls)
    dice.ensure_all_used()


def test_new_traits_grant_no_cp_and_do_not_count_toward_the_limit():
    effects, _ = apply_entry(FEAR, 22, ManualDice([]), stats=HT)
    (added,) = effects
    assert added.grants_cp is False and added.counts_toward_limit is False


def test_composite_26_is_18_then_22():
    composite, composite_rolls = apply_entry(FEAR, 26, ManualDice(HT_FAIL + [3]), stats=HT)
    first, first_rolls = apply_entry(FEAR, 18, ManualDice(HT_FAIL + [3]), stats=HT)
    second, second_rolls = apply_entry(FEAR, 22, ManualDice([]), stats=HT)
    assert composite == first + second
    assert composite_rolls == first_rolls + second_rolls


def test_composite_40_is_39_plus_permanent_iq_loss():
    forty, _ = apply_entry(FEAR, 40, ManualDice([]), stats=HT)
    thirty_nine, _ = apply_entry(FEAR, 39, ManualDice([]), stats=HT)
    assert forty[:-1] == thirty_nine
    assert forty[-1] == LoseAttribute(stat="IQ", amount=1, permanent=True, cascade="mental", entry=40)


def test_entry_31_critical_failure_costs_injury_and_one_ht_for_good():
    effects, subs = apply_entry(FEAR, 31, ManualDice([2, 3, 4, *HT_FUMBLE, 5]), stats=HT)
    assert subs[2].outcome == "critical_failure"
    assert effects[2:] == (hp(5, 31, "1D"), LoseAttribute(stat="HT", amount=1, entry=31))


def test_entry_31_passed_ht_roll_costs_nothing_more():
    effects, subs = apply_entry(FEAR, 31, ManualDice([2, 3, 4, *HT_PASS]), stats=HT)
    assert subs[2].outcome == "success"
    assert [type(e) for e in effects] == [AddCondition, LosePool]


def test_clamped_at_4_when_an_automatic_failure_adds_no_margin():
    # target 20: a 17 fails automatically (docs/rules.md "Success roll") though it is under the target -> margin 0
    dice = ManualDice([6, 6, 5, 1, 1, 1])
    result = resolve_fright_check(18, dice, combat_reflexes=True, stats=HT, table=FEAR)
    assert result.check.target == 20
    assert result.check.outcome == "failure"
    assert result.table.margin_added == 0
    assert result.table.raw == 3
    assert result.table.result == 4
    assert result.effects == (stun(1, "auto", 4),)


def test_clamped_at_40_and_raw_kept():
    dice = ManualDice([6, 6, 6, 6, 6, 6])
    result = resolve_fright_check(3, dice, modifier=-20, stats=HT, table=FEAR)
    assert result.check.outcome == "critical_failure"
    assert result.check.margin == -35
    assert result.table.margin_added == 35
    assert result.table.raw == 53
    assert result.table.result == 40
    assert result.table.entry.lo == 40


def test_critical_failure_reads_the_table_with_the_margin():
    # 18 vs target 12: critical failure, margin of failure 6; table 2,2,2 -> 12
    dice = ManualDice([6, 6, 6, 2, 2, 2])
    result = resolve_fright_check(12, dice, stats=HT, table=FEAR)
    assert result.check.outcome == "critical_failure"
    assert result.table.result == 12
    assert result.effects == (stun(15, "ht", 12),)


def test_success_rolls_no_table():
    dice = ManualDice([3, 4, 3])
    result = resolve_fright_check(10, dice, stats=HT, table=FEAR)
    assert result.check.outcome == "success"
    assert result.check.margin == 0
    assert result.table is None and result.effects == () and result.sub_rolls == ()
    dice.ensure_all_used()


def test_combat_reflexes_adds_two():
    result = resolve_fright_check(10, ManualDice([4, 4, 4]), combat_reflexes=True, stats=HT, table=FEAR)
    assert result.check.target == 12
    assert result.check.outcome == "success"
    failed = resolve_fright_check(10, ManualDice([4, 4, 4, 1, 1, 2]), stats=HT, table=FEAR)
    assert failed.check.outcome == "failure"
    assert failed.table.raw == 4 + 2


def test_severe_phobia_takes_four():
    result = resolve_fright_check(12, ManualDice([3, 3, 3, 1, 1, 2]), severe_phobia=True, stats=HT, table=FEAR)
    assert result.check.target == 8
    assert result.check.outcome == "failure"
    assert result.table.margin_added == 1


def test_fright_cap_limits_the_target():
    result = resolve_fright_check(
        16, ManualDice([5, 5, 4, 1, 1, 2]), combat_reflexes=True, fright_cap=13, stats=HT, table=FEAR
    )
    assert result.check.target == 13
    assert result.check.cap == 13
    assert result.check.outcome == "failure"
    assert result.table.margin_added == 1
    assert effective_target(10, 0, fright_cap=13) == 10  # a cap never raises the target


def test_pick_names_the_new_trait():
    effects, _ = apply_entry(FEAR, 22, ManualDice([]), stats=HT, pick="UFOに監視されている")
    assert effects == (trait("delusion", -10, 22, name="UFOに監視されている"),)


def test_choice_takes_the_second_option():
    effects, _ = apply_entry(FEAR, 23, ManualDice([]), stats=HT, choice=1)
    assert effects == (trait("mental", -10, 23, options=PHOBIA_OR_MENTAL_10, choice=1),)
    # an entry without a choice ignores it
    effects, _ = apply_entry(FEAR, 22, ManualDice([]), stats=HT, choice=1)
    assert effects == (trait("delusion", -10, 22),)


def test_out_of_range_choice_is_refused_before_rolling():
    dice = ManualDice([6, 6, 6])
    with pytest.raises(BadInput):
        resolve_fright_check(10, dice, stats=HT, choice=2, table=FEAR)
    assert dice.used == 0


def test_missing_ht_is_refused_before_rolling():
    dice = ManualDice([6, 6, 6])
    with pytest.raises(RuleRefused, match="HT"):
        resolve_fright_check(10, dice, stats={"IQ": 10}, table=FEAR)
    assert dice.used == 0


def test_japanese_stat_name_is_accepted():
    """The service hands core the stats keyed canonically (core.stat_names.canonical_view)."""
    stats = canonical_view({"生命力": 12}, load_stat_aliases()["gurps3-ja"])
    effects, subs = apply_entry(FEAR, 18, ManualDice(HT_PASS + [1]), stats=stats)
    assert subs[0].expression == "3D6<=12" and subs[0].target == 12


def test_25_escalates_the_named_mild_phobia():
    traits = [KnownTrait("暗所恐怖症", "phobia", -15), KnownTrait("短気", "mental", -10)]
    effects, _ = apply_entry(FEAR, 25, ManualDice([]), stats=HT, traits=traits, pick="暗所恐怖症")
    assert effects == (PhobiaEscalation(trait="暗所恐怖症", old_cp=-15, new_cp=-30, entry=25),)


def test_25_without_a_related_phobia_gives_a_mental_trait_named_by_pick():
    traits = [KnownTrait("暗所恐怖症", "phobia", -15)]
    effects, _ = apply_entry(FEAR, 25, ManualDice([]), stats=HT, traits=traits, pick="悪夢")
    assert effects == (trait("mental", -10, 25, name="悪夢"),)


def test_25_a_severe_phobia_does_not_escalate_and_its_name_is_not_reused():
    traits = [KnownTrait("暗所恐怖症", "phobia", -30, severity="severe")]
    effects, _ = apply_entry(FEAR, 25, ManualDice([]), stats=HT, traits=traits, pick="暗所恐怖症")
    assert effects == (trait("mental", -10, 25),)
    assert effects[0].placeholder


def test_25_a_non_phobia_is_not_escalated():
    traits = [KnownTrait("短気", "mental", -10)]
    effects, _ = apply_entry(FEAR, 25, ManualDice([]), stats=HT, traits=traits, pick="短気")
    assert effects == (trait("mental", -10, 25),)


def test_placeholder_names_are_japanese_and_category_based_in_either_language():
    from campaign import i18n
    from campaign.effect_words import placeholder_name

    for lang in ("en", "ja"):
        with i18n.speaking(lang):
            assert placeholder_name("delusion") == "未命名の妄想 (恐怖判定)"
            assert placeholder_name("phobia", "severe") == "未命名の強い恐怖症 (恐怖判定)"

"""campaign.core.luck: die sizes read back from expressions, exact success odds, the tally."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from campaign.core import checks2d6, luck
from campaign.core.dice import evaluate
from campaign.core.dice_parse import parse
from campaign.core.dice_source import ManualDice, SeededDice
from tests.reference_stats import chi_square_tail


class SidesProbe:
    """A dice source that records the size of every die the engine asks for."""

    kind = "probe"

    def __init__(self) -> None:
        self.inner = SeededDice(7)
        self.asked: list[int] = []

    def roll(self, sides: int) -> int:
        self.asked.append(sides)
        return self.inner.roll(sides)

    def ensure_all_used(self) -> None:
        return None


EXPRESSIONS = [
    "3D6",
    "3D6<=12",
    "3D6+1<=13",
    "2D6+3>=10",
    "4D6KH3",
    "2D20KL1",
    "D66",
    "1D100<=45",
    "3B6>=4",
    "3B6+2B10",
    "x3 2D6",
    "x2 3B6>=5",
    "(1D6+2)*1D4",
    "-1D6+1D20",
    "1D8+1D6+4",
    "3D6KH2+5>=12",
    "1D",
    "D6/1D2",
    "2D6-1D6>=0",
    "10D10",
    "x4 D66",
]


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_die_sizes_follow_the_order_the_engine_rolls_in(text):
    probe = SidesProbe()
    result = evaluate(text, probe)
    info = luck.expression_info(parse(text))
    assert list(info.sides) == probe.asked
    assert len(info.sides) == len(result.faces)
    assert info.uniform == (probe.asked[0] if len(set(probe.asked)) == 1 else None)


def test_success_shapes_of_expressions():
    assert luck.expression_info(parse("3D6+1<=12")).r1_modifier == 1
    assert luck.expression_info(parse("3D6-2<=11")).r1_modifier == -2
    assert luck.expression_info(parse("3D6")).r1_modifier is None
    assert luck.expression_info(parse("2D6+3>=10")).plain == (((1, 2, 6),), -7, ">=")
    assert luck.expression_info(parse("4D6KH3>=10")).plain is None  # keep-highest: no plain sum
    assert luck.expression_info(parse("x3 2D6>=7")).plain is None  # a repeat is several tests


def test_table_commands_roll_their_tables_dice():
    info = luck.read_expression("FEAR+5", lambda text: "3D6" if text.startswith("FEAR") else None)
    assert info.sides == (6, 6, 6) and info.r1_modifier is None and info.plain is None
    assert luck.read_expression("ccfolia:??", lambda text: None) is None


def test_r1_probabilities_by_hand():
    assert luck.r1_probability(10) == Fraction(1, 2)
    assert luck.r1_probability(3) == Fraction(4, 216)  # only the critical 3 and 4
    assert luck.r1_probability(16) == luck.r1_probability(25) == Fraction(212, 216)  # 17 and 18 always fail
    assert luck.r1_probability(12, 1) == Fraction(135, 216)  # 3D6+1<=12: raw 11 or less
    assert luck.r1_probability(-5) == Fraction(4, 216)


def test_check_probabilities_by_hand():
    p = luck.check_probability
    assert p(2, 7, ">=", False, True) == Fraction(21, 36)
    assert p(2, 13, ">=", False, True) == Fraction(1, 36)  # only 6-6, a critical success
    assert p(2, 2, ">=", False, True) == Fraction(35, 36)  # all but 1-1, a critical failure
    assert p(2, 13, ">=", False, False) == 0 and p(2, 2, ">=", False, False) == 1
    assert p(2, 7, ">", False, True) == Fraction(15, 36)
    assert p(3, 12, ">=", True, True) == Fraction(16, 216)  # best two of three both 6
    assert p(3, 2, ">=", True, True) == Fraction(215, 216)  # fails only when all three show 1
    assert p(1, 6, ">=", False, True) == Fraction(1, 6)  # one die is never critical


@pytest.mark.parametrize("dice", [1, 2, 3])
@pytest.mark.parametrize("compare,cooperative", [(">=", False), (">", False), (">=", True)])
@pytest.mark.parametrize("criticals", [True, False])
def test_check_probability_equals_every_ordered_roll(dice, compare, cooperative, criticals):
    """The multiset shortcut against judging all 6**dice ordered rolls one by one."""
    rule = checks2d6.CriticalRule(enabled=criticals)
    for need in range(0, 3 * 6 + 3):
        hits = 0
        for faces in itertools.product(range(1, 7), repeat=dice):
            source = ManualDice(list(faces))
            if cooperative:
                result = checks2d6.cooperative_check(
                    [4, 2], need + 5, source, dice_modifier=dice - 3, criticals=rule
                )  # stat 4 + 1 for cooperation
            elif compare == ">":
                result = checks2d6.danger_sense(3, need + 3, source, dice_modifier=dice - 2, criticals=rule)
            else:
                result = checks2d6.skill_check(2, 1, need + 3, source, dice_modifier=dice - 2, criticals=rule)
            hits += result.success
        assert luck.check_probability(dice, need, compare, cooperative, criticals) == Fraction(hits, 6**dice)


def test_plain_probabilities_by_convolution():
    assert luck.plain_probability(((1, 2, 6),), 8, ">=") == Fraction(15, 36)
    assert luck.plain_probability(((1, 1, 100),), 45, "<=") == Fraction(45, 100)
    assert luck.plain_probability(((1, 2, 6), (-1, 1, 6)), 0, ">=") == Fraction(
        sum(1 for a, b, c in itertools.product(range(1, 7), repeat=3) if a + b - c >= 0), 216
    )
    assert luck.plain_probability(((1, 3, 6),), 10, "=") == Fraction(27, 216)


def _read(text):
    return luck.read_expression(text, lambda t: "3D6" if t in ("CRT", "FEAR") else None)


def _record(**fields):
    base = {
        "kind": "roll",
        "source": "rng",
        "dice": None,
        "expression": None,
        "target": None,
        "outcome": None,
        "detail": {},
    }
    return {**base, **fields}


def test_tally_counts_every_face_by_source_and_die():
    tally = luck.LuckTally(_read)
    tally.add(_record(expression="3D6", dice=[1, 2, 6]))
    tally.add(_record(expression="1D8+1D6+4", dice=[8, 6]))
    tally.add(_record(expression="CRT", dice=[6, 6, 6], kind="table"))
    tally.add(_record(expression="3D6", dice=[6, 6, 6], source="manual"))
    tally.add(_record(expression="2D6", dice=[3, 3], source="ccfolia"))
    tally.add(_record(expression="2D6", dice=[3, 9]))  # a face no d6 shows: not counted
    tally.add(_record(expression="what?", dice=[3]))  # unknown expression: not counted
    tally.add(_record(expression="2D6", dice=[1, 1], kind="check", detail={"role": "participant"}))
    tally.add(_record(kind="seal"))
    rng, manual, imported = (tally.sources[name] for name in ("rng", "manual", "ccfolia"))
    assert rng.faces[6] == [0, 1, 1, 0, 0, 0, 5] and rng.faces[8] == [0] * 8 + [1]
    assert (rng.dice, rng.entries, rng.unclassified_entries, rng.unclassified_dice) == (8, 5, 2, 3)
    assert manual.faces == {6: [0, 0, 0, 0, 0, 0, 3]} and imported.faces == {6: [0, 0, 0, 2, 0, 0, 0]}
    assert (tally.entries, tally.shared_entries) == (9, 1)


def test_tally_scores_success_rolls_against_exact_odds():
    tally = luck.LuckTally(_read)
    gurps = {"gurps": {"raw": 10, "total": 10}}
    tally.add(_record(expression="3D6<=10", dice=[3, 3, 4], target=10, outcome="success", detail=gurps))
    tally.add(_record(expression="3D6<=10", dice=[6, 6, 6], target=10, outcome="critical_failure", detail=gurps))
    tally.add(_record(kind="fright", expression="3D6<=16", dice=[1, 1, 1], target=16, outcome="critical_success"))
    check = {
        "kind": "ability",
        "terms": [{"label": "体", "value": 3}],
        "compare": ">=",
        "critical_rule": {"enabled": True},
    }
    tally.add(_record(kind="check", expression="2D6+3>=10", dice=[6, 1], target=10, outcome="success", detail=check))
    tally.add(_record(kind="reunion", expression="1d6", dice=[2], target=2, outcome="success"))
    tally.add(_record(expression="2D6>=8", dice=[1, 2], target=8, outcome="failure"))
    tally.add(
        _record(kind="check", expression="2D6+3", dice=[1, 2], target=9, outcome="failure", detail={"kind": "opposed"})
    )
    rng = tally.sources["rng"]
    three = rng.success["3d6"]
    assert three[:2] == [3, 2] and three[2] == pytest.approx(0.5 + 0.5 + 212 / 216)
    assert rng.success["2d6"][:2] == [1, 1] and rng.success["2d6"][2] == pytest.approx(21 / 36)
    plain = rng.success["plain"]
    assert plain[:2] == [2, 1] and plain[2] == pytest.approx(2 / 6 + 15 / 36)
    assert plain[3] == pytest.approx(2 / 6 * 4 / 6 + 15 / 36 * 21 / 36)
    assert rng.not_scored == 1  # the opposed check


def test_report_matches_the_formula_and_counts_its_tests():
    tally = luck.LuckTally(_read)
    faces = [1] * 40 + [2] * 60
    for face in faces:
        tally.add(_record(expression="1D2", dice=[face]))
    for face in [1, 2, 3, 4, 5, 6] * 2:  # 12 d6: too few for a test
        tally.add(_record(expression="1D6", dice=[face]))
    found = luck.report(tally)
    [source] = found["sources"]
    d2, d6 = source["die_sizes"]
    # chi-square with 1 df: (10² + 10²) / 50 = 4; its tail is erfc(sqrt(4 / 2)).
    assert d2["chi_square"] == pytest.approx(4.0) and d2["df"] == 1
    assert d2["p_value"] == pytest.approx(math.erfc(math.sqrt(2)), rel=1e-12)
    assert d2["mean"] == pytest.approx(1.6) and d2["mean_z"] == pytest.approx(2.0)
    assert d2["mean_p"] == pytest.approx(math.erfc(2 / math.sqrt(2)), rel=1e-12)
    assert d6["tested"] is False and d6["p_value"] is None and d6["faces"] == [2] * 6
    assert found["tests"] == 2 and "2 tests were made" in found["note"] and "0.025" in found["note"]


def test_report_reference_for_a_d20():
    tally = luck.LuckTally(_read)
    counts = [5 + (face * 7) % 11 for face in range(1, 21)]
    for face, count in enumerate(counts, start=1):
        for _ in range(count):
            tally.add(_record(expression="1D20", dice=[face]))
    [row] = luck.report(tally)["sources"][0]["die_sizes"]
    n = sum(counts)
    statistic = sum((count - n / 20) ** 2 / (n / 20) for count in counts)
    assert row["faces"] == counts and row["chi_square"] == pytest.approx(statistic)
    assert row["p_value"] == pytest.approx(chi_square_tail(19, statistic))


def test_no_test_without_enough_data():
    found = luck.report(luck.LuckTally(_read))
    assert found["tests"] == 0 and found["sources"] == [] and "No test was made" in found["note"]

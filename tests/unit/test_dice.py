"""Exact tests of the dice grammar: every face comes from ManualDice."""

from __future__ import annotations

import json

import pytest

from campaign.core.dice import (
    MAX_TOTAL_DICE,
    DiceResult,
    evaluate,
    normalize_expression,
    parse,
    roll_expression_total,
    roll_parsed,
    split_comment,
)
from campaign.core.dice_source import ManualDice, SeededDice
from campaign.errors import BadInput, DiceError


def roll(text: str, *faces: int, gurps: bool = False) -> DiceResult:
    """Evaluate with exactly these faces, and insist that all of them were used."""
    source = ManualDice(list(faces))
    result = evaluate(text, source, gurps=gurps)
    assert source.used == len(faces), f"{text}: used {source.used} of {len(faces)} faces"
    return result


def error_of(text: str, source: ManualDice | None = None) -> DiceError:
    source = source if source is not None else ManualDice([1] * 50)
    with pytest.raises(DiceError) as caught:
        evaluate(text, source)
    return caught.value


# --- basic dice --------------------------------------------------------------------


def test_ndm_sums_faces_in_order():
    result = roll("2D6", 3, 4)
    assert result.total == 7
    assert result.faces == (3, 4)
    assert result.expression == "2D6"
    (group,) = result.groups
    assert (group.kind, group.count, group.sides, group.faces, group.value) == ("dice", 2, 6, (3, 4), 7)
    assert result.outcome is None and result.comparison is None and result.target is None


def test_lower_case_is_accepted_and_normalised():
    result = roll("3d10", 10, 1, 5)
    assert result.expression == "3D10"
    assert result.total == 16


def test_missing_sides_means_d6():
    assert roll("1D", 6).total == 6
    assert roll("2D", 1, 6).total == 7
    with pytest.raises(DiceError, match="outside 1..6"):
        evaluate("1D", ManualDice([7]))


def test_d6_alone_is_one_d6():
    result = roll("D6", 5)
    assert result.total == 5
    assert result.groups[0].count == 1


def test_bare_d_is_refused():
    assert error_of("D").column == 1
    assert error_of("D+1").column == 1


@pytest.mark.parametrize(("faces", "value"), [((3, 5), 35), ((5, 3), 53), ((1, 1), 11), ((6, 6), 66)])
def test_d66_reads_tens_then_ones_without_sorting(faces, value):
    result = roll("D66", *faces)
    assert result.total == value
    assert result.faces == faces
    assert result.groups[0].kind == "d66"
    assert result.groups[0].sides == 6


def test_d66_in_arithmetic_and_comparison():
    result = roll("D66+1>=40", 3, 5)
    assert result.total == 36
    assert result.outcome == "failure"


def test_counted_d66_is_a_66_sided_die():
    result = roll("1D66", 66)
    assert result.total == 66
    assert result.groups[0].kind == "dice" and result.groups[0].sides == 66


def test_large_die():
    assert roll("1D100", 100).total == 100
    assert roll("D1000", 1000).total == 1000


# --- arithmetic --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "faces", "total"),
    [
        ("1D6+2*3", (1,), 7),
        ("(1D6+2)*3", (1,), 9),
        ("2*3+1D6", (1,), 7),
        ("10-2-3+1D1", (1,), 6),  # left-associative
        ("1D6-1D6*2", (6, 2), 2),
        ("2D6+1D4-3", (3, 4, 2), 6),
        ("1D1*2*3/4", (1,), 1),
        ("(1D1+1)*(2+3)", (1,), 10),
        ("-1D6", (4,), -4),
        ("--1D6", (4,), 4),
        ("+1D6", (4,), 4),
        ("1D6--2", (4,), 6),
        ("1D6*-2", (4,), -8),
        ("-(1D6+1)", (4,), -5),
    ],
)
def test_arithmetic_precedence(text, faces, total):
    assert roll(text, *faces).total == total


@pytest.mark.parametrize(
    ("text", "faces", "total"),
    [
        ("1D6/2", (5,), 2),
        ("-1D6/2", (5,), -3),  # floor, not truncation toward zero
        ("1D6/-2", (5,), -3),
        ("-7/2+1D1", (1,), -3),
        ("1D1-7/2", (1,), -2),
        ("7/-2+1D1", (1,), -3),
        ("-7/-2+1D1", (1,), 4),
        ("1D6/3", (6,), 2),
        ("(1D6-10)/4", (1,), -3),
    ],
)
def test_division_rounds_down(text, faces, total):
    assert roll(text, *faces).total == total


def test_division_by_zero_in_fixed_numbers_fails_before_rolling():
    source = ManualDice([1, 1])
    with pytest.raises(DiceError) as caught:
        evaluate("1D6/(2-2)", source)
    assert caught.value.column == 4
    assert source.used == 0
    assert error_of("1/0+1D6").column == 2


def test_division_by_a_zero_roll_names_the_operator():
    error = error_of("1D6/(1D1-1)", ManualDice([3, 1]))
    assert error.column == 4
    assert "division by zero" in str(error)


def test_parenthesised_count_and_sides():
    result = roll("(1+2)D6", 1, 2, 3)
    assert result.total == 6
    assert result.groups[0].count == 3
    result = roll("2D(3*2)", 6, 6)
    assert result.total == 12
    assert result.groups[0].sides == 6
    with pytest.raises(DiceError, match="outside 1..6"):
        evaluate("2D(3*2)", ManualDice([6, 7]))
    assert roll("D(2+2)", 4).groups[0].sides == 4


def test_count_or_sides_from_a_roll_is_refused():
    error = error_of("(1D3)D6")
    assert error.column == 1
    assert "fixed number" in str(error)
    assert error_of("2D(1D6)").column == 3


# --- keep highest / lowest ---------------------------------------------------------


def test_keep_highest_reports_dropped_faces():
    result = roll("4D6KH2", 3, 6, 1, 5)
    assert result.total == 11
    assert result.faces == (3, 6, 1, 5)
    (group,) = result.groups
    assert group.kept_indices == (1, 3)
    assert group.kept == (6, 5)
    assert group.dropped == (3, 1)
    assert group.dropped_indices == (0, 2)
    assert (group.keep, group.keep_count) == ("KH", 2)


def test_keep_lowest():
    result = roll("4D6KL1", 3, 6, 1, 5)
    assert result.total == 1
    assert result.groups[0].dropped == (3, 6, 5)


def test_keep_ties_keep_the_earlier_die():
    assert roll("3D6KH1", 5, 5, 2).groups[0].kept_indices == (0,)
    assert roll("3D6KL2", 2, 5, 2).groups[0].kept_indices == (0, 2)


def test_keep_defaults_to_one_and_combines_with_arithmetic():
    assert roll("2D20KH", 4, 17).total == 17
    assert roll("2d20kl+3", 4, 17).total == 7
    assert roll("4d6kh3+1", 1, 2, 3, 4).total == 10


def test_keep_count_in_parentheses():
    assert roll("4D6KH(1+1)", 1, 2, 3, 4).total == 7


def test_keep_detail_lists_kept_and_dropped():
    detail = roll("3D6KH2", 2, 6, 4).to_detail()
    (group,) = detail["groups"]
    assert group["kept"] == [6, 4]
    assert group["dropped"] == [2]
    assert group["keep"] == "KH2"


# --- comparisons -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "faces", "outcome", "margin"),
    [
        ("2D6<=7", (3, 4), "success", 0),
        ("2D6<=6", (3, 4), "failure", -1),
        ("2D6>=7", (3, 4), "success", 0),
        ("2D6>=8", (3, 4), "failure", -1),
        ("2D6<8", (3, 4), "success", 1),
        ("2D6<7", (3, 4), "failure", 0),
        ("2D6>6", (3, 4), "success", 1),
        ("2D6>7", (3, 4), "failure", 0),
        ("2D6=7", (3, 4), "success", None),
        ("2D6=8", (3, 4), "failure", None),
        ("2D6!=8", (3, 4), "success", None),
        ("2D6!=7", (3, 4), "failure", None),
        ("2D6<>7", (3, 4), "failure", None),
    ],
)
def test_each_comparison(text, faces, outcome, margin):
    result = roll(text, *faces)
    assert result.total == 7
    assert result.outcome == outcome
    assert result.margin == margin
    assert result.succeeded is (outcome == "success")


def test_zero_and_negative_targets():
    result = roll("3D6<=-2", 1, 1, 1)
    assert (result.target, result.outcome, result.margin) == (-2, "failure", -5)
    result = roll("1D6-10<=-2", 1)
    assert (result.total, result.outcome, result.margin) == (-9, "success", 7)
    assert roll("1D6-5>=0", 5).outcome == "success"
    assert roll("1D6-5>=0", 4).outcome == "failure"
    assert roll("1D6>=-(2+3)", 1).target == -5


def test_target_may_be_an_expression():
    result = roll("2D6>=(3+4)", 3, 4)
    assert (result.target, result.comparison, result.outcome) == (7, ">=", "success")
    assert roll("2D6>=3+4", 3, 3).outcome == "failure"


def test_target_may_not_be_a_roll():
    error = error_of("2D6>=1D6")
    assert error.column == 6
    assert "fixed number" in str(error)


def test_comparison_without_dice_is_refused():
    error = error_of("5<=3")
    assert error.column == 1
    assert "no dice" in str(error)


# --- barabara ----------------------------------------------------------------------


def test_barabara_counts_dice_meeting_the_target():
    result = roll("3B6>=4", 4, 3, 6)
    assert result.total == 2
    assert result.successes == 2
    assert result.faces == (4, 3, 6)
    assert result.groups[0].kind == "barabara"
    assert result.groups[0].hit_indices == (0, 2)
    assert result.outcome is None


def test_barabara_with_several_terms():
    result = roll("2B6+1B10>=5", 5, 1, 10)
    assert result.successes == 2
    assert [group.sides for group in result.groups] == [6, 10]
    assert [group.successes for group in result.groups] == [1, 1]


@pytest.mark.parametrize(
    ("text", "successes"), [("4B6<=2", 2), ("4B6<2", 1), ("4B6>5", 1), ("4B6=2", 1), ("4B6!=2", 3)]
)
def test_barabara_comparisons(text, successes):
    assert roll(text, 1, 2, 3, 6).successes == successes


def test_barabara_without_comparison_lists_the_dice():
    result = roll("3b6", 1, 2, 6)
    assert result.faces == (1, 2, 6)
    assert result.total == 9
    assert result.successes is None and result.comparison is None


def test_barabara_cannot_mix_with_other_terms():
    assert error_of("2D6+1B6").column == 2
    assert error_of("2B6+1").column == 6
    assert error_of("B6>=4").column == 1


# --- repeat ------------------------------------------------------------------------


def test_repeat_holds_each_repetition():
    result = roll("x3 2D6", 1, 2, 3, 4, 5, 6)
    assert [repetition.total for repetition in result.repeats] == [3, 7, 11]
    assert [repetition.expression for repetition in result.repeats] == ["2D6"] * 3
    assert result.total == 21
    assert result.faces == (1, 2, 3, 4, 5, 6)
    assert result.expression == "X3 2D6"
    assert result.successes is None


def test_repeat_with_comparison_counts_successful_repetitions():
    result = roll("X3 3D6<=10", 1, 2, 3, 6, 6, 6, 4, 3, 3)
    assert [repetition.outcome for repetition in result.repeats] == ["success", "failure", "success"]
    assert result.successes == 2
    assert result.comparison == "<=" and result.target == 10


def test_repeat_of_barabara_sums_successes():
    assert roll("x2 2B6>=5", 5, 6, 1, 5).successes == 3


def test_repeat_spellings():
    assert len(roll("rep2 1D6", 1, 2).repeats) == 2
    assert len(roll("REPEAT2 1D6", 1, 2).repeats) == 2
    assert len(roll("x1 1D6", 4).repeats) == 1


def test_repeat_detail_lists_repetitions_without_duplicating_groups():
    detail = roll("x2 1D6 stealth", 3, 4).to_detail()
    assert detail["groups"] == []
    assert [entry["total"] for entry in detail["repeats"]] == [3, 4]
    assert detail["faces"] == [3, 4]
    assert detail["comment"] == "stealth"


@pytest.mark.parametrize(("text", "column"), [("x0 1D6", 2), ("x101 1D6", 2), ("X3", 3), ("X2D6", 3)])
def test_repeat_errors(text, column):
    assert error_of(text).column == column


# --- comments and normalisation ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2D6>=7 SAN check", ("2D6>=7", "SAN check")),
        ("2D6", ("2D6", None)),
        ("  2D6   ", ("2D6", None)),
        ("2D6  spot  hidden ", ("2D6", "spot  hidden")),
        ("x3 2D6 attack roll", ("x3 2D6", "attack roll")),
        ("x3   2D6", ("x3   2D6", None)),
        ("2D6\u3000目星", ("2D6", "目星")),
        ("ｘ２\u3000１Ｄ６\u3000回避", ("ｘ２\u3000１Ｄ６", "回避")),
        ("x3D6 note", ("x3D6", "note")),
        ("", ("", None)),
        ("   ", ("", None)),
    ],
)
def test_split_comment(text, expected):
    assert split_comment(text) == expected


def test_evaluate_returns_the_comment_separately():
    result = roll("2D6>=7 SAN check", 3, 4)
    assert result.comment == "SAN check"
    assert result.expression == "2D6>=7"


def test_full_width_input_is_normalised():
    result = roll("３Ｄ６＜＝１２", 4, 4, 4)
    assert result.expression == "3D6<=12"
    assert result.outcome == "success"
    assert roll("２ｄ６≧７", 3, 4).outcome == "success"
    assert roll("１Ｄ６≦３", 4).outcome == "failure"
    assert roll("（１＋１）Ｄ６", 1, 1).total == 2
    assert normalize_expression("２ｄ６≠７\u3000コメント") == "2D6!=7"
    assert len(roll("ｘ２\u3000１Ｄ６", 1, 2).repeats) == 2


def test_full_width_error_column_points_at_what_was_typed():
    error = error_of("３Ｄ６＜＝１ｘ")
    assert error.column == 7
    assert "'ｘ'" in str(error)
    # "≦" becomes two characters but still counts as one column.
    assert error_of("１Ｄ６≦１ｘ").column == 6


def test_parse_is_cached_per_normalised_text_and_immutable():
    first = parse("2d6+1")
    assert parse("２Ｄ６＋１") is first
    assert parse("2D6+1 with a comment") is first
    with pytest.raises(AttributeError):
        first.text = "3D6"  # type: ignore[misc]


def test_parse_reports_the_structure():
    parsed = parse("x2 3D6<=12")
    assert parsed.repeat == 2
    assert parsed.dice_count == 6
    assert parsed.roll.comparison == "<=" and parsed.roll.target == 12
    assert parsed.roll.success_roll_modifier == 0
    assert parse("3D6-2<=12").roll.success_roll_modifier == -2
    assert parse("3D6*2<=12").roll.success_roll_modifier is None


def test_roll_parsed_rolls_a_parsed_expression():
    parsed = parse("2D6+1")
    result = roll_parsed(parsed, ManualDice([2, 3]), comment="later")
    assert (result.total, result.comment) == (6, "later")
    with pytest.raises(DiceError) as caught:
        roll_parsed(parse("1D6/(1D1-1)"), ManualDice([3, 1]))
    assert caught.value.column == 4


# --- errors and limits -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "column", "fragment"),
    [
        ("3D6<=1x", 7, "unexpected character 'x'"),
        ("3D6<=", 6, "unexpected end"),
        ("2D6+", 5, "unexpected end"),
        ("(2D6", 5, "missing ')'"),
        ("2D6)", 4, "unexpected character ')'"),
        ("2D6**2", 5, "unexpected character '*'"),
        ("", 1, "empty"),
        ("   ", 1, "empty"),
        ("  2D6x", 6, "unexpected character 'x'"),
        ("2D6!7", 5, "expected '='"),
        ("2D6==7", 5, "unexpected character '='"),
        ("4D6K2", 5, "KH"),
        ("2D6KH1KH1", 7, "unexpected character 'K'"),
        ("D66KH1", 4, "unexpected character 'K'"),
        ("1x", 2, "unexpected character 'x'"),
        ("abc", 1, "unexpected character 'a'"),
        ("2D6>=7>=8", 7, "unexpected character '>'"),
    ],
)
def test_syntax_errors_name_the_column(text, column, fragment):
    error = error_of(text)
    assert isinstance(error, BadInput)
    assert error.column == column
    assert fragment in str(error)
    assert f"(column {column})" in str(error)


NESTED_33 = "(" * 33 + "1" + ")" * 33 + "D6"
UNARY_33 = "-" * 33 + "1D6"


@pytest.mark.parametrize(
    ("text", "column", "fragment"),
    [
        ("1001D6", 1, "at most 1000 dice"),
        ("1D1001", 3, "at most 1000 sides"),
        ("1D0", 3, "at least one side"),
        ("0D6", 1, "at least one die"),
        ("(1-2)D6", 1, "at least one die"),
        ("2D(0-6)", 3, "at least one side"),
        (NESTED_33, 33, "nested more than 32"),
        (UNARY_33, 33, "nested more than 32"),
        ("1D6>=" + "-" * 33 + "1", 38, "nested more than 32"),
        ("x0 1D6", 2, "repeat count"),
        ("x101 1D6", 2, "repeat count"),
        ("4D6KH5", 6, "cannot keep 5 of 4"),
        ("4D6KL0", 6, "keep at least one"),
        ("x100 101D6", 6, f"more than {MAX_TOTAL_DICE} dice"),
        ("+".join(["1000D6"] * 11), 1 + 7 * 10, f"more than {MAX_TOTAL_DICE} dice"),
        ("1001B6>=4", 1, "at most 1000 dice"),
        ("3B1001", 3, "at most 1000 sides"),
        ("1D6/0", 4, "division by zero"),
        ("1" * 1001 + "D6", 1001, "longer than 1000"),
    ],
)
def test_limits_are_refused_before_any_die_is_rolled(text, column, fragment):
    source = ManualDice([1] * 20)
    error = error_of(text, source)
    assert source.used == 0
    assert error.column == column
    assert fragment in str(error)


def test_limits_are_inclusive():
    assert parse("(" * 32 + "1" + ")" * 32 + "D6").dice_count == 1
    assert parse("-" * 32 + "1D6").dice_count == 1
    assert parse("1000D1000").dice_count == 1000
    assert parse("x100 100D6").dice_count == MAX_TOTAL_DICE
    assert parse("x1 1D6").repeat == 1


def test_manual_dice_with_too_few_faces():
    source = ManualDice([1, 2])
    with pytest.raises(DiceError, match="not enough faces"):
        evaluate("3D6", source)


def test_manual_dice_with_a_face_the_die_cannot_show():
    with pytest.raises(DiceError, match="outside 1..6"):
        evaluate("2D6", ManualDice([3, 7]))
    with pytest.raises(DiceError, match="outside 1..6"):
        evaluate("D66", ManualDice([0, 1]))


# --- outputs and helpers -----------------------------------------------------------


def test_to_detail_is_json_and_complete():
    result = evaluate("2D6+1>=7 hit", ManualDice([3, 4]))
    detail = json.loads(json.dumps(result.to_detail()))
    assert detail["expression"] == "2D6+1>=7"
    assert detail["total"] == 8
    assert detail["faces"] == [3, 4]
    assert detail["groups"][0]["faces"] == [3, 4]
    assert detail["groups"][0]["dropped"] == []
    assert (detail["comparison"], detail["target"], detail["outcome"], detail["margin"]) == (">=", 7, "success", 1)
    assert detail["source"] == "manual"
    assert detail["comment"] == "hit"
    assert detail["gurps"] is None
    assert detail["repeats"] == []


def test_faces_span_all_groups_in_order():
    result = roll("1D4+2D6KH1-D66", 4, 2, 5, 1, 3)
    assert result.faces == (4, 2, 5, 1, 3)
    assert [group.faces for group in result.groups] == [(4,), (2, 5), (1, 3)]
    assert result.total == 4 + 5 - 13


def test_describe_is_one_line():
    assert roll("2D6>=7", 3, 4).describe() == "2D6>=7 → [3,4] = 7 → success (margin 0)"
    assert roll("3D6KH2", 1, 5, 6).describe() == "3D6KH2 → [(1),5,6] = 11"
    assert roll("3B6>=4", 4, 3, 6).describe() == "3B6>=4 → [4,3,6] = 2 successes"


def test_roll_expression_total_helper():
    assert roll_expression_total("1D", ManualDice([4])) == 4
    assert roll_expression_total("2D", ManualDice([4, 5])) == 9
    assert roll_expression_total("3D6", ManualDice([1, 2, 3])) == 6


def test_source_kind_is_recorded():
    assert evaluate("1D6", SeededDice(7)).source_kind == "seeded"


# --- GURPS through the grammar -----------------------------------------------------


def test_gurps_success_roll_reports_criticals():
    result = roll("3D6<=12", 1, 1, 2, gurps=True)
    assert result.outcome == "critical_success"
    assert result.margin == 8
    assert result.judgement is not None and result.judgement.raw == 4
    assert result.to_detail()["gurps"]["outcome"] == "critical_success"


def test_gurps_judges_criticals_on_the_raw_sum():
    result = roll("3D6+1<=12", 1, 1, 2, gurps=True)
    assert (result.total, result.outcome, result.margin) == (5, "critical_success", 7)
    assert roll("3D6+5<=10", 6, 6, 3, gurps=True).outcome == "failure"  # raw 15: 5 over, not 10
    assert roll("3D6-10<=3", 6, 6, 1, gurps=True).outcome == "critical_failure"  # raw 13: 10 over
    assert roll("3D6-1<=16", 6, 6, 5, gurps=True).outcome == "failure"


def test_without_gurps_the_same_roll_is_plain():
    assert roll("3D6<=12", 1, 1, 2).outcome == "success"
    assert roll("3D6<=12", 1, 1, 2).judgement is None


@pytest.mark.parametrize(
    ("text", "faces"),
    [
        ("3D6>=12", (1, 1, 1)),
        ("4D6<=12", (1, 1, 1, 1)),
        ("3D6*2<=12", (1, 1, 1)),
        ("3D6KH2<=12", (1, 1, 1)),
        ("3D6+1D6<=12", (1, 1, 1, 1)),
        ("2D6<=3", (1, 1)),
        ("-3D6<=12", (1, 1, 1)),
        ("3D6<12", (1, 1, 1)),
    ],
)
def test_gurps_leaves_other_shapes_plain(text, faces):
    result = roll(text, *faces, gurps=True)
    assert result.outcome in ("success", "failure")
    assert result.judgement is None


def test_gurps_applies_to_each_repetition():
    result = roll("x2 3D6<=10", 1, 1, 1, 6, 6, 6, gurps=True)
    assert [repetition.outcome for repetition in result.repeats] == ["critical_success", "critical_failure"]
    assert result.successes == 1

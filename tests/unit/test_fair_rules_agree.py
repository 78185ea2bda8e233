"""One table of rolls, run against every implementation of the rules a checker judges
results by: the campaign's dice engine (campaign.core.dice, which made the record),
campaign/fair_check.py (which `history verify`, `proof check` and `import` use) and
proofcheck.py's own copy. A record as the engine writes it is judged sound by both
checkers; the same record with its total, outcome or margin changed, by neither."""

from __future__ import annotations

import pytest

import campaign.fair_check as fair_check
import campaign.proofcheck as proofcheck
from campaign.core.dice import evaluate
from campaign.core.dice_source import ManualDice

# (expression, faces, GURPS success rules?)
TABLE = [
    ("3D6<=12", [1, 2, 3], True),
    ("3D6<=12", [1, 1, 2], True),  # 4: critical success
    ("3D6<=15", [1, 2, 2], True),  # 5 at 15: critical success
    ("3D6<=14", [1, 2, 2], True),  # 5 at 14: plain success
    ("3D6<=16", [1, 2, 3], True),  # 6 at 16: critical success
    ("3D6<=12", [6, 6, 6], True),  # 18: critical failure
    ("3D6<=15", [6, 6, 5], True),  # 17 at 15: critical failure
    ("3D6<=16", [6, 6, 5], True),  # 17 at 16: automatic failure
    ("3D6<=5", [5, 5, 5], True),  # 15 = target + 10: critical failure
    ("3D6+1<=12", [4, 4, 4], True),  # 13 against 12, raw 12: failure
    ("3D6-10<=3", [6, 6, 1], True),  # raw 13 = target + 10: critical failure, total 3
    ("3D6+5<=5", [4, 4, 4], True),  # raw 12: plain failure, margin -12
    ("3D6<=12", [6, 6, 6], False),  # no GURPS rules: a plain failure
    ("2D6+3>=8", [3, 4], False),
    ("2D6>=8", [1, 2], False),
    ("1D20<10", [9], False),
    ("1D20>10", [10], False),
    ("4D6KH3", [1, 2, 3, 4], False),
    ("4D6KL3", [1, 2, 3, 4], False),
    ("2D6", [6, 6], False),
    ("1D100-5", [50], False),
]


def _record(expression: str, faces: list[int], gurps: bool) -> dict:
    """The record the engine writes for these faces (what services.rolls puts in the ledger)."""
    result = evaluate(expression, ManualDice(faces), gurps=gurps)
    return {
        "seq": 5,
        "kind": "roll",
        "parent_seq": None,
        "expression": result.expression,
        "dice": list(result.faces),
        "total": result.total,
        "target": result.target,
        "outcome": result.outcome,
        "margin": result.margin,
        "detail": result.to_detail(),
    }


def _both(records: list[dict]) -> tuple[object, object]:
    found = fair_check.check_records(records)
    return (found["ok"], found["problem"]), (
        proofcheck._fair_problem(records)[1] is None,
        proofcheck._fair_problem(records)[1],
    )


@pytest.mark.parametrize(("expression", "faces", "gurps"), TABLE)
def test_the_engines_record_is_judged_sound_by_both_checkers(expression, faces, gurps):
    record = _record(expression, faces, gurps)
    assert fair_check.judgement(record) == proofcheck.judgement(record)
    should = fair_check.judgement(record)
    assert should is not None and {k: should[k] for k in ("total", "outcome", "margin")} == {
        k: record[k] for k in ("total", "outcome", "margin")
    }
    assert _both([record]) == ((True, None), (True, None))
    assert fair_check.check_records([record])["judged"] == 1


@pytest.mark.parametrize(("expression", "faces", "gurps"), TABLE)
@pytest.mark.parametrize("field", ["total", "outcome", "margin", "dice"])
def test_a_changed_result_fails_both_checkers_alike(expression, faces, gurps, field):
    record = _record(expression, faces, gurps)
    if field == "total":
        record["total"] += 1
    elif field == "margin":
        record["margin"] = 0 if record["margin"] is None else record["margin"] + 1
    elif field == "outcome":
        record["outcome"] = {"success": "failure", None: "success"}.get(record["outcome"], "success")
    else:
        record["dice"] = [*record["dice"], 1]  # one die more than the expression rolls
    (ok, problem), (proof_ok, proof_problem) = _both([record])
    assert (ok, proof_ok) == (False, False) and problem == proof_problem and problem.startswith("entry #5: ")


def test_judged_alike_once_per_distinct_roll():
    """A thousand copies of a roll are judged once; the first wrong one is named."""
    good = _record("3D6<=12", [1, 2, 3], True)
    bad = {**_record("3D6<=12", [1, 2, 3], True), "outcome": "failure"}
    records = [{**good, "seq": n} for n in range(1, 1001)] + [{**bad, "seq": 1001}, {**bad, "seq": 1002}]
    assert fair_check.check_records(records[:1000])["judged"] == 1000
    assert fair_check.check_records(records)["seq"] == 1001
    assert proofcheck._fair_problem(records)[0] == 1001
    flagged = {**good, "seq": 1003, "total": True}  # True is not 1: judged on its own
    assert fair_check.judgement(flagged) is not None and not fair_check.check_records([flagged])["ok"]

"""One table of rolls, run against every implementation of the rules a checker judges
results by: the campaign's dice engine (campaign.core.dice, which made the record),
campaign/fair_check.py (which `history verify`, `proof check` and `import` use) and
proofcheck.py's own copy (the page's recompute.js runs the same table in
tests/browser/test_receipts_browser.py). A record as the engine writes it is judged sound
by both checkers; the same record with its total, outcome or margin changed, by neither.
Table look-ups (a table's row from its 3d6 and modifier, the fright table's from the
check's margin of failure) are judged alike."""

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
    # several terms and arithmetic: the faces are the terms' dice in the order written
    ("2D6+1D6+3>=10", [1, 2, 3], False),  # 9: failure by 1
    ("2D6+1D6+3>=10", [6, 6, 1], True),  # not 3D6: plain success even in a GURPS campaign
    ("3D6*2", [1, 2, 3], False),
    ("(2D6+1)/2", [3, 4], False),  # / rounds down: 4
    ("-1D6+10", [3], False),
    ("1D20-2D6*2<=3", [10, 1, 2], False),  # 10 - 6 = 4: failure
    ("1D", [3], False),
    ("D6", [2], False),
    ("D66", [3, 4], False),  # tens and ones: 34
    ("D66+1D6>=40", [6, 1, 2], False),
    ("4D6KH3+1D4", [1, 2, 3, 4, 2], False),
    ("2D6KL1*10", [5, 2], False),
    ("3D6!=10", [1, 2, 3], False),
    ("1D20=>10", [12], False),
    ("2D6>=(9+1)", [5, 5], False),
    ("3D6+1D6<=12", [1, 1, 1, 6], True),  # two dice terms: no criticals
    ("1+3D6-2<=12", [6, 6, 5], True),  # raw 17 at 12: critical failure
    ("(3D6)<=12", [1, 1, 1], True),  # raw 3: critical success
    ("2D6*(1D6-1)", [3, 4, 1], False),  # 7 * 0
    # barabara dice: with a target the total counts the faces that meet it
    ("3B6>=4", [3, 5, 4], False),
    ("3B6<=3", [3, 5, 4], False),
    ("2B6+1B10>=4", [3, 5, 9], False),
    ("3B6", [3, 5, 4], False),  # no target: the faces' sum
]

# (table command, modifier, faces): the look-up `table roll` writes, its row and clamping
TABLE_LOOKUPS = [
    ("CRT", 0, [1, 1, 1]),
    ("FMB", 0, [3, 4, 5]),
    ("FEAR", 5, [6, 6, 6]),
    ("FEAR", 30, [6, 5, 6]),  # 47: clamped to 40, the table's last row
    ("REACT", -3, [1, 1, 1]),  # 0
    ("REACT", 4, [6, 6, 6]),  # 22: clamped to 19
    ("REACT", -5, [1, 1, 2]),  # -1: clamped to 0
]


def _record(expression: str, faces: list[int], gurps: bool) -> dict:
    """The record the engine writes for these faces (what services.checks.rolls puts in the ledger)."""
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


def _lookup(command: str, modifier: int, faces: list[int]) -> dict:
    """The record `table roll` writes for a look-up that calls for no other roll."""
    from campaign.core.table_roll import roll_on_table
    from campaign.seeds import load_tables
    from campaign.services.checks.tables import expression_for, roll_detail

    tables = load_tables()
    rolled = roll_on_table(tables[command], ManualDice(faces), modifier, tables=tables)
    assert not rolled.sub_rolls and not rolled.text_rolls, "pick faces whose row calls for no other roll"
    return {
        "seq": 5,
        "kind": "table",
        "parent_seq": None,
        "expression": expression_for(command, modifier),
        "dice": list(rolled.dice),
        "total": rolled.result,
        "target": None,
        "outcome": None,
        "margin": None,
        "detail": roll_detail(rolled),
    }


def _fright(will: int, modifier: int, faces: list[int]) -> list[dict]:
    """The fright check and its table roll, as `campaign fright` records them."""
    from campaign.core.fright import resolve_fright_check
    from campaign.seeds import fright_table
    from campaign.services.checks.fright import _table_codes, _table_view

    stats = {"ST": 10, "DX": 10, "IQ": 10, "HT": 10, "Will": will}
    result = resolve_fright_check(will, ManualDice(faces), modifier=modifier, table=fright_table(), stats=stats)
    check = result.check
    parent = {
        "seq": 5,
        "kind": "fright",
        "parent_seq": None,
        "expression": f"3D6<={check.target}",
        "dice": list(check.dice),
        "total": check.total,
        "target": check.target,
        "outcome": check.outcome,
        "margin": check.margin,
        "detail": {},
    }
    if result.table is None:
        return [parent]
    table = result.table
    sub = {
        "seq": 6,
        "kind": "fright",
        "parent_seq": 5,
        "expression": f"FEAR+{table.margin_added}" if table.margin_added else "FEAR",
        "dice": list(table.dice),
        "total": table.result,
        "target": None,
        "outcome": None,
        "margin": None,
        "detail": {"purpose": "table", **(_table_codes(_table_view(result)) or {})},
    }
    return [parent, sub]


FRIGHTS = [(11, 0, [1, 2, 3]), (11, -3, [5, 5, 5, 1, 2, 3]), (11, -50, [6, 6, 5, 6, 6, 6]), (12, 0, [6, 6, 6, 1, 1, 1])]


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


@pytest.mark.parametrize(("command", "modifier", "faces"), TABLE_LOOKUPS)
def test_a_table_lookup_is_judged_sound_and_any_change_fails_both(command, modifier, faces):
    record = _lookup(command, modifier, faces)
    should = fair_check.judgement(record)
    assert should == proofcheck.judgement(record) and should is not None
    assert should["total"] == record["total"] == record["detail"]["result"]
    assert _both([record]) == ((True, None), (True, None))
    assert fair_check.check_records([record])["judged"] == 1
    lo, hi = record["detail"]["entry"]
    for change in (
        {"total": record["total"] + 1},
        {"dice": [*faces[:2], faces[2] % 6 + 1]},  # another face, the result kept
        {"dice": [*faces, 1]},
        {"expression": f"{command}+{modifier + 1}"},
        {"detail": {**record["detail"], "raw": record["detail"]["raw"] + 1}},
        {"detail": {**record["detail"], "result": record["detail"]["result"] + 1}},
        {"detail": {**record["detail"], "modifier": modifier + 2}},
        {"detail": {**record["detail"], "entry": [hi + 1, hi + 2]}},  # a row that does not hold the result
    ):
        (ok, problem), (proof_ok, proof_problem) = _both([{**record, **change}])
        assert (ok, proof_ok) == (False, False) and problem == proof_problem, change
        assert problem.startswith("entry #5: "), problem


def test_a_clamped_lookup_can_only_be_the_tables_bound():
    """FEAR+30 on 6,5,6 is 47, clamped to 40; a server that clamps 17 into row 15 lies."""
    record = _lookup("FEAR", 30, [6, 5, 6])
    assert (record["total"], record["detail"]["raw"], record["detail"]["entry"]) == (40, 47, [40, 40])
    lied = {**_lookup("FEAR", 0, [6, 5, 6]), "total": 15}
    lied["detail"] = {**lied["detail"], "result": 15, "entry": [14, 15]}
    found = fair_check.check_records([lied])
    assert (found["ok"], found["problem"]) == (False, "entry #5: its total is 15, its dice [6, 5, 6] give 17")
    assert proofcheck._fair_problem([lied]) == (5, found["problem"])


@pytest.mark.parametrize(("will", "modifier", "faces"), FRIGHTS)
def test_a_fright_check_and_its_table_roll_are_judged_and_forgeries_fail(will, modifier, faces):
    records = _fright(will, modifier, faces)
    assert _both(records) == ((True, None), (True, None))
    assert fair_check.check_records(records)["judged"] == len(records)
    if len(records) == 1:
        return
    parent, sub = records
    assert fair_check.judgement(sub) == proofcheck.judgement(sub)
    detail = sub["detail"]
    for forged in (
        [parent, {**sub, "total": sub["total"] + 1}],
        [parent, {**sub, "dice": [*sub["dice"][:2], sub["dice"][2] % 6 + 1]}],
        [parent, {**sub, "detail": {**detail, "entry": detail["entry"] + 1}}],
        [parent, {**sub, "detail": {**detail, "raw": detail["raw"] + 1}}],
        [parent, {**sub, "detail": {**detail, "range": [41, 41]}}],
        # a margin of failure of the server's choice picks the row: the check's own decides
        [parent, {**sub, "expression": "FEAR+1", "detail": {**detail, "margin_added": 1, "raw": sum(sub["dice"]) + 1}}],
        [{**parent, "outcome": "success"}, sub],
    ):
        (ok, problem), (proof_ok, proof_problem) = _both(forged)
        assert (ok, proof_ok) == (False, False) and problem == proof_problem, forged


def test_the_dice_of_several_terms_are_counted_and_bounded_per_term():
    """2D6+1D20: a 20 among the d6 faces is no face of a d6."""
    record = _record("2D6+1D20", [6, 5, 20], False)
    assert _both([record]) == ((True, None), (True, None))
    swapped = {**record, "dice": [20, 5, 6]}
    (ok, problem), (proof_ok, proof_problem) = _both([swapped])
    assert (ok, proof_ok) == (False, False) and problem == proof_problem
    assert problem == "entry #5: 2D6+1D20 rolls 3 d?, its dice are [20, 5, 6]"

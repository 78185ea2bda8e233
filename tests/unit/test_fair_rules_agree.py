"""One table of rolls, run against every implementation of the rules a checker judges
results by: the campaign's dice engine (campaign.core.dice, which made the record),
campaign/fair_check.py (which `history verify`, `proof check` and `import` use) and
proofcheck.py's own copy (the page's recompute.js runs the same table in
tests/browser/test_receipts_browser.py). A record as the engine writes it is judged sound
by both checkers; the same record with its total, outcome or margin changed, by neither.
Table look-ups (a table's row from its 3d6 and modifier, the fright table's from the
check's margin of failure) are judged alike."""

from __future__ import annotations

import copy

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


def _effect_record(effect: object) -> dict:
    """An effect as the fright's record holds it (core.applied_effects): the fields a checker reads."""
    from campaign.core.effects_vocabulary import effect_data
    from campaign.core.fright import LosePool

    if isinstance(effect, LosePool):
        kind = "fatigue" if effect.pool == "FP" else "injury"
        return {"kind": kind, "pool": effect.pool, "amount": effect.amount, "dice": effect.dice, "entry": effect.entry}
    return effect_data(effect)


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
        "detail": {"effects": [_effect_record(effect) for effect in result.effects]},
    }
    if result.table is None:
        return [parent]
    table = result.table
    subs = [
        {  # as services.checks.fright.append_sub_roll writes them
            "seq": 7 + n,
            "kind": "fright",
            "parent_seq": 5,
            "expression": roll.expression,
            "dice": list(roll.faces),
            "total": roll.total,
            "target": roll.target,
            "outcome": roll.outcome,
            "margin": roll.margin,
            "detail": {"purpose": roll.purpose, "entry": roll.entry}
            if roll.effect is None
            else {"purpose": roll.purpose, "entry": roll.entry, "effect": roll.effect},
        }
        for n, roll in enumerate(result.sub_rolls)
    ]
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
    return [parent, sub, *subs]


FRIGHTS = [(11, 0, [1, 2, 3]), (11, -3, [5, 5, 5, 1, 2, 3]), (11, -50, [6, 6, 5, 6, 6, 6]), (12, 0, [6, 6, 6, 1, 1, 1])]
# (will, modifier, faces): rows whose effects roll dice of their own (turns of stun, an HT roll)
FRIGHT_ROLLS = [
    (11, 0, [6, 6, 6, 1, 1, 1, 4]),
    (11, 0, [6, 6, 6, 1, 1, 2, 2, 5]),
    (11, 0, [6, 6, 6, 3, 4, 4, 6, 6, 5, 3]),
]


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
    parent, sub = records[:2]
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


def _text_lookup(command: str, faces: list[int]) -> list[dict]:
    """A look-up whose row names dice in its text, and their sub-entries, as `table roll` writes them."""
    from campaign.core.table_roll import roll_on_table
    from campaign.seeds import load_tables
    from campaign.services.checks.tables import roll_detail
    from campaign.table_labels import entry_code, text_roll_code

    tables = load_tables()
    rolled = roll_on_table(tables[command], ManualDice(faces), 0, tables=tables)
    assert rolled.text_rolls and not rolled.sub_rolls, "pick faces whose row names dice and asks for no table"
    parent = {**_lookup_shape(command, rolled.dice, rolled.result), "detail": roll_detail(rolled)}
    subs = [
        {
            **_lookup_shape(text.spec.dice, text.faces, text.value),
            "seq": 6 + n,
            "parent_seq": 5,
            "detail": {
                "text_roll": text_roll_code(text, rolled.entry),
                "table": command,
                "entry": entry_code(rolled.entry),
                "requested_by": 5,
                "depth": 1,
            },
        }
        for n, text in enumerate(rolled.text_rolls)
    ]
    return [parent, *subs]


def _lookup_shape(expression: str, dice: tuple[int, ...], total: int) -> dict:
    return {
        "seq": 5,
        "kind": "table",
        "parent_seq": None,
        "expression": expression,
        "dice": list(dice),
        "total": total,
        "target": None,
        "outcome": None,
        "margin": None,
    }


# (table, faces): rows whose text names dice ("1d-3 turns (at least 1)", "takes 1d-2", two rolls)
TEXT_LOOKUPS = [
    ("YSFMB", [6, 5, 5, 2]),  # row 16: 1D-3 at least 1: 2 - 3 gives 1
    ("YSFMB", [6, 5, 5, 6]),  # 3
    ("YSFMB", [3, 3, 3, 1]),  # row 9: 1D-2 at least 0: 0
    ("YSCRT", [5, 5, 5, 4]),  # row 15: 1D-3 at least 1: 1
    ("YFMB", [1, 1, 1, 1, 2, 3, 4]),  # row 3: 3D and 1D
]


def test_the_checkers_carry_the_shipped_tables_rows_and_text_dice():
    """The rows (numbers only) and text dice each standalone checker carries are the seeds'."""
    from campaign.seeds import load_tables

    tables = load_tables()
    rows = {command: (t.hi, tuple(e.lo for e in t.entries)) for command, t in tables.items()}
    texts = {
        (command, e.lo): tuple((r.dice, r.minimum) for r in e.rolls)
        for command, t in tables.items()
        for e in t.entries
        if e.rolls
    }
    for checker in (fair_check, proofcheck):
        assert rows == checker._ROWS and texts == checker._TEXT_ROLLS
    assert all(t.entries[n].hi + 1 == t.entries[n + 1].lo for t in tables.values() for n in range(len(t.entries) - 1))


@pytest.mark.parametrize(("command", "faces"), TEXT_LOOKUPS)
def test_the_dice_a_rows_text_names_are_recomputed_and_forgeries_fail(command, faces):
    records = _text_lookup(command, faces)
    assert _both(records) == ((True, None), (True, None))
    assert fair_check.check_records(records)["judged"] == len(records)
    parent, sub = records[:2]
    code = sub["detail"]["text_roll"]
    assert fair_check.judgement(sub) == proofcheck.judgement(sub)
    for forged in (
        {**sub, "total": sub["total"] + 1},  # another duration from the same draws
        {
            **sub,
            "total": sub["total"] + 2,
            "detail": {**sub["detail"], "text_roll": {**code, "value": code["value"] + 2}},
        },
        {
            **sub,
            "total": code["value"] + 2,
            "detail": {**sub["detail"], "text_roll": {**code, "min": code["value"] + 2}},
        },
        {**sub, "expression": "1D+3", "total": max(code["min"], sum(sub["dice"]) + 3)},
        {**sub, "dice": [*sub["dice"], 1]},
        {**sub, "detail": {**sub["detail"], "entry": [19, 19]}},  # a row that does not exist
        {**sub, "detail": {**sub["detail"], "text_roll": {**code, "index": 5}}},
        {**sub, "detail": {**sub["detail"], "text_roll": {**code, "faces": [*code["faces"][:-1], 7]}}},
    ):
        (ok, problem), (proof_ok, proof_problem) = _both([parent, forged])
        assert (ok, proof_ok) == (False, False) and problem == proof_problem, forged
        assert problem.startswith("entry #6: "), problem
    rolls = parent["detail"]["text_rolls"]
    changed = {
        **parent,
        "detail": {**parent["detail"], "text_rolls": [{**rolls[0], "value": rolls[0]["value"] + 1}, *rolls[1:]]},
    }
    (ok, problem), (proof_ok, proof_problem) = _both([changed, *records[1:]])
    assert (ok, proof_ok) == (False, False) and problem == proof_problem and problem.startswith("entry #5: ")
    # a copy that recomputes by itself, from faces that are not the entry's dice: its text shows another value
    first = rolls[0]
    faces = [6, *first["faces"][1:]] if first["faces"][0] != 6 else [5, *first["faces"][1:]]
    spec = fair_check._text_spec(first, parent["detail"]["table"], parent["detail"]["entry"])
    assert spec is not None
    value = max(spec[2], sum(faces) + spec[1])
    shown = {
        **parent,
        "detail": {**parent["detail"], "text_rolls": [{**first, "faces": faces, "value": value}, *rolls[1:]]},
    }
    (ok, problem), (proof_ok, proof_problem) = _both([shown, *records[1:]])
    assert (ok, proof_ok) == (False, False) and problem == proof_problem
    assert problem == (
        f"entry #5: its detail.text_rolls.0 is {[faces, value]}, "
        f"its dice {sub['dice']} give {[sub['dice'], sub['total']]}"
    )


def test_a_text_roll_recorded_before_its_minimum_is_recomputed_by_its_rows_own():
    """Records written before the minimum was recorded: the row's own minimum decides."""
    parent, sub = _text_lookup("YSFMB", [6, 5, 5, 2])
    old = {
        **sub,
        "detail": {**sub["detail"], "text_roll": {k: v for k, v in sub["detail"]["text_roll"].items() if k != "min"}},
    }
    rolls = [{k: v for k, v in code.items() if k != "min"} for code in parent["detail"]["text_rolls"]]
    old_parent = {**parent, "detail": {**parent["detail"], "text_rolls": rolls}}
    assert (old["total"], old["expression"]) == (1, "1D-3")
    assert _both([old_parent, old]) == ((True, None), (True, None))
    lied = {**old, "total": 2, "detail": {**old["detail"], "text_roll": {**old["detail"]["text_roll"], "value": 2}}}
    found = fair_check.check_records([old_parent, lied])
    assert (found["ok"], found["problem"]) == (False, "entry #6: its total is 2, its dice [2] give 1")
    assert proofcheck._fair_problem([old_parent, lied]) == (6, found["problem"])


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ([20, 20], "entry #6: its detail.range is [20, 20], its dice [1, 2, 3] give 13"),  # a row, not 13's
        ([13, 14], "entry #6: the table FEAR has no row [13, 14]"),  # holds 13, and is no row
        ([3, 40], "entry #6: the table FEAR has no row [3, 40]"),
        ([41, 41], "entry #6: the table FEAR has no row [41, 41]"),
    ],
)
def test_a_row_that_is_not_the_tables_fails_every_checker(row, problem):
    """FEAR's rows are [13, 13], [14, 15] ...: [13, 14] holds 13 and is still no row of it."""
    parent, sub = _fright(11, -3, [5, 5, 5, 1, 2, 3])[:2]
    assert sub["detail"]["range"] == [13, 13]
    forged = {**sub, "detail": {**sub["detail"], "range": row}}
    found = fair_check.check_records([parent, forged])
    assert not found["ok"] and proofcheck._fair_problem([parent, forged]) == (6, found["problem"])
    assert found["problem"] == problem
    lookup = _lookup("CRT", 0, [3, 4, 5])
    bad = {**lookup, "detail": {**lookup["detail"], "entry": [12, 13]}}  # holds 12, CRT's row is [12, 12]
    assert fair_check.check_records([bad])["problem"] == "entry #5: the table CRT has no row [12, 13]"
    assert fair_check.check_records([{**lookup, "detail": {**lookup["detail"], "table": "XYZ"}}])["ok"] is False


@pytest.mark.parametrize(("will", "modifier", "faces"), FRIGHT_ROLLS)
def test_the_rolls_a_fright_row_asks_for_are_recomputed_and_forgeries_fail(will, modifier, faces):
    records = _fright(will, modifier, faces)
    assert len(records) > 2, "pick faces whose row rolls dice of its own"
    assert _both(records) == ((True, None), (True, None))
    assert fair_check.check_records(records)["judged"] == len(records)
    for n, sub in enumerate(records[2:], start=2):
        assert fair_check.judgement(sub) == proofcheck.judgement(sub)
        forgeries = [
            {**sub, "total": sub["total"] + 1},  # more turns of stun from the same draws
            {**sub, "dice": [*sub["dice"], 1]},
            {**sub, "detail": {**sub["detail"], "entry": 15}},  # no row of the fright table starts at 15
        ]
        if "effect" in sub["detail"]:  # the effect it sized holds another value than its total
            index = sub["detail"]["effect"]
            field = "amount" if sub["detail"]["purpose"] in ("fatigue", "injury") else "duration"
            effects = copy.deepcopy(records[0]["detail"]["effects"])
            effects[index][field] += 3
            parent = {**records[0], "detail": {**records[0]["detail"], "effects": effects}}
            (ok, problem), (proof_ok, proof_problem) = _both([parent, *records[1:]])
            assert (ok, proof_ok) == (False, False) and problem == proof_problem
            assert problem == (
                f"entry #5: its detail.effects.{index}.{field} is {effects[index][field]}, "
                f"its dice {sub['dice']} give {sub['total']}"
            )
        if sub["target"] is not None:
            forgeries.append(
                {**sub, "outcome": "critical_success" if sub["outcome"] != "critical_success" else "failure"}
            )
        for forged in forgeries:
            changed = [*records[:n], forged, *records[n + 1 :]]
            (ok, problem), (proof_ok, proof_problem) = _both(changed)
            assert (ok, proof_ok) == (False, False) and problem == proof_problem, forged
            assert problem.startswith(f"entry #{sub['seq']}: "), problem


def test_a_fright_roll_recorded_before_it_named_its_effect_is_counted_not_failed():
    """An older record: the total is recomputed; the effect it sized is not compared."""
    records = _fright(11, 0, [6, 6, 6, 1, 1, 1, 4])
    older = [*records[:2], {**records[2], "detail": {k: v for k, v in records[2]["detail"].items() if k != "effect"}}]
    assert (fair_check.check_records(records)["unlinked"], fair_check.check_records(older)["unlinked"]) == (0, 1)
    assert proofcheck._fair_problem(older) == (None, None)
    assert not fair_check.check_records([*older[:2], {**older[2], "total": 5}])["ok"]

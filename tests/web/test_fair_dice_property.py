"""A property of fair dice through the real table server: honest rolls of every shape
(plain, several dice, kept dice, several terms and arithmetic, compared, repeated, reroll
tables, a called fright check and its table) pass every checker, and changing any one hashed field of a fair entry
(share, dice, total, outcome, margin, draws, index) fails every one.

The checkers: `history verify` and `proof check` run campaign/fair_check.py's rules, and
proofcheck.py carries its own copy; both are run on every mutation (fair_check.py run
alone is the same file). Fixed seeds (derandomized Hypothesis, a pinned server seed),
bounded examples."""

from __future__ import annotations

import copy
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import campaign.fair_check as fair_check
import campaign.proofcheck as proofcheck
from campaign.core.fair_dice import face_v2
from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.integration.rawdb import raw_connection
from tests.web.test_fair_dice_server import end_fair, start_fair, table  # noqa: F401 (fixture)

COMMANDS = [
    "3D6<=12",
    "3D6",
    "2D6+3>=8",
    "4D6KH3",
    "1D20",
    "3D6+1<=10",
    "X3 3D6<=11",
    "CRT",
    "FMB",
    "HCRT",
    "2D6+1D6+3>=10",
    "(2D6+1)*2-1D4",
]
FIELDS = ("share", "dice", "total", "outcome", "margin", "draws", "index")
_shares = iter(f"{n:064x}" for n in range(1, 10**6))


def _records(cli) -> list[dict]:
    with raw_connection(cli.db) as conn:
        return [json.loads(raw) for (raw,) in conn.execute("SELECT record FROM ledger ORDER BY seq").fetchall()]


def _verdicts(records: list[dict]) -> tuple[bool, bool]:
    """(fair_check holds, proofcheck holds) over the records."""
    return fair_check.check_records(records)["ok"], proofcheck._fair_problem(records)[1] is None


def _mutated(record: dict, field: str, seed: str) -> dict | None:
    """The record with `field` changed, or None when the field says nothing here (a
    result that is not judged: a repeat's total, say)."""
    changed = copy.deepcopy(record)
    fair = changed["detail"]["fair"]
    judged = fair_check.judgement(record) is not None
    if field == "share":
        faces = [f for _, f in fair["draws"]]
        fair["share"] = next(
            s
            for s in _shares
            if [face_v2(seed, s, fair["from"] + i, sides) for i, (sides, _) in enumerate(fair["draws"])] != faces
        )
    elif field == "dice":
        changed["dice"][0] = changed["dice"][0] % fair["draws"][0][0] + 1
    elif field == "draws":
        fair["draws"][0][1] = fair["draws"][0][1] % fair["draws"][0][0] + 1
    elif field == "index":
        fair["from"] += 1
    elif not judged:
        return None
    elif field == "total":
        changed["total"] += 1
    elif field == "outcome":
        changed["outcome"] = {"success": "failure", None: "success"}.get(changed["outcome"], "success")
    else:
        changed["margin"] = 0 if changed["margin"] is None else changed["margin"] + 1
    return changed


@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(commands=st.lists(st.sampled_from(COMMANDS), min_size=1, max_size=4), fright=st.booleans())
def test_honest_rolls_pass_and_any_changed_field_fails(table, commands, fright):
    cli, browser = table
    aki = browser("Aki")
    commit = start_fair(cli)
    first = len(_records(cli)) + 1
    for command in commands:
        rolled = aki.post("/api/rolls", {"command": command, "character": "鈴音", "share": next(_shares)})
        assert rolled.status_code == 201, rolled.text
    if fright:  # Will -10: the check fails and the fright table rolls in the same request
        call = cli.json("call", "fright", "鈴音", "--mod", "-10")
        assert aki.post(f"/api/calls/{call['call_id']}/roll", {"share": next(_shares)}).status_code == 201
    seed = end_fair(cli, commit)
    records = _records(cli)
    assert _verdicts(records) == (True, True)
    assert cli.json("history", "verify")["ok"]
    fair_entries = [r for r in records[first - 1 :] if "fair" in (r.get("detail") or {})]
    assert len(fair_entries) >= len(commands)
    for record in fair_entries:
        for field in FIELDS:
            changed = _mutated(record, field, seed)
            if changed is None:
                continue
            forged = [changed if r["seq"] == record["seq"] else r for r in records]
            assert _verdicts(forged) == (False, False), (field, record)

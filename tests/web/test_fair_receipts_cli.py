"""`campaign fair check-receipts FILE` and the standalone receipts_check.py (SQLite and
PostgreSQL): a player's receipts file, written the way the table page writes it
(static/receipts.js, docs/fair-dice.md "The receipts file"), checked against the ledger,
an export and a proof bundle; forged entries named; a file that is not a receipts file,
or is another campaign's, refused in one line; in both languages."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from campaign import fair_check, proofcheck, receipts_check
from campaign.core.success import judge_success
from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.unit.test_fair_rules_agree import _fright, _record
from tests.web.table_server import Browser, served
from tests.web.test_fair_dice_server import SHARE_A, SHARE_B, end_fair, start_fair

STANDALONE = Path(receipts_check.__file__)
RULES = Path(fair_check.__file__)  # the standalone copy reads the dice rules from it
WRONG = "entry #{seq}: its {name} is {value}, its dice {dice} give {should}"


def _receipt(key: str, share: str, command: str, answer: dict) -> dict:
    """One receipt as the page keeps it: what it sent and what the server answered."""
    entries = answer.get("entries", [answer])
    return {
        "key": key,
        "share": share,
        "path": "/api/rolls",
        "command": command,
        "character": "鈴音",
        "sent_at": "2026-12-04T12:00:00.000Z",
        "refused": None,
        "answer": {
            "share": answer.get("share"),
            "entries": [
                {name: entry.get(name) for name in ("seq", "dice", "total", "outcome", "fair")} for entry in entries
            ],
        },
    }


def _table(gurps, tmp_path) -> tuple[Path, list[dict], int]:
    """Two rolls of Aki's with shares, one from another device; the seed revealed. (the
    receipts file, its two answers, the other device's seq)"""
    commit = start_fair(gurps)
    with served(gurps.db) as base:
        aki = Browser(base)
        aki.join(gurps.json("invite", "Aki")["join_path"])
        answers = [
            aki.post(
                "/api/rolls", {"command": command, "character": "鈴音", "share": share}, key=f"receipt-{number}"
            ).json()
            for number, (command, share) in enumerate((("3D6<=12", SHARE_A), ("2D6+1", SHARE_B)))
        ]
        # the answer echoes the share the entries recorded, and each entry's fair object
        assert [(a["share"], a["entries"][0]["fair"]["share"]) for a in answers] == [
            (SHARE_A, SHARE_A),
            (SHARE_B, SHARE_B),
        ]

        other = aki.post("/api/rolls", {"command": "3D6", "character": "鈴音", "share": "0f" * 32}).json()
        aki.close()
    end_fair(gurps, commit)
    receipts = [
        _receipt(f"receipt-{n}", share, command, answer)
        for n, ((command, share), answer) in enumerate(zip((("3D6<=12", SHARE_A), ("2D6+1", SHARE_B)), answers))
    ]
    document = {
        "format": "campaign-receipts",
        "version": 1,
        "campaign": "テスト卓",
        "ledger": "テスト卓",
        "player": "Aki",
        "saved_at": "2026-12-04T12:00:00.000Z",
        "receipts": receipts,
    }
    path = tmp_path / "receipts-Aki.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path, answers, other["seq"]


def _standalone(*args: str, lang: str, rules: bool = True) -> subprocess.CompletedProcess[str]:
    """The checker as a player runs it: a copy with fair_check.py beside it (`rules`), and
    `-I -S` (no site-packages: nothing of the checkout or its packages importable)."""
    elsewhere = Path(args[0]).parent / "player"
    elsewhere.mkdir(exist_ok=True)
    script = elsewhere / "receipts_check.py"
    shutil.copy(STANDALONE, script)
    (elsewhere / "fair_check.py").unlink(missing_ok=True)
    if rules:
        shutil.copy(RULES, elsewhere / "fair_check.py")
    return subprocess.run(
        [sys.executable, "-I", "-S", str(script), "--lang", lang, *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=elsewhere,
    )


def _imported(path: Path) -> set[str]:
    imported = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    return imported


def test_the_standalone_checker_imports_only_the_standard_library_and_fair_check():
    """`campaign` only for `from campaign import fair_check`, inside the package; a copy
    loads the fair_check.py beside it."""
    assert _imported(STANDALONE) == {
        "__future__",
        "campaign",
        "collections",
        "hashlib",
        "importlib",
        "json",
        "os",
        "sys",
        "types",
        "typing",
    }
    assert _imported(RULES) <= set(sys.stdlib_module_names) | {"__future__"}


def test_the_standalone_checker_without_fair_check_beside_it_says_so(tmp_path):
    receipts = tmp_path / "receipts.json"
    receipts.write_text("{}", encoding="utf-8")
    alone = _standalone(str(receipts), str(receipts), lang="en", rules=False)
    missing = tmp_path / "player" / "fair_check.py"
    assert (alone.returncode, alone.stdout, alone.stderr.strip()) == (
        2,
        "",
        f"receipts_check.py needs fair_check.py beside it: {missing} is missing",
    )


@pytest.mark.dialect  # the ledger read on each backend
def test_a_good_file_holds_against_the_ledger_an_export_and_a_bundle(gurps, tmp_path, monkeypatch):
    path, answers, other = _table(gurps, tmp_path)
    found = gurps.json("fair", "check-receipts", str(path))
    assert found == {
        "ok": True,
        "player": "Aki",
        "receipts": 2,
        "derived": 2,
        "pending": 0,
        "abandoned": 0,
        "v1": 0,  # the server derives v2 dice
        "problems": [],
        "uncovered": [other],
    }
    english = gurps.run("fair", "check-receipts", str(path)).stdout.splitlines()
    assert english == [
        "your receipts hold: 2 rolls, 2 entries recomputed from their seed, 0 wait for the reveal, "
        "0 unprovable (seed abandoned)",
        f"entries in Aki's name that no receipt covers (rolled elsewhere, or not by them): #{other}",
    ]
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    japanese = gurps.run("fair", "check-receipts", str(path)).stdout.splitlines()
    assert japanese[0] == (
        "控えは成り立ちます: ロール 2 回、シードから再計算した記録 2 件、公開待ち 0 件、証明不能 (シード放棄) 0 件"
    )
    # the same file against an export and a proof bundle, by the command and by the standalone copy
    export = tmp_path / "table.jsonl"
    gurps.run("export", str(export))
    bundle = tmp_path / "proof.json"
    gurps.run("history", "seal")
    gurps.run("history", "proof", str(answers[0]["entries"][0]["seq"]), "-o", str(bundle))
    for ledger in (export, bundle):
        assert gurps.json("fair", "check-receipts", str(path), "--against", str(ledger))["ok"], ledger
        alone = _standalone(str(path), str(ledger), lang="ja")
        assert (alone.returncode, alone.stdout.splitlines()[0]) == (0, japanese[0]), alone.stderr


@pytest.mark.dialect  # the ledger read on each backend
def test_forged_entries_are_named(gurps, tmp_path):
    """The ledger's entry says another total than its dice make; a receipt whose share the
    server replaced; an answer whose dice the chain does not hold."""
    path, answers, _ = _table(gurps, tmp_path)
    export = tmp_path / "table.jsonl"
    gurps.run("export", str(export))
    first, second = answers
    lines = []
    for line in export.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if item.get("type") == "entry":
            record = json.loads(item["record"])
            if record["seq"] == second["seq"]:
                record["total"] += 1  # a total the dice do not make
                item["record"] = json.dumps(record, ensure_ascii=False)
        lines.append(json.dumps(item, ensure_ascii=False))
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join(lines) + "\n", encoding="utf-8")
    document = json.loads(path.read_text(encoding="utf-8"))
    document["receipts"][0]["share"] = "ee" * 32  # the device sent this; the entry holds another
    shown = [die % 6 + 1 for die in second["dice"]]  # every die other than the one rolled
    document["receipts"][1]["answer"]["entries"][0]["dice"] = shown
    document["receipts"][1]["answer"]["share"] = None  # an answer that did not echo the share
    replaced = tmp_path / "replaced.json"
    replaced.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    found = gurps.json("fair", "check-receipts", str(replaced), "--against", str(forged), expect=1)
    assert found["ok"] is False
    problems = {(p["seq"], p["problem"]) for p in found["problems"]}
    assert (
        first["seq"],
        f"entry #{first['seq']} carries share {SHARE_A[:12]}…, not the one the device sent (eeeeeeeeeeee…): "
        "the server replaced the share",
    ) in problems
    assert (
        second["seq"],
        f"entry #{second['seq']}: its total is {sum(second['dice']) + 2}, its dice {second['dice']} give "
        f"{sum(second['dice']) + 1}",
    ) in problems
    assert (
        second["seq"],
        f"entry #{second['seq']} holds dice {second['dice']}, but the server showed {shown}",
    ) in problems
    assert (None, "receipt receipt-1: the server's answer did not echo the share the device sent") in problems
    alone = _standalone(str(replaced), str(forged), lang="en")
    assert alone.returncode == 1 and alone.stdout.startswith("your receipts do not hold: ")
    japanese = _standalone(str(replaced), str(forged), lang="ja").stdout  # fair_check.py's words for the total
    total = sum(second["dice"])
    assert (
        f"  記録 #{second['seq']}: total が {total + 2} ですが、出目 {second['dice']} からは {total + 1} になります"
        in (japanese.splitlines())
    )


@pytest.mark.dialect  # the ledger read on each backend
def test_not_a_receipts_file_or_another_campaigns_gets_one_line(gurps, tmp_path, monkeypatch):
    path, _, _ = _table(gurps, tmp_path)
    export = tmp_path / "table.jsonl"
    gurps.run("export", str(export))
    refused = gurps.run("fair", "check-receipts", str(export), expect=2)
    assert refused.stdout == "" and refused.stderr.strip() == (
        f"{export} is not a receipts file (campaign-receipts, version 1)"
    )
    document = json.loads(path.read_text(encoding="utf-8"))
    document["ledger"] = document["campaign"] = "別の卓"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    refused = gurps.run("fair", "check-receipts", str(other), expect=1)
    assert refused.stderr.strip() == "the receipts are campaign 別の卓's, not テスト卓's"
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    refused = gurps.run("fair", "check-receipts", str(other), expect=1)
    assert refused.stderr.strip() == "この控えはキャンペーン 別の卓 のもので、テスト卓 のものではありません"
    refused = gurps.run("fair", "check-receipts", str(export), expect=2)
    assert refused.stderr.strip() == f"{export} は控えのファイル (campaign-receipts, version 1) ではありません"
    alone = _standalone(str(export), str(export), lang="ja")
    assert (alone.returncode, alone.stderr.strip()) == (2, refused.stderr.strip())
    alone = _standalone(str(other), str(export), lang="en")
    assert (alone.returncode, alone.stderr.strip()) == (1, "the receipts are campaign 別の卓's, not テスト卓's")


def test_every_checkers_judge_is_the_rules_judge():
    """fair_check.py (which receipts_check.py reads) and proofcheck.py carry their own few
    lines of docs/rules.md "Success roll": every raw 3d6, dice modifier and target gives
    campaign.core.success's outcome."""
    for raw in range(3, 19):
        for modifier in range(-3, 4):
            for target in range(-2, 22):
                for sorcery in (False, True):
                    core = judge_success(raw, raw + modifier, target, sorcery=sorcery).outcome
                    assert fair_check.gurps_outcome(raw, raw + modifier, target, sorcery) == core
                    assert proofcheck.gurps_outcome(raw, raw + modifier, target, sorcery) == core


def test_a_fright_checks_entries_follow_from_their_dice_and_from_each_other():
    """docs/rules.md "Fright check": the table's roll is its 3d6 plus the check's own margin
    of failure, and a roll the row asked for sizes its effect; each checked against the
    others of the ledger, as the engine recorded them."""
    records = _fright(11, 0, [6, 6, 6, 1, 1, 1, 4])  # missed by 7; the row rolls turns of stun
    by_seq = {record["seq"]: record for record in records}
    assert [receipts_check.follows(record, by_seq) for record in records] == [None] * len(records)
    check, table, sized = records[:3]
    forged = {**table, "total": table["total"] + 1}
    assert receipts_check.follows(forged, by_seq) == (
        WRONG,
        {
            "seq": table["seq"],
            "name": "total",
            "value": table["total"] + 1,
            "dice": table["dice"],
            "should": table["total"],
        },
    )
    # the table's margin must be its own check's: judged against a check that missed by 2 less
    margin = table["detail"]["margin_added"]
    easier = {**by_seq, check["seq"]: {**check, "target": check["target"] + 2}}
    assert receipts_check.follows(table, easier) == (
        WRONG,
        {
            "seq": table["seq"],
            "name": "detail.margin_added",
            "value": margin,
            "dice": check["dice"],
            "should": margin - 2,
        },
    )
    longer = {**sized, "dice": [sized["dice"][0] % 6 + 1], "total": sized["dice"][0] % 6 + 1}
    found = receipts_check.follows(longer, by_seq)
    assert found is not None and found[1]["seq"] == check["seq"] and found[1]["name"].startswith("detail.effects.")


@pytest.mark.parametrize(
    ("expression", "faces", "gurps", "forged", "wrong"),
    [
        ("3D6<=12", [1, 6, 6], True, {"total": 3, "outcome": "critical_success"}, "total"),
        ("3D6<=12", [1, 6, 6], True, {"outcome": "success"}, "outcome"),
        ("3D6<=12", [1, 6, 6], True, {"dice": [1, 1, 1, 6]}, "count"),
        ("3D6<=12", [1, 6, 6], True, {"target": 11}, "target"),
        ("3D6<=12", [1, 6, 6], True, {"margin": 1}, "margin"),
        ("3D6-2<=12", [6, 6, 6], True, {}, None),
        # BCDice's other habits: a `>=` target, several terms
        ("2D6+3>=10", [2, 3], False, {"outcome": "success"}, "outcome"),
        ("2D6+3>=10", [4, 3], False, {}, None),
        ("2D6+1D6", [2, 3, 6], False, {"total": 12}, "total"),
        ("2D6+1", [3, 4], False, {}, None),
    ],
)
def test_a_rolls_total_outcome_and_margin_follow_from_its_dice(expression, faces, gurps, forged, wrong):
    """docs/rules.md "Success roll": the attacker's `[1,6,6] = 3 critical success`, a
    die too many, a target not the expression's, a `>=` outcome and a several-term total
    its dice do not make; and the engine's own records, which follow."""
    found = receipts_check.follows({**_record(expression, faces, gurps), **forged}, {})
    if wrong is None:
        assert found is None
    elif wrong == "count":
        assert (
            found is not None and found[0] == "entry #{seq}: {expression} rolls {count} d{sides}, its dice are {dice}"
        )
    else:
        assert found is not None and (found[0], found[1]["name"]) == (WRONG, wrong)

"""The attacks on fair dice, each run against the real table server with its dice step
replaced the way the attacker did (the same writes as the stock code, inputs the
attacker chose), and what catches each (docs/fair-dice.md "Who can cheat, and what
catches it"):

1. a recorded share other than the one the phone sent: the answer echoes the recorded
   share, so the player's page sees it at once;
2. a server-chosen base (version 1's seq, best of several) under a version-2 seed: every
   checker refuses a version-1 entry under a version-2 commitment;
3. dice that are not the derived draws (one die more, or a total and outcome that do not
   follow from the dice): every checker refuses them;
4. an import in the middle of a fair scenario (tests/web/test_fair_dice_abandon.py).

"Every Python checker" is `history verify`, `proof check`, proofcheck.py and
fair_check.py, the last two as copies run alone."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import campaign.fair_check as fair_check
import campaign.proofcheck as proofcheck
from campaign.core.fair_dice import face, face_v2
from campaign.services.fair import seeds as fair_seeds
from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.web.test_fair_dice_server import PINNED_SEED, SHARE_A, end_fair, start_fair, table  # noqa: F401


def every_checker(cli: Cli, seq: int, tmp_path: Path) -> dict[str, str]:
    """Seal, write a proof bundle of entry `seq`, and run every Python checker on it:
    {checker: its one-line verdict}, each of which must be a refusal."""
    cli.run("history", "seal")
    bundle = tmp_path / "proof.json"
    cli.run("history", "proof", str(seq), "-o", str(bundle))
    alone = tmp_path / "player"
    alone.mkdir(exist_ok=True)
    for module in (proofcheck, fair_check):
        shutil.copy(Path(module.__file__), alone / Path(module.__file__).name)

    def run(script: str) -> subprocess.CompletedProcess:  # -I: nothing of the project importable
        return subprocess.run([sys.executable, "-I", str(alone / script), str(bundle)], capture_output=True, text=True)

    verdicts = {
        "history verify": cli.error("history", "verify", code=1),
        "proof check": cli.error("proof", "check", str(bundle), code=1),
    }
    for script in ("proofcheck.py", "fair_check.py"):
        ran = run(script)
        assert ran.returncode == 1, (script, ran.stdout, ran.stderr)
        verdicts[script] = ran.stderr.strip()
    return verdicts


def test_attack_1_a_ground_share_shows_in_the_answer(table, monkeypatch):
    """The server replaces the phone's share with one it ground until 3D6 gives 17 or 18.
    The entry is consistent in itself (so no ledger-only checker can tell), but the answer
    echoes the recorded share, which is not the one sent: the player's receipt (the
    page, `campaign fair check-receipts`) sees the swap at once."""
    monkeypatch.setattr(fair_seeds.fair_dice, "new_seed", lambda: PINNED_SEED)
    honest_arm = fair_seeds.FairDice.arm

    def grinding_arm(self, session, campaign_id):
        self.share = next(
            share
            for share in (f"{n:064x}" for n in itertools.count())
            if sum(face_v2(PINNED_SEED, share, i, 6) for i in range(3)) >= 17
        )
        honest_arm(self, session, campaign_id)

    monkeypatch.setattr(fair_seeds.FairDice, "arm", grinding_arm)
    cli, browser = table
    aki = browser("Aki")
    start_fair(cli)
    answer = aki.post("/api/rolls", {"command": "3D6<=12", "character": "鈴音", "share": SHARE_A}).json()
    assert sum(answer["dice"]) >= 17 and answer["outcome"] == "critical_failure"
    assert answer["share"] != SHARE_A and answer["entries"][0]["fair"]["share"] == answer["share"]
    assert cli.json("history", "show", str(answer["seq"]))["detail"]["fair"]["share"] == answer["share"]


def test_attack_2_a_chosen_base_under_a_version_2_seed_fails_every_checker(table, monkeypatch, tmp_path):
    """The server keeps the best of several version-1 bases (seqs it could write filler
    entries up to), recording the entry in version 1's shape: no checker accepts a
    version-1 entry under a commitment made for version 2."""
    monkeypatch.setattr(fair_seeds.fair_dice, "new_seed", lambda: PINNED_SEED)

    def chosen_base(self, dice):
        first = self.recorded
        base = max(range(100, 120), key=lambda b: sum(face(PINNED_SEED, b, self.share, first + i, 6) for i in range(3)))
        faces = [face(PINNED_SEED, base, self.share, first + i, 6) for i in range(3)]
        dice[:] = faces
        self.recorded = first + 3
        return {
            "commit": self.commit_seq,
            "seq": base,
            "share": self.share,
            "from": first,
            "draws": [[6, f] for f in faces],
        }

    cli, browser = table
    aki = browser("Aki")
    commit = start_fair(cli)
    with monkeypatch.context() as patch:
        patch.setattr(fair_seeds.FairDice, "entry_fair", chosen_base)
        seq = aki.post("/api/rolls", {"command": "3D6", "character": "鈴音", "share": SHARE_A}).json()["seq"]
    end_fair(cli, commit)
    for checker, said in every_checker(cli, seq, tmp_path).items():
        assert f"entry #{seq}: its fair-dice inputs are malformed" in said, (checker, said)


@pytest.mark.parametrize(
    ("forge", "words"),
    [
        ("one_die_more", "are not the derived draws"),  # honest draws plus an extra face
        ("critical_from_nothing", "its total is 3, its dice"),  # any three dice = 3, a critical success
    ],
)
def test_attack_3_dice_that_are_not_the_draws_fail_every_checker(table, monkeypatch, tmp_path, forge, words):
    """The server records the derived draws but shows other dice (one more, all ones), or
    a total and outcome its dice do not give: every checker recomputes and refuses."""
    from campaign import ledger

    honest_append = ledger.append

    def forged_append(session, campaign, actor, entry, **options):
        if entry.kind == "roll" and getattr(actor, "fair", None) is not None:
            if forge == "one_die_more":
                entry = _replace(entry, dice=[*entry.dice, 1], total=entry.total + 1)
            else:
                entry = _replace(entry, total=3, outcome="critical_success", margin=9)
        return honest_append(session, campaign, actor, entry, **options)

    cli, browser = table
    aki = browser("Aki")
    commit = start_fair(cli)
    monkeypatch.setattr(ledger, "append", forged_append)
    seq = aki.post("/api/rolls", {"command": "3D6<=12", "character": "鈴音", "share": SHARE_A}).json()["seq"]
    monkeypatch.setattr(ledger, "append", honest_append)
    end_fair(cli, commit)
    for checker, said in every_checker(cli, seq, tmp_path).items():
        assert f"entry #{seq}: " in said and words in said, (checker, said)


def _replace(entry, **changes):
    from dataclasses import replace

    return replace(entry, **changes)


def test_the_checkers_read_the_forged_bundle_alike(tmp_path):
    """The forged entries above, as bare records: fair_check and proofcheck's copy agree."""
    record = {
        "seq": 2,
        "kind": "roll",
        "expression": "3D6<=12",
        "dice": [1, 6, 6],
        "total": 3,
        "target": 12,
        "outcome": "critical_success",
        "margin": 9,
        "detail": {"gurps": {"automatic": False}},
    }
    problem = fair_check.check_records([record])["problem"]
    assert problem == "entry #2: its total is 3, its dice [1, 6, 6] give 13"
    assert proofcheck._fair_problem([record]) == (2, problem)
    assert json.dumps(problem)

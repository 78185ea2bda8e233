"""The four fudges of a provably fair roll (a changed die, a changed share, a swapped
seed, a seed revealed for the wrong commitment), each in a proof bundle a forger
re-hashed from end to end, caught by `campaign proof check`, by a copy of
campaign/proofcheck.py run alone and by a copy of campaign/fair_check.py run alone,
in the same words."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import campaign.fair_check as fair_check
import campaign.proofcheck as proofcheck
from campaign.core.fair_dice import derive, face_v2
from campaign.ledger import canonical_json, chain_hash
from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.web.test_fair_dice_server import SHARE_A, end_fair, start_fair, table  # noqa: F401 (fixture)

SEED = "a3f1c2e4b5d6978812345678abcdef0011223344556677889900aabbccddeeff"
SHARE = "0123456789abcdef0123456789abcdef"
VECTORS = [
    (6, 7, SHARE, 0),
    (6, 7, SHARE, 1),
    (6, 8, SHARE, 0),
    (6, 7, SHARE, 129),
    (6, 7, "", 0),
    (10, 7, SHARE, 0),
    (10, 7, SHARE, 54),
    (100, 7, SHARE, 0),
    (100, 7, SHARE, 2),
    (20, 7, SHARE, 0),
    (20, 7, SHARE, 4),
    (1000, 3, SHARE, 11),
    (7, 9, "ff" * 64, 3),
    (6, None, SHARE * 2, 0),  # version 2: no seq
    (100, None, SHARE * 2, 10),
    (1000, None, "ff" * 32, 11),
]


@pytest.mark.parametrize(("sides", "seq", "share", "index"), VECTORS)
def test_the_vendored_derivations_agree_with_the_core(sides, seq, share, index):
    """proofcheck.py carries its own copy of the derivation: it must give the docs' faces."""
    expected = derive(SEED, seq, share, index, sides).face
    assert (
        proofcheck.fair_face(SEED, seq, share, index, sides)
        == fair_check.derive(SEED, seq, share, index, sides)
        == expected
    )


def _forge(bundle: dict, change) -> dict:
    """The bundle with `change(record)` applied to each record, every hash recomputed."""
    forged = copy.deepcopy(bundle)
    prev = forged["anchor"]
    for entry in forged["entries"]:
        record = json.loads(entry["record"])
        change(record)
        entry["record"] = canonical_json(record)
        entry["prev_hash"], entry["hash"] = prev, chain_hash(prev, entry["record"])
        prev = entry["hash"]
    forged["head"] = prev
    return forged


def test_the_four_fudges_are_caught_in_a_bundle_by_every_checker(table, tmp_path):
    cli, browser = table
    aki = browser("Aki")
    commit = start_fair(cli)
    rolled = aki.post("/api/rolls", {"command": "3D6<=12", "character": "鈴音", "share": SHARE_A}).json()
    seq = rolled["seq"]
    seed = end_fair(cli, commit)
    second = cli.json("scenario", "start", "第二話", "--with", "鈴音", "--fair")["seed_commit"]
    other_seed = cli.json("scenario", "end")["seed_reveal"]["seed"]
    cli.run("history", "seal")
    good = tmp_path / "proof.json"
    cli.run("history", "proof", str(commit["seq"]), "-o", str(good))
    bundle = json.loads(good.read_text(encoding="utf-8"))
    reveal_seq = next(
        json.loads(e["record"])["seq"]
        for e in bundle["entries"]
        if '"seed_reveal"' in e["record"] and json.loads(e["record"])["detail"]["reveals"] == commit["seq"]
    )
    changed_share = next(
        s for s in ("c3" * 32, "d4" * 32, "e5" * 32) if [face_v2(seed, s, i, 6) for i in range(3)] != rolled["dice"]
    )

    def at(target: int, edit):
        return lambda record: edit(record) if record["seq"] == target else None

    def fudge(record):  # die and draw changed together: only the seed tells
        record["dice"][0] = record["dice"][0] % 6 + 1
        record["detail"]["fair"]["draws"][0][1] = record["dice"][0]
        record["total"] = sum(record["dice"])

    def wrong_commitment(record):  # the second scenario's seed, claimed for the first commitment
        record["detail"]["seed"] = other_seed
        record["detail"]["commitment"] = second["commitment"]

    cases = {
        "fudged die": (at(seq, fudge), f"entry #{seq}: die 1 (d6) shows"),
        "changed share": (at(seq, lambda r: r["detail"]["fair"].update(share=changed_share)), "the die was changed"),
        "swapped seed": (
            at(reveal_seq, lambda r: r["detail"].update(seed="0" * 64)),
            f"seed reveal #{reveal_seq} does not match commitment #{commit['seq']}",
        ),
        "wrong commitment": (
            at(reveal_seq, wrong_commitment),
            f"seed reveal #{reveal_seq} does not match commitment #{commit['seq']}",
        ),
    }
    player = tmp_path / "player"
    player.mkdir()
    for module in (proofcheck, fair_check):
        shutil.copy(Path(module.__file__), player / Path(module.__file__).name)

    def alone(script: str, path: Path) -> subprocess.CompletedProcess:  # -I: nothing of the project importable
        return subprocess.run(
            [sys.executable, "-I", str(player / script), str(path)], capture_output=True, text=True, cwd=player
        )

    assert cli.json("proof", "check", str(good))["ok"] and alone("proofcheck.py", good).returncode == 0
    held = alone("fair_check.py", good)
    assert held.returncode == 0 and "2 entries recomputed from 2 revealed seeds" not in held.stdout
    assert "1 entries recomputed from 2 revealed seeds" in held.stdout, held.stdout
    for name, (change, words) in cases.items():
        path = tmp_path / f"{name.replace(' ', '_')}.json"
        path.write_text(json.dumps(_forge(bundle, change), ensure_ascii=False), encoding="utf-8")
        target = reveal_seq if "seed" in name or "commitment" in name else seq
        cli_says = cli.error("proof", "check", str(path), code=1)
        standalone = alone("proofcheck.py", path)
        fair_only = alone("fair_check.py", path)
        assert cli_says.startswith(f"proof rejected: entry #{target}: fair dice: ") and words in cli_says, name
        assert standalone.returncode == 1 and standalone.stderr.strip() == cli_says, "the same verdict, same words"
        assert fair_only.returncode == 1 and words in fair_only.stderr, (name, fair_only.stderr)
        with pytest.raises(proofcheck.Rejected) as caught:
            proofcheck.check_file(str(path))
        assert caught.value.seq == target
    assert cli.json("history", "verify")["fair"]["checked"] == 1

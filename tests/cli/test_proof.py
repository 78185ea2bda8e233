"""Proof bundles: `history proof` writes them, `proof check` and the standalone
`campaign.proofcheck` verify them without the database, and agree byte for byte."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import campaign.proofcheck as standalone
from campaign import ledger
from campaign.services.ledger import proof as project

STANDALONE = Path(standalone.__file__)


def _play(cli) -> str:
    """A few entries, a seal, then one more roll after it; returns the seal's head."""
    cli.run("roll", "3D6<=12", "回避", "--char", "鈴音", "--dice", "1,4,6")
    cli.run("roll", "2D6", "--dice", "6,6")
    sealed = cli.json("history", "seal", "--reason", "第1話 終了")
    cli.run("roll", "1D6", "--dice", "3")
    return sealed["head"]


def _seq_of(cli, expression: str) -> int:
    return next(e["seq"] for e in cli.json("history", "--all") if e["expression"] == expression)


def both_reject(data: bytes) -> tuple[Exception, Exception]:
    """Both checkers' rejections of the same bytes (fails the test if either accepts)."""
    with pytest.raises(standalone.Rejected) as mine:
        standalone.check(standalone.load(data))
    with pytest.raises(project.ProofRejected) as theirs:
        project.check_bundle(project.load_bundle(data))
    return mine.value, theirs.value


def test_proof_round_trip_on_both_backends(gurps, tmp_path):
    head = _play(gurps)
    seq = _seq_of(gurps, "3D6<=12")
    out = tmp_path / "proof.json"
    written = gurps.json("history", "proof", str(seq), "-o", str(out))
    bundle = json.loads(out.read_text(encoding="utf-8"))
    assert (written["seq"], written["head"], written["entries"]) == (seq, head, written["head_seq"] - seq + 1)
    assert bundle["head"] == head and bundle["seq"] == seq and len(bundle["entries"]) == written["entries"]
    entries = {e["seq"]: e for e in gurps.json("history", "--all")}
    assert bundle["anchor"] == entries[seq]["prev_hash"]
    assert [e["hash"] for e in bundle["entries"]] == [entries[n]["hash"] for n in range(seq, written["head_seq"] + 1)]
    assert json.loads(bundle["entries"][-1]["record"])["kind"] == "seal"

    checked = gurps.json("proof", "check", str(out), "--head", head.upper())
    assert checked["ok"] and checked["head_given"] and checked["entry"]["dice"] == [1, 4, 6]
    assert standalone.check_file(str(out), head) == checked

    human = gurps.run("proof", "check", str(out), "--head", head)
    assert human.stdout.splitlines()[0] == head and "3D6<=12 [1,4,6] = 11" in human.stdout


def test_the_latest_seal_is_the_default_head_and_head_picks_an_earlier_one(sqlite_gurps, tmp_path):
    cli = sqlite_gurps
    first = _play(cli)
    second = cli.json("history", "seal")["head"]
    seq = _seq_of(cli, "2D6")
    latest = cli.json("history", "proof", str(seq), "-o", str(tmp_path / "a.json"))
    earlier = cli.json("history", "proof", str(seq), "--head", first, "-o", str(tmp_path / "b.json"))
    assert latest["head"] == second and earlier["head"] == first and latest["entries"] == earlier["entries"] + 2
    # A bundle proves against the seals it holds only: b.json ends before the second seal.
    message = cli.error("proof", "check", str(tmp_path / "b.json"), "--head", second, code=1)
    assert message == (
        "proof rejected: this bundle does not contain your seal: the bundle ends before it, "
        "the history was rewritten after it, or the hash is mistyped"
    )
    # a.json runs on to the second seal; checked against the first (inside it), it holds.
    for given in (first, first[:16].upper()):
        held = cli.json("proof", "check", str(tmp_path / "a.json"), "--head", given)
        assert (held["head"], held["head_seq"], held["bundle_head"]) == (first, earlier["head_seq"], second)
        assert held["bundle_head_seq"] == latest["head_seq"] and held["entries"] == latest["entries"]
        assert standalone.check_file(str(tmp_path / "a.json"), given.lower()) == held
    human = cli.run("proof", "check", str(tmp_path / "a.json"), "--head", first[:16]).stdout.splitlines()
    assert human[0] == first and f"sealed at #{earlier['head_seq']} " in human[1]
    assert human[-1] == (
        f"  the bundle runs on to seal #{latest['head_seq']}; your seal #{earlier['head_seq']} proves it up to there"
    )
    # The seal itself can be proven (a bundle of one entry).
    seal_seq = earlier["head_seq"]
    alone = json.loads(cli.run("history", "proof", str(seal_seq), "--head", first, "-o", "-", "--json").stdout)
    assert len(alone["entries"]) == 1 and standalone.check(alone, first)["seq"] == seal_seq


def test_proof_refusals_write_nothing(sqlite_gurps, tmp_path):
    cli = sqlite_gurps
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "proof.json"
    cli.run("roll", "2D6", "--dice", "1,2")
    assert "no seal yet" in cli.error("history", "proof", "1", "-o", str(out), code=1)
    head = cli.json("history", "seal")["head"]
    cli.run("roll", "2D6", "--dice", "1,2")
    last = cli.json("history", "--limit", "1")[0]
    assert "after the seal" in cli.error("history", "proof", str(last["seq"]), "-o", str(out), code=1)
    assert "not a seal" in cli.error("history", "proof", "1", "--head", last["hash"], "-o", str(out), code=1)
    assert "no seal with hash" in cli.error("history", "proof", "1", "--head", "ab" * 32, "-o", str(out), code=1)
    assert "64 hex digits, or its first 16" in cli.error(
        "history", "proof", "1", "--head", "abc", "-o", str(out), code=2
    )
    assert "no ledger entry #999" in cli.error("history", "proof", "999", "-o", str(out), code=1)
    assert "no ledger entry #0" in cli.error("history", "proof", "0", "-o", str(out), code=1)
    assert list((tmp_path / "out").iterdir()) == []
    assert cli.json("history", "proof", "1", "--head", head, "-o", str(out))["entries"] >= 2


def test_proof_check_needs_no_database(sqlite_gurps, tmp_path):
    head = _play(sqlite_gurps)
    out = tmp_path / "proof.json"
    sqlite_gurps.run("history", "proof", "7", "-o", str(out))
    Path(sqlite_gurps.db).unlink()  # the database is gone; the bundle alone is checked
    from typer.testing import CliRunner

    from campaign.cli.app import app

    result = CliRunner().invoke(
        app, ["--db", str(tmp_path / "nowhere" / "x.db"), "proof", "check", str(out), "--head", head, "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["ok"]
    assert not (tmp_path / "nowhere").exists()


@pytest.fixture
def bundle_bytes(sqlite_gurps, tmp_path) -> tuple[bytes, str]:
    head = _play(sqlite_gurps)
    out = tmp_path / "proof.json"
    sqlite_gurps.run("history", "proof", str(_seq_of(sqlite_gurps, "3D6<=12")), "-o", str(out))
    return out.read_bytes(), head


def test_every_single_byte_change_is_rejected_by_both_checkers(bundle_bytes):
    data, head = bundle_bytes
    assert standalone.check(standalone.load(data), head)["ok"]
    assert project.check_bundle(project.load_bundle(data), head).ok
    assert len(data) > 1000
    for position in range(len(data)):
        original = data[position]
        # Two different changes per byte; neither is JSON whitespace, so each changes content.
        for replacement in {original ^ 0x01, ord("x") if original != ord("x") else ord("y")}:
            tampered = data[:position] + bytes([replacement]) + data[position + 1 :]
            mine, theirs = both_reject(tampered)
            assert str(mine) == str(theirs), (position, replacement)


def test_a_changed_record_byte_is_rejected_naming_the_entry(bundle_bytes):
    data, _head = bundle_bytes
    bundle = json.loads(data)
    first = bundle["seq"]
    checked = 0
    for index, entry in enumerate(bundle["entries"]):
        for field in ("record", "prev_hash", "hash"):
            value = entry[field]
            for position in range(len(value)):
                char = value[position]
                swapped = "1" if char != "1" else "2"
                if field == "record":
                    swapped = chr(ord(char) ^ 0x01) if char not in '"\\' else "'"
                tampered = json.loads(data)
                tampered["entries"][index][field] = value[:position] + swapped + value[position + 1 :]
                encoded = json.dumps(tampered, ensure_ascii=False).encode("utf-8")
                mine, theirs = both_reject(encoded)
                assert mine.seq == theirs.seq == first + index, (field, position, str(mine))
                assert f"entry #{first + index}" in str(mine) and str(mine) == str(theirs)
                checked += 1
    assert checked > 1000


def test_reordered_missing_or_extra_entries_are_rejected(bundle_bytes):
    data, head = bundle_bytes
    bundle = json.loads(data)

    def rejected(changed) -> str:
        mine, theirs = both_reject(json.dumps(changed, ensure_ascii=False).encode())
        assert str(mine) == str(theirs)
        return str(mine)

    swapped = json.loads(data)
    swapped["entries"][0], swapped["entries"][1] = swapped["entries"][1], swapped["entries"][0]
    assert "prev_hash does not link" in rejected(swapped)
    truncated = json.loads(data)
    del truncated["entries"][-1]
    truncated["head_seq"] -= 1
    assert "not a seal" in rejected(truncated)
    dropped = json.loads(data)
    del dropped["entries"][1]
    dropped["head_seq"] -= 1
    assert f"entry #{bundle['seq'] + 1}: prev_hash does not link" in rejected(dropped)
    with pytest.raises(standalone.Rejected, match="does not contain your seal"):
        standalone.check(bundle, "0" * 64)


def test_standalone_checker_agrees_with_the_ledger():
    values = [
        {"campaign": "百鬼夜翔 夜桜編", "seq": 1, "dice": [1, 4, 6], "detail": {"z": None, "a": [True, False]}},
        {"b": 'tab\tnewline\n quote" backslash\\ nul\u0000 emoji 🎲 ｱ', "a": -0, "c": 10**30, "d": 1.5},
        {"nested": {"keys": {"sort": 1, "Sort": 2, "ソート": 3}}, "empty": {}, "list": []},
        ["not", "an", "object"],
        "plain text",
        12345,
        None,
    ]
    prev = ledger.GENESIS_HASH
    for value in values:
        assert standalone.canonical_json(value) == ledger.canonical_json(value)
        text = ledger.canonical_json(value)
        assert standalone.chain_hash(prev, text) == ledger.chain_hash(prev, text)
        prev = ledger.chain_hash(prev, text)


def test_standalone_checker_imports_only_the_standard_library():
    tree = ast.parse(STANDALONE.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= {
        "__future__",
        "argparse",
        "collections",
        "hashlib",
        "hmac",
        "json",
        "os",
        "re",
        "sys",
        "typing",
    }, imported
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}


def test_a_copy_of_the_standalone_script_checks_bundles_on_its_own(bundle_bytes, tmp_path):
    data, head = bundle_bytes
    elsewhere = tmp_path / "player"
    elsewhere.mkdir()
    script = elsewhere / "proofcheck.py"
    shutil.copy(STANDALONE, script)
    good, bad = elsewhere / "proof.json", elsewhere / "tampered.json"
    good.write_bytes(data)
    bad.write_bytes(data.replace(b"1,4,6", b"1,4,5", 1))

    def run(*args):  # -I: isolated, so nothing of the project's checkout is importable
        return subprocess.run([sys.executable, "-I", str(script), *args], capture_output=True, text=True, cwd=elsewhere)

    ok = run(str(good), "--head", head)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.splitlines()[0] == head and "proof holds" in ok.stdout
    rejected = run(str(bad), "--head", head)
    entry = json.loads(data)["seq"]
    assert rejected.returncode == 1 and f"entry #{entry}: hash does not match" in rejected.stderr
    as_json = run(str(good), "--json")
    assert json.loads(as_json.stdout)["entry"]["dice"] == [1, 4, 6]
    assert "compare the head" in as_json.stderr
    assert run(str(good), "--head", "xyz").returncode == 2
    assert run(str(elsewhere / "missing.json")).returncode == 1


def test_python_m_campaign_proofcheck(bundle_bytes, tmp_path):
    data, head = bundle_bytes
    path = tmp_path / "proof.json"
    path.write_bytes(data)
    result = subprocess.run(
        [sys.executable, "-m", "campaign.proofcheck", str(path), "--head", head, "--json"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["head"] == head


def test_proof_check_errors(sqlite_gurps, tmp_path):
    cli = sqlite_gurps
    assert "cannot read" in cli.error("proof", "check", str(tmp_path / "missing.json"), code=1)
    (tmp_path / "junk.json").write_text("{not json", encoding="utf-8")
    assert "not valid JSON" in cli.error("proof", "check", str(tmp_path / "junk.json"), code=1)
    assert "64 hex digits, or its first 16" in cli.error(
        "proof", "check", str(tmp_path / "junk.json"), "--head", "12", code=2
    )
    rejected = cli.run("proof", "check", str(tmp_path / "junk.json"), "--json", expect=1)
    assert json.loads(rejected.stdout) == {
        "ok": False,
        "bad_seq": None,
        "reason": rejected.stderr.split(": ", 1)[1].strip(),
    }

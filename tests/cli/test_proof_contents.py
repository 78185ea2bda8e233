"""What a proof bundle says besides its links: the seal you kept (any seal in it), voids
and reveals inside it, and the limits both checkers put on the file (size, nesting,
canonical records of valid UTF-8). Every case runs through both checkers, which must
give the same verdict in the same words."""

from __future__ import annotations

import copy
import hashlib
import json
import subprocess
import sys

import pytest

import campaign.proofcheck as standalone
from campaign import chain
from campaign.errors import BadInput
from campaign.services.ledger import proof as project
from campaign.services.ledger import verification
from campaign.services.results import as_json


def _bundle(cli, tmp_path, seq: int, *head: str) -> dict:
    out = tmp_path / f"proof-{seq}.json"
    cli.run("history", "proof", str(seq), *(("--head", head[0]) if head else ()), "-o", str(out))
    return json.loads(out.read_bytes())


def both_hold(bundle: dict, head: str | None = None) -> dict:
    """Both checkers' verdicts on the bundle's bytes; they must agree."""
    data = json.dumps(bundle).encode()
    mine = standalone.check(standalone.load(data), head)
    theirs = as_json(project.check_bundle(project.load_bundle(data), head))
    assert mine == theirs
    return mine


def both_reject(data: bytes | dict, head: str | None = None) -> str:
    """The one message both checkers reject the bytes with."""
    if isinstance(data, dict):
        data = json.dumps(data).encode()  # ASCII: a lone surrogate travels as an escape
    with pytest.raises(standalone.Rejected) as mine:
        standalone.check(standalone.load(data), head)
    with pytest.raises(project.ProofRejected) as theirs:
        project.check_bundle(project.load_bundle(data), head)
    assert (str(mine.value), mine.value.seq) == (str(theirs.value), theirs.value.seq)
    return str(mine.value)


def rechain(bundle: dict, seq: int, change) -> dict:
    """Entry `seq`'s record text changed by `change`, and every hash from it on
    recomputed, the head included: what a forger who can compute SHA-256 hands over."""
    forged = copy.deepcopy(bundle)
    index = seq - forged["seq"]
    entries = forged["entries"]
    prev = entries[index - 1]["hash"] if index else forged["anchor"]
    for position in range(index, len(entries)):
        entry = entries[position]
        if position == index:
            entry["record"] = change(entry["record"])
        entry["prev_hash"] = prev
        entry["hash"] = prev = hashlib.sha256((prev + entry["record"]).encode("utf-8", "surrogatepass")).hexdigest()
    forged["head"] = prev
    return forged


def edit_record(change):
    """A `rechain` change that edits the parsed record and writes it canonically."""

    def edit(text: str) -> str:
        record = json.loads(text)
        change(record)
        return chain.canonical_json(record)

    return edit


# --- voids -------------------------------------------------------------------------


def test_a_proof_of_a_voided_entry_says_which_void_took_it_back(gurps, tmp_path):
    rolled = gurps.json("roll", "3D6", "--char", "鈴音", "--dice", "1,2,3")
    void = gurps.json("history", "void", str(rolled["seq"]), "--reason", "振り直し", "--yes")
    gurps.json("history", "seal", "--reason", "第二話")
    bundle = _bundle(gurps, tmp_path, rolled["seq"])
    held = both_hold(bundle, bundle["head"])
    assert (held["ok"], held["voided_by"], held["revealed_by"]) == (True, void["seq"], None)
    human = gurps.run("proof", "check", str(tmp_path / f"proof-{rolled['seq']}.json")).stdout.splitlines()
    assert f"  voided: entry #{void['seq']} took entry #{rolled['seq']} back (within seal #{held['head_seq']})" in human


def test_a_void_after_your_seal_is_not_counted_and_a_taken_back_void_revives(sqlite_gurps, tmp_path):
    cli = sqlite_gurps
    rolled = cli.json("roll", "2D6", "--dice", "3,4")
    before = cli.json("history", "seal")
    first_void = cli.json("history", "void", str(rolled["seq"]), "--reason", "x", "--yes")
    middle = cli.json("history", "seal")
    undo = cli.json("history", "void", str(first_void["seq"]), "--reason", "やっぱり有効", "--yes")
    cli.json("history", "seal")
    bundle = _bundle(cli, tmp_path, rolled["seq"])
    assert both_hold(bundle, before["head"])["voided_by"] is None  # the void came after the seal you kept
    assert both_hold(bundle, middle["head"][:16])["voided_by"] == first_void["seq"]
    assert both_hold(bundle)["voided_by"] is None  # the void was taken back by #undo
    assert undo["seq"] > middle["seq"]


# --- reveals -----------------------------------------------------------------------


@pytest.fixture
def revealed(sqlite_gurps, tmp_path) -> tuple[dict, int, int]:
    cli = sqlite_gurps
    secret = cli.json("roll", "S3D6<=12", "聞き耳", "--dice", "2,3,4")
    reveal = cli.json("history", "reveal", str(secret["seq"]))
    cli.json("history", "seal")
    return _bundle(cli, tmp_path, secret["seq"]), secret["seq"], reveal["seq"]


def test_a_reveal_in_the_bundle_matches_its_commitment(revealed):
    bundle, secret, reveal = revealed
    held = both_hold(bundle)
    assert (held["revealed_by"], held["entry"]["total"]) == (reveal, None)  # the roll itself shows only a hash
    assert "  revealed by entry #%d, which matches its commitment" % reveal in standalone.summary(held)


def test_a_wrong_reveal_is_rejected_even_with_every_hash_recomputed(revealed):
    bundle, secret, reveal = revealed

    def total(record):
        record["total"] = 3
        record["detail"]["result"]["total"] = 3

    def salt(record):
        record["detail"]["salt"] = "0" * 32

    def other_commitment(record):  # self-consistent, but not what the roll committed to
        detail = record["detail"]
        detail["result"]["total"] = record["total"] = 3
        detail["commitment"] = hashlib.sha256(
            (detail["salt"] + chain.canonical_json(detail["result"])).encode()
        ).hexdigest()

    wrong = f"entry #{reveal}: the reveal does not match the commitment of #{secret} (wrong result or salt)"
    for change in (total, salt, other_commitment):
        assert both_reject(rechain(bundle, reveal, edit_record(change))) == wrong
    shown = rechain(bundle, reveal, edit_record(lambda r: r.update(total=3)))
    assert both_reject(shown) == f"entry #{reveal}: the reveal shows a total other than the one committed"
    aimed = rechain(bundle, reveal, edit_record(lambda r: r["detail"].update(reveals=reveal + 5)))
    assert both_reject(aimed) == f"entry #{reveal}: the reveal names #{reveal + 5}, which is no earlier secret roll"


def test_a_secret_roll_revealed_twice_is_rejected(revealed):
    bundle, secret, reveal = revealed
    twice = copy.deepcopy(bundle)
    # A second copy of the reveal, re-numbered, before the seal (hashes recomputed).
    entries = twice["entries"]
    copy_of = json.loads(entries[reveal - bundle["seq"]]["record"])
    seal = json.loads(entries[-1]["record"])
    copy_of["seq"], seal["seq"] = reveal + 1, reveal + 2
    entries.insert(reveal - bundle["seq"] + 1, {"prev_hash": "", "hash": "", "record": chain.canonical_json(copy_of)})
    entries[-1]["record"] = chain.canonical_json(seal)
    twice["head_seq"] += 1
    forged = rechain(twice, reveal + 1, lambda text: text)
    assert (
        both_reject(forged) == f"entry #{reveal + 1}: secret roll #{secret} is revealed twice (#{reveal}, "
        f"#{reveal + 1})"
    )


# --- canonical records of valid UTF-8 ----------------------------------------------


def test_records_must_be_canonical_utf8(bundle_and_seq):
    bundle, seq = bundle_and_seq
    spaced = rechain(bundle, seq, lambda text: text.replace(",", ", ", 1))
    assert both_reject(spaced) == f"entry #{seq}: {chain.NOT_CANONICAL}"
    escaped = rechain(bundle, seq, lambda text: text.replace("鈴音", "\\u9234\\u97f3"))
    assert both_reject(escaped) == f"entry #{seq}: {chain.NOT_CANONICAL}"
    # A lone surrogate, escaped in the record's text: valid JSON, canonical in form,
    # but no UTF-8 can hold what it reads back as.
    lone = rechain(bundle, seq, lambda text: text.replace('"鈴音"', '"\\ud800"'))
    assert both_reject(lone) == f"entry #{seq}: {chain.NOT_UTF8}"
    # A lone surrogate in the text itself (the bundle's JSON escapes it): no bytes to hash.
    raw = rechain(bundle, seq, lambda text: text.replace("鈴音", "\ud800"))
    assert both_reject(raw) == f"entry #{seq}: {chain.NOT_UTF8}"
    assert chain.canonical_problem('{"a":"é"}', {"a": "é"}) is None


@pytest.fixture
def bundle_and_seq(sqlite_gurps, tmp_path) -> tuple[dict, int]:
    rolled = sqlite_gurps.json("roll", "3D6", "--char", "鈴音", "--dice", "1,2,3")
    sqlite_gurps.json("history", "seal")
    return _bundle(sqlite_gurps, tmp_path, rolled["seq"]), rolled["seq"]


# --- limits ------------------------------------------------------------------------


def test_a_deeply_nested_bundle_is_one_line_never_a_recursion_error(bundle_and_seq, tmp_path, sqlite_gurps):
    for depth in (65, 100_000):
        message = both_reject(b"[" * depth + b"]" * depth)
        assert message == "the bundle is nested more than 64 levels deep"
    assert both_reject(b'{"a":' * 64 + b"1" + b"}" * 64).startswith("the bundle's fields are wrong")  # 64 is fine
    bundle, seq = bundle_and_seq
    deep = rechain(bundle, seq, edit_record(lambda r: r["detail"].update(x=json.loads("[" * 70 + "]" * 70))))
    assert both_reject(deep) == f"entry #{seq}: record is nested more than 64 levels deep"
    brackets_in_text = rechain(bundle, seq, edit_record(lambda r: r.update(reason="[" * 500)))
    assert both_hold(brackets_in_text)["seq"] == seq  # brackets inside strings are text, not nesting
    path = tmp_path / "deep.json"
    path.write_bytes(b"[" * 200_000)
    cli = sqlite_gurps.run("proof", "check", str(path), expect=1)
    assert cli.stderr.strip() == "proof rejected: the bundle is nested more than 64 levels deep"
    alone = subprocess.run([sys.executable, "-I", standalone.__file__, str(path)], capture_output=True, text=True)
    assert (alone.returncode, alone.stderr.strip()) == (
        1,
        "proof rejected: the bundle is nested more than 64 levels deep",
    )


def test_the_bundle_size_is_bounded(bundle_and_seq, tmp_path, monkeypatch):
    bundle, _seq = bundle_and_seq
    data = json.dumps(bundle).encode()
    monkeypatch.setattr(standalone, "MAX_BYTES", len(data))
    monkeypatch.setattr(project, "MAX_BYTES", len(data))
    path = tmp_path / "proof.json"
    path.write_bytes(data)
    assert standalone.check_file(str(path)) == as_json(project.check_file(str(path)))
    path.write_bytes(data + b" ")
    for checker, rejected in (
        (standalone.check_file, standalone.Rejected),
        (project.check_file, project.ProofRejected),
    ):
        with pytest.raises(rejected, match=r"^the bundle is larger than 0 MiB$"):
            checker(str(path))


def test_an_endless_file_is_refused_after_the_limit(tmp_path):
    """/dev/zero: both checkers stop reading at 256 MiB and say so in one line."""
    alone = subprocess.run([sys.executable, "-I", standalone.__file__, "/dev/zero"], capture_output=True, text=True)
    assert (alone.returncode, alone.stderr.strip()) == (1, "proof rejected: the bundle is larger than 256 MiB")
    with pytest.raises(project.ProofRejected, match="larger than 256 MiB"):
        project.check_file("/dev/zero")


# --- --head forms ------------------------------------------------------------------


def test_head_forms_are_those_of_verify(sqlite_gurps, tmp_path, monkeypatch):
    cli = sqlite_gurps
    rolled = cli.json("roll", "2D6", "--dice", "1,1")
    sealed = cli.json("history", "seal")
    out = tmp_path / "p.json"
    written = cli.json("history", "proof", str(rolled["seq"]), "--head", sealed["head"][:16], "-o", str(out))
    assert written["head"] == sealed["head"]
    for bad in (sealed["head"][:15], "xyz", sealed["head"] + "a"):
        assert "64 hex digits, or its first 16 or more" in cli.error("proof", "check", str(out), "--head", bad, code=2)
        alone = subprocess.run(
            [sys.executable, "-I", standalone.__file__, str(out), "--head", bad], capture_output=True, text=True
        )
        assert alone.returncode == 2 and "64 hex digits, or its first 16 or more" in alone.stderr
    # an ambiguous prefix (made possible by a one-digit minimum) is refused, exit 2
    monkeypatch.setattr(verification, "MIN_HEAD_PREFIX", 1)
    monkeypatch.setattr(standalone, "MIN_HEAD_PREFIX", 1)
    heads = [cli.json("history", "seal")["head"] for _ in range(16)] + [sealed["head"]]
    digit = next(h[0] for h in heads if sum(other[0] == h[0] for other in heads) > 1)
    bundle = _bundle(cli, tmp_path, rolled["seq"])
    with pytest.raises(standalone.BadHead, match=f"^--head {digit}: matches seals #"):
        standalone.check(bundle, digit)
    with pytest.raises(BadInput, match=f"^--head {digit}: matches seals #"):
        project.check_bundle(bundle, digit)
    assert "give more digits" in cli.error(
        "proof", "check", str(tmp_path / f"proof-{rolled['seq']}.json"), "--head", digit, code=2
    )


def test_a_sub_roll_is_voided_with_its_check(sqlite_gurps, tmp_path):
    from tests.cli.test_fright import CASES, fright_for

    cli = sqlite_gurps
    checked = cli.json(*fright_for(sorted(CASES)[0]))
    sub = next(e["seq"] for e in cli.json("history", "--all") if e["parent_seq"] == checked["seq"])
    void = cli.json("history", "void", str(checked["seq"]), "--reason", "GM の読み違い", "--yes")
    cli.json("history", "seal")
    held = both_hold(_bundle(cli, tmp_path, sub))
    assert (held["seq"], held["voided_by"]) == (sub, void["seq"])


def test_odd_values_in_hashed_records_never_crash_a_checker(bundle_and_seq):
    """A forger controls every record (and can hash it): odd types where a void, a
    reveal or a parent is read are a verdict, not a traceback."""
    bundle, seq = bundle_and_seq
    odd = [
        lambda r: r.update(parent_seq=True, dice=7),
        lambda r: r.update(kind="void", voids_seq=[seq]),
        lambda r: r.update(kind="void", voids_seq=True),
        lambda r: r.update(kind="reveal", detail=[1]),
        lambda r: r.update(kind="reveal", detail={"reveals": [seq]}),
        lambda r: r.update(kind="reveal", detail={"reveals": seq - 1, "commitment": 5, "salt": None, "result": "x"}),
        lambda r: r.update(
            kind="reveal", detail={"reveals": seq - 1, "commitment": "0" * 64, "salt": "a", "result": {}}
        ),
    ]
    for change in odd:
        forged = rechain(bundle, seq, edit_record(change))
        try:
            held = both_hold(forged)
        except standalone.Rejected:
            both_reject(forged)
        else:
            assert held["ok"] and standalone.summary(held)


def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def test_the_nesting_scan_counts_what_json_nests_and_not_what_strings_hold():
    import random

    generator = random.Random(2026)
    tricky = ["\\", '"', '\\"', "\\\\", "[", "]", "{", "}", '"[', '\\\\"{', "é", "\u2028", "a"]

    def value(depth: int):
        if depth == 0 or generator.random() < 0.2:
            return "".join(generator.choice(tricky) for _ in range(generator.randrange(4)))
        if generator.random() < 0.5:
            return [value(depth - 1) for _ in range(generator.randrange(1, 3))]
        return {value(0): value(depth - 1) for _ in range(generator.randrange(1, 3))}

    for _ in range(2000):
        doc = value(generator.randrange(1, 9))
        for text in (json.dumps(doc), json.dumps(doc, ensure_ascii=False)):
            for limit in (0, 1, 3, 6):
                expected = _depth(doc) > limit
                assert chain.too_deep(text, limit) is standalone.too_deep(text, limit) is expected, (text, limit)

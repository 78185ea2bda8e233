"""The fixed vectors of docs/fair-dice.md: an independent implementation must agree."""

import hashlib
import hmac

import pytest

from campaign.core.fair_dice import clean_share, derive, face, message, seed_commitment, valid_seed

SEED = "a3f1c2e4b5d6978812345678abcdef0011223344556677889900aabbccddeeff"
SHARE = "0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize(
    ("sides", "seq", "share", "index", "expected", "rejected"),
    [
        (6, 7, SHARE, 0, 5, 0),
        (6, 7, SHARE, 1, 4, 0),
        (6, 8, SHARE, 0, 3, 0),
        (6, 7, SHARE, 129, 1, 1),
        (6, 7, "", 0, 2, 0),
        (10, 7, SHARE, 0, 3, 0),
        (10, 7, SHARE, 54, 5, 1),
        (100, 7, SHARE, 0, 25, 1),
        (100, 7, SHARE, 2, 52, 0),
        (20, 7, SHARE, 0, 3, 0),
        (20, 7, SHARE, 4, 18, 1),
    ],
)
def test_vectors(sides, seq, share, index, expected, rejected):
    derived = derive(SEED, seq, share, index, sides)
    assert (derived.face, derived.rejected) == (expected, rejected)


def test_the_rejection_case_step_by_step():
    """d100, index 0: the first byte of the first HMAC is 202 >= 200, so it is rejected;
    the second (counter 1) starts with 124, and 124 mod 100 + 1 = 25."""
    key = bytes.fromhex(SEED)
    first = hmac.new(key, message(7, SHARE, 0, 0), hashlib.sha256).digest()
    second = hmac.new(key, message(7, SHARE, 0, 1), hashlib.sha256).digest()
    assert message(7, SHARE, 0, 0) == b"7:0123456789abcdef0123456789abcdef:0:0"
    assert (first[0], second[0]) == (202, 124)
    assert face(SEED, 7, SHARE, 0, 100) == 25


def test_commitment_is_sha256_of_the_seed_bytes():
    assert seed_commitment(SEED) == "8293a11a373b0f60589265b36d30fa75bcde7041285e09d883134f9120533bff"
    assert seed_commitment(SEED) == hashlib.sha256(bytes.fromhex(SEED)).hexdigest()


def test_two_bytes_for_dice_over_256_sides():
    faces = {face(SEED, 7, SHARE, index, 1000) for index in range(300)}
    assert max(faces) > 256 and min(faces) >= 1 and max(faces) <= 1000


def test_another_share_changes_the_dice():
    other = "f" * 32
    assert [face(SEED, 7, SHARE, i, 20) for i in range(8)] != [face(SEED, 7, other, i, 20) for i in range(8)]


def test_faces_are_roughly_uniform():
    counts = [0] * 6
    for index in range(6000):
        counts[face(SEED, 1, SHARE, index, 6) - 1] += 1
    assert all(850 < count < 1150 for count in counts), counts


@pytest.mark.parametrize(
    ("share", "cleaned"),
    [
        (SHARE.upper(), SHARE),
        ("ab" * 16, "ab" * 16),
        ("a" * 31, None),
        ("g" * 32, None),
        ("a" * 129, None),
        (12, None),
        (None, None),
    ],
)
def test_share_spelling(share, cleaned):
    assert clean_share(share) == cleaned


def test_seed_spelling():
    assert valid_seed(SEED) and not valid_seed(SEED.upper()) and not valid_seed(SEED[:-2]) and not valid_seed(None)


def test_the_docs_vectors_and_snippet_agree_with_the_code():
    """docs/fair-dice.md: its Python snippet and its table give the faces the code gives."""
    import re
    from pathlib import Path

    from campaign import fair_check

    text = (Path(__file__).resolve().parents[2] / "docs" / "fair-dice.md").read_text(encoding="utf-8")
    assert SEED in text and SHARE in text and seed_commitment(SEED) in text
    namespace: dict = {}
    exec(re.search(r"```python\n(.*?)```", text, re.S).group(1), namespace)
    rows = re.findall(r"^\| d(\d+) +\| (\d+) +\| (above|\(none\)) +\| (\d+) +\| (\d+) +\| (\d) \|$", text, re.M)
    assert len(rows) == 11
    for sides, seq, share, index, expected, rejected in rows:
        share = SHARE if share == "above" else ""
        args = (SEED, int(seq), share, int(index), int(sides))
        assert (namespace["face"](*args), fair_check.derive(*args)) == (int(expected), int(expected))
        assert (derive(*args).face, derive(*args).rejected) == (int(expected), int(rejected))

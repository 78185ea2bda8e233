"""The fixed vectors of docs/fair-dice.md: an independent implementation must agree."""

import hashlib
import hmac

import pytest

from campaign.core.fair_dice import clean_share, derive, face, face_v2, message, message_v2, seed_commitment, valid_seed

SEED = "a3f1c2e4b5d6978812345678abcdef0011223344556677889900aabbccddeeff"
SHARE = "0123456789abcdef0123456789abcdef"  # version 1's vectors (entries without "v")
SHARE_V2 = "0123456789abcdef" * 4


@pytest.mark.parametrize(
    ("sides", "index", "expected", "rejected"),
    [
        (6, 0, 6, 0),
        (6, 1, 2, 0),
        (6, 47, 3, 1),
        (10, 0, 8, 0),
        (10, 63, 2, 1),
        (20, 0, 18, 0),
        (20, 5, 19, 1),
        (100, 0, 98, 0),
        (100, 5, 46, 2),
        (100, 10, 64, 1),
    ],
)
def test_version_2_vectors(sides, index, expected, rejected):
    derived = derive(SEED, None, SHARE_V2, index, sides)
    assert (derived.face, derived.rejected) == (expected, rejected)
    assert face_v2(SEED, SHARE_V2, index, sides) == expected


def test_version_2s_rejection_step_by_step():
    """d100, index 10: the first HMAC starts with 210 >= 200, rejected; counter 1 starts
    with 63, and 63 mod 100 + 1 = 64. No seq goes in: only the tag, share, index, counter."""
    key = bytes.fromhex(SEED)
    assert message_v2(SHARE_V2, 10, 0) == f"campaign-fair-v2:{SHARE_V2}:10:0".encode()
    first = hmac.new(key, message_v2(SHARE_V2, 10, 0), hashlib.sha256).digest()
    second = hmac.new(key, message_v2(SHARE_V2, 10, 1), hashlib.sha256).digest()
    assert (first.hex()[:8], first[0], second.hex()[:8], second[0]) == ("d2c112a2", 210, "3f336635", 63)


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
        (SHARE_V2.upper(), SHARE_V2),
        (" " + "ab" * 32 + "\n", "ab" * 32),
        ("ab" * 16, None),  # version 1 took 32 to 128 digits: version 2 exactly 64
        ("a" * 63, None),
        ("a" * 65, None),
        ("g" * 64, None),
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
    assert SEED in text and SHARE_V2 in text and seed_commitment(SEED) in text
    namespace: dict = {}
    exec(re.search(r"```python\n(.*?)```", text, re.S).group(1), namespace)
    rows = re.findall(r"^\| d(\d+) +\| (\d+) +\| (\d+) +\| (\d) \|$", text, re.M)
    assert len(rows) == 10
    for sides, index, expected, rejected in rows:
        args = (SEED, SHARE_V2, int(index), int(sides))
        assert (namespace["face"](*args), fair_check.derive(SEED, None, *args[1:])) == (int(expected), int(expected))
        assert (derive(SEED, None, *args[1:]).face, derive(SEED, None, *args[1:]).rejected) == (
            int(expected),
            int(rejected),
        )
    old = re.findall(r"^\| d(\d+) +\| (\d+) +\| (above|\(none\)) +\| (\d+) +\| (\d+) +\| (\d) \|$", text, re.M)
    assert len(old) == 11  # version 1's vectors: old entries stay checkable
    for sides, seq, share, index, expected, rejected in old:
        args1 = (SEED, int(seq), SHARE if share == "above" else "", int(index), int(sides))
        assert (fair_check.derive(*args1), derive(*args1).rejected) == (int(expected), int(rejected))

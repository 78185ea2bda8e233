"""Provably fair dice: each face derived from a committed seed and the player's share.

The table server rolls on a machine the GM runs, so "the dice came from `secrets`" is a
claim nobody at the table can check. Here the server commits to a secret seed before
play (only SHA-256 of it goes into the ledger), every die mixes in a value the player
sent with the tap, and after the reveal anyone recomputes every face. The derivation is
deliberately plain so a player can redo it in any language (docs/fair-dice.md):

    key     = the seed's 32 bytes
    message = ASCII "campaign-fair-v2:{share}:{index}:{counter}"
              (share: exactly 64 lowercase hex digits; index: the die's place in the
              request's run, from 0)
    digest  = HMAC-SHA-256(key, message)
    n       = the fewest bytes with 256**n >= sides (1 byte up to d256)
    x       = the first n bytes of digest, big-endian
    limit   = 256**n - (256**n mod sides)
    face    = x mod sides + 1      if x < limit
              else counter + 1 and again (rejection: no face is more likely than another)

Version 2 has no input the server chooses after seeing the request: version 1 mixed in
the request's first seq, which the server decides (it can append filler entries first),
so it could keep the best of several seqs. Version 1 entries (their detail.fair has no
"v") stay checkable with `derive(..., version=1)`.

Pure: no I/O, no database; services supply the seed and record the inputs.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

SEED_BYTES = 32  # 256 bits
SHARE_HEX = 64  # a version-2 share: 256 bits from the player's device, fresh per request
DOMAIN = "campaign-fair-v2"
SCHEME = "hmac-sha256-v2"  # a seed_commit's detail.scheme: its dice are version 2, never version 1
_HEX = re.compile(r"[0-9a-f]*")
MAX_COUNTER = 1000  # each try is rejected with probability < 1/2; 1000 rejections never happen


def new_seed() -> str:
    """A fresh 256-bit seed as 64 lowercase hex digits."""
    return secrets.token_hex(SEED_BYTES)


def seed_commitment(seed: str) -> str:
    """SHA-256 of the seed's bytes (not of its hex spelling), as lowercase hex."""
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


def valid_seed(seed: object) -> bool:
    return isinstance(seed, str) and len(seed) == 2 * SEED_BYTES and _HEX.fullmatch(seed) is not None


def clean_share(share: object) -> str | None:
    """The share in its one spelling (lowercase hex), or None when it is not exactly
    SHARE_HEX hex digits."""
    if not isinstance(share, str):
        return None
    lowered = share.strip().lower()
    if len(lowered) != SHARE_HEX or not _HEX.fullmatch(lowered):
        return None
    return lowered


def message(seq: int, share: str, index: int, counter: int) -> bytes:
    """Version 1's HMAC message: the request's first seq, the share, the index, the counter."""
    return f"{seq}:{share}:{index}:{counter}".encode("ascii")


def message_v2(share: str, index: int, counter: int) -> bytes:
    """Version 2's HMAC message: the domain tag, the share, the index, the counter."""
    return f"{DOMAIN}:{share}:{index}:{counter}".encode("ascii")


@dataclass(frozen=True, slots=True)
class Derived:
    """One face and how many HMAC outputs were rejected before it (for the docs' vectors)."""

    face: int
    rejected: int


def derive(seed: str, seq: int | None, share: str, index: int, sides: int) -> Derived:
    """The face of die `index` (from 0) of a request's run: version 2 when `seq` is None,
    else version 1 for the request whose first entry is `seq`."""
    if sides < 1:
        raise ValueError("a die has at least one side")
    key = bytes.fromhex(seed)
    width = max(1, (sides - 1).bit_length() + 7 >> 3)
    span = 256**width
    limit = span - span % sides
    for counter in range(MAX_COUNTER):
        text = message_v2(share, index, counter) if seq is None else message(seq, share, index, counter)
        digest = hmac.new(key, text, hashlib.sha256).digest()
        value = int.from_bytes(digest[:width], "big")
        if value < limit:
            return Derived(face=value % sides + 1, rejected=counter)
    raise ArithmeticError("no face after 1000 tries")  # probability below 2**-1000


def face(seed: str, seq: int | None, share: str, index: int, sides: int) -> int:
    return derive(seed, seq, share, index, sides).face


def face_v2(seed: str, share: str, index: int, sides: int) -> int:
    """Version 2's face of die `index` of the run of `share`."""
    return derive(seed, None, share, index, sides).face

"""Provably fair dice: each face derived from a committed seed and the player's share.

The table server rolls on a machine the GM runs, so "the dice came from `secrets`" is a
claim nobody at the table can check. Here the server commits to a secret seed before
play (only SHA-256 of it goes into the ledger), every die mixes in a value the player
sent with the tap, and after the reveal anyone recomputes every face. The derivation is
deliberately plain so a player can redo it in any language (docs/fair-dice.md):

    key     = the seed's 32 bytes
    message = ASCII "{seq}:{share}:{index}:{counter}"   (share: lowercase hex, may be "")
    digest  = HMAC-SHA-256(key, message)
    n       = the fewest bytes with 256**n >= sides (1 byte up to d256)
    x       = the first n bytes of digest, big-endian
    limit   = 256**n - (256**n mod sides)
    face    = x mod sides + 1      if x < limit
              else counter + 1 and again (rejection: no face is more likely than another)

Pure: no I/O, no database; services supply the seed and record the inputs.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

SEED_BYTES = 32  # 256 bits
SHARE_MIN_HEX, SHARE_MAX_HEX = 32, 128
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
    """The share in its one spelling (lowercase hex), or None when it is not 32-128 hex digits."""
    if not isinstance(share, str):
        return None
    lowered = share.strip().lower()
    if not SHARE_MIN_HEX <= len(lowered) <= SHARE_MAX_HEX or not _HEX.fullmatch(lowered):
        return None
    return lowered


def message(seq: int, share: str, index: int, counter: int) -> bytes:
    """The HMAC message: decimal numbers and the share, separated by colons, in ASCII."""
    return f"{seq}:{share}:{index}:{counter}".encode("ascii")


@dataclass(frozen=True, slots=True)
class Derived:
    """One face and how many HMAC outputs were rejected before it (for the docs' vectors)."""

    face: int
    rejected: int


def derive(seed: str, seq: int, share: str, index: int, sides: int) -> Derived:
    """The face of die `index` (from 0) of the request whose first entry is `seq`."""
    if sides < 1:
        raise ValueError("a die has at least one side")
    key = bytes.fromhex(seed)
    width = max(1, (sides - 1).bit_length() + 7 >> 3)
    span = 256**width
    limit = span - span % sides
    for counter in range(MAX_COUNTER):
        digest = hmac.new(key, message(seq, share, index, counter), hashlib.sha256).digest()
        value = int.from_bytes(digest[:width], "big")
        if value < limit:
            return Derived(face=value % sides + 1, rejected=counter)
    raise ArithmeticError("no face after 1000 tries")  # probability below 2**-1000


def face(seed: str, seq: int, share: str, index: int, sides: int) -> int:
    return derive(seed, seq, share, index, sides).face

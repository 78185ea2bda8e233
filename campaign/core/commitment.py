"""Commitments for secret rolls: SHA-256 over a salt and the canonical result.

The ledger entry of a secret roll carries only the commitment; the salt and result stay
in a GM-only table until a reveal entry discloses them. Anyone can then recompute the
hash: the result cannot have been changed after the roll (the hash would differ), and
the random salt keeps the commitment from being guessed by hashing every possible
result of a small roll before the reveal.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

# What a secret roll commits to: the fields the public entry leaves empty.
COMMITTED_FIELDS = ("expression", "dice", "total", "target", "outcome", "margin", "reason", "detail")
SALT_HEX = 32  # 128 random bits


def canonical(result: dict[str, Any]) -> str:
    """The one spelling of a result (sorted keys, no spaces, UTF-8), as ledger records."""
    return json.dumps(result, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def commit(salt: str, result: dict[str, Any]) -> str:
    return hashlib.sha256((salt + canonical(result)).encode("utf-8")).hexdigest()


def matches(commitment: str, salt: Any, result: Any) -> bool:
    """Whether a disclosed salt and result are the ones committed to."""
    if not isinstance(salt, str) or not isinstance(result, dict):
        return False
    return commit(salt, result) == commitment

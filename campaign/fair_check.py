"""Recompute provably fair dice from ledger records: one file, standard library only.

`history verify`, `proof check` and the standalone proofcheck.py hand this module the
records they already trust as a chain (in seq order); it checks what the chain alone
cannot: that every die of an entry marked fair is the one its committed seed, the
request's seq, the player's share and the die's index give (docs/fair-dice.md), and
that every revealed seed is the one its commitment promised. A chain re-hashed after a
die was changed is consistent as a chain and still fails here.

Self-contained on purpose (its own few lines of derivation, no import from the rest of
`campaign`): a player can copy it next to proofcheck.py and read all of it. The tests
check it against campaign.core.fair_dice and the vectors of the docs.

    python proofcheck.py proof.json --head 3f1c...   (the chain: run it first)
    python fair_check.py proof.json                  (the fair dice in the bundle)

Exit status: 0 every die recomputes (or none can yet), 1 a die or seed is wrong, 2 bad usage.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from collections.abc import Iterable
from typing import Any, TypeGuard

COMMIT, REVEAL = "seed_commit", "seed_reveal"


def derive(seed: str, seq: int, share: str, index: int, sides: int) -> int:
    """HMAC-SHA-256(seed bytes, "seq:share:index:counter"), first n bytes, rejection sampling."""
    key = bytes.fromhex(seed)
    width = max(1, ((sides - 1).bit_length() + 7) // 8)
    span = 256**width
    limit = span - span % sides
    for counter in range(1000):
        digest = hmac.new(key, f"{seq}:{share}:{index}:{counter}".encode("ascii"), hashlib.sha256).digest()
        value = int.from_bytes(digest[:width], "big")
        if value < limit:
            return value % sides + 1
    raise ArithmeticError("no face after 1000 tries")


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _hex(value: object, length: int | None = None) -> TypeGuard[str]:
    return (
        isinstance(value, str)
        and (length is None or len(value) == length)
        and all(c in "0123456789abcdef" for c in value)
    )


class Unfair(Exception):
    def __init__(self, seq: int, problem: str) -> None:
        super().__init__(problem)
        self.seq, self.problem = seq, problem


def check_records(records: Iterable[dict[str, Any]], partial: bool = False) -> dict[str, Any]:
    """{"ok", "seq", "problem", "revealed", "checked", "pending"}: the first entry whose
    fair dice or seed reveal is wrong, or counts of what was recomputed (`checked` dice
    entries whose seed is revealed, `pending` those whose seed is still secret).

    `partial`: the records are a stretch of the chain (a proof bundle), so a commitment
    may lie before it; a reveal is then checked against the commitment it repeats."""
    try:
        return {"ok": True, "seq": None, "problem": None, **_check(records, partial)}
    except Unfair as bad:
        return {"ok": False, "seq": bad.seq, "problem": bad.problem, "revealed": 0, "checked": 0, "pending": 0}


def _check(records: Iterable[dict[str, Any]], partial: bool) -> dict[str, int]:
    commits: dict[int, str] = {}
    seeds: dict[int, tuple[str, int]] = {}  # commit seq -> (seed, reveal seq)
    fair_entries: list[dict[str, Any]] = []
    for record in records:
        seq: int = record["seq"]  # every record has its seq: the chain rules checked it first
        kind = record.get("kind")
        detail = found if isinstance(found := record.get("detail"), dict) else {}
        if kind == COMMIT:
            if not _hex(detail.get("commitment"), 64):
                raise Unfair(seq, f"seed commitment #{seq} holds no SHA-256 hex digest")
            commits[seq] = detail["commitment"]
        elif kind == REVEAL:
            target, seed = detail.get("reveals"), detail.get("seed")
            if (
                partial
                and _is_int(target)
                and target < seq
                and target not in commits
                and _hex(detail.get("commitment"), 64)
            ):
                commits[target] = detail["commitment"]  # before the bundle: as the reveal repeats it
            if not _is_int(target) or target not in commits:
                raise Unfair(seq, f"seed reveal #{seq} names #{target}, which is no earlier seed commitment")
            if target in seeds:
                raise Unfair(seq, f"seed commitment #{target} is revealed twice (#{seeds[target][1]}, #{seq})")
            if (
                not _hex(seed, 64)
                or hashlib.sha256(bytes.fromhex(seed)).hexdigest() != commits[target]
                or detail.get("commitment") != commits[target]
            ):
                raise Unfair(seq, f"seed reveal #{seq} does not match commitment #{target}: the seed was swapped")
            seeds[target] = (seed, seq)
        if isinstance(detail.get("fair"), dict):
            fair_entries.append(record)
    checked = pending = 0
    next_index: dict[tuple[int, int], int] = {}
    for record in fair_entries:
        seq = record["seq"]
        fair = record["detail"]["fair"]
        commit, base, share, first, draws = (fair.get(name) for name in ("commit", "seq", "share", "from", "draws"))
        if not _is_int(commit) or commit >= seq or (commit not in commits and not partial):
            raise Unfair(seq, f"entry #{seq} derives its dice from #{commit}, which is no earlier seed commitment")
        if (
            not _is_int(base)
            or not commit < base <= seq
            or not _is_int(first)
            or not isinstance(draws, list)
            or (share is not None and not _hex(share))
        ):
            raise Unfair(seq, f"entry #{seq}: its fair-dice inputs are malformed")
        if commit in seeds and seeds[commit][1] < seq:
            raise Unfair(
                seq,
                f"entry #{seq} derives its dice from seed #{commit}, revealed before it "
                f"(#{seeds[commit][1]}): anyone could foresee them",
            )
        expected = next_index.get((commit, base), 0)
        if first != expected:
            raise Unfair(
                seq, f"entry #{seq}: its dice start at index {first}, expected {expected} (a die was drawn and dropped)"
            )
        next_index[(commit, base)] = first + len(draws)
        faces = []
        for offset, draw in enumerate(draws):
            if (
                not isinstance(draw, list)
                or len(draw) != 2
                or not all(_is_int(v) for v in draw)
                or not 1 <= draw[0] <= 10**6
            ):
                raise Unfair(seq, f"entry #{seq}: die {offset + 1} is malformed")
            faces.append(draw[1])
        dice = record.get("dice")
        if dice != faces and dice is not None and len(draws) == len(dice):
            raise Unfair(seq, f"entry #{seq}: its dice {dice} are not the derived draws {faces}")
        if commit not in seeds:
            pending += 1
            continue
        seed = seeds[commit][0]
        for offset, (sides, face) in enumerate(draws):
            should = derive(seed, base, share or "", first + offset, sides)
            if face != should:
                raise Unfair(
                    seq,
                    f"entry #{seq}: die {offset + 1} (d{sides}) shows {face}, the seed gives "
                    f"{should}: the die was changed",
                )
        checked += 1
    return {"revealed": len(seeds), "checked": checked, "pending": pending}


def check_bundle_file(path: str) -> dict[str, Any]:
    """The fair dice of a proof bundle (`campaign history proof -o FILE`): its records are
    read as they are; proofcheck.py is what proves they are the chain's."""
    with open(path, "rb") as handle:
        bundle = json.loads(handle.read().decode("utf-8"))
    entries = bundle.get("entries") if isinstance(bundle, dict) else None
    if not isinstance(entries, list):
        raise ValueError("not a proof bundle (no entries)")
    records = [json.loads(entry["record"]) for entry in entries]
    return check_records(records, partial=True)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python fair_check.py PROOF.json", file=sys.stderr)
        return 2
    try:
        found = check_bundle_file(args[0])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"error: cannot read {args[0]}: {exc}", file=sys.stderr)
        return 1
    if not found["ok"]:
        print(f"fair dice rejected: {found['problem']}", file=sys.stderr)
        return 1
    print(
        f"fair dice hold: {found['checked']} entries recomputed from {found['revealed']} revealed seeds"
        f" ({found['pending']} wait for their seed)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

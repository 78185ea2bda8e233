"""Check a proof bundle on your own machine: one file, Python's standard library only.

    python proofcheck.py proof.json --head 3f1c...        (a copy of this file)
    python -m campaign.proofcheck proof.json --head 3f1c...

A proof bundle (written by `campaign history proof SEQ -o proof.json`) holds one ledger
entry and every entry after it up to a sealed head, each as the exact text that was
hashed. This script recomputes the chain the way the ledger does (SHA-256 over the
previous entry's hash followed by the entry's canonical JSON: sorted keys, no spaces,
UTF-8) and accepts the bundle only if every link holds and the last entry is the seal
whose hash is the head. Pass the head hash you wrote down when the GM sealed the
session: a bundle proves the entry against that head, and against nothing else.

Deliberately self-contained (no import from the rest of `campaign`), so a player can
copy this one file and trust what it does by reading it. The project's tests check that
it agrees, verdict and words, with the project's one chain verifier (campaign/chain.py)
as `campaign proof check` runs it.

Exit status: 0 the proof holds, 1 it does not (the reason names the entry), 2 bad usage.
"""

from __future__ import annotations

import hashlib
import json
import sys

FORMAT = "campaign-proof"
VERSION = 1
BUNDLE_KEYS = {"format", "version", "campaign", "seq", "anchor", "head", "head_seq", "entries"}
ENTRY_KEYS = {"prev_hash", "hash", "record"}
HEX = frozenset("0123456789abcdef")


class Rejected(Exception):
    """The bundle does not prove what it claims; `seq` names the entry when there is one."""

    def __init__(self, reason: str, seq: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.seq = seq

    def __str__(self) -> str:
        return self.reason if self.seq is None else f"entry #{self.seq}: {self.reason}"


def canonical_json(value) -> str:
    """The ledger's spelling of a record: sorted keys, no spaces, non-ASCII kept as UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chain_hash(prev_hash: str, record_json: str) -> str:
    """SHA-256 (hex) over the previous hash followed by the record's canonical JSON."""
    return hashlib.sha256((prev_hash + record_json).encode("utf-8")).hexdigest()


def _strict_object(pairs):
    """json.loads hook: a key given twice would let a reader and a checker see different values."""
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise Rejected(f"key {key!r} appears twice in one object")
        seen[key] = value
    return seen


def _no_constants(name):
    raise Rejected(f"{name} is not JSON")


def _is_hash(value) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(ch in HEX for ch in value)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def load(data: bytes) -> dict:
    """The bundle as JSON, refusing anything a careful reader could read two ways."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Rejected(f"the bundle is not UTF-8 text (byte {exc.start})") from None
    try:
        bundle = json.loads(text, object_pairs_hook=_strict_object, parse_constant=_no_constants)
    except ValueError as exc:
        raise Rejected(f"the bundle is not valid JSON ({exc})") from None
    return bundle


def check(bundle, head: str | None = None) -> dict:
    """Verify a loaded bundle; return what it proves, or raise Rejected naming the entry.

    Rules, in order: the bundle's own fields are well formed; entry i (counting from the
    bundle's seq) links to the previous entry's hash (the first to the anchor), hashes to
    its stored hash, is canonical JSON, is an object of this campaign with that seq; the
    last entry is a seal and its hash is the bundle's head; with `head`, that is the head.
    """
    if not isinstance(bundle, dict):
        raise Rejected("the bundle is not a JSON object")
    if set(bundle) != BUNDLE_KEYS:
        missing, extra = sorted(BUNDLE_KEYS - set(bundle)), sorted(set(bundle) - BUNDLE_KEYS)
        raise Rejected(f"the bundle's fields are wrong (missing {missing}, unexpected {extra})")
    if bundle["format"] != FORMAT or bundle["version"] != VERSION or not _is_int(bundle["version"]):
        raise Rejected(f"not a {FORMAT} bundle of version {VERSION}")
    campaign, first, entries = bundle["campaign"], bundle["seq"], bundle["entries"]
    if not isinstance(campaign, str):
        raise Rejected("the bundle's campaign is not a name")
    if not _is_int(first) or first < 1 or not _is_int(bundle["head_seq"]):
        raise Rejected("the bundle's seq or head_seq is not a positive whole number")
    for name in ("anchor", "head"):
        if not _is_hash(bundle[name]):
            raise Rejected(f"the bundle's {name} is not a 64-hex SHA-256 hash")
    if not isinstance(entries, list) or not entries:
        raise Rejected("the bundle has no entries")
    if bundle["head_seq"] != first + len(entries) - 1:
        raise Rejected(f"head_seq {bundle['head_seq']} does not match {len(entries)} entries from #{first}")
    if head is not None and bundle["head"] != head:
        raise Rejected(f"the bundle ends at head {bundle['head']}, not at the head you gave ({head})")

    prev_hash = bundle["anchor"]
    record = None
    for offset, entry in enumerate(entries):
        seq = first + offset
        if not isinstance(entry, dict) or set(entry) != ENTRY_KEYS:
            raise Rejected(f"fields must be exactly {sorted(ENTRY_KEYS)}", seq)
        text, stored = entry["record"], entry["hash"]
        if not isinstance(text, str) or not _is_hash(stored) or not _is_hash(entry["prev_hash"]):
            raise Rejected("record is not text, or a hash is not 64 hex digits", seq)
        if entry["prev_hash"] != prev_hash:
            where = "the bundle's anchor" if offset == 0 else f"entry #{seq - 1}"
            raise Rejected(f"prev_hash does not link to {where}", seq)
        if chain_hash(prev_hash, text) != stored:
            raise Rejected("hash does not match the entry's content (the entry was edited)", seq)
        try:
            record = json.loads(text, object_pairs_hook=_strict_object, parse_constant=_no_constants)
        except ValueError:
            raise Rejected("record is not valid JSON", seq) from None
        except Rejected as exc:
            raise Rejected(f"record: {exc.reason}", seq) from None
        if canonical_json(record) != text:
            raise Rejected("record is not in canonical JSON (sorted keys, no spaces, UTF-8)", seq)
        if not isinstance(record, dict) or record.get("campaign") != campaign:
            raise Rejected(f"record does not belong to campaign {campaign!r}", seq)
        if record.get("seq") != seq:
            raise Rejected(f"record says seq {record.get('seq')!r}, expected {seq}", seq)
        if offset == 0:
            proven = record
        prev_hash = stored

    last = first + len(entries) - 1
    if record.get("kind") != "seal":
        raise Rejected("the last entry is not a seal, so the head was never sealed", last)
    if prev_hash != bundle["head"]:
        raise Rejected(f"the last entry's hash is not the bundle's head {bundle['head']}", last)
    return {"ok": True, "campaign": campaign, "seq": first, "head": prev_hash, "head_seq": last,
            "entries": len(entries), "head_given": head is not None, "entry": proven}


def check_file(path: str, head: str | None = None) -> dict:
    """Read and check a bundle file; Rejected for any fault in it, OSError if unreadable."""
    with open(path, "rb") as handle:
        data = handle.read()
    return check(load(data), head)


def normalize_head(text: str) -> str | None:
    """A --head as typed (any case, spaces around it), or None if it is not a SHA-256 hex."""
    value = text.strip().lower()
    return value if _is_hash(value) else None


def describe(entry: dict) -> str:
    """One line for the proven entry, e.g. `#9 fright 鈴音: 3D6<=11 [6,5,5] = 16 failure`."""
    parts = [f"#{entry.get('seq')}", str(entry.get("kind"))]
    if entry.get("character"):
        parts[-1] += f" {entry['character']}:"
    if entry.get("expression"):
        dice = ",".join(str(face) for face in entry.get("dice") or [])
        parts.append(f"{entry['expression']} [{dice}] = {entry.get('total')}")
    if entry.get("outcome"):
        parts.append(str(entry["outcome"]))
    if entry.get("reason"):
        parts.append(f"« {entry['reason']} »")
    parts.append(f"by {entry.get('actor')} at {entry.get('at')}")
    return " ".join(parts)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="proofcheck", description="Check a campaign proof bundle offline.")
    parser.add_argument("bundle", help="the JSON file written by `campaign history proof`")
    parser.add_argument("--head", help="the head hash you kept from `campaign history seal`")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    head = None
    if args.head is not None:
        head = normalize_head(args.head)
        if head is None:
            print("error: --head must be the 64-hex hash printed by `history seal`", file=sys.stderr)
            return 2
    try:
        result = check_file(args.bundle, head)
    except OSError as exc:
        print(f"error: cannot read {args.bundle}: {exc.strerror}", file=sys.stderr)
        return 1
    except Rejected as exc:
        if args.json:
            print(json.dumps({"ok": False, "bad_seq": exc.seq, "reason": exc.reason}, ensure_ascii=False))
        print(f"proof rejected: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(result["head"])
        print(f"proof holds: entry #{result['seq']} is in the chain of {result['campaign']!r} sealed at "
              f"#{result['head_seq']} ({result['entries']} entries checked)")
        print("  " + describe(result["entry"]))
    if not result["head_given"]:
        print("note: compare the head above with the hash you kept from `history seal` "
              "(or pass it with --head): the bundle proves the entry against that head only", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

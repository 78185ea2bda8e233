"""Proof bundles: one entry and the chain from it to a sealed head, checkable without the database.

`history verify --head` proves the whole chain to whoever holds the database. A player
in a dispute holds only the head hash printed by `history seal`. A bundle gives them the
entry in question, every entry after it up to that seal (each as the exact text that was
hashed, with its prev_hash and hash) and the prev_hash it hangs from (the anchor).
Recomputing the links from the anchor to the head shows the entry is the one the chain
held when the seal was made: changing any byte of any record changes its hash, and so
every later hash, and the head no longer matches.

There are two checkers on purpose. `check_bundle` here walks the bundle with the
project's one chain verifier (campaign.chain, strict: canonical JSON, no repeated keys);
campaign/proofcheck.py is a one-file, standard-library-only copy of the same rules that a
player can read and run anywhere. The tests hold the two to the same verdicts and words.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import IO, Any

from sqlalchemy import text

from campaign import ledger
from campaign.chain import Broken, Walk, strict_loads
from campaign.db.database import Database
from campaign.errors import BadInput, NotFound, RuleRefused
from campaign.services.common import campaign_named
from campaign.services.history import INT_MAX

FORMAT = "campaign-proof"
VERSION = 1
BUNDLE_KEYS = {"format", "version", "campaign", "seq", "anchor", "head", "head_seq", "entries"}
ENTRY_KEYS = {"prev_hash", "hash", "record"}
_HEX = frozenset("0123456789abcdef")

_SEAL_BY_HASH = text("SELECT seq FROM ledger WHERE campaign_id = :c AND kind = 'seal' AND hash = :h")
_ANY_BY_HASH = text("SELECT seq, kind FROM ledger WHERE campaign_id = :c AND hash = :h")
_LATEST_SEAL = text("SELECT seq, hash FROM ledger WHERE campaign_id = :c AND kind = 'seal' ORDER BY seq DESC LIMIT 1")


class ProofRejected(RuleRefused):
    """A bundle that does not prove what it claims (exit 1); `seq` names the entry."""

    def __init__(self, reason: str, seq: int | None = None) -> None:
        self.reason = reason
        self.seq = seq
        super().__init__(reason if seq is None else f"entry #{seq}: {reason}")


@dataclass(frozen=True, slots=True)
class BundleWritten:
    """`history proof`: the bundle written, from entry `seq` to the seal `head_seq`."""

    campaign: str
    seq: int
    head: str | None
    head_seq: int
    entries: int
    anchor: str


@dataclass(frozen=True, slots=True)
class ProofHolds:
    """`proof check`: the bundle proves entry `seq` (its record is `entry`, the parsed
    JSON the chain hashed) in the chain sealed at `head`."""

    ok: bool
    campaign: str
    seq: int
    head: str
    head_seq: int
    entries: int
    head_given: bool
    entry: dict[str, Any]


def clean_head(head: str | None) -> str | None:
    if head is None:
        return None
    value = head.strip().lower()
    if len(value) != 64 or any(ch not in _HEX for ch in value):
        raise BadInput("--head must be the 64-hex hash printed by `history seal`")
    return value


# --- writing ---------------------------------------------------------------------------


def write_bundle(db: Database, campaign_name: str | None, seq: int, head: str | None, out: IO[str]) -> BundleWritten:
    """Write the bundle proving entry `seq` against the seal `head` (default: the latest seal).

    The entries stream from the database to `out` (constant memory however far the seal
    is), and each link is recomputed on the way: a stored chain that is already broken
    is refused rather than written as a proof that cannot hold.
    """
    head = clean_head(head)
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        params = {"c": campaign.id, "h": head}
        if head is not None:
            head_seq = session.execute(_SEAL_BY_HASH, params).scalar()
            if head_seq is None:
                other = session.execute(_ANY_BY_HASH, params).first()
                if other is not None:
                    raise RuleRefused(f"--head {head[:12]}… is entry #{other.seq} ({other.kind}), not a seal; "
                                      "give a hash printed by `history seal`")
                raise NotFound(f"no seal with hash {head[:12]}… in campaign {campaign.name!r}")
        else:
            latest = session.execute(_LATEST_SEAL, params).first()
            if latest is None:
                raise RuleRefused(f"campaign {campaign.name!r} has no seal yet: run `history seal` first")
            head_seq, head = latest.seq, latest.hash
        last_seq = ledger.head(session, campaign.id)[0]
        if not 1 <= seq <= INT_MAX or seq > last_seq:
            raise NotFound(f"no ledger entry #{seq} in campaign {campaign.name!r}")
        if seq > head_seq:
            raise RuleRefused(f"entry #{seq} comes after the seal #{head_seq}: seal again (`history seal`) "
                              "to prove it")

        rows = ledger.iter_chain(session, campaign.id, from_seq=seq)
        first = next(rows, None)
        if first is None or first.seq != seq:
            raise NotFound(f"no ledger entry #{seq} in campaign {campaign.name!r}")
        encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
        # Written by hand, key by key, so the entries can stream; one entry per line. The
        # campaign is the name inside the records (a renamed import keeps its chain's name).
        out.write('{"format":"%s","version":%d,"campaign":%s,"seq":%d,"anchor":%s,"head":%s,"head_seq":%d,'
                  '"entries":[\n' % (FORMAT, VERSION, encode(campaign.ledger_name), seq, encode(first.prev_hash),
                                     encode(head), head_seq))
        walk, written = Walk(campaign.ledger_name, seq, first.prev_hash), 0
        for row in _chain(first, rows):
            if row.seq != walk.seq or walk.link_problem(row.prev_hash, row.record, row.hash):
                raise RuleRefused(f"the stored chain is broken at #{walk.seq}: run `history verify`; "
                                  "no proof was written")
            out.write((",\n" if written else "") + encode({"prev_hash": row.prev_hash, "hash": row.hash,
                                                           "record": row.record}))
            written += 1
            walk.advance(row.hash)
            if row.seq >= head_seq:
                break
        last_hash = walk.prev_hash if written else None
        out.write("\n]}\n")
        return BundleWritten(campaign=campaign.name, seq=seq, head=last_hash, head_seq=head_seq, entries=written,
                             anchor=first.prev_hash)


def _chain(first, rest):
    yield first
    yield from rest


# --- checking --------------------------------------------------------------------------


def _is_hash(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(ch in _HEX for ch in value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def load_bundle(data: bytes) -> Any:
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProofRejected(f"the bundle is not UTF-8 text (byte {exc.start})") from None
    try:
        return strict_loads(decoded)
    except Broken as exc:
        raise ProofRejected(exc.reason) from None
    except ValueError as exc:
        raise ProofRejected(f"the bundle is not valid JSON ({exc})") from None


def check_bundle(bundle: Any, head: str | None = None) -> ProofHolds:
    """What the bundle proves, or ProofRejected naming the first bad entry.

    The rules of campaign.proofcheck.check, in the same order, with the ledger's own hash.
    """
    head = clean_head(head)
    if not isinstance(bundle, dict):
        raise ProofRejected("the bundle is not a JSON object")
    if set(bundle) != BUNDLE_KEYS:
        missing, extra = sorted(BUNDLE_KEYS - set(bundle)), sorted(set(bundle) - BUNDLE_KEYS)
        raise ProofRejected(f"the bundle's fields are wrong (missing {missing}, unexpected {extra})")
    if bundle["format"] != FORMAT or not _is_int(bundle["version"]) or bundle["version"] != VERSION:
        raise ProofRejected(f"not a {FORMAT} bundle of version {VERSION}")
    campaign, first, entries = bundle["campaign"], bundle["seq"], bundle["entries"]
    if not isinstance(campaign, str):
        raise ProofRejected("the bundle's campaign is not a name")
    if not _is_int(first) or first < 1 or not _is_int(bundle["head_seq"]):
        raise ProofRejected("the bundle's seq or head_seq is not a positive whole number")
    for name in ("anchor", "head"):
        if not _is_hash(bundle[name]):
            raise ProofRejected(f"the bundle's {name} is not a 64-hex SHA-256 hash")
    if not isinstance(entries, list) or not entries:
        raise ProofRejected("the bundle has no entries")
    last = first + len(entries) - 1
    if bundle["head_seq"] != last:
        raise ProofRejected(f"head_seq {bundle['head_seq']} does not match {len(entries)} entries from #{first}")
    if head is not None and bundle["head"] != head:
        raise ProofRejected(f"the bundle ends at head {bundle['head']}, not at the head you gave ({head})")

    walk = Walk(campaign, first, bundle["anchor"], strict=True, anchor="the bundle's anchor")
    proven, record, records = None, None, []
    for seq, entry in enumerate(entries, start=first):
        if not isinstance(entry, dict) or set(entry) != ENTRY_KEYS:
            raise ProofRejected(f"fields must be exactly {sorted(ENTRY_KEYS)}", seq)
        record_json, stored = entry["record"], entry["hash"]
        if not isinstance(record_json, str) or not _is_hash(stored) or not _is_hash(entry["prev_hash"]):
            raise ProofRejected("record is not text, or a hash is not 64 hex digits", seq)
        try:
            record = walk.step(entry["prev_hash"], record_json, stored)
        except Broken as exc:
            raise ProofRejected(exc.reason, exc.seq) from None
        if proven is None:
            proven = record
        records.append(record)
    prev_hash = walk.prev_hash
    if record.get("kind") != "seal":
        raise ProofRejected("the last entry is not a seal, so the head was never sealed", last)
    if prev_hash != bundle["head"]:
        raise ProofRejected(f"the last entry's hash is not the bundle's head {bundle['head']}", last)
    from campaign.fair_check import check_records  # provably fair dice, recomputed (docs/fair-dice.md)

    fair = check_records(records, partial=True)
    if not fair["ok"]:
        raise ProofRejected(f"fair dice: {fair['problem']}", fair["seq"])
    return ProofHolds(ok=True, campaign=campaign, seq=first, head=prev_hash, head_seq=last, entries=len(entries),
                      head_given=head is not None, entry=proven)


def check_file(path: str, head: str | None = None) -> ProofHolds:
    head = clean_head(head)  # malformed --head is exit 2 before the file is read
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except IsADirectoryError:
        raise BadInput(f"{path} is a directory") from None
    except OSError as exc:
        raise NotFound(f"cannot read {path}: {exc.strerror}") from None
    return check_bundle(load_bundle(data), head)

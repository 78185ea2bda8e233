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
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any, TypeGuard

from sqlalchemy import text

from campaign import ledger
from campaign.chain import MAX_DEPTH, Broken, Walk, strict_loads, too_deep
from campaign.core.commitment import COMMITTED_FIELDS, matches
from campaign.db.database import Database
from campaign.errors import BadInput, NotFound, RuleRefused
from campaign.fair_check import JUDGED_KINDS
from campaign.i18n import N_, _, language
from campaign.proofcheck import reason_text
from campaign.services.checks.secret_rolls import secret_of
from campaign.services.common import campaign_named
from campaign.services.ledger.history import INT_MAX

FORMAT = "campaign-proof"
VERSION = 1
BUNDLE_KEYS = {"format", "version", "campaign", "seq", "anchor", "head", "head_seq", "entries"}
ENTRY_KEYS = {"prev_hash", "hash", "record"}
_HEX = frozenset("0123456789abcdef")

_SEAL_BY_HASH = text("SELECT seq FROM ledger WHERE campaign_id = :c AND kind = 'seal' AND hash = :h")
_ANY_BY_HASH = text("SELECT seq, kind FROM ledger WHERE campaign_id = :c AND hash = :h")
_LATEST_SEAL = text("SELECT seq, hash FROM ledger WHERE campaign_id = :c AND kind = 'seal' ORDER BY seq DESC LIMIT 1")


class ProofRejected(RuleRefused):
    """A bundle that does not prove what it claims (exit 1); `seq` names the entry.

    Raised with the English template (an `N_` msgid, or a line campaign.chain or
    fair_check words) and its values: `english` is that line, what --json prints in every
    language; `reason` the same in the output's language (the catalog's, else the
    standalone checker's table; a value that is itself a reason, `problem` or `exc`, too).
    """

    def __init__(self, template: str, seq: int | None = None, /, **fields: object) -> None:
        lang = language()
        self.english = template.format(**fields) if fields else template
        if fields:
            shown = {
                k: reason_text(v, lang) if k in ("problem", "exc") and isinstance(v, str) else v
                for k, v in fields.items()
            }
            self.reason = _(template).format(**shown)
        else:
            translated = _(template)
            self.reason = reason_text(template, lang) if translated == template else translated
        self.seq = seq
        super().__init__(self.reason if seq is None else f"entry #{seq}: {self.reason}")


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
    JSON the chain hashed) in the chain sealed at `head` (#`head_seq`: the seal given with
    --head, else the bundle's last). `voided_by` is the void up to that seal that took
    the entry back, `revealed_by` the reveal of a secret roll; `bundle_head` and
    `bundle_head_seq` where the bundle itself ends."""

    ok: bool
    campaign: str
    seq: int
    head: str
    head_seq: int
    entries: int
    head_given: bool
    entry: dict[str, Any]
    voided_by: int | None
    revealed_by: int | None
    bundle_head: str
    bundle_head_seq: int


NOT_CONTAINED = (
    "this bundle does not contain your seal: the bundle ends before it, the history was "
    "rewritten after it, or the hash is mistyped"
)


def clean_head(head: str | None) -> str | None:
    """A --head as `history verify` takes it: 64 hex digits, or 16 or more (exit 2 else)."""
    from campaign.services.ledger.verification import parse_head

    return None if head is None else parse_head(head)


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
        if head is not None and len(head) < 64:
            from campaign.services.ledger.verification import candidate_head

            found = candidate_head(session, campaign.id, head)
            head = head if found is None else found[1]
        params = {"c": campaign.id, "h": head}
        if head is not None:
            head_seq = session.execute(_SEAL_BY_HASH, params).scalar()
            if head_seq is None:
                other = session.execute(_ANY_BY_HASH, params).first()
                if other is not None:
                    raise RuleRefused(
                        _(
                            "--head {value}… is entry #{seq} ({kind}), not a seal; give a hash printed by "
                            "`history seal`"
                        ).format(value=head[:12], seq=other.seq, kind=other.kind)
                    )
                raise NotFound(
                    _("no seal with hash {value}… in campaign {name!r}").format(value=head[:12], name=campaign.name)
                )
        else:
            latest = session.execute(_LATEST_SEAL, params).first()
            if latest is None:
                raise RuleRefused(
                    _("campaign {name!r} has no seal yet: run `history seal` first").format(name=campaign.name)
                )
            head_seq, head = latest.seq, latest.hash
        last_seq = ledger.head(session, campaign.id)[0]
        if not 1 <= seq <= INT_MAX or seq > last_seq:
            raise NotFound(_("no ledger entry #{seq} in campaign {name!r}").format(seq=seq, name=campaign.name))
        if seq > head_seq:
            raise RuleRefused(
                _("entry #{seq} comes after the seal #{head_seq}: seal again (`history seal`) to prove it").format(
                    seq=seq, head_seq=head_seq
                )
            )

        rows = ledger.iter_chain(session, campaign.id, from_seq=seq)
        first = next(rows, None)
        if first is None or first.seq != seq:
            raise NotFound(_("no ledger entry #{seq} in campaign {name!r}").format(seq=seq, name=campaign.name))
        encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
        # Written by hand, key by key, so the entries can stream; one entry per line. The
        # campaign is the name inside the records (a renamed import keeps its chain's name).
        out.write(
            '{"format":"%s","version":%d,"campaign":%s,"seq":%d,"anchor":%s,"head":%s,"head_seq":%d,'
            '"entries":[\n'
            % (FORMAT, VERSION, encode(campaign.ledger_name), seq, encode(first.prev_hash), encode(head), head_seq)
        )
        walk, written = Walk(campaign.ledger_name, seq, first.prev_hash), 0
        for row in _chain(first, rows):
            if row.seq != walk.seq or walk.link_problem(row.prev_hash, row.record, row.hash):
                raise RuleRefused(
                    _("the stored chain is broken at #{seq}: run `history verify`; no proof was written").format(
                        seq=walk.seq
                    )
                )
            out.write(
                (",\n" if written else "")
                + encode({"prev_hash": row.prev_hash, "hash": row.hash, "record": row.record})
            )
            written += 1
            walk.advance(row.hash)
            if row.seq >= head_seq:
                break
        last_hash = walk.prev_hash if written else None
        out.write("\n]}\n")
        return BundleWritten(
            campaign=campaign.name, seq=seq, head=last_hash, head_seq=head_seq, entries=written, anchor=first.prev_hash
        )


def _chain(first: Any, rest: Iterator[Any]) -> Iterator[Any]:  # Core rows (ledger.iter_chain)
    yield first
    yield from rest


# --- checking --------------------------------------------------------------------------


def _is_hash(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 64 and all(ch in _HEX for ch in value)


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


MAX_BYTES = 256 * 2**20  # as campaign.proofcheck: a larger bundle is refused unread


def load_bundle(data: bytes) -> Any:
    if len(data) > MAX_BYTES:
        raise ProofRejected(N_("the bundle is larger than {value} MiB"), value=MAX_BYTES // 2**20)
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProofRejected(N_("the bundle is not UTF-8 text (byte {start})"), start=exc.start) from None
    if too_deep(decoded):
        raise ProofRejected(N_("the bundle is nested more than {MAX_DEPTH} levels deep"), MAX_DEPTH=MAX_DEPTH)
    try:
        return strict_loads(decoded)
    except Broken as exc:
        raise ProofRejected(exc.reason) from None
    except ValueError as exc:  # the json module's words: the table has them
        raise ProofRejected(N_("the bundle is not valid JSON ({exc})"), exc=str(exc)) from None


def check_bundle(bundle: Any, head: str | None = None) -> ProofHolds:  # noqa: C901 - mirrors campaign.proofcheck.check rule for rule, to be read side by side
    """What the bundle proves, or ProofRejected naming the first bad entry (BadInput for
    a --head prefix of several seals).

    The rules of campaign.proofcheck.check, in the same order, with the ledger's own hash.
    """
    head = clean_head(head)
    if not isinstance(bundle, dict):
        raise ProofRejected(N_("the bundle is not a JSON object"))
    if set(bundle) != BUNDLE_KEYS:
        missing, extra = sorted(BUNDLE_KEYS - set(bundle)), sorted(set(bundle) - BUNDLE_KEYS)
        raise ProofRejected(
            N_("the bundle's fields are wrong (missing {missing}, unexpected {extra})"), missing=missing, extra=extra
        )
    if bundle["format"] != FORMAT or not _is_int(bundle["version"]) or bundle["version"] != VERSION:
        raise ProofRejected(N_("not a {FORMAT} bundle of version {VERSION}"), FORMAT=FORMAT, VERSION=VERSION)
    campaign, first, entries = bundle["campaign"], bundle["seq"], bundle["entries"]
    if not isinstance(campaign, str):
        raise ProofRejected(N_("the bundle's campaign is not a name"))
    if not _is_int(first) or first < 1 or not _is_int(bundle["head_seq"]):
        raise ProofRejected(N_("the bundle's seq or head_seq is not a positive whole number"))
    for name in ("anchor", "head"):
        if not _is_hash(bundle[name]):
            raise ProofRejected(N_("the bundle's {name} is not a 64-hex SHA-256 hash"), name=name)
    if not isinstance(entries, list) or not entries:
        raise ProofRejected(N_("the bundle has no entries"))
    last = first + len(entries) - 1
    if bundle["head_seq"] != last:
        raise ProofRejected(
            N_("head_seq {head_seq} does not match {count} entries from #{first}"),
            head_seq=bundle["head_seq"],
            count=len(entries),
            first=first,
        )

    walk = Walk(campaign, first, bundle["anchor"], strict=True, anchor="the bundle's anchor")
    records: dict[int, dict[str, Any]] = {}
    seals: list[tuple[int, str]] = []
    fair_records: list[dict[str, Any]] = []  # what docs/fair-dice.md recomputes
    for seq, entry in enumerate(entries, start=first):
        if not isinstance(entry, dict) or set(entry) != ENTRY_KEYS:
            raise ProofRejected(N_("fields must be exactly {value}"), seq, value=sorted(ENTRY_KEYS))
        record_json, stored = entry["record"], entry["hash"]
        if not isinstance(record_json, str) or not _is_hash(stored) or not _is_hash(entry["prev_hash"]):
            raise ProofRejected(N_("record is not text, or a hash is not 64 hex digits"), seq)
        try:
            record = walk.step(entry["prev_hash"], record_json, stored)
        except Broken as exc:  # the chain's reasons, worded in English: the standalone checker's table has them
            raise ProofRejected(exc.reason, exc.seq) from None
        kind = record.get("kind")
        if seq == first or kind in ("seal", "void", "reveal") or secret_of(record) is not None:
            records[seq] = record  # only what voids and reveals need: a long bundle stays small
        if kind in ("seed_commit", "seed_reveal", "seed_abandon", *JUDGED_KINDS) or '"fair":{' in record_json:
            fair_records.append(record)  # fair dice recomputed, and rolls' results judged from their dice
        if kind == "seal":
            seals.append((seq, stored))
    if kind != "seal":
        raise ProofRejected(N_("the last entry is not a seal, so the head was never sealed"), last)
    if walk.prev_hash != bundle["head"]:
        raise ProofRejected(N_("the last entry's hash is not the bundle's head {head}"), last, head=bundle["head"])
    revealed: dict[int, int] = {}
    for seq, record in records.items():
        if record.get("kind") == "reveal":
            _check_reveal(records, first, seq, record, revealed)
    seal_seq, seal_hash = _your_seal(seals, head)
    from campaign.fair_check import check_records  # provably fair dice, recomputed (docs/fair-dice.md)

    fair = check_records(fair_records, partial=True)
    if not fair["ok"]:
        raise ProofRejected(N_("fair dice: {problem}"), fair["seq"], problem=fair["problem"])
    return ProofHolds(
        ok=True,
        campaign=campaign,
        seq=first,
        head=seal_hash,
        head_seq=seal_seq,
        entries=len(entries),
        head_given=head is not None,
        entry=records[first],
        voided_by=_voided_by(records, first, seal_seq),
        revealed_by=revealed.get(first) if revealed.get(first, seal_seq + 1) <= seal_seq else None,
        bundle_head=bundle["head"],
        bundle_head_seq=last,
    )


def _check_reveal(
    records: dict[int, dict[str, Any]], first: int, seq: int, record: dict[str, Any], revealed: dict[int, int]
) -> None:
    """services.checks.secret_rolls.check's rules for a reveal, as far as the bundle holds them:
    the commitment of a secret roll before the bundle is taken from the reveal itself."""
    detail = found if isinstance(found := record.get("detail"), dict) else {}
    target, commitment = detail.get("reveals"), detail.get("commitment")
    inside = _is_int(target) and first <= target < seq
    if not _is_int(target) or target >= seq or (inside and secret_of(records.get(target, {})) is None):
        raise ProofRejected(N_("the reveal names #{target}, which is no earlier secret roll"), seq, target=target)
    if target in revealed:
        raise ProofRejected(
            N_("secret roll #{target} is revealed twice (#{value}, #{seq})"),
            seq,
            target=target,
            value=revealed[target],
            seq=seq,
        )
    if (
        (inside and secret_of(records[target]) != commitment)
        or not isinstance(commitment, str)
        or not matches(commitment, detail.get("salt"), detail.get("result"))
    ):
        raise ProofRejected(
            N_("the reveal does not match the commitment of #{target} (wrong result or salt)"), seq, target=target
        )
    for name in COMMITTED_FIELDS:
        if name != "detail" and record.get(name) != detail["result"].get(name):
            raise ProofRejected(N_("the reveal shows a {name} other than the one committed"), seq, name=name)
    revealed[target] = seq


def _your_seal(seals: list[tuple[int, str]], head: str | None) -> tuple[int, str]:
    """(seq, hash) of the bundle's seal `head` names (None: the bundle's last)."""
    if head is None:
        return seals[-1]
    found = [seal for seal in seals if seal[1].startswith(head)]
    if len(found) > 1:
        raise BadInput(
            _("--head {head}: matches seals #{value} and #{value2}; give more digits").format(
                head=head, value=found[0][0], value2=found[1][0]
            )
        )
    if not found:
        raise ProofRejected(NOT_CONTAINED)
    return found[0]


def _voided_by(records: dict[int, dict[str, Any]], target: int, until: int) -> int | None:
    """The void up to `until` that took back `target` or the entry it is part of (its
    parent_seq: a sub-roll goes with its check), and that no later void took back."""
    voids = {
        seq: r.get("voids_seq")
        for seq, r in records.items()
        if seq <= until and r.get("kind") == "void" and _is_int(r.get("voids_seq"))
    }
    parent = records[target].get("parent_seq")
    aims = (target, parent) if _is_int(parent) else (target,)
    live = [seq for seq, voided in voids.items() if voided in aims and seq not in voids.values()]
    return max(live) if live else None


def check_file(path: str, head: str | None = None) -> ProofHolds:
    head = clean_head(head)  # malformed --head is exit 2 before the file is read
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except IsADirectoryError:
        raise BadInput(_("{path} is a directory").format(path=path)) from None
    except OSError as exc:
        from campaign.labels import os_problem

        raise NotFound(_("cannot read {path}: {strerror}").format(path=path, strerror=os_problem(exc))) from None
    return check_bundle(load_bundle(data), head)

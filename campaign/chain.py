"""The one chain verifier: the rules every reader of a hash chain applies, in one place.

An entry's hash is SHA-256 over the previous entry's hash followed by the entry's
canonical JSON (sorted keys, no spaces, UTF-8). `history verify` (rows of the database),
`import` (lines of an export file) and proof bundles (`history proof`, `proof check`)
all walk a chain with `Walk`: each entry must link to the one before, hash to its stored
hash, be a JSON object of this campaign and carry the seq it sits at. What only one of
them knows (a stored row's indexed columns, a bundle's field layout, an export's footer)
stays with that caller; the reasons it gives for the chain itself come from here.

campaign/proofcheck.py is a deliberate exception: a one-file, standard-library copy of
these rules that a player runs without the rest of the project. The tests hold it to
the same verdicts and the same words as `Walk(strict=True)`.

Standard library only, so it is cheap to import on every command that writes.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, NoReturn

GENESIS_HASH = "0" * 64


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, UTF-8 text: one spelling per value, so hashes are stable."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chain_hash(prev_hash: str, record_json: str) -> str:
    return hashlib.sha256((prev_hash + record_json).encode("utf-8")).hexdigest()


NOT_UTF8 = "record is not valid UTF-8 text (it holds a lone surrogate)"
NOT_CANONICAL = "record is not in canonical JSON (sorted keys, no spaces, UTF-8)"
MAX_DEPTH = 64  # JSON nesting a strict reader accepts (json.loads recurses, one frame a level)


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON text nests arrays and objects more than `limit` levels, found without
    parsing it. Strings are taken out first (escaped backslashes and quotes removed, the
    text split at the quotes left), so brackets inside them do not count."""
    if text.count("[") + text.count("{") <= limit:  # no deeper than its openers: every record
        return False
    outside = "".join(text.replace("\\\\", "").replace('\\"', "").split('"')[0::2])
    depth = 0
    for char in outside:
        if char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def canonical_problem(record_json: str, value: Any) -> str | None:
    """Why the hashed text is not the one spelling of `value` (its json.loads), or None.

    The rule: the record's bytes equal canonical_json(value) encoded as strict UTF-8,
    and both encodings succeed. An escaped lone surrogate (`\\ud800`) reads back as a
    string no UTF-8 can hold: every later reader of the record would fail on it.
    """
    try:
        exact = record_json.encode("utf-8")
        canonical = canonical_json(value).encode("utf-8")
    except UnicodeEncodeError:
        return NOT_UTF8
    return None if canonical == exact else NOT_CANONICAL


class Broken(Exception):
    """The chain does not hold at entry `seq` (None: the whole thing is not a chain)."""

    def __init__(self, reason: str, seq: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.seq = seq

    def __str__(self) -> str:
        return self.reason if self.seq is None else f"entry #{self.seq}: {self.reason}"


EDITED = "hash does not match the entry's content (the entry was edited)"


def _strict_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json.loads hook: a key given twice would let a reader and a checker see different values."""
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise Broken(f"key {key!r} appears twice in one object")
        seen[key] = value
    return seen


def _no_constants(name: str) -> NoReturn:
    raise Broken(f"{name} is not JSON")


def strict_loads(text: str) -> Any:
    """JSON that only one reading exists for: no repeated keys, no NaN/Infinity."""
    return json.loads(text, object_pairs_hook=_strict_object, parse_constant=_no_constants)


class Walk:
    """A chain read in order, entry `seq` first, hanging from `prev_hash`.

    `strict` (proof bundles, which travel outside the database) also refuses records that
    are not canonical JSON of valid UTF-8 (canonical_problem), that nest deeper than
    MAX_DEPTH or that a careful reader could read two ways. The ledger and import compare
    values, as they always have: a record spelled differently with the same values passes
    there.
    """

    __slots__ = ("campaign", "seq", "prev_hash", "strict", "anchor", "_first")

    def __init__(
        self,
        campaign: str,
        seq: int = 1,
        prev_hash: str = GENESIS_HASH,
        *,
        strict: bool = False,
        anchor: str = "the genesis hash",
    ) -> None:
        self.campaign = campaign
        self.seq = seq
        self.prev_hash = prev_hash
        self.strict = strict
        self.anchor = anchor  # what the first entry hangs from, for the reason a link fails
        self._first = seq

    def link_problem(self, prev_hash: Any, record_json: Any, digest: Any) -> str | None:
        """Why this entry does not link to the last one, or None: the link and the hash."""
        if prev_hash != self.prev_hash:
            where = self.anchor if self.seq == self._first else f"entry #{self.seq - 1}"
            return f"prev_hash does not link to {where}"
        if not isinstance(record_json, str) or not isinstance(digest, str):
            return "record or hash is not text"
        try:
            digest_now = chain_hash(prev_hash, record_json)
        except UnicodeEncodeError:  # a lone surrogate: no bytes were ever hashed for this text
            return NOT_UTF8
        if digest_now != digest:
            return EDITED
        return None

    def record_problem(self, record_json: str) -> tuple[dict[str, Any] | None, str | None]:
        """(record, None) when the hashed text is a record of this campaign at this seq."""
        if self.strict and too_deep(record_json):
            return None, f"record is nested more than {MAX_DEPTH} levels deep"
        try:
            record = strict_loads(record_json) if self.strict else json.loads(record_json)
        except ValueError:
            return None, "record is not valid JSON"
        except Broken as exc:
            return None, f"record: {exc.reason}"
        except RecursionError:
            return None, "record is nested too deeply"
        if self.strict:
            problem = canonical_problem(record_json, record)
            if problem:
                return None, problem
        if not isinstance(record, dict) or record.get("campaign") != self.campaign:
            return None, f"record does not belong to campaign {self.campaign!r}"
        if record.get("seq") != self.seq:
            return None, f"record says seq {record.get('seq')!r}, expected {self.seq}"
        return record, None

    def link(self, prev_hash: Any, record_json: Any, digest: Any) -> None:
        """Check the link and hash only (the caller trusts or checks the record itself); advance."""
        problem = self.link_problem(prev_hash, record_json, digest)
        if problem:
            raise Broken(problem, self.seq)
        self.advance(digest)

    def step(self, prev_hash: Any, record_json: Any, digest: Any) -> dict[str, Any]:
        """Check the next entry entirely and advance; its record, or Broken naming it."""
        problem = self.link_problem(prev_hash, record_json, digest)
        if problem:
            raise Broken(problem, self.seq)
        record, problem = self.record_problem(record_json)
        if problem:
            raise Broken(problem, self.seq)
        assert record is not None  # record_problem returns one whenever it finds no problem
        self.advance(digest)
        return record

    def advance(self, digest: str) -> None:
        self.prev_hash = digest
        self.seq += 1

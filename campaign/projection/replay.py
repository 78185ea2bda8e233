"""The state tables as a function of the ledger.

`replay(entries)` applies every live entry's ops in seq order. An entry is live unless
an effective void names it (or its parent); a void is effective unless a later
effective void names it, so "void the void" restores an entry. Because a void is
nothing but "the projection without that entry", reversing a change never needs its
own code: `plan_void` replays without the entry and reports every later entry whose
ops no longer apply (it escalated a trait the voided entry created, it ended a search
the voided entry started ...). Those are the voided entry's dependents.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from campaign.projection.legacy import legacy_ops
from campaign.projection.ops import BadOp, EntryContext, Op, OpConflict, parse_op
from campaign.projection.state import State


@dataclass(frozen=True)
class Entry:
    """What replay needs of one ledger entry."""

    seq: int
    kind: str
    at: str
    scenario: int | None
    parent_seq: int | None
    voids_seq: int | None
    ops: tuple[Op, ...]
    voidable: bool
    # First-release records (no "ops" key): their voids reversed changes in place, so a later
    # first-release entry may name something the projection never has (a condition cleared
    # after its check was voided). Such an op is skipped; it changed nothing then either.
    legacy: bool = False

    @property
    def context(self) -> EntryContext:
        return EntryContext(self.seq, self.at, self.scenario)


class ReplayConflict(Exception):
    """Entry `seq`'s ops do not apply to the state the entries before it left."""

    def __init__(self, seq: int, problem: str, op: Op | None = None, cause: OpConflict | None = None) -> None:
        super().__init__(f"entry #{seq}: {problem}")
        self.seq = seq
        self.problem = problem
        self.op = op  # the op that failed: what the entry did, for a refusal in words
        self.cause = cause


def entry_from_record(record: dict[str, Any]) -> Entry:
    """Parse a hashed record; raises BadOp (with the seq) when its ops are malformed."""
    # Values as hashed, passed on unchecked: the ledger writes a number and two strings,
    # and a chain walk has compared the seq (a float 5.0 there counts as 5).
    seq: Any = record.get("seq")
    kind: Any = record.get("kind")
    at: Any = record.get("at")
    try:
        if "ops" in record:
            raw = record["ops"]
            if not isinstance(raw, list):
                raise BadOp("ops must be a list")
            ops = [parse_op(op) for op in raw]
            voidable = record.get("voidable")
            if not isinstance(voidable, bool):
                raise BadOp("voidable must be true or false")
        else:
            ops, voidable = legacy_ops(record)
    except BadOp as exc:
        raise BadOp(f"entry #{seq}: {exc}") from None
    except (TypeError, AttributeError, KeyError) as exc:
        raise BadOp(f"entry #{seq}: malformed record ({exc})") from None
    return Entry(
        seq=seq,
        kind=kind,
        at=at,
        scenario=record.get("scenario"),
        parent_seq=record.get("parent_seq"),
        voids_seq=record.get("voids_seq"),
        ops=tuple(ops),
        voidable=voidable,
        legacy="ops" not in record,
    )


def effective_voids(pairs: Iterable[tuple[int, int]]) -> dict[int, int]:
    """{voided seq: seq of the void that voids it} from (void seq, target seq) pairs.

    Newest first: a void counts unless a later void that counts names it.
    """
    voided: dict[int, int] = {}
    for void_seq, target in sorted(pairs, reverse=True):
        if void_seq not in voided and target not in voided:
            voided[target] = void_seq
    return voided


def void_pairs(entries: Sequence[Entry]) -> list[tuple[int, int]]:
    return [(e.seq, e.voids_seq) for e in entries if e.kind == "void" and e.voids_seq is not None]


def replay(entries: Sequence[Entry], voided: Iterable[int] = ()) -> State:
    """The state the live entries make, or ReplayConflict naming the first that fails."""
    skip = set(voided)
    state = State()
    for entry in entries:
        if not entry.ops or entry.seq in skip or entry.parent_seq in skip:
            continue
        context = entry.context
        for op in entry.ops:
            try:
                op.apply(state, context)
            except OpConflict as exc:
                if entry.legacy:
                    continue
                raise ReplayConflict(entry.seq, str(exc), op, exc) from None
    return state


def project(entries: Sequence[Entry]) -> State:
    """The state the ledger as written describes."""
    return replay(entries, effective_voids(void_pairs(entries)))


@dataclass(frozen=True)
class VoidPlan:
    """What voiding `targets` would do: the new state, and the later entries that
    depend on them (which must be voided too, or the void refused)."""

    targets: tuple[int, ...]
    dependents: tuple[int, ...]
    reasons: dict[int, str]
    state: State
    failed: dict[int, ReplayConflict] | None = None  # why each dependent no longer applies


def plan_void(entries: Sequence[Entry], targets: Sequence[int], next_seq: int) -> VoidPlan:
    """Replay as if void entries for `targets` were appended from `next_seq` on.

    Every conflict names one more dependent; it is set aside (as a cascade would void
    it) and the replay starts again, until the rest applies cleanly.
    """
    pairs = void_pairs(entries)
    seq = next_seq
    for target in targets:
        pairs.append((seq, target))
        seq += 1
    dependents: list[int] = []
    reasons: dict[int, str] = {}
    failed: dict[int, ReplayConflict] = {}
    while True:
        voided = set(effective_voids(pairs))
        try:
            state = replay(entries, voided)
        except ReplayConflict as conflict:
            if conflict.seq in dependents:  # pragma: no cover - set aside entries are skipped
                raise
            dependents.append(conflict.seq)
            reasons[conflict.seq] = conflict.problem
            failed[conflict.seq] = conflict
            pairs.append((seq, conflict.seq))
            seq += 1
            continue
        return VoidPlan(tuple(targets), tuple(sorted(dependents)), reasons, state, failed)

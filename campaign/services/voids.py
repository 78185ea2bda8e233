"""`history void`: an entry taken back, so the state becomes the ledger's projection
without it (and without the later entries that depend on it, with --cascade).

The original row is never touched: "voided" is derived from the void entry. A void is
planned on a replay first (services.history reads the entries), refused when a later
live entry depends on it, and written with the state tables synced to the plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from campaign import ledger
from campaign.db.database import Database
from campaign.errors import BadInput, NotFound, RuleRefused
from campaign.services.common import campaign_named, campaign_transaction, clean_text
from campaign.services.history import _entry, record_of


@dataclass(frozen=True, slots=True)
class VoidPreview:
    """What a void would do: `cascade` the dependents voided first (newest first),
    `reversed` the state changes in words, `head` the ledger head it was planned on."""

    voided: int
    kind: str
    cascade: tuple[int, ...]
    reversed: tuple[str, ...]
    head: int


@dataclass(frozen=True, slots=True)
class Voided(VoidPreview):
    """The void done: `void_seqs` one void entry per voided entry, `seq` the last one."""

    seq: int
    void_seqs: tuple[int, ...]


@dataclass(frozen=True)
class _VoidPlan:
    seq: int
    record: dict[str, Any]
    dependents: tuple[int, ...]
    reasons: dict[int, str]
    state: Any
    changes: list[str]
    head: int
    before: Any = None  # the replayed state the tables equal now (knows renames)


def _voidable(record: dict[str, Any]) -> bool:
    from campaign.projection.replay import entry_from_record

    return entry_from_record(record).voidable


def _plan_void(session: Session, campaign, seq: int, cascade: bool) -> _VoidPlan:
    """Everything a void of `seq` would do, or RuleRefused saying why it may not."""
    from campaign.projection.describe import describe_changes
    from campaign.projection.replay import ReplayConflict, plan_void, project
    from campaign.projection.state import first_difference
    from campaign.services.state_tables import ledger_entries, load_state

    found = _entry(session, campaign.id, seq)
    if found is None:
        raise NotFound(f"no ledger entry #{seq} in campaign {campaign.name!r}")
    record, _prev, _hash, voided_by = found
    if voided_by is not None:
        raise RuleRefused(f"entry #{seq} is already voided (by #{voided_by})")
    restored = record["voids_seq"] if record["kind"] == "void" else None
    if restored is not None:
        target = _entry(session, campaign.id, restored)
        if target is not None and target[0]["kind"] == "void":
            raise RuleRefused(f"entry #{seq} takes back a void; to void #{target[0]['voids_seq']} again, "
                              f"void it directly")
    if not _voidable(record):
        if record["parent_seq"] is not None:
            raise RuleRefused(f"entry #{seq} is part of #{record['parent_seq']}; void #{record['parent_seq']} instead")
        raise RuleRefused(f"entry #{seq} ({record['kind']}) records structure, not a result; it cannot be voided")
    entries = ledger_entries(session, campaign)
    current = load_state(session, campaign)
    try:
        projected = project(entries)
        drift = first_difference(projected, current)
    except ReplayConflict as exc:
        raise RuleRefused(f"cannot void: the ledger does not replay ({exc}); run `campaign history verify`") from None
    if drift is not None:
        raise RuleRefused(f"cannot void: the state tables differ from the ledger ({drift.text()}); "
                          "run `campaign history verify`")
    head = ledger.head(session, campaign.id)[0]
    plan = plan_void(entries, [seq], head + 1)
    kinds = {e.seq: e for e in entries}
    for dependent in plan.dependents:
        reason = plan.reasons[dependent]
        if dependent == restored:
            raise RuleRefused(f"cannot take back void #{seq}: #{restored} no longer applies ({reason})")
        if not kinds[dependent].voidable:
            raise RuleRefused(f"cannot void #{seq}: entry #{dependent} ({kinds[dependent].kind}) depends on it "
                              f"({reason}) and cannot be voided")
    if plan.dependents and not cascade:
        listed = "; ".join(f"#{d} ({plan.reasons[d]})" for d in plan.dependents)
        raise RuleRefused(f"cannot void #{seq}: later entries depend on it: {listed}. "
                          f"Void them first, or add --cascade to void them too")
    return _VoidPlan(seq, record, plan.dependents, plan.reasons, plan.state,
                     describe_changes(projected, plan.state), head, projected)


def _void_fields(plan: _VoidPlan) -> dict[str, Any]:
    return dict(voided=plan.seq, kind=plan.record["kind"], cascade=tuple(reversed(plan.dependents)),
                reversed=tuple(plan.changes), head=plan.head)


def preview_void(db: Database, campaign_name: str | None, seq: int, cascade: bool = False) -> VoidPreview:
    """What `history void` would do, without doing it (for the confirmation prompt)."""
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        return VoidPreview(**_void_fields(_plan_void(session, campaign, seq, cascade)))


def void(db: Database, campaign_name: str | None, actor: str, seq: int, reason: str, *, cascade: bool = False,
         expect_head: int | None = None) -> Voided:
    """Void an entry: the state becomes the ledger's projection without it.

    The original row is never touched: "voided" is derived from the void entry. With
    `cascade`, the later entries that depend on it are voided too, newest first, in the
    same transaction. `expect_head` (from a preview the user confirmed) refuses if the
    ledger moved on in between.
    """
    from campaign.services.state_tables import sync_state

    reason = clean_text(reason, "--reason")
    if not reason or not reason.strip():
        raise BadInput("--reason is required: say why the entry is voided")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        plan = _plan_void(session, campaign, seq, cascade)
        if expect_head is not None and plan.head != expect_head:
            raise RuleRefused("the ledger changed while you were deciding; run the void again")
        seqs = []
        for target in [*reversed(plan.dependents), seq]:
            record = record_of(session, campaign.id, target)
            appended = ledger.append(session, campaign, actor, ledger.NewEntry(
                kind="void", voids_seq=target, character=record["character"], scenario=record["scenario"],
                reason=reason, voidable=True,
                detail={"voided": target, "voided_kind": record["kind"],
                        **({"cascade_of": seq} if target != seq else {})},
            ))
            seqs.append(appended.seq)
        sync_state(session, campaign, plan.state, plan.before)
        return Voided(**_void_fields(plan), seq=seqs[-1], void_seqs=tuple(seqs))


@dataclass(frozen=True, slots=True)
class VoidApproved(Voided):
    """services.group.approve: a player's void request granted, and the request entry
    (here, not in services.group, which every group-mode command loads)."""

    request: int

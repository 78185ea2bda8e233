"""`history void`: an entry taken back, so the state becomes the ledger's projection
without it (and without the later entries that depend on it, with --cascade).

The original row is never touched: "voided" is derived from the void entry. A void is
planned on a replay first (services.ledger.history reads the entries), refused when a later
live entry depends on it, and written with the state tables synced to the plan.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy.orm import Session

from campaign import ledger
from campaign.db.database import Database
from campaign.errors import BadInput, NotFound, RuleRefused
from campaign.i18n import _, pgettext
from campaign.labels import kind_label
from campaign.services.common import campaign_named, campaign_transaction, clean_text
from campaign.services.ledger.history import _entry, record_of

if TYPE_CHECKING:
    from campaign.db.models import Campaign
    from campaign.projection.replay import VoidPlan
    from campaign.projection.state import State


@dataclass(frozen=True, slots=True)
class VoidPreview:
    """What a void would do: `voided` the entry named (the oldest of `targets` when several
    are voided together), `cascade` the dependents voided too, `reversed` the state
    changes in words, `head` the ledger head it was planned on."""

    voided: int
    kind: str
    cascade: tuple[int, ...]
    reversed: tuple[str, ...]
    head: int
    targets: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Voided(VoidPreview):
    """The void done: `void_seqs` one void entry per voided entry (newest voided first),
    `seq` the last one."""

    seq: int
    void_seqs: tuple[int, ...]


@dataclass(frozen=True)
class _VoidPlan:
    targets: tuple[int, ...]
    records: dict[int, dict[str, Any]]
    dependents: tuple[int, ...]
    reasons: dict[int, str]
    state: Any
    changes: list[str]
    head: int
    before: Any = None  # the replayed state the tables equal now (knows renames)

    @property
    def order(self) -> list[int]:
        """Every entry the plan voids, newest first (a dependent before what it needs)."""
        return sorted({*self.targets, *self.dependents}, reverse=True)


def _voidable(record: dict[str, Any]) -> bool:
    from campaign.projection.replay import entry_from_record

    return entry_from_record(record).voidable


def _check_target(session: Session, campaign: Campaign, seq: int) -> tuple[dict[str, Any], int | None]:
    """The record of an entry that may be voided, and the seq it restores (a void's)."""
    found = _entry(session, campaign.id, seq)
    if found is None:
        raise NotFound(_("no ledger entry #{seq} in campaign {name!r}").format(seq=seq, name=campaign.name))
    record, _prev, _hash, voided_by = found
    if voided_by is not None:
        raise RuleRefused(_("entry #{seq} is already voided (by #{voided_by})").format(seq=seq, voided_by=voided_by))
    restored = record["voids_seq"] if record["kind"] == "void" else None
    if restored is not None:
        target = _entry(session, campaign.id, restored)
        if target is not None and target[0]["kind"] == "void":
            raise RuleRefused(
                _("entry #{seq} takes back a void; to void #{voids_seq} again, void it directly").format(
                    seq=seq, voids_seq=target[0]["voids_seq"]
                )
            )
    if not _voidable(record):
        if record["parent_seq"] is not None:
            raise RuleRefused(
                _("entry #{seq} is part of #{parent_seq}; void #{parent_seq} instead").format(
                    seq=seq, parent_seq=record["parent_seq"]
                )
            )
        raise RuleRefused(
            _("entry #{seq} ({kind}) records structure, not a result; it cannot be voided").format(
                seq=seq, kind=kind_label(record["kind"])
            )
        )
    return record, restored


def last_entries(session: Session, campaign: Campaign, count: int) -> list[int]:
    """`--last N`: the N newest live entries a void can take back, skipping what cannot be
    voided (structure, parts of another entry, seals) and void entries themselves (taking
    a void back is said by its seq)."""
    import json

    from sqlalchemy import select

    from campaign.db.models import LedgerEntry
    from campaign.projection.replay import effective_voids

    if count < 1:
        raise BadInput(_("--last takes a number of entries, 1 or more, not {count}").format(count=count))
    voided = effective_voids(
        (seq, target)
        for seq, target in session.execute(
            select(LedgerEntry.seq, LedgerEntry.voids_seq).where(
                LedgerEntry.campaign_id == campaign.id, LedgerEntry.kind == "void"
            )
        ).all()
        if target is not None  # a void always names its target
    )
    rows = session.execute(
        select(LedgerEntry.seq, LedgerEntry.kind, LedgerEntry.parent_seq, LedgerEntry.record)
        .where(LedgerEntry.campaign_id == campaign.id)
        .order_by(LedgerEntry.seq.desc())
        .execution_options(yield_per=200)
    )
    chosen: list[int] = []
    for seq, kind, parent_seq, record in rows:
        if kind == "void" or seq in voided or parent_seq is not None:
            continue
        if _voidable(json.loads(record) if isinstance(record, str) else record):
            chosen.append(seq)
            if len(chosen) == count:
                break
    if not chosen:
        raise RuleRefused(_("there is no entry left to void"))
    if len(chosen) < count:
        raise RuleRefused(_("only {count} entries can be voided, not {count2}").format(count=len(chosen), count2=count))
    return chosen


def _plan_void(session: Session, campaign: Campaign, seqs: Sequence[int], cascade: bool) -> _VoidPlan:
    """Everything a void of `seqs` (together) would do, or RuleRefused saying why it may not."""
    from campaign.db.state_tables import ledger_entries, load_state
    from campaign.projection.describe import describe_changes
    from campaign.projection.replay import ReplayConflict, plan_void, project
    from campaign.projection.state import first_difference
    from campaign.seeds import stat_names_for

    targets = tuple(sorted(set(seqs)))
    records, restores = {}, {}
    for seq in targets:
        records[seq], restored = _check_target(session, campaign, seq)
        if restored is not None:
            restores[seq] = restored
    entries = ledger_entries(session, campaign)
    current = load_state(session, campaign)
    try:
        projected = project(entries)
        drift = first_difference(projected, current)
    except ReplayConflict as exc:
        raise RuleRefused(
            _("cannot void: the ledger does not replay ({exc}); run `campaign history verify`").format(exc=exc)
        ) from None
    if drift is not None:
        raise RuleRefused(
            _("cannot void: the state tables differ from the ledger ({value}); run `campaign history verify`").format(
                value=drift.text()
            )
        )
    head = ledger.head(session, campaign.id)[0]
    plan = plan_void(entries, sorted(targets, reverse=True), head + 1)
    kinds = {e.seq: e for e in entries}
    named = ", ".join(f"#{t}" for t in targets)
    reasons = _reasons(plan, projected)
    for dependent in plan.dependents:
        reason = reasons[dependent]
        for seq, restored in restores.items():
            if dependent == restored:
                raise RuleRefused(
                    _("cannot take back void #{seq}: #{restored} no longer applies ({reason})").format(
                        seq=seq, restored=restored, reason=reason
                    )
                )
        if not kinds[dependent].voidable:
            raise RuleRefused(
                _(
                    "cannot void {named}: entry #{dependent} ({kind}) depends on it ({reason}) and cannot be voided"
                ).format(named=named, dependent=dependent, kind=kind_label(kinds[dependent].kind), reason=reason)
            )
    if plan.dependents and not cascade:
        listed = pgettext("list separator", "; ").join(reasons[d] for d in plan.dependents)
        raise RuleRefused(
            _(
                "cannot void {named}: later entries depend on it: {listed}. Void them first, or add --cascade to "
                "void them too"
            ).format(named=named, listed=listed)
        )
    for dependent in plan.dependents:
        records[dependent] = record_of(session, campaign.id, dependent)
    return _VoidPlan(
        targets,
        records,
        plan.dependents,
        plan.reasons,
        plan.state,
        describe_changes(projected, plan.state, stat_names_for(campaign.ruleset).aliases),
        head,
        projected,
    )


def _reasons(plan: VoidPlan, before: State) -> dict[int, str]:
    """Each dependent: what it did to what a voided entry made, in words (campaign.services.disputes.refusal_words)."""
    from campaign.services.disputes.refusal_words import dependency_reason

    failed = plan.failed or {}
    voided = {*plan.targets, *plan.dependents}
    return {
        seq: dependency_reason(failed[seq], before, voided) if seq in failed else plan.reasons[seq]
        for seq in plan.dependents
    }


def _void_fields(plan: _VoidPlan) -> dict[str, Any]:
    first = plan.targets[0]
    return dict(
        voided=first,
        kind=plan.records[first]["kind"],
        cascade=tuple(reversed(plan.dependents)),
        reversed=tuple(plan.changes),
        head=plan.head,
        targets=plan.targets,
    )


def _resolve(session: Session, campaign: Campaign, seqs: Sequence[int], last: int | None) -> list[int]:
    if last is not None:
        if seqs:
            raise BadInput(_("give entries to void or --last N, not both"))
        return last_entries(session, campaign, last)
    if not seqs:
        raise BadInput(_("say which entries to void: SEQ... or --last [N]"))
    return list(seqs)


def preview_void(
    db: Database, campaign_name: str | None, seq: int | Sequence[int], cascade: bool = False, *, last: int | None = None
) -> VoidPreview:
    """What `history void` would do, without doing it (for the confirmation prompt)."""
    seqs = [seq] if isinstance(seq, int) else list(seq)
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        return VoidPreview(
            **_void_fields(_plan_void(session, campaign, _resolve(session, campaign, seqs, last), cascade))
        )


def void(
    db: Database,
    campaign_name: str | None,
    actor: str,
    seq: int | Sequence[int],
    reason: str,
    *,
    cascade: bool = False,
    expect_head: int | None = None,
    last: int | None = None,
) -> Voided:
    """Void entries (one, several, or the `last` N): the state becomes the ledger's
    projection without them, in one transaction.

    The original rows are never touched: "voided" is derived from the void entries. With
    `cascade`, the later entries that depend on them are voided too; every void entry is
    written newest voided first. `expect_head` (from a preview the user confirmed)
    refuses if the ledger moved on in between.
    """
    from campaign.db.state_tables import sync_state

    seqs = [seq] if isinstance(seq, int) else list(seq)
    reason = clean_text(reason, "--reason")
    if not reason or not reason.strip():
        raise BadInput(_("--reason is required: say why the entry is voided"))
    with campaign_transaction(db, campaign_name) as (session, campaign):
        plan = _plan_void(session, campaign, _resolve(session, campaign, seqs, last), cascade)
        if expect_head is not None and plan.head != expect_head:
            raise RuleRefused(_("the ledger changed while you were deciding; run the void again"))
        void_seqs = []
        for target in plan.order:
            record = plan.records[target]
            cause = max((t for t in plan.targets if t < target), default=plan.targets[0])
            appended = ledger.append(
                session,
                campaign,
                actor,
                ledger.NewEntry(
                    kind="void",
                    voids_seq=target,
                    character=record["character"],
                    scenario=record["scenario"],
                    reason=reason,
                    voidable=True,
                    detail={
                        "voided": target,
                        "voided_kind": record["kind"],
                        **({"cascade_of": cause} if target not in plan.targets else {}),
                    },
                ),
            )
            void_seqs.append(appended.seq)
        sync_state(session, campaign, plan.state, plan.before)
        return Voided(**_void_fields(plan), seq=void_seqs[-1], void_seqs=tuple(void_seqs))


@dataclass(frozen=True, slots=True)
class VoidApproved(Voided):
    """services.campaigns.group.approve: a player's void request granted, and the request entry
    (here, not in services.campaigns.group, which every group-mode command loads)."""

    request: int

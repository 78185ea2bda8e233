"""`history verify`: what the chain proves, and what a kept seal head proves about it.

A player who kept the head printed by `history seal` wants one answer: is my seal still
in this chain, and what came after it? So a head is looked up among the chain's own
entries (never the `seal_heads` table, which whoever holds the database can edit), the
walk over the chain then confirms that hash is in it, and the report names the entry
(seq, reason, time) and counts the entries since. A prefix must have at least
MIN_HEAD_PREFIX hex digits (2^64 hashes to grind for a look-alike) and names seals only;
a full 64-hex hash may be any entry's (the head `history verify` prints).

A check that fails says why with a code (`code`) for programs and a reason for people;
nothing downstream reads the wording.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

from sqlalchemy import text
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.chain import chain_hash
from campaign.db.database import Database
from campaign.errors import BadInput
from campaign.i18n import N_, _
from campaign.services.common import campaign_named

if TYPE_CHECKING:
    from campaign.db.models import Campaign
    from campaign.services.checks.secret_rolls import SecretsCheck
    from campaign.services.fair.verify import FairCheck

MIN_HEAD_PREFIX = 16
_HEX = frozenset("0123456789abcdef")

# Codes of VerifyReport.code, besides ledger.CHAIN_BROKEN and ledger.HEAD_NOT_IN_CHAIN.
SECRETS_MISMATCH = "secrets_mismatch"
STATE_DIFFERS = "state_differs"
FAIR_DICE_WRONG = "fair_dice"  # a derived die or a seed that its commitment does not match

# Seals through the (campaign_id, kind, seq) index; any entry's hash only when no seal has it.
_SEALS_LIKE = text(
    "SELECT seq, hash FROM ledger WHERE campaign_id = :c AND kind = 'seal' AND hash LIKE :p ORDER BY seq LIMIT 2"
)
_ANY_BY_HASH = text("SELECT seq, hash FROM ledger WHERE campaign_id = :c AND hash = :h ORDER BY seq LIMIT 1")
_ROW = text("SELECT prev_hash, hash, record FROM ledger WHERE campaign_id = :c AND seq = :s")


@dataclass(frozen=True, slots=True)
class StateCheck:
    """The state tables against the ledger's replay: ok, or the problem (in words), and
    `table` the first table that differs (None when the ledger does not replay)."""

    ok: bool
    problem: str | None
    table: str | None


@dataclass(frozen=True, slots=True)
class StateDifference(StateCheck):
    """The first row and column that differ, with the replay's value and the table's."""

    key: Any
    column: str | None
    expected: Any
    found: Any


@dataclass(frozen=True, slots=True)
class HeadFound:
    """The entry a --head names in the verified chain: its seq, hash, kind ("seal" unless
    a full hash of another entry was given), the seal's reason, its time, and how many
    entries follow it."""

    seq: int
    hash: str
    kind: str
    reason: str | None
    at: str
    since: int


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """`history verify`. `code` and `reason` say why it failed (codes: ledger.CHAIN_BROKEN,
    ledger.HEAD_NOT_IN_CHAIN, SECRETS_MISMATCH, FAIR_DICE_WRONG, STATE_DIFFERS), `bad_seq` the first bad
    entry when one is to blame. `head_entry` is the entry --head named; `state` is None when
    not compared (--chain-only, or the chain already failed), `secrets` None when the
    chain failed before the reveals were checked; `unchecked` what could not be read."""

    campaign: str
    ok: bool
    entries: int
    head: str | None
    bad_seq: int | None
    reason: str | None
    state: StateCheck | None
    sealed_head: str | None
    secrets: SecretsCheck | None
    code: str | None = None
    head_entry: HeadFound | None = None
    unchecked: tuple[str, ...] = ()
    fair: FairCheck | None = None  # derived dice against revealed seeds (services.fair.verify)


def parse_head(value: str, option: str = "--head") -> str:
    """A head as typed (any case, spaces around it): 64 hex digits, or a prefix of
    MIN_HEAD_PREFIX or more; anything else is malformed (exit 2)."""
    head = value.strip().lower()
    if not MIN_HEAD_PREFIX <= len(head) <= 64 or any(ch not in _HEX for ch in head):
        raise BadInput(
            _(
                "{option} must be the hash printed by `history seal` (64 hex digits, or its first "
                "{MIN_HEAD_PREFIX} or more)"
            ).format(option=option, MIN_HEAD_PREFIX=MIN_HEAD_PREFIX)
        )
    return head


def candidate_head(session: Session, campaign_id: int, head: str) -> tuple[int, str] | None:
    """(seq, full hash) of the entry `head` names among the stored entries, or None.

    A prefix names seal entries only and must name one; a full hash may be any entry's.
    The walk that follows proves the row found is in the chain (a row outside it changes
    nothing: its hash is never seen)."""
    found = session.execute(_SEALS_LIKE, {"c": campaign_id, "p": head + "%"}).all()
    if len(found) > 1:
        raise BadInput(
            _("--head {head}: matches seals #{seq} and #{seq2}; give more digits").format(
                head=head, seq=found[0].seq, seq2=found[1].seq
            )
        )
    if not found and len(head) == 64:
        found = session.execute(_ANY_BY_HASH, {"c": campaign_id, "h": head}).all()
    return (found[0].seq, found[0].hash) if found else None


def _head_entry(session: Session, campaign_id: int, seq: int, digest: str, entries: int) -> HeadFound | None:
    """The verified entry `seq`, if its hash is `digest` (re-hashed here, so a row
    changed since the walk is not believed)."""
    row = session.execute(_ROW, {"c": campaign_id, "s": seq}).first()
    if row is None or row.hash != digest or chain_hash(row.prev_hash, row.record) != digest:
        return None
    record = json.loads(row.record)
    return HeadFound(
        seq=seq,
        hash=digest,
        kind=record.get("kind"),
        reason=record.get("reason"),
        at=record.get("at"),
        since=entries - seq,
    )


class VerifyProgress(Protocol):
    """What verify reports its walk to (the CLI's progress line)."""

    def start(self, total: int) -> None: ...

    def advance(self, n: int = 1) -> None: ...


class _ReportBase(TypedDict):
    """The fields every VerifyReport of one run shares."""

    campaign: str
    entries: int
    head: str | None
    state: StateCheck | None
    sealed_head: str | None
    head_entry: HeadFound | None


def verify(
    db: Database,
    campaign_name: str | None,
    head: str | None = None,
    progress: VerifyProgress | None = None,
    *,
    chain_only: bool = False,
) -> VerifyReport:
    """Recompute the chain; then (unless chain_only) replay it and compare the state tables.

    --chain-only reads the ledger alone: the reveals are checked against their
    commitments, the GM's hidden rows are not read (a player's role may not)."""
    wanted = None if head is None else parse_head(head)
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        target = None if wanted is None else candidate_head(session, campaign.id, wanted)
        if progress is not None:
            progress.start(ledger.head(session, campaign.id)[0])
        chain = ledger.verify(
            session, campaign, None if target is None else target[1], progress=progress.advance if progress else None
        )
        found = None
        if chain.ok and target is not None:
            found = _head_entry(session, campaign.id, *target, chain.entries)
        if chain.ok and wanted is not None and found is None:
            chain = ledger.ChainVerdict(
                False, chain.entries, chain.head_hash, None, ledger.NOT_CONTAINED, ledger.HEAD_NOT_IN_CHAIN
            )
        base: _ReportBase = dict(
            campaign=campaign.name,
            entries=chain.entries,
            head=chain.head_hash,
            state=None,
            sealed_head=None if found is None else found.hash,
            head_entry=found,
        )
        if not chain.ok:
            return VerifyReport(
                ok=False, bad_seq=chain.bad_seq, reason=chain.reason, secrets=None, code=chain.code, **base
            )
        from campaign.services.checks.secret_rolls import check as secrets_check

        secrets = secrets_check(session, campaign, hidden_rows=not chain_only)
        unchecked: tuple[str, ...] = () if secrets.unreadable is None else (secrets.unreadable,)
        if not secrets.ok:
            return VerifyReport(
                ok=False,
                bad_seq=secrets.seq,
                reason=secrets.problem,
                secrets=secrets,
                code=SECRETS_MISMATCH,
                unchecked=unchecked,
                **base,
            )
        from campaign.services.fair.verify import check as fair_check

        # The GM's kept seeds sit beside the hidden results: a role that may not read one
        # may not read the other.
        kept_seeds = not chain_only and secrets.unreadable is None
        if not chain_only and not kept_seeds:
            unchecked += (N_("the unrevealed seeds of fair dice (this role may not read them)"),)
        fair = fair_check(session, campaign, kept_seeds=kept_seeds)
        if not fair.ok:
            return VerifyReport(
                ok=False,
                bad_seq=fair.seq,
                reason=fair.problem,
                secrets=secrets,
                fair=fair,
                code=FAIR_DICE_WRONG,
                unchecked=unchecked,
                **base,
            )
        if chain_only:
            return VerifyReport(
                ok=True, bad_seq=None, reason=None, secrets=secrets, fair=fair, unchecked=unchecked, **base
            )
        state = _state_check(session, campaign)
        return VerifyReport(
            ok=state.ok,
            bad_seq=None,
            reason=None,
            secrets=secrets,
            fair=fair,
            unchecked=unchecked,
            code=None if state.ok else STATE_DIFFERS,
            **(base | {"state": state}),
        )


def _state_check(session: Session, campaign: Campaign) -> StateCheck:
    from campaign.db.state_tables import check_state
    from campaign.projection.ops import BadOp
    from campaign.projection.replay import ReplayConflict

    try:
        difference = check_state(session, campaign)
    except (BadOp, ReplayConflict) as exc:
        return StateCheck(ok=False, problem=f"the ledger does not replay: {exc}", table=None)
    if difference is None:
        return StateCheck(ok=True, problem=None, table=None)
    return StateDifference(
        ok=False,
        problem=difference.text(),
        table=difference.table,
        key=difference.key,
        column=difference.column,
        expected=difference.expected,
        found=difference.found,
    )

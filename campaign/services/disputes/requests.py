"""Void requests (group mode): a player asked, the GM grants.

A request is a `void_request` entry naming the entry to take back; `history approve`
voids that entry on the GM's role. Players' roles no longer append (migration 0010), so
no new requests come from them until the table server; the requests already in ledgers
were written by whoever could append then, and approval checks each of them again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.db.database import Database
from campaign.db.models import Campaign
from campaign.errors import NotFound, RuleRefused
from campaign.i18n import _
from campaign.labels import kind_label
from campaign.services.campaigns.group import identity
from campaign.services.common import campaign_named

if TYPE_CHECKING:  # loaded when a void is approved
    from campaign.services.disputes.voids import VoidApproved


@dataclass(frozen=True, slots=True)
class VoidRequested:
    """A player's `history void` in group mode: a request entry for the GM to approve."""

    seq: int
    kind: str  # "void_request"
    requested_void: int
    reason: str | None


# What a player's role could once append (migration 0007), so what a request may take back.
PLAYER_KINDS = ("roll", "check", "fright", "table")


def request_void(db: Database, campaign_name: str | None, actor: str, seq: int, reason: str) -> VoidRequested:
    """A void request entry for the GM to approve: a seat's request from the table
    server's page (services.table.writes), and the requests already in ledgers. Players
    hold no database role (migration 0016), so no request comes from a player's role."""
    from campaign.services.common import campaign_transaction, clean_text

    reason = clean_text(reason, "--reason")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        target = session.execute(
            text("SELECT kind FROM ledger WHERE campaign_id = :c AND seq = :s"), {"c": campaign.id, "s": seq}
        ).first()
        if target is None:
            raise NotFound(_("no entry #{seq} in campaign {name!r}").format(seq=seq, name=campaign.name))
        if target.kind in ("void", "void_request"):
            raise RuleRefused(
                _("entry #{seq} is a {kind}: only the GM can take it back").format(seq=seq, kind=target.kind)
            )
        appended = ledger.append(
            session,
            campaign,
            actor,
            ledger.NewEntry(kind="void_request", reason=reason, detail={"requested_void": seq}, voidable=False),
        )
        return VoidRequested(seq=appended.seq, kind="void_request", requested_void=seq, reason=reason)


def _requested_target(session: Session, campaign: Campaign, seq: int, request: dict[str, Any]) -> tuple[int, str]:
    """(target seq, requester) of void request #seq, checked now, at approval: whatever
    the request entry says was written by whoever could append then, so nothing in it is
    taken on trust. The target must exist, be live, be a top-level entry of a kind a
    player could make (never a void: a request cannot undo the GM's void), and the
    requester must be the one who made it."""
    from campaign.services.ledger.history import _entry

    def refused(why: str) -> RuleRefused:
        return RuleRefused(_("void request #{seq} cannot be approved: {why}").format(seq=seq, why=why))

    detail = request.get("detail")
    target = detail.get("requested_void") if isinstance(detail, dict) else None
    requester = request.get("actor")
    if isinstance(target, bool) or not isinstance(target, int) or not isinstance(requester, str):
        raise refused(_("it is malformed (no entry number or no requester)"))
    if not 0 < target < seq:
        raise refused(_("it names #{target}, which is not an earlier entry").format(target=target))
    found = _entry(session, campaign.id, target)
    if found is None:
        raise refused(_("entry #{target} does not exist").format(target=target))
    record, _prev, _hash, voided_by = found
    if voided_by is not None:
        raise refused(
            _("entry #{target} is already voided (by #{voided_by})").format(target=target, voided_by=voided_by)
        )
    if record.get("kind") not in PLAYER_KINDS or record.get("parent_seq") is not None:
        refusal = (
            _("entry #{target} is a {kind} sub-entry, which only the GM takes back")
            if record.get("parent_seq") is not None
            else _("entry #{target} is a {kind}, which only the GM takes back")
        )
        raise refused(refusal.format(target=target, kind=kind_label(str(record.get("kind")))))
    behalf = record.get("detail", {}).get("on_behalf_of") if isinstance(record.get("detail"), dict) else None
    if requester not in (record.get("actor"), behalf):
        raise refused(
            _("entry #{target} was made by {actor}, not by {requester}").format(
                target=target, actor=record.get("actor"), requester=requester
            )
        )
    return target, requester


def approve(db: Database, campaign_name: str | None, actor: str, seq: int, *, cascade: bool = False) -> VoidApproved:
    """The GM grants void request SEQ: the requested entry is voided (an ordinary void
    entry whose reason names the request), once every check of _requested_target holds."""
    import json

    from campaign.services.disputes.voids import VoidApproved, void
    from campaign.services.results import extended

    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        who = identity(session)
        if who is not None and who.kind != "gm":
            raise RuleRefused(_("group mode: only the GM's role approves void requests"))
        row = session.execute(
            text("SELECT kind, record FROM ledger WHERE campaign_id = :c AND seq = :s"), {"c": campaign.id, "s": seq}
        ).first()
        if row is None:
            raise NotFound(_("no entry #{seq} in campaign {name!r}").format(seq=seq, name=campaign.name))
        if row.kind != "void_request":
            raise RuleRefused(
                _("entry #{seq} is a {kind}, not a void request").format(seq=seq, kind=kind_label(row.kind))
            )
        try:
            request = json.loads(row.record)
        except ValueError:
            request = None
        if not isinstance(request, dict):
            raise RuleRefused(
                _("void request #{seq} cannot be approved: its record is not a JSON object").format(seq=seq)
            )
        target, requester = _requested_target(session, campaign, seq, request)
    reason = request.get("reason") if isinstance(request.get("reason"), str) else ""
    voided = void(
        db,
        campaign_name,
        actor,
        target,
        f"approved void request #{seq} by {requester}: {reason}".strip(),
        cascade=cascade,
    )
    return extended(VoidApproved, voided, request=seq)

"""Players' void requests, seen from the GM's side: which are open, and refusing one.

A request is a `void_request` entry (request_void, from the table server's page, or a
player's `history void` in older group mode); the GM grants it with `history approve
SEQ` (approve: an ordinary void whose reason names the request) or refuses it here, with
a `void_refusal` entry that names the request and changes nothing. Both answers are in
the chain, so "why is my roll still there?" has a
provable answer. A request is open while its entry is neither voided nor refused and
no approval names it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import text

from campaign import ledger
from campaign.db.database import Database
from campaign.errors import BadInput, NotFound, RuleRefused
from campaign.i18n import _, pgettext
from campaign.services.common import campaign_named, campaign_transaction, clean_text

if TYPE_CHECKING:
    from types import ModuleType

    from sqlalchemy.orm import Session


def requests_service() -> ModuleType:
    """The module holding request_void and approve: services.disputes.requests
    (migration 0010) on, services.campaigns.group before it. One lookup, so this branch works on
    either side of that merge."""
    import importlib

    try:
        module = importlib.import_module("campaign.services.disputes.requests")
        if hasattr(module, "approve") and hasattr(module, "request_void"):
            return module
    except ImportError:
        pass
    return importlib.import_module("campaign.services.campaigns.group")


_APPROVED = re.compile(r"^approved void request #(\d+)\b")
_BY_KIND = text("SELECT seq, record FROM ledger WHERE campaign_id = :c AND kind = :k ORDER BY seq")


@dataclass(frozen=True, slots=True)
class VoidRequest:
    seq: int
    actor: str
    on_behalf_of: str | None
    requested_void: int
    reason: str | None
    state: str  # open | approved | refused | voided


@dataclass(frozen=True, slots=True)
class VoidRefused:
    seq: int
    request: int
    requested_void: int
    reason: str


def _requests(session: Session, campaign_id: int) -> list[VoidRequest]:
    answered: dict[int, str] = {}
    for _seq, raw in session.execute(_BY_KIND, {"c": campaign_id, "k": "void_refusal"}):
        answered[json.loads(raw)["detail"]["refuses"]] = "refused"
    voided = {}
    for _seq, raw in session.execute(_BY_KIND, {"c": campaign_id, "k": "void"}):
        record = json.loads(raw)
        match = _APPROVED.match(record.get("reason") or "")
        if match:
            answered.setdefault(int(match.group(1)), "approved")
        voided[record.get("voids_seq")] = record["seq"]
    found = []
    for seq, raw in session.execute(_BY_KIND, {"c": campaign_id, "k": "void_request"}):
        record = json.loads(raw)
        target = record["detail"]["requested_void"]
        state = answered.get(seq) or ("voided" if target in voided else "open")
        found.append(
            VoidRequest(
                seq=seq,
                actor=record["actor"],
                on_behalf_of=record["detail"].get("on_behalf_of"),
                requested_void=target,
                reason=record.get("reason"),
                state=state,
            )
        )
    return found


def list_requests(db: Database, campaign_name: str | None, *, open_only: bool = True) -> tuple[VoidRequest, ...]:
    """The campaign's void requests, oldest first (open ones only by default)."""
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        requests = _requests(session, campaign.id)
    return tuple(r for r in requests if r.state == "open" or not open_only)


def refuse(db: Database, campaign_name: str | None, actor: str, seq: int, reason: str) -> VoidRefused:
    """Refuse open void request `seq`: a `void_refusal` entry, nothing else changes."""
    reason = clean_text(reason, "--reason")
    if not reason or not reason.strip():
        raise BadInput(_("--reason: say why the request is refused"))
    with campaign_transaction(db, campaign_name) as (session, campaign):
        request = next((r for r in _requests(session, campaign.id) if r.seq == seq), None)
        if request is None:
            raise NotFound(_("no void request #{seq} in campaign {name!r}").format(seq=seq, name=campaign.name))
        if request.state != "open":
            words = {
                "approved": lambda: pgettext("void request", "approved"),
                "refused": lambda: pgettext("void request", "refused"),
                "voided": lambda: pgettext("void request", "voided"),
            }
            state = words[request.state]() if request.state in words else request.state
            raise RuleRefused(_("void request #{seq} is already {state}").format(seq=seq, state=state))
        appended = ledger.append(
            session,
            campaign,
            actor,
            ledger.NewEntry(
                kind="void_refusal",
                reason=reason,
                detail={"refuses": seq, "requested_void": request.requested_void},
                voidable=False,
            ),
        )
        return VoidRefused(seq=appended.seq, request=seq, requested_void=request.requested_void, reason=reason)

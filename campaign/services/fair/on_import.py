"""Fair dice when a campaign is imported (services.ledger.transfer): the same checks as `history
verify`, the shares the copy must refuse again, and a commitment whose seed stayed behind.

An import that says "chain verified" and then fails `history verify` helps nobody, so the
imported records go through campaign.fair_check (every derived die, every judged result)
and a failure refuses the whole import. The shares used under each commitment are
written to fair_shares again (the database refuses a second use in the copy too). Seeds
are never exported: a commitment still open in the file can never be revealed in the
copy, so the import ends it with a `seed_abandon` entry and says so; its dice are shown
as unprovable, and the next `scenario start` may commit a new seed.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.db.models import Campaign
from campaign.errors import DataError
from campaign.fair_check import JUDGED_KINDS
from campaign.i18n import N_, _, language
from campaign.services.fair.seeds import ABANDON, COMMIT, GM, REVEAL

CHECKED_KINDS = (COMMIT, REVEAL, ABANDON, *JUDGED_KINDS)  # what fair_check reads besides fair entries
IMPORTED_WITHOUT_SEED = N_("imported without its seed (seeds are never exported)")


def wanted(record: dict[str, Any], record_json: str) -> bool:
    """Whether the import keeps `record` for the fair-dice check (the rest is not read)."""
    return record.get("kind") in CHECKED_KINDS or '"fair":{' in record_json


def check(records: list[dict[str, Any]]) -> None:
    """Refuse the import (DataError, one line naming the entry) as `history verify` would."""
    from campaign.fair_check import check_records
    from campaign.proofcheck import reason_text

    found = check_records(records)
    if not found["ok"]:
        problem = reason_text(found["problem"], language())
        raise DataError(_("fair dice: {problem}; nothing imported").format(problem=problem))


def record_shares(session: Session, campaign: Campaign, records: list[dict[str, Any]]) -> int:
    """Write the share of every version-2 request (its entry with index 0) to fair_shares."""
    from campaign.db.models_fair import FairShare

    rows = []
    for record in records:
        fair = (record.get("detail") or {}).get("fair")
        if isinstance(fair, dict) and fair.get("v") == 2 and fair.get("from") == 0:
            rows.append({"campaign_id": campaign.id, "commit_seq": fair["commit"], "share": fair["share"]})
            rows[-1]["seq"] = record["seq"]
    if rows:
        session.execute(insert(FairShare), rows)
    return len(rows)


def abandon_dangling(session: Session, campaign: Campaign, records: list[dict[str, Any]]) -> int | None:
    """End the commitment the file left open (its seed is not in any export) with a
    seed_abandon entry; its seq, or None when every commitment was ended."""
    ended = {
        (r.get("detail") or {}).get("reveals" if r["kind"] == REVEAL else "abandons")
        for r in records
        if r.get("kind") in (REVEAL, ABANDON)
    }
    commits = [r for r in records if r.get("kind") == COMMIT and r["seq"] not in ended]
    if not commits:
        return None
    dangling = commits[-1]
    ledger.lock_campaign(session, campaign.id)
    appended = ledger.append(
        session,
        campaign,
        GM,
        ledger.NewEntry(
            kind=ABANDON,
            scenario=dangling.get("scenario"),
            reason=IMPORTED_WITHOUT_SEED,
            detail={"abandons": dangling["seq"], "commitment": dangling["detail"]["commitment"]},
            voidable=False,
        ),
    )
    return appended.seq

"""`history verify` for fair dice: recompute every derived die from its revealed seed.

The chain check proves no entry changed after it was written, unless the whole chain
was re-hashed; this one proves each provable die is the one the committed seed and the
player's share give, which no re-hashing can fake (campaign.fair_check does the
recomputation, standard library only, so the standalone checker shares it). Seeds still
secret are checked against their commitments too, so a swapped row in fair_seeds is
caught before the reveal would show it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import msgspec
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from campaign.db.models import Campaign


@dataclass(frozen=True, slots=True)
class FairCheck:
    """ok, or the first entry whose fair dice or seed is wrong; counts of what was checked."""

    ok: bool
    seq: int | None
    problem: str | None
    revealed: int
    checked: int
    pending: int
    abandoned: int = 0  # fair entries under a commitment abandoned (seed lost): unprovable
    judged: int = 0  # entries whose total and outcome were recomputed from their dice


SEED_KINDS = ("seed_commit", "seed_reveal", "seed_abandon")
JUDGED_KINDS = ("roll", "fright")  # whose results fair_check.judge recomputes from their dice


def _records(session: Session, campaign_id: int) -> Iterator[dict[str, Any]]:
    """What fair_check reads, in seq order: the seed entries and fair entries whole, and
    every roll and fright check as the few fields a judgement reads (msgspec skips the
    rest, so judging 100,000 rolls costs little beside the chain's walk)."""
    kinds = (*SEED_KINDS, *JUDGED_KINDS)
    names = ", ".join(f":k{n}" for n in range(len(kinds)))
    rows = session.execute(
        text(
            f"SELECT record FROM ledger WHERE campaign_id = :c AND (kind IN ({names}) OR record LIKE :fair) "
            "ORDER BY seq"
        ),
        {"c": campaign_id, "fair": '%"fair":{%', **{f"k{n}": kind for n, kind in enumerate(kinds)}},
    )
    light = _light_reader()
    for (raw,) in rows:
        if '"fair":{' in raw or '"kind":"seed_' in raw:
            yield json.loads(raw)
            continue
        try:
            yield light(raw)
        except (msgspec.DecodeError, TypeError, ValueError):  # a shape the light reader refuses: read it all
            yield json.loads(raw)


class _LightGurps(msgspec.Struct):
    automatic: Any = None
    sorcery: Any = None


class _LightDetail(msgspec.Struct):
    gurps: _LightGurps | None = None


class _Light(msgspec.Struct):
    """The fields fair_check.judgement reads (of detail, its gurps marks only)."""

    seq: int
    kind: Any = None
    parent_seq: Any = None
    expression: Any = None
    dice: Any = None
    total: Any = None
    target: Any = None
    outcome: Any = None
    margin: Any = None
    detail: _LightDetail | None = None


def _light_reader() -> Callable[[str], dict[str, Any]]:
    decode = msgspec.json.Decoder(_Light).decode

    def read(raw: str) -> dict[str, Any]:
        f = decode(raw)
        gurps = None if f.detail is None else f.detail.gurps
        return {
            "seq": f.seq,
            "kind": f.kind,
            "parent_seq": f.parent_seq,
            "expression": f.expression,
            "dice": f.dice,
            "total": f.total,
            "target": f.target,
            "outcome": f.outcome,
            "margin": f.margin,
            "detail": {} if gurps is None else {"gurps": {"automatic": gurps.automatic, "sorcery": gurps.sorcery}},
        }

    return read


def check(session: Session, campaign: Campaign, *, kept_seeds: bool = True) -> FairCheck:
    """Every derived die against its revealed seed; with kept_seeds, the GM's unrevealed
    seeds against their commitments too (--chain-only reads the ledger alone)."""
    from campaign.core.fair_dice import seed_commitment, valid_seed
    from campaign.db.models_fair import FairSeed
    from campaign.fair_check import check_records

    records = list(_records(session, campaign.id))
    found = check_records(records)
    if found["ok"] and kept_seeds:
        commitments = {
            r["seq"]: (r.get("detail") or {}).get("commitment") for r in records if r.get("kind") == "seed_commit"
        }
        for row in session.scalars(select(FairSeed).where(FairSeed.campaign_id == campaign.id).order_by(FairSeed.seq)):
            if not valid_seed(row.seed) or commitments.get(row.seq) != seed_commitment(row.seed):
                return FairCheck(
                    ok=False,
                    seq=row.seq,
                    problem=f"the kept seed of commitment #{row.seq} does not match it: it was swapped",
                    revealed=0,
                    checked=0,
                    pending=0,
                )
    return FairCheck(**found)

"""`history verify` for fair dice: recompute every derived die from its revealed seed.

The chain check proves no entry changed after it was written, unless the whole chain
was re-hashed; this one proves each provable die is the one the committed seed and the
player's share give, which no re-hashing can fake (campaign.fair_check does the
recomputation, standard library only, so the standalone checker shares it). Seeds still
secret are checked against their commitments too, so a swapped row in fair_seeds is
caught before the reveal would show it.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import msgspec
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from campaign.db.models import Campaign
from campaign.ledger_shapes import dict_reader


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
    unlinked: int = 0  # a fright row's rolls recorded before they named their effect: not compared with it


SEED_KINDS = ("seed_commit", "seed_reveal", "seed_abandon")
WHOLE_KINDS = ("fright", "table")  # judged from more of their detail (a table's row, the check's margin): read whole


def _records(session: Session, campaign_id: int, repeats: list[tuple[dict[str, Any], int]]) -> Iterator[dict[str, Any]]:
    """What fair_check reads, in seq order: the seed entries and fair entries whole, and
    fright checks and table look-ups whole, and every roll as the few fields a judgement
    reads. On SQLite the rolls come grouped (one per distinct roll, the first seq of each, read by SQLite's own JSON
    functions); `repeats` then gets each with how many more it stands for. Elsewhere msgspec
    reads the fields (and skips the rest)."""
    if session.get_bind().dialect.name == "sqlite":
        whole = _rows(session, campaign_id, (*SEED_KINDS, *WHOLE_KINDS))
        return heapq.merge(whole, _distinct_rolls(session, campaign_id, repeats), key=lambda r: r["seq"])
    return _rows(session, campaign_id, (*SEED_KINDS, *WHOLE_KINDS, "roll"))


def _rows(session: Session, campaign_id: int, kinds: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    names = ", ".join(f":k{n}" for n in range(len(kinds)))
    rows = session.execute(
        text(
            f"SELECT record, kind FROM ledger WHERE campaign_id = :c AND (kind IN ({names}) OR record LIKE :fair) "
            "ORDER BY seq"
        ),
        {"c": campaign_id, "fair": FAIR_LIKE, **{f"k{n}": kind for n, kind in enumerate(kinds)}},
    )
    light, whole = _light_reader(), dict_reader()
    for raw, kind in rows:
        if kind == "roll" and '"fair":{' not in raw:
            try:
                yield light(raw)
                continue
            except (msgspec.DecodeError, TypeError, ValueError):  # a shape the light reader refuses: read it all
                pass
        yield whole(raw)


FAIR_LIKE = '%"fair":{%'
_JUDGED_PATHS = ("expression", "dice", "total", "target", "outcome", "margin", "source", "detail.gurps", "detail.fair")
# One JSON parse per row (SQLite 3.40 has no parse cache): json_extract with several
# paths gives them as one JSON array, types kept (true stays true).
_GROUPED = text(
    "SELECT min(seq) AS first, count(*) AS n, kind, parent_seq IS NULL AS top, json_extract(record, "
    + ", ".join(f"'$.{path}'" for path in _JUDGED_PATHS)
    + ") AS fields FROM ledger WHERE campaign_id = :c AND kind = 'roll' "
    "GROUP BY kind, top, fields ORDER BY first"
)


def _distinct_rolls(
    session: Session, campaign_id: int, repeats: list[tuple[dict[str, Any], int]]
) -> Iterator[dict[str, Any]]:
    """One record per distinct roll (SQLite), as judgement reads it; a fair roll is left
    to the whole read (its share makes it distinct anyway)."""
    for first, n, kind, top, fields in session.execute(_GROUPED, {"c": campaign_id}):
        *values, gurps, fair = json.loads(fields)
        if fair is not None:
            continue
        record: dict[str, Any] = dict(zip(_JUDGED_PATHS, values, strict=False))
        record.update(seq=first, kind=kind, parent_seq=None if top else 0)
        record["detail"] = {} if gurps is None else {"gurps": gurps}
        repeats.append((record, n - 1))
        yield record


class _LightGurps(msgspec.Struct):
    automatic: Any = None
    sorcery: Any = None
    target: Any = None


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
    source: Any = None
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
            "source": f.source,
            "detail": {}
            if gurps is None
            else {"gurps": {"automatic": gurps.automatic, "sorcery": gurps.sorcery, "target": gurps.target}},
        }

    return read


def check(session: Session, campaign: Campaign, *, kept_seeds: bool = True) -> FairCheck:
    """Every derived die against its revealed seed; with kept_seeds, the GM's unrevealed
    seeds against their commitments too (--chain-only reads the ledger alone)."""
    from campaign.core.fair_dice import seed_commitment, valid_seed
    from campaign.db.models_fair import FairSeed
    from campaign.fair_check import check_records, judgement

    repeats: list[tuple[dict[str, Any], int]] = []
    commitments: dict[int, Any] = {}

    def noting_commitments(records: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for record in records:
            if record.get("kind") == "seed_commit":
                commitments[record["seq"]] = (record.get("detail") or {}).get("commitment")
            yield record

    found = check_records(noting_commitments(_records(session, campaign.id, repeats)))
    if found["ok"]:  # the rolls each grouped record stood for, judged alike
        found["judged"] += sum(n for record, n in repeats if judgement(record) is not None)
    if found["ok"] and kept_seeds:
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

"""What `scenario list`, `scenario show`, `scenario start/end/note` and `missing reunion`
return: small frozen dataclasses (JSON through services.results.as_json, in the field
order below), and the reads that build a scenario's view.

The reunions and notes of `scenario show` are read from the hashed records, so what
was rolled is what the ledger proves."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from campaign.db.models import Campaign, Character, Disappearance, LedgerEntry, Scenario, ScenarioParticipant, Search

if TYPE_CHECKING:  # annotations only: those modules load when a scenario ends
    from campaign.services.campaigns.clock import TimeAdvanced
    from campaign.services.characters.lifecycle import CpAwardResult


@dataclass(frozen=True, slots=True)
class ScenarioSummary:
    """A row of `scenario list`."""

    number: int
    title: str
    status: str  # "open" or "ended"
    started_seq: int
    started_at: str
    ended_seq: int | None
    ended_at: str | None
    participants: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ScenarioSearch:
    """A search out during the scenario (sent at its start, or still out from before)."""

    searcher: str
    player: str | None
    target: str
    seq: int
    ended_seq: int | None
    carried_over: bool


@dataclass(frozen=True, slots=True)
class WentMissing:
    character: str
    seq: int


@dataclass(frozen=True, slots=True)
class RecordedReunion:
    """A reunion roll as its ledger record holds it; `voided_by` once voided."""

    character: str
    faces: int
    roll: int
    threshold: int
    searchers: tuple[str, ...]
    success: bool
    seq: int
    voided_by: int | None


@dataclass(frozen=True, slots=True)
class ScenarioNote:
    note: str
    seq: int
    at: str
    actor: str
    voided_by: int | None


@dataclass(frozen=True, slots=True)
class RosterChange:
    """A `scenario join` / `scenario leave` while the scenario was open."""

    character: str
    action: str  # "join" or "leave"
    seq: int
    voided_by: int | None


@dataclass(frozen=True, slots=True)
class ScenarioDetail(ScenarioSummary):
    """Everything `scenario show --json` promises."""

    searches: tuple[ScenarioSearch, ...]
    went_missing: tuple[WentMissing, ...]
    reunions: tuple[RecordedReunion, ...]
    notes: tuple[ScenarioNote, ...]
    roster: tuple[RosterChange, ...]


@dataclass(frozen=True, slots=True)
class SearcherSent:
    """A searcher sent at `scenario start`; `searchers` counts everyone now out for the target."""

    searcher: str
    player: str
    target: str
    searchers: int
    odds: str
    seq: int


@dataclass(frozen=True, slots=True)
class ScenarioStartResult(ScenarioDetail):
    seq: int
    sent: tuple[SearcherSent, ...]


@dataclass(frozen=True, slots=True)
class ReunionRolled:
    """A reunion check just rolled; `searchers` return with the character on a success."""

    character: str
    faces: int
    roll: int
    threshold: int
    searchers: tuple[str, ...]
    success: bool
    odds: str
    actor: str  # who typed the command
    # the missing character's player, who makes the roll (docs/rules.md "Missing and reunion check")
    on_behalf_of: str | None
    seq: int


@dataclass(frozen=True, slots=True)
class ReunionRolledAgain(ReunionRolled):
    """`missing reunion`: a reunion check rolled again for an ended scenario."""

    scenario: int


@dataclass(frozen=True, slots=True)
class ScenarioEndResult:
    """The scenario as it ended, its reunion checks, the CP awards (services.characters.lifecycle)
    and the campaign time advanced by --elapsed (services.campaigns.clock), if any."""

    scenario: ScenarioDetail
    reunions: tuple[ReunionRolled, ...]
    awards: tuple[CpAwardResult, ...]
    seq: int
    time: TimeAdvanced | None


@dataclass(frozen=True, slots=True)
class RosterChanged:
    """`scenario join` / `scenario leave` (action): who is in the open scenario now."""

    action: str
    scenario: int
    title: str
    character: str
    participants: tuple[str, ...]
    seq: int


@dataclass(frozen=True, slots=True)
class NoteAddedResult:
    scenario: int
    note: str
    seq: int


# --------------------------------------------------------------------------- reads


def _participants(session: Session, scenario: Scenario) -> tuple[str, ...]:
    return tuple(
        session.scalars(
            select(Character.name)
            .join(ScenarioParticipant, ScenarioParticipant.character_id == Character.id)
            .where(ScenarioParticipant.scenario_id == scenario.id)
            .order_by(Character.id)  # creation order: the same on every backend and collation
        )
    )


def _summary_fields(session: Session, scenario: Scenario) -> dict[str, Any]:
    return dict(
        number=scenario.number,
        title=scenario.title,
        status="open" if scenario.ended_seq is None else "ended",
        started_seq=scenario.started_seq,
        started_at=scenario.started_at,
        ended_seq=scenario.ended_seq,
        ended_at=scenario.ended_at,
        participants=_participants(session, scenario),
    )


def scenario_summary(session: Session, scenario: Scenario) -> ScenarioSummary:
    return ScenarioSummary(**_summary_fields(session, scenario))


def scenario_view(session: Session, campaign: Campaign, scenario: Scenario) -> ScenarioDetail:
    """Everything `scenario show --json` promises: who searched during it (sent at its
    start or still out from before), who went missing, every reunion roll recorded for
    it (voided ones marked, read from the ledger), and the GM's notes."""
    from campaign.services.ledger.history import HistoryFilter, _query

    started, ended = scenario.started_seq, scenario.ended_seq
    conditions = [Search.started_seq < ended] if ended is not None else []
    searches = session.execute(
        select(Search, Character, Disappearance)
        .join(Character, Search.searcher_id == Character.id)
        .join(Disappearance, Search.disappearance_id == Disappearance.id)
        .where(
            Disappearance.campaign_id == campaign.id,
            *conditions,
            (Search.ended_seq.is_(None)) | (Search.ended_seq > started),
        )
        .order_by(Search.started_seq)
    ).all()
    went_missing = session.execute(
        select(Character.name, Disappearance.since_seq)
        .join(Disappearance, Disappearance.character_id == Character.id)
        .where(Disappearance.since_scenario_id == scenario.id)
        .order_by(Disappearance.since_seq)
    ).all()

    # The reunion rolls, the notes and the roster changes in one query (read from the hashed records).
    query = _query(session, campaign.id, HistoryFilter(scenario=scenario.number, limit=None))
    logged: dict[str, list[tuple[dict[str, Any], int | None]]] = {"reunion": [], "note": [], "scenario": []}
    for record_json, _prev, _hash, voided_by_seq in session.execute(
        query.where(LedgerEntry.kind.in_(tuple(logged))).order_by(None).order_by(LedgerEntry.seq)
    ):
        record = json.loads(record_json)
        logged[record["kind"]].append((record, voided_by_seq))

    reunions = []
    for record, voided_by in logged["reunion"]:
        detail = record["detail"]
        reunions.append(
            RecordedReunion(
                character=record["character"],
                faces=detail["faces"],
                roll=detail["roll"],
                threshold=detail["threshold"],
                searchers=tuple(detail["searchers"]),
                success=detail["success"],
                seq=record["seq"],
                voided_by=voided_by,
            )
        )
    notes = tuple(
        ScenarioNote(
            note=record["reason"], seq=record["seq"], at=record["at"], actor=record["actor"], voided_by=voided_by
        )
        for record, voided_by in logged["note"]
    )
    return ScenarioDetail(
        **_summary_fields(session, scenario),
        searches=tuple(
            ScenarioSearch(
                searcher=searcher.name,
                player=searcher.player.name if searcher.player else None,
                target=session.get_one(Character, disappearance.character_id).name,
                seq=search.started_seq,
                ended_seq=search.ended_seq,
                carried_over=search.scenario_id != scenario.id,
            )
            for search, searcher, disappearance in searches
        ),
        went_missing=tuple(WentMissing(character=name, seq=seq) for name, seq in went_missing),
        reunions=tuple(reunions),
        notes=notes,
        roster=tuple(
            RosterChange(
                character=record["character"], action=record["detail"]["action"], seq=record["seq"], voided_by=voided_by
            )
            for record, voided_by in logged["scenario"]
            if (record.get("detail") or {}).get("action") in ("join", "leave")
        ),
    )

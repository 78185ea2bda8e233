"""Conditions (stunned, unconscious, a GM's "poisoned" ...): list, add, clear, and the
ending that `time advance` shares with `condition clear`.

Every change is one ledger entry of ops (services.recording), so `history void` undoes it.

Timing. A condition begins at the campaign clock (campaign.core.gametime). A timed one
(`condition add --for 6h`, the follow-up penalties, and fright conditions that end by
themselves after their rolled time: a 1-turn stun, a faint, a seizure) runs out at a
known campaign time and `time advance` ends it. A fright condition that ends only with a
recovery roll (unconscious: an HT roll each minute once its minutes are up) is not
timed: `condition list` shows from when the roll is due, and the GM clears it.

Ending a condition that carries a follow-up penalty (docs/rules.md "Penalty after
waking": entry 28's 6 hours at -2,
entry 30's -2 for as many days as the catatonia lasted) starts that penalty as a new
timed condition in the same entry, so voiding the clear (or the time advance) takes the
penalty back with it. See campaign.core.followup for how "as long as it lasted" is read.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, overload

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from campaign.core.condition_view import ConditionView
from campaign.core.followup import FOLLOW_UP, follow_up
from campaign.core.gametime import parse_span, unit_seconds
from campaign.db.database import Database
from campaign.db.models import Campaign, Character, Condition
from campaign.effect_words import (
    ClockReading,
    clock_reading,
    condition_document,
    condition_documents,
    condition_label_ja,
)
from campaign.errors import BadInput, NotFound
from campaign.i18n import _
from campaign.services.common import campaign_named, campaign_transaction, character_named, clean_name, clean_text
from campaign.services.recording import Recorder, recording
from campaign.services.results import converted_by

PENALTY_LIMIT = 100

# A condition travels as a ConditionView (campaign.core.condition_view: codes and
# numbers); effect_words.condition_document makes its `--json` document and
# campaign.labels its words. A ledger entry keeps its record() (no words).


@dataclass(frozen=True, slots=True)
class ConditionListing:
    """`condition list`: one character's conditions (or, with character None, everyone's,
    each view then naming its character)."""

    character: str | None
    now: int = field(metadata=converted_by(clock_reading))  # the campaign clock
    conditions: tuple[ConditionView, ...] = field(metadata=converted_by(condition_documents))


@dataclass(frozen=True, slots=True)
class ConditionAddedResult:
    seq: int
    action: str  # "add"
    character: str
    condition: ConditionView = field(metadata=converted_by(condition_document))


@dataclass(frozen=True, slots=True)
class ConditionsCleared:
    """Every matching condition ended, and the follow-up penalties that began
    (docs/rules.md "Penalty after waking")."""

    seq: int
    action: str  # "clear"
    character: str
    cleared: tuple[ConditionView, ...] = field(metadata=converted_by(condition_documents))
    follow_ups: tuple[ConditionView, ...] = field(metadata=converted_by(condition_documents))
    now: int = field(metadata=converted_by(clock_reading))


@dataclass(frozen=True, slots=True)
class EndedCondition:
    """A condition ended now (`condition clear`, a recovery roll, `time advance`): as it
    was when it ended (with its character and how long it lasted), and the follow-up
    penalty it started, read against the clock it started at."""

    ended: ConditionView
    follow_up: ConditionView | None


def label_ja(name: str, detail: dict[str, Any] | None) -> str | None:
    """A condition's Japanese name: from its code where this version knows it, else as recorded."""
    return condition_label_ja(name) or (detail or {}).get("label_ja")


@overload
def _clock_view(clock: int) -> ClockReading: ...
@overload
def _clock_view(clock: int | None) -> ClockReading | None: ...
def _clock_view(clock: int | None) -> ClockReading | None:
    return clock_reading(clock)


def due_clock(condition: Condition) -> int | None:
    """When an untimed condition's fixed time is up and its recovery roll is due."""
    detail = condition.detail or {}
    duration = detail.get("duration")
    if condition.until_clock is not None or not isinstance(duration, int) or not detail.get("unit"):
        return None
    return (condition.since_clock or 0) + duration * unit_seconds(detail["unit"])


def condition_view(condition: Condition, clock: int | None = None, character: str | None = None) -> ConditionView:
    """A condition row as it stands (the row's own detail and, for a row written before
    codes, its own length words); with the campaign `clock`, also the seconds that
    remain; with `character`, whose it is."""
    remaining = None
    if clock is not None and condition.until_clock is not None:
        remaining = max(0, condition.until_clock - clock)
    return ConditionView(
        name=condition.name,
        detail=condition.detail,
        source_seq=condition.source_seq,
        origin=condition.origin,
        since=condition.since_clock or 0,
        until=condition.until_clock,
        recovery_due=due_clock(condition),
        duration=condition.duration,
        remaining_seconds=remaining,
        character=character,
    )


def condition_codes(condition: Condition, clock: int | None = None) -> dict[str, Any]:
    """A condition as a ledger entry records it: codes and numbers, no words."""
    return condition_view(condition, clock).record()


# Built once: every roll asks it of its character (its penalties after waking).
_ACTIVE = (
    select(Condition)
    .where(Condition.character_id == bindparam("character_id"), Condition.cleared_seq.is_(None))
    .order_by(Condition.id)
)


def active_conditions(session: Session, character: Character) -> list[Condition]:
    return list(session.scalars(_ACTIVE, {"character_id": character.id}))


def campaign_conditions(session: Session, campaign: Campaign) -> list[tuple[Character, Condition]]:
    """Every active condition of the campaign, by character then age."""
    rows = session.execute(
        select(Character, Condition)
        .join(Condition, Condition.character_id == Character.id)
        .where(Character.campaign_id == campaign.id, Condition.cleared_seq.is_(None))
        .order_by(Character.name, Condition.id)
    ).all()
    return [(character, condition) for character, condition in rows]


def list_conditions(db: Database, campaign_name: str | None, character_name: str | None = None) -> ConditionListing:
    """One character's active conditions, or (no name) every character's."""
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        clock = campaign.clock or 0
        now = clock
        if character_name is not None:
            character = character_named(session, campaign, character_name)
            return ConditionListing(
                character=character.name,
                now=now,
                conditions=tuple(condition_view(c, clock) for c in active_conditions(session, character)),
            )
        return ConditionListing(
            character=None,
            now=now,
            conditions=tuple(
                condition_view(condition, clock, character.name)
                for character, condition in campaign_conditions(session, campaign)
            ),
        )


def _condition_matches(condition: Condition, wanted: str) -> bool:
    label = label_ja(condition.name, condition.detail)
    return condition.name.casefold() == wanted.casefold() or (label is not None and label == wanted)


@contextmanager
def _write(
    db: Database, campaign_name: str | None, character_name: str
) -> Iterator[tuple[Session, Campaign, Character]]:
    with campaign_transaction(db, campaign_name) as (session, campaign):
        yield session, campaign, character_named(session, campaign, character_name)


def _clean_penalty(penalty: int | None) -> int | None:
    if penalty is None:
        return None
    if isinstance(penalty, bool) or not isinstance(penalty, int) or abs(penalty) > PENALTY_LIMIT:
        raise BadInput(
            _("--then-penalty must be a whole number within ±{PENALTY_LIMIT}").format(PENALTY_LIMIT=PENALTY_LIMIT)
        )
    return penalty


def add_condition(
    db: Database,
    campaign_name: str | None,
    actor: str,
    character_name: str,
    name: str,
    *,
    lasts: str | None = None,
    then_penalty: int | None = None,
    then_for: str | None = None,
    reason: str | None = None,
) -> ConditionAddedResult:
    """The GM puts a condition on a character, timed with `lasts` ("6h"), optionally with
    a penalty that follows it (`then_penalty` for `then_for`) once it ends."""
    name = clean_name(name, "condition")
    reason = clean_text(reason, "--reason")
    span = parse_span(lasts, "--for") if lasts is not None else None
    then_penalty = _clean_penalty(then_penalty)
    if (then_penalty is None) != (then_for is None):
        raise BadInput(_("--then-penalty and --then-for go together (e.g. --then-penalty -2 --then-for 6h)"))
    detail: dict[str, Any] = {"source": "gm"}  # codes only: the words are made when shown
    if span is not None:
        detail["span"] = [[amount, unit] for amount, unit in span.parts]  # as typed: "3turns" reads 3 turns
    if then_penalty is not None and then_for is not None:  # they go together (above)
        after = parse_span(then_for, "--then-for")
        detail.update(after_penalty=then_penalty, after_duration=after.seconds, after_unit="second")
    with _write(db, campaign_name, character_name) as (session, campaign, character):
        with recording(session, campaign, actor, "condition") as entry:
            condition = entry.add_condition(character, name, None, detail, span.seconds if span else None)
            view = condition_view(condition, campaign.clock or 0)
            entry.describe(
                character=character.name, reason=reason or "added", detail={"action": "add", "condition": view.record()}
            )
        return ConditionAddedResult(seq=entry.seq, action="add", character=character.name, condition=view)


def end_condition(
    entry: Recorder, character: Character, condition: Condition, *, lasted: int | None = None
) -> EndedCondition:
    """Clear a condition now (at the campaign clock) and start its follow-up penalty, if
    it has one. `lasted` overrides how long it lasted (seconds). Returns what happened."""
    clock = entry.campaign.clock or 0
    lasted_seconds = lasted if lasted is not None else clock - (condition.since_clock or 0)
    ended = replace(condition_view(condition, character=character.name), lasted_seconds=lasted_seconds)
    entry.clear_condition(character, condition)
    terms = follow_up(condition.detail or {}, lasted_seconds, told=lasted is not None)
    if terms is None:
        return EndedCondition(ended, None)
    detail: dict[str, Any] = {  # codes only: effect_words.follow_up_summary says it
        "penalty": terms.penalty,
        "follows": condition.name,
        "follows_origin": condition.origin,
        "seconds": terms.seconds,
    }
    if terms.lasted is not None:
        detail["lasted"] = terms.lasted
    added = entry.add_condition(character, FOLLOW_UP, None, detail, terms.seconds)
    return EndedCondition(ended, condition_view(added, clock))


def clear_condition(
    db: Database,
    campaign_name: str | None,
    actor: str,
    character_name: str,
    name: str,
    *,
    reason: str | None = None,
    lasted: str | None = None,
) -> ConditionsCleared:
    """End every active condition of that name (slug such as `stun`, or 朦朧); a penalty
    that follows recovery (docs/rules.md "Penalty after waking") begins now as a timed
    condition."""
    name = clean_name(name, "condition")
    reason = clean_text(reason, "--reason")
    lasted_seconds = parse_span(lasted, "--lasted").seconds if lasted is not None else None
    with _write(db, campaign_name, character_name) as (session, campaign, character):
        current = active_conditions(session, character)
        matching = [c for c in current if _condition_matches(c, name)]
        if not matching:
            have = ", ".join(c.name for c in current) or "none"
            raise NotFound(
                _("{name} has no active condition {name2!r} (conditions: {have})").format(
                    name=character.name, name2=name, have=have
                )
            )
        with recording(session, campaign, actor, "condition") as entry:
            ended = [end_condition(entry, character, c, lasted=lasted_seconds) for c in matching]
            entry.describe(
                character=character.name,
                reason=reason or "cleared",
                detail={
                    "action": "clear",
                    "conditions": [e.ended.record() for e in ended],
                    "follow_ups": [e.follow_up.record() for e in ended if e.follow_up is not None],
                },
            )
        return ConditionsCleared(
            seq=entry.seq,
            action="clear",
            character=character.name,
            cleared=tuple(e.ended for e in ended),
            follow_ups=tuple(e.follow_up for e in ended if e.follow_up is not None),
            now=campaign.clock or 0,
        )

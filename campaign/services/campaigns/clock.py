"""Campaign time: `time advance` and `time show` (campaign.core.gametime for the units).

Advancing time is one voidable ledger entry (kind "time") whose ops walk the clock
forward event by event: for each timed condition that runs out on the way, in the order
they run out, the clock moves to that moment, the condition ends, and its follow-up
penalty (docs/rules.md "Penalty after waking") begins there, so a 6-hour penalty that starts two hours into a one-day
advance has run out by the end of it too. Voiding the entry brings every ended condition
back and withdraws the penalties it started; voiding a condition that a later advance
ended is refused (that advance depends on it) unless cascaded.

Conditions that end only with a recovery roll never run out by time; the advance lists
the ones whose roll became due so the GM knows whom to roll for.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TypedDict

from sqlalchemy.orm import Session

from campaign.core.condition_view import ConditionView
from campaign.core.gametime import parse_span, span_text
from campaign.db.database import Database
from campaign.db.models import Campaign
from campaign.effect_words import ClockReading, clock_reading, condition_documents, span_document
from campaign.services.characters.conditions import campaign_conditions, condition_view, due_clock, end_condition
from campaign.services.checks.lingering import HpDrain, drain_catatonia, record_drains
from campaign.services.common import campaign_named, campaign_transaction, clean_text
from campaign.services.recording import recording
from campaign.services.results import converted_by, omitted_when_empty, spread_by

# What an advance's record detail and its result share ("from" is a keyword: the call form).
_Span = TypedDict("_Span", {"seconds": int, "span": str, "span_ja": str, "from": ClockReading, "to": ClockReading})

# A result holds clocks and spans as seconds, conditions as ConditionView
# (campaign.core.condition_view); their words are made for `--json` (effect_words) and
# the CLI. The time entry's record keeps the readings it has always held (detail.from /
# detail.to, words included).


@dataclass(frozen=True, slots=True)
class TimeAdvanced:
    """`time advance` (or `scenario end --elapsed`): the span, the clock before and after
    (`from_` is "from" in JSON), the conditions that ran out on the way, the follow-up
    penalties that began, and those whose recovery roll is now due."""

    seq: int
    seconds: int = field(metadata=spread_by(span_document))  # "seconds", then its words
    from_: int = field(metadata=converted_by(clock_reading))
    to: int = field(metadata=converted_by(clock_reading))
    ended: tuple[ConditionView, ...] = field(metadata=converted_by(condition_documents))
    started: tuple[ConditionView, ...] = field(metadata=converted_by(condition_documents))
    recovery_due: tuple[ConditionView, ...] = field(metadata=converted_by(condition_documents))
    hp_drains: tuple[HpDrain, ...] = omitted_when_empty()  # untreated catatonia, a day each


@dataclass(frozen=True, slots=True)
class ClockShown:
    """`time show`: the clock now and every timed condition, soonest to run out first."""

    now: int = field(metadata=converted_by(clock_reading))
    timed: tuple[ConditionView, ...] = field(metadata=converted_by(condition_documents))


def advance_in(
    session: Session,
    campaign: Campaign,
    actor: str,
    seconds: int,
    reason: str | None = None,
    scenario: int | None = None,
) -> TimeAdvanced:
    """Append the time entry inside the caller's transaction (which holds the append lock)."""
    start = campaign.clock or 0
    target = start + seconds
    ended: list[ConditionView] = []
    started: list[ConditionView] = []
    with recording(session, campaign, actor, "time") as entry:
        while True:
            timed = [
                (c.until_clock, c.id, character, c)
                for character, c in campaign_conditions(session, campaign)
                if c.until_clock is not None and c.until_clock <= target
            ]
            if not timed:
                break
            until, _, character, condition = min(timed, key=lambda item: (item[0], item[1]))
            if until > (campaign.clock or 0):
                entry.advance_clock(until - campaign.clock)
            result = end_condition(entry, character, condition, lasted=until - (condition.since_clock or 0))
            session.flush()
            ended.append(result.ended)
            if result.follow_up is not None:
                started.append(replace(result.follow_up, character=character.name))
        drains = drain_catatonia(session, campaign, entry, start, target)  # services.checks.lingering
        if target > (campaign.clock or 0):
            entry.advance_clock(target - campaign.clock)
        due = [
            condition_view(c, target, character.name)
            for character, c in campaign_conditions(session, campaign)
            if (due_at := due_clock(c)) is not None and due_at <= target
        ]
        en, ja = span_text(seconds)
        summary: _Span = {
            "seconds": seconds,
            "span": en,
            "span_ja": ja,
            "from": clock_reading(start),
            "to": clock_reading(target),
        }
        entry.describe(
            reason=reason or f"time advances {en}",
            scenario=scenario,
            detail={
                "action": "advance",
                **summary,
                "ended": [{"character": e.character, "name": e.name, "origin": e.origin} for e in ended],
                "started": [{"character": s.character, "name": s.name, "origin": s.origin} for s in started],
                **({"hp_drains": drains} if drains else {}),
            },
        )
    record_drains(session, campaign, actor, entry.seq, drains, scenario)
    return TimeAdvanced(
        seq=entry.seq,
        seconds=seconds,
        from_=start,
        to=target,
        ended=tuple(ended),
        started=tuple(started),
        recovery_due=tuple(due),
        hp_drains=tuple(drains),
    )


def advance(
    db: Database, campaign_name: str | None, actor: str, span: str, *, reason: str | None = None
) -> TimeAdvanced:
    """Move campaign time on by `span` ("6h", "2day", "3turns")."""
    seconds = parse_span(span, "time").seconds
    reason = clean_text(reason, "--reason")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        return advance_in(session, campaign, actor, seconds, reason)


def show(db: Database, campaign_name: str | None) -> ClockShown:
    """The campaign clock and every timed condition, soonest to run out first."""
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        clock = campaign.clock or 0
        timed = sorted(
            (
                (c.until_clock, c.id, character.name, c)
                for character, c in campaign_conditions(session, campaign)
                if c.until_clock is not None
            ),
            key=lambda item: (item[0], item[1]),
        )
        return ClockShown(now=clock, timed=tuple(condition_view(c, clock, name) for _, _, name, c in timed))

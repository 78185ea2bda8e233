"""`condition recover`: the recovery roll a fright condition asks for, rolled and applied.

A stun from the fright table ends "with a Will roll each turn", an unconscious spell
"with an HT roll each minute once its minutes are up" (the entry's `recovery` code, kept
in the condition's detail). Without this the GM rolled by hand and remembered to `condition
clear`; here one entry holds the 3d6 roll (judged as any success roll, docs/rules.md "Success roll") and, on a
success, the clear with its follow-up penalty (services.characters.conditions.end_condition), so
voiding the entry takes the recovery back. A failure is recorded too: it changes nothing,
and the roll can be made again (each turn, minute ... as the entry says).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from campaign.core.condition_view import ConditionView
from campaign.core.derived import stat_value
from campaign.core.dice_source import DiceSource, about
from campaign.core.success import CRITICAL_SUCCESS, SUCCESS, success_roll
from campaign.db.database import Database
from campaign.db.models import Character, Condition
from campaign.effect_words import condition_document_or_none, condition_documents
from campaign.errors import BadInput, NotFound, RuleRefused
from campaign.i18n import _
from campaign.labels import condition_label
from campaign.services.characters.conditions import (
    _condition_matches,
    _write,
    active_conditions,
    condition_codes,
    due_clock,
    end_condition,
    label_ja,
)
from campaign.services.common import clean_name, clean_text
from campaign.services.recording import recording
from campaign.services.results import converted_by

# recovery code -> (the stat rolled against, whether the roll ignores penalties)
ROLLS = {
    "will": ("Will", False),
    "will_ignoring_penalties": ("Will", True),
    "ht": ("HT", False),
    "iq": ("IQ", False),
    "iq_ignoring_penalties": ("IQ", True),
}
MODIFIER_LIMIT = 100


@dataclass(frozen=True, slots=True)
class RecoveryRolled:
    """One recovery roll: `recovered` says whether the condition ended (then `cleared`
    and any `follow_ups` it started, as `condition clear` reports them)."""

    seq: int
    action: str  # "recover"
    character: str
    condition: str
    label_ja: str | None
    stat: str
    target: int
    dice: tuple[int, ...]
    total: int
    outcome: str
    margin: int
    recovered: bool
    cleared: ConditionView | None = field(metadata=converted_by(condition_document_or_none))
    follow_ups: tuple[ConditionView, ...] = field(metadata=converted_by(condition_documents))
    source: str
    warnings: tuple[str, ...]


def recovery_stat(detail: Mapping[str, Any] | None) -> tuple[str, bool] | None:
    """(stat, ignores penalties) of a condition's recovery roll, or None if it has none."""
    recovery = (detail or {}).get("recovery")
    return ROLLS.get(recovery) if isinstance(recovery, str) else None


def _condition_named(session: Session, character: Character, name: str) -> Condition:
    """The oldest active condition of that name (slug or label); NotFound without one."""
    matching = [c for c in active_conditions(session, character) if _condition_matches(c, name)]
    if not matching:
        have = ", ".join(c.name for c in active_conditions(session, character)) or "none"
        raise NotFound(
            _("{name} has no active condition {name2!r} (conditions: {have})").format(
                name=character.name, name2=name, have=have
            )
        )
    return matching[0]


def _recovery_stat_of(character: Character, condition: Condition, modifier: int) -> tuple[str, int]:
    """The stat a condition's recovery roll is made against and its value; refused for a
    condition without a roll, a --mod on a roll that ignores penalties, a missing stat."""
    recovery = (condition.detail or {}).get("recovery")
    rolled = recovery_stat(condition.detail)
    if rolled is None:
        if recovery == "auto":
            raise RuleRefused(
                _("{name}'s {name2} ends by itself: `campaign time advance` runs it out").format(
                    name=character.name, name2=condition.name
                )
            )
        text = (
            _("{name}'s {condition} has no recovery roll (the GM decides); end it with {command}")
            if recovery == "gm"
            else _("{name}'s {condition} has no recovery roll; end it with {command}")
        )
        command = f"`campaign condition clear {character.name} {condition.name}`"
        raise RuleRefused(text.format(name=character.name, condition=condition.name, command=command))
    stat, ignores_penalties = rolled
    if modifier and ignores_penalties:
        raise BadInput(_("this {stat} roll ignores penalties (the fright table says so): drop --mod").format(stat=stat))
    value = stat_value(character.stats, stat)
    if value is None:
        raise RuleRefused(
            _("{name} has no {stat} stat to roll {name2}'s recovery against").format(
                name=character.name, stat=stat, name2=condition.name
            )
        )
    return stat, value.value


def _early_roll_warnings(condition: Condition, clock: int) -> list[str]:
    """A roll made before the campaign clock says it is due is rolled, with a warning."""
    due = due_clock(condition)
    if due is None or due <= clock:
        return []
    from campaign.core.gametime import clock_text
    from campaign.i18n import pick

    def said(at: int) -> str:
        english, japanese = clock_text(at)
        return pick(japanese, english)

    return [
        _("by the campaign clock the roll is due from {due} (now {now}); rolled all the same").format(
            due=said(due), now=said(clock)
        )
    ]


def recover(
    db: Database,
    campaign_name: str | None,
    actor: str,
    character_name: str,
    name: str,
    source: DiceSource,
    *,
    modifier: int = 0,
    reason: str | None = None,
) -> RecoveryRolled:
    name = clean_name(name, "condition")
    reason = clean_text(reason, "--reason")
    if isinstance(modifier, bool) or not isinstance(modifier, int) or abs(modifier) > MODIFIER_LIMIT:
        raise BadInput(_("--mod must be a whole number within ±{MODIFIER_LIMIT}").format(MODIFIER_LIMIT=MODIFIER_LIMIT))
    with _write(db, campaign_name, character_name) as (session, campaign, character):
        condition = _condition_named(session, character, name)
        stat, stat_base = _recovery_stat_of(character, condition, modifier)
        target = stat_base + modifier
        warnings = _early_roll_warnings(condition, campaign.clock or 0)
        with about(source, character.name):
            purpose = _("{name}'s {stat} roll to recover from {condition}").format(
                name=character.name, stat=stat, condition=condition_label(condition.name)
            )
            judged = success_roll(target, source, purpose=purpose)
        source.ensure_all_used()
        recovered = judged.outcome in (SUCCESS, CRITICAL_SUCCESS)
        with recording(session, campaign, actor, "condition") as entry:
            ended = end_condition(entry, character, condition) if recovered else None
            cleared = None if ended is None else ended.ended
            follow_up = None if ended is None else ended.follow_up
            follow_ups = () if follow_up is None else (follow_up,)
            entry.describe(
                character=character.name,
                expression=f"3D6<={target}",
                dice=list(judged.faces),
                total=judged.total,
                target=target,
                outcome=judged.outcome,
                margin=judged.margin,
                source=source.kind,
                reason=reason or "recovery roll",
                detail={
                    "action": "recover",
                    "stat": stat,
                    "stat_value": stat_base,
                    "modifier": modifier,
                    "condition": condition_codes(condition),
                    "recovered": recovered,
                    "conditions": [] if cleared is None else [cleared.record()],
                    "follow_ups": [view.record() for view in follow_ups],
                },
            )
        return RecoveryRolled(
            seq=entry.seq,
            action="recover",
            character=character.name,
            condition=condition.name,
            label_ja=label_ja(condition.name, condition.detail),
            stat=stat,
            target=target,
            dice=tuple(judged.faces),
            total=judged.total,
            outcome=judged.outcome,
            margin=judged.margin,
            recovered=recovered,
            cleared=cleared,
            follow_ups=follow_ups,
            source=source.kind,
            warnings=tuple(warnings),
        )

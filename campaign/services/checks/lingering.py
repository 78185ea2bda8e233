"""What a fright leaves behind between rolls: the penalty after waking and catatonia's
HP drain (docs/rules.md, "Penalty after waking" and "Catatonia's HP drain").

Penalty after waking. Entries 28-30 (and those that include them) leave -2 to every roll
once the character wakes: a timed `recovering` condition (campaign.core.followup) whose
detail holds the penalty. While one is active it applies by itself to the character's
fright checks, GURPS success rolls made with `roll --char`, and 2d6 checks (ability,
skill, opposed, danger sense, hiding); each roll's record says which condition gave it.
A cooperative check is one roll for the whole group and takes no one's penalty.

Catatonia's HP drain. Entry 30's catatonia costs 1 HP on its first day, 2 on the second,
and so on, unless it gets proper medical care. `time advance` applies the loss of every
day that completes during the advance (a day is 24 hours of campaign time from when the
catatonia began) through ops on the time entry, and writes one sub-entry per day so the
history shows each loss. Only the rolled days drain: once they are over the HT roll is
due, so a long time jump applies no more than those days. Medical care is a condition the GM puts on the character:
`condition add CHAR medical_care` (or 医学的処置); while it is active no day drains, and
clearing it lets the drain go on from the next day that completes.
"""

from __future__ import annotations

from typing import Any, TypedDict

from sqlalchemy.orm import Session, object_session

from campaign import ledger
from campaign.core.followup import FOLLOW_UP, rolled_seconds
from campaign.core.gametime import unit_seconds
from campaign.db.models import Campaign, Character, Condition
from campaign.services.recording import Recorder

MEDICAL_CARE = ("medical_care", "医学的処置")
DAY = unit_seconds("day")


def _active(session: Session, character: Character) -> list[Condition]:
    from campaign.services.characters.conditions import active_conditions

    return active_conditions(session, character)


class RollPenalty(TypedDict):
    """A penalty after waking that is active (docs/rules.md "Penalty after waking")."""

    penalty: int  # to every roll, e.g. -2
    origin: str  # the follow-up condition's
    follows: str | None  # the condition it follows


class HpDrain(TypedDict):
    """One day's HP an untreated catatonia drains (docs/rules.md "Catatonia's HP drain")."""

    character: str
    condition: str
    origin: str
    day: int
    hp: int
    at_clock: int
    tracked: bool  # False: the character has no HP stat, the loss is recorded only
    before: int | None
    after: int | None


def roll_penalties(character: Character, session: Session | None = None) -> list[RollPenalty]:
    """The active penalties after waking of one character."""
    session = session or object_session(character)
    if session is None:  # pragma: no cover - every row here comes from a session
        return []
    found: list[RollPenalty] = []
    for condition in _active(session, character):
        penalty = (condition.detail or {}).get("penalty")
        if condition.name == FOLLOW_UP and isinstance(penalty, int) and not isinstance(penalty, bool):
            found.append(
                {"penalty": penalty, "origin": condition.origin, "follows": (condition.detail or {}).get("follows")}
            )
    return found


def penalty_total(penalties: list[RollPenalty]) -> int:
    return sum(item["penalty"] for item in penalties)


def penalty_modifiers(character: Character) -> tuple[tuple[str, int], ...]:
    """A 2d6 check's modifier terms for the character's penalties after waking."""
    return tuple((FOLLOW_UP, item["penalty"]) for item in roll_penalties(character))


def with_penalties(character: Character, modifiers: tuple[tuple[str, int], ...]) -> tuple[tuple[str, int], ...]:
    return (*modifiers, *penalty_modifiers(character))


def penalized_roll(result: Any, penalties: list[RollPenalty]) -> Any:
    """A GURPS success roll (core.dice.DiceResult with a judgement) judged again against
    its target plus the character's penalties; the record keeps the written target."""
    from dataclasses import replace

    from campaign.core.success import judge_success

    judged = result.judgement
    if judged is None or not penalties or result.repeats:
        return result
    target = judged.target + penalty_total(penalties)
    again = judge_success(judged.raw, judged.total, target, faces=judged.faces, sorcery=judged.sorcery)
    return replace(result, target=target, outcome=again.outcome, margin=again.margin, judgement=again)


# --------------------------------------------------------------------------- drain


def _cared_for(conditions: list[Condition]) -> bool:
    return any(condition.name in MEDICAL_CARE for condition in conditions)


def drain_catatonia(session: Session, campaign: Campaign, entry: Recorder, start: int, target: int) -> list[HpDrain]:
    """Apply, inside a time entry, the HP every untreated catatonia loses for each day
    that completes between `start` and `target` (campaign clock seconds)."""
    from campaign.core.derived import pool_current, stat_value
    from campaign.seeds import stat_names_for
    from campaign.services.characters.conditions import campaign_conditions

    drains: list[HpDrain] = []
    by_character: dict[int, list[Condition]] = {}
    rows = campaign_conditions(session, campaign)
    for character, condition in rows:
        by_character.setdefault(character.id, []).append(condition)
    for character, condition in rows:
        detail = condition.detail or {}
        if detail.get("hp_drain") != "escalating_daily" or _cared_for(by_character[character.id]):
            continue
        since = condition.since_clock or 0
        last = max(0, target - since) // DAY
        rolled = rolled_seconds(detail)
        if rolled is not None:  # its rolled days only: then the HT roll is due, not a drain
            last = min(last, rolled // DAY)
        for day in range(max(0, start - since) // DAY + 1, last + 1):
            aliases = stat_names_for(campaign.ruleset).aliases
            tracked = stat_value(character.stats, "HP", aliases) is not None
            before = pool_current(character.stats, character.pools, "HP", aliases) if tracked else None
            after = entry.change_pool(character, "HP", -day) if tracked else None
            drains.append(
                {
                    "character": character.name,
                    "condition": condition.name,
                    "origin": condition.origin,
                    "day": day,
                    "hp": day,
                    "at_clock": since + day * DAY,
                    "tracked": tracked,
                    "before": before,
                    "after": after,
                }
            )
    drains.sort(key=lambda item: (item["at_clock"], item["character"]))
    return drains


def record_drains(
    session: Session,
    campaign: Campaign,
    actor: str,
    parent_seq: int,
    drains: list[HpDrain],
    scenario: int | None = None,
) -> None:
    """One sub-entry per day's loss under the time entry (its ops hold the change)."""
    for drain in drains:
        ledger.append(
            session,
            campaign,
            actor,
            ledger.NewEntry(
                kind="time",
                character=drain["character"],
                parent_seq=parent_seq,
                scenario=scenario,
                total=drain["hp"],
                reason=f"硬直 {drain['day']}日目: 生命力 -{drain['hp']} / catatonia day "
                f"{drain['day']}: -{drain['hp']} HP",
                detail={"purpose": "catatonia_drain", **drain},
            ),
        )

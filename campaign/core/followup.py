"""Penalties that follow recovery (docs/rules.md "Penalty after waking"): a timed
condition that begins when another ends.

Entry 28 (and 29, 38-40, which include it) leaves -2 to every roll for 6 hours after
waking; entry 30 leaves -2 for as many days as the catatonia lasted. A condition whose
detail carries `after_penalty` (with `after_duration` and `after_unit`, or a length in
seconds for one the GM added) starts such a follow-up when it is cleared or runs out.

How long a catatonia "lasted" (after_duration "same", docs/rules.md "Penalty after
waking"): the days rolled for it. The time after them until the GM records the HT roll
is the roll being due, not more catatonia, so clearing it late (or early) gives the
rolled days; without rolled days, the campaign time from its start to its end, rounded
up to whole units. A GM who knows better (an HT roll failed and it went on) says so with
`condition clear --lasted`, which is taken as told.

Pure: a condition's detail and how long it lasted in, the follow-up's terms out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from campaign.core.gametime import UNIT_JA, span_text, unit_seconds, whole_units

FOLLOW_UP = "recovering"  # the follow-up condition's name
FOLLOW_UP_JA = "回復後の不調"
SAME = "same"


@dataclass(frozen=True, slots=True)
class FollowUp:
    penalty: int  # to every roll, e.g. -2
    seconds: int  # how long it lasts
    lasted: int | None = None  # for "as long as it lasted": the whole units it lasted


def follow_up(detail: Mapping[str, Any], lasted_seconds: int, *, told: bool = False) -> FollowUp | None:
    """The follow-up a condition with this detail leaves after lasting `lasted_seconds`
    (`told`: the GM's own figure, which replaces the rolled one)."""
    penalty = detail.get("after_penalty")
    if penalty is None:
        return None
    amount, unit = detail.get("after_duration"), detail.get("after_unit") or "second"
    if amount == SAME:
        seconds = lasted_seconds if told else rolled_seconds(detail) or lasted_seconds
        lasted = max(1, whole_units(seconds, unit))
        return FollowUp(int(penalty), lasted * unit_seconds(unit), lasted)
    return FollowUp(int(penalty), int(amount or 0) * unit_seconds(unit))


def rolled_seconds(detail: Mapping[str, Any]) -> int | None:
    """How long the dice said a condition lasts (catatonia's 1D days), None when unrolled."""
    rolled, unit = detail.get("duration"), detail.get("unit")
    if isinstance(rolled, int) and not isinstance(rolled, bool) and unit:
        return rolled * unit_seconds(unit)
    return None


def after_texts(detail: Mapping[str, Any]) -> tuple[str, str] | None:
    """("for 6 hours", "6時間") / ("for as many days as it lasted", "同じ日数"): how long a
    follow-up will last, as the fright summary states it before it has begun."""
    if detail.get("after_penalty") is None:
        return None
    amount, unit = detail.get("after_duration"), detail.get("after_unit") or "second"
    if amount == SAME:
        return f"for as many {unit}s as it lasted", f"同じ{UNIT_JA[unit]}数"
    en, ja = span_text(int(amount or 0) * unit_seconds(unit))
    return f"for {en}", ja

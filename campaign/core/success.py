"""GURPS success roll (docs/rules.md, "Success roll").

Kept apart from the dice grammar because fright checks and other services judge a
3d6 roll against a target without ever writing an expression.

A dice modifier (`3D6+1<=12`, a blessing that moves the dice) changes only the total that
success is judged on. Every critical rule (3-6, 17, 18 and "10 or more over the target")
compares the raw 3d6 with the target as written, as BCDice does ("the dice modifier does
not affect criticals or fumbles"). `effective_target` (target - modifier) is kept in the
record for what it tells a reader; no rule reads it.

A 17 that is not a critical failure (target 16 or more) is an automatic failure:
outcome "failure" with `automatic` set, shown as 自動失敗 as BCDice shows it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from campaign.errors import N_, DiceError, Words

if TYPE_CHECKING:
    from campaign.core.dice_source import DiceSource

SUCCESS = "success"
FAILURE = "failure"
CRITICAL_SUCCESS = "critical_success"
CRITICAL_FAILURE = "critical_failure"

SUCCEEDING_OUTCOMES = frozenset({SUCCESS, CRITICAL_SUCCESS})


@dataclass(frozen=True, slots=True)
class SuccessJudgement:
    outcome: str
    margin: int  # target - total: how far below the target (negative when missed)
    raw: int  # the plain 3d6 sum, which criticals are judged on
    total: int  # raw plus any dice modifier, which success is judged on
    target: int
    effective_target: int
    faces: tuple[int, ...] = ()  # empty when judged from a sum without the dice
    sorcery: bool = False  # a sorcery (妖術) roll: 17 and 18 always critically fail

    @property
    def automatic(self) -> bool:
        """A failure because the raw 3d6 is 17 or 18 whatever the target (BCDice's 自動失敗)."""
        return self.outcome == FAILURE and self.raw >= 17

    @property
    def sorcery_fumble(self) -> bool:
        """True when only the sorcery rule made this a critical failure (17 at target 16+)."""
        return self.sorcery and self.raw == 17 and self.target >= 16

    @property
    def succeeded(self) -> bool:
        return self.outcome in SUCCEEDING_OUTCOMES

    @property
    def critical(self) -> bool:
        return self.outcome in (CRITICAL_SUCCESS, CRITICAL_FAILURE)

    def to_detail(self) -> dict[str, Any]:
        return {
            "rule": "R1",  # the code stored in records since the first release
            "outcome": self.outcome,
            "margin": self.margin,
            "raw": self.raw,
            "total": self.total,
            "target": self.target,
            "effective_target": self.effective_target,
            "faces": list(self.faces),
            # only an automatic failure / a sorcery roll says so: other records stay as they were
            **({"automatic": True} if self.automatic else {}),
            **({"sorcery": True, "sorcery_fumble": self.sorcery_fumble} if self.sorcery else {}),
        }


def judge_success(
    raw_3d6: int, total: int, target: int, *, faces: tuple[int, ...] = (), sorcery: bool = False
) -> SuccessJudgement:
    """Judge a rolled 3d6 against a target; pure, so every boundary is testable.

    `sorcery` (docs/rules.md "Sorcery rolls", from the sorcery fumble table's preamble): 17 and 18 are a critical
    failure whatever the target; nothing else changes.
    """
    if not 3 <= raw_3d6 <= 18:
        raise DiceError(N_("a 3d6 sum is 3..18, not {total}"), total=raw_3d6)
    # docs/rules.md "Success roll", as BCDice does it: every critical threshold compares
    # the raw 3d6 with the target as written; the dice modifier moves only the total.
    effective_target = target - (total - raw_3d6)
    if raw_3d6 <= 4 or (raw_3d6 == 5 and target >= 15) or (raw_3d6 == 6 and target >= 16):
        outcome = CRITICAL_SUCCESS
    elif raw_3d6 == 18 or (raw_3d6 == 17 and (target <= 15 or sorcery)) or raw_3d6 >= target + 10:
        outcome = CRITICAL_FAILURE
    elif raw_3d6 >= 17:
        outcome = FAILURE
    elif total <= target:
        outcome = SUCCESS
    else:
        outcome = FAILURE
    return SuccessJudgement(
        outcome=outcome,
        margin=target - total,
        raw=raw_3d6,
        total=total,
        target=target,
        effective_target=effective_target,
        faces=faces,
        sorcery=sorcery,
    )


def success_roll(
    target: int,
    source: DiceSource,
    modifier: int = 0,
    *,
    sorcery: bool = False,
    purpose: str = Words(N_("the success roll")),
) -> SuccessJudgement:
    """Roll 3d6 (+modifier, as in `3D6+modifier<=target`) and judge it (docs/rules.md "Success roll").

    A skill penalty such as "-2 to Will" belongs in `target`, not in `modifier`.
    """
    from campaign.core.dice_source import roll_dice

    faces = roll_dice(source, 3, 6, purpose)
    raw = faces[0] + faces[1] + faces[2]
    return judge_success(raw, raw + modifier, target, faces=faces, sorcery=sorcery)

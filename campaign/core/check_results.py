"""What a 2d6 check (docs/rules.md "2d6 checks", "Danger sense") is made of and what
it returns: outcomes, the
critical rule, terms and contestants, the frozen results, the danger-sense bands, and
the doubling / halving of docs/rules.md "2d6 checks".

Kept apart from the rolling (core.check_dice, core.checks2d6, core.danger_sense) so the
services and the ledger views can name a result type without the rules that make it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from campaign.errors import N_, BadInput

SUCCESS = "success"
FAILURE = "failure"
CRITICAL_SUCCESS = "critical_success"
CRITICAL_FAILURE = "critical_failure"

#: Reasons a check took no dice (`CheckResult.skipped`).
ZERO_DICE = "zero_dice"
DID_NOT_ROLL = "did_not_roll"

BASE_DICE = 2
SIDES = 6


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class CriticalRule:
    """Campaign setting for 大成功/大失敗, which the 2d6 source text never defines.

    enabled (default True): when every counting die (at least two of them) shows 6 the
    check is a critical success and succeeds whatever the target; when they all show 1
    it is a critical failure and fails whatever the total. With `enabled=False` only
    the total decides. The dice that count are all dice of a plain check and the two
    kept dice of a cooperative check.
    """

    enabled: bool = True

    def judge(self, counting: Sequence[int]) -> str | None:
        """CRITICAL_SUCCESS, CRITICAL_FAILURE or None for these counting dice."""
        if not self.enabled or len(counting) < 2:
            return None
        if all(face == SIDES for face in counting):
            return CRITICAL_SUCCESS
        if all(face == 1 for face in counting):
            return CRITICAL_FAILURE
        return None

    def to_detail(self) -> dict[str, Any]:
        return {"enabled": self.enabled}


DEFAULT_CRITICALS = CriticalRule()


# --------------------------------------------------------------------------- inputs

#: A check's modifiers: one number, {label: value}, or a sequence of numbers and
#: (label, value) pairs. Unlabelled numbers are labelled "mod".
Modifiers = int | Mapping[str, int] | Iterable[int | tuple[str, int]]


@dataclass(frozen=True)
class Term:
    """One addend of a total other than the dice: the stat, skill level, a modifier."""

    label: str
    value: int

    def to_detail(self) -> dict[str, Any]:
        return {"label": self.label, "value": self.value}


@dataclass(frozen=True)
class Contestant:
    """One side of an opposed check, a hider or an observer.

    `rolls=False` means the side cannot or does not roll: its result is 0
    (docs/rules.md "Opposed checks").
    `dice_modifier` changes its number of dice (2 + modifier); at 0 it rolls nothing
    and, like a side that does not roll, has result 0.
    """

    name: str
    stat: int
    skill: int = 0
    modifiers: Modifiers = ()
    dice_modifier: int = 0
    rolls: bool = True
    stat_name: str | None = None


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Scaling:
    """Doubling and halving asked for a check's total (達成値), and what applied.

    `doubles` / `halves` count every x2 and x1/2 effect named; the no-stacking rule
    applies at most one of each, so `doubled` / `halved` say whether one did.
    `unscaled` is the total before scaling.
    """

    doubles: int
    halves: int
    unscaled: int

    @property
    def doubled(self) -> bool:
        return self.doubles > 0

    @property
    def halved(self) -> bool:
        return self.halves > 0

    def to_detail(self) -> dict[str, Any]:
        return {
            "doubles": self.doubles,
            "halves": self.halves,
            "doubled": self.doubled,
            "halved": self.halved,
            "unscaled": self.unscaled,
        }


@dataclass(frozen=True, kw_only=True)
class CheckResult:
    """One rolled (or skipped) check.

    total = sum(terms) + sum(kept), except that a side of an opposed check or hide
    that does not roll (or, in an opposed check, rolls 0 dice) has total 0, as docs/rules.md
    "Opposed checks"
    says. `dice` holds every face in roll order and
    `kept_indices` says which of them count (all of them unless cooperative).
    `critical` is what the counting dice showed under the critical rule, whether or
    not it decided the outcome. `compare` is ">=" (2d6 checks: reach the target) or ">"
    (danger sense: exceed the difficulty). `skipped` says why no dice were rolled.
    """

    kind: str
    total: int
    target: int | None
    outcome: str
    dice: tuple[int, ...]
    kept_indices: tuple[int, ...]
    terms: tuple[Term, ...]
    dice_count: int
    critical: str | None = None
    compare: str = ">="
    criticals: CriticalRule = DEFAULT_CRITICALS
    name: str | None = None
    occasion: str | None = None
    skipped: str | None = None
    scaling: Scaling | None = None  # x2 / x1/2 applied to the total (docs/rules.md "2d6 checks"), if asked

    @property
    def kept(self) -> tuple[int, ...]:
        return tuple(self.dice[i] for i in self.kept_indices)

    @property
    def success(self) -> bool:
        return self.outcome in (SUCCESS, CRITICAL_SUCCESS)

    def to_detail(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "total": self.total,
            "target": self.target,
            "compare": self.compare,
            "outcome": self.outcome,
            "success": self.success,
            "critical": self.critical,
            "dice": list(self.dice),
            "kept": list(self.kept),
            "kept_indices": list(self.kept_indices),
            "dice_count": self.dice_count,
            "terms": [term.to_detail() for term in self.terms],
            "critical_rule": self.criticals.to_detail(),
            "occasion": self.occasion,
            "skipped": self.skipped,
            "scaling": self.scaling.to_detail() if self.scaling is not None else None,
        }


@dataclass(frozen=True, kw_only=True)
class CooperativeResult(CheckResult):
    """A 協力判定: `stats` per participant; the highest one (first on ties) was used."""

    participants: tuple[str, ...]
    stats: tuple[int, ...]
    stat_from: int

    def to_detail(self) -> dict[str, Any]:
        detail = super().to_detail()
        detail.update(
            participants=list(self.participants), stats=list(self.stats), stat_from=self.participants[self.stat_from]
        )
        return detail


@dataclass(frozen=True)
class DangerBand:
    """One row of the danger-sense table: margins lo..hi (None = unbounded)."""

    lo: int | None
    hi: int | None
    label: str
    ja: str
    en: str

    def contains(self, margin: int) -> bool:
        return (self.lo is None or margin >= self.lo) and (self.hi is None or margin <= self.hi)

    def to_detail(self) -> dict[str, Any]:
        """The band as a ledger record holds it: its bounds, not its words (campaign.labels
        finds them again by label when the entry is shown)."""
        return {"lo": self.lo, "hi": self.hi, "label": self.label}


#: Danger sense: result - difficulty -> how well the character reacts (docs/rules.md
#: "Danger sense"). The source
#: lists 1..3 and 3..6; 3 belongs to 1..3. Summaries are our own words.
DANGER_BANDS: tuple[DangerBand, ...] = (
    DangerBand(
        None,
        -3,
        "<=-3",
        "全く察知できない。何が起きたか分からないまま襲われる。",
        "Completely unaware: hit without knowing what happened.",
    ),
    DangerBand(
        -2,
        0,
        "-2..0",
        "あと一歩で察知できない。奇襲を受けたことだけは分かる。",
        "Misses it by a hair: realises it was an ambush only once struck.",
    ),
    DangerBand(
        1,
        3,
        "1..3",
        "辛うじて察知する。相手に先手を取られるかもしれない。",
        "Barely notices: the ambushers may still act first.",
    ),
    DangerBand(
        4,
        6,
        "4..6",
        "余裕を持って察知する。待ち伏せされても普段通りに戦闘を始める。",
        "Notices with ease: combat starts normally despite the ambush.",
    ),
    DangerBand(
        7,
        None,
        ">=7",
        "即座に察知する。待ち伏せ側に先んじて攻撃できるほど。",
        "Notices instantly: could even strike the ambushers first.",
    ),
)
FIRST_SUCCESS_BAND = 2  # index of "1..3"


def danger_band(margin: int) -> DangerBand:
    """The band for result - difficulty, ignoring criticals."""
    for band in DANGER_BANDS:
        if band.contains(margin):
            return band
    raise AssertionError("DANGER_BANDS must cover every integer")  # pragma: no cover


@dataclass(frozen=True, kw_only=True)
class DangerSenseResult(CheckResult):
    """A danger-sense / perception check; `target` is the difficulty, compare ">"."""

    band: DangerBand

    @property
    def margin(self) -> int:
        assert self.target is not None
        return self.total - self.target

    def to_detail(self) -> dict[str, Any]:
        detail = super().to_detail()
        detail.update(margin=self.margin, band=self.band.to_detail())
        return detail


@dataclass(frozen=True, kw_only=True)
class OpposedSideResult(CheckResult):
    """One side of an opposed check. `target` is the best other side's result and
    `outcome` is success for the winner, failure for everyone else."""

    role: str  # "active" | "passive"

    def to_detail(self) -> dict[str, Any]:
        detail = super().to_detail()
        detail["role"] = self.role
        return detail


@dataclass(frozen=True)
class OpposedResult:
    """A 対抗判定. `sides[0]` is the active side, then the passives in order."""

    sides: tuple[OpposedSideResult, ...]
    winner_index: int
    occasion: str | None = None
    decided_by: str = "total"  # "critical" | "total" | "tie" (docs/rules.md "Opposed checks")

    @property
    def active(self) -> OpposedSideResult:
        return self.sides[0]

    @property
    def passives(self) -> tuple[OpposedSideResult, ...]:
        return self.sides[1:]

    @property
    def winner(self) -> str:
        return self.sides[self.winner_index].name or f"#{self.winner_index}"

    @property
    def dice(self) -> tuple[int, ...]:
        return tuple(face for side in self.sides for face in side.dice)

    def to_detail(self) -> dict[str, Any]:
        return {
            "kind": "opposed",
            "winner": self.winner,
            "winner_index": self.winner_index,
            "decided_by": self.decided_by,
            "dice": list(self.dice),
            "sides": [side.to_detail() for side in self.sides],
            "occasion": self.occasion,
        }


@dataclass(frozen=True)
class HideResult:
    """A hiding attempt: the hider's check and each observer's danger sense."""

    hider: CheckResult
    observers: tuple[DangerSenseResult, ...]
    noticed_by: tuple[str, ...]

    @property
    def hidden(self) -> bool:
        return not self.noticed_by

    @property
    def dice(self) -> tuple[int, ...]:
        return self.hider.dice + tuple(face for obs in self.observers for face in obs.dice)

    def to_detail(self) -> dict[str, Any]:
        return {
            "kind": "hide",
            "hidden": self.hidden,
            "noticed_by": list(self.noticed_by),
            "dice": list(self.dice),
            "hider": self.hider.to_detail(),
            "observers": [obs.to_detail() for obs in self.observers],
        }


# --------------------------------------------------------------------------- scaling


def halve(value: int) -> int:
    """x1/2 rounding down (floor): 7 -> 3, -3 -> -2 (端数切捨て)."""
    return value // 2


def double(value: int) -> int:
    return value * 2


def apply_scaling(value: int, doubles: int = 0, halves: int = 0) -> int:
    """Apply doubling and halving without stacking (倍化・半減の不重複).

    However many x2 (`doubles`) and x1/2 (`halves`) effects apply, at most one of each
    counts; the x2 is applied first so a x2 and a x1/2 cancel exactly.
    """
    if doubles < 0 or halves < 0:
        raise BadInput(N_("doubling and halving counts cannot be negative"))
    if doubles:
        value = double(value)
    if halves:
        value = halve(value)
    return value

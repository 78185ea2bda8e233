"""2d6 action checks (RULES R5) and danger sense / hiding (RULES R6).

Everything here is pure: plain numbers and a dice source in, frozen results out. The
service layer turns a result into a ledger entry with `to_detail()`.

Dice order
    Every die is taken from the source with `source.roll(6)`, in one fixed order, so the
    faces a player types with `--dice` line up with the dice on the table:
    - plain / skill / danger-sense checks: their dice, left to right;
    - cooperative check: all (n+1) dice, left to right (the best two are picked after);
    - opposed check: the active side's dice first, then each passive side in the order
      given; a side that does not roll (or whose dice drop to 0) takes no faces;
    - hiding: the hider's dice first, then each observer's danger sense in order.

Decisions where the sources are silent (documented here once)
    - Criticals (大成功/大失敗) are a campaign setting, `CriticalRule`. They are judged on
      the dice that count: every die of a plain check, the two kept dice of a
      cooperative check. A critical needs at least two counting dice that all show 6
      (critical success: succeeds whatever the target) or all show 1 (critical failure:
      fails whatever the total). A 1-die check can therefore never be critical.
    - Dice-count modifiers (e.g. "-1d6" in deep water): a plain check rolls 2 + modifier
      dice and adds *all* of them; "keep the best two" belongs to the cooperative check
      only (R5). A cooperative check with a dice modifier still keeps the best two of
      whatever it rolls. When the count drops to 0 (or below) the check fails outright
      and nothing is rolled; its total is then the dice-free part (stat + skill + mods).
    - Opposed checks: the highest result wins; a tie between the active side and a
      passive side goes to the passive side; among tied passive sides the first listed
      wins. A side that cannot or does not roll, or whose dice drop to 0, has result 0.
      Criticals decide before totals (R7): a critical success beats every side without
      one, a critical failure loses to every side without one (a side that does not
      roll included); sides with the same kind of critical compare totals as usual.
      `OpposedResult.decided_by` says whether a critical, the totals or the tie rule
      picked the winner.
    - Hiding: each observer rolls danger sense with the hider's total as the difficulty
      and notices only by strictly beating the hider (a tie does not notice, as in R6's
      danger sense; this overrides the opposed-check tie rule). Criticals decide before
      totals, as R6 words it for hiding (it is more specific than R7's "equal criticals
      compare totals"): the hider's 1-1 is noticed by every observer who rolls; the
      hider's 6-6 is noticed only by an observer who also rolls 6-6; against a hider
      without a critical an observer's 6-6 notices and its 1-1 misses. An observer's
      outcome is whether it noticed; its `critical` keeps what its dice showed. An
      observer who does not roll (CHAR:-) never notices. A hider whose dice drop to 0 fails outright: nobody rolls and every
      observer counts as noticing. With no observers at all the character is hidden.
    - Danger-sense bands come from result - difficulty, then are clamped so they never
      contradict the outcome: a (critical) success shows at least the "1..3" band, a
      failure at most the "-2..0" band.
    - Doubling then halving: at most one x2 and one x1/2 apply, the x2 first, so the two
      cancel exactly (5 -> 10 -> 5); halving rounds down (floor, also for negatives).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Union

from campaign.core.dice_source import DiceSource
from campaign.errors import BadInput, RuleRefused

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
Modifiers = Union[int, Mapping[str, int], Iterable[Union[int, tuple[str, int]]]]


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

    `rolls=False` means the side cannot or does not roll: its result is 0 (R5).
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

    `doubles` / `halves` count every x2 and x1/2 effect named; R6's no-stacking rule
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
        return {"doubles": self.doubles, "halves": self.halves, "doubled": self.doubled,
                "halved": self.halved, "unscaled": self.unscaled}


def _scaled(total: int, doubles: int, halves: int) -> tuple[int, Scaling | None]:
    """The total after R6's x2 / x1/2 (no stacking) and the record of it (None if none asked)."""
    if not doubles and not halves:
        return total, None
    return apply_scaling(total, doubles, halves), Scaling(doubles, halves, total)


@dataclass(frozen=True, kw_only=True)
class CheckResult:
    """One rolled (or skipped) check.

    total = sum(terms) + sum(kept), except that a side of an opposed check or hide
    that does not roll (or, in an opposed check, rolls 0 dice) has total 0, as R5
    says. `dice` holds every face in roll order and
    `kept_indices` says which of them count (all of them unless cooperative).
    `critical` is what the counting dice showed under the critical rule, whether or
    not it decided the outcome. `compare` is ">=" (R5: reach the target) or ">"
    (R6 danger sense: exceed the difficulty). `skipped` says why no dice were rolled.
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
    scaling: Scaling | None = None  # x2 / x1/2 applied to the total (R6), if any were asked

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
            participants=list(self.participants),
            stats=list(self.stats),
            stat_from=self.participants[self.stat_from],
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
        return {"lo": self.lo, "hi": self.hi, "label": self.label, "ja": self.ja, "en": self.en}


#: Danger sense: result - difficulty -> how well the character reacts (R6). The source
#: lists 1..3 and 3..6; 3 belongs to 1..3. Summaries are our own words.
DANGER_BANDS: tuple[DangerBand, ...] = (
    DangerBand(None, -3, "<=-3",
               "全く察知できない。何が起きたか分からないまま襲われる。",
               "Completely unaware: hit without knowing what happened."),
    DangerBand(-2, 0, "-2..0",
               "あと一歩で察知できない。奇襲を受けたことだけは分かる。",
               "Misses it by a hair: realises it was an ambush only once struck."),
    DangerBand(1, 3, "1..3",
               "辛うじて察知する。相手に先手を取られるかもしれない。",
               "Barely notices: the ambushers may still act first."),
    DangerBand(4, 6, "4..6",
               "余裕を持って察知する。待ち伏せされても普段通りに戦闘を始める。",
               "Notices with ease: combat starts normally despite the ambush."),
    DangerBand(7, None, ">=7",
               "即座に察知する。待ち伏せ側に先んじて攻撃できるほど。",
               "Notices instantly: could even strike the ambushers first."),
)
_FIRST_SUCCESS_BAND = 2  # index of "1..3"


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
    decided_by: str = "total"  # "critical" | "total" | "tie" (R7, R5)

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


# --------------------------------------------------------------------------- helpers


def modifier_terms(modifiers: Modifiers) -> tuple[Term, ...]:
    """Normalise any accepted modifier shape into labelled terms (zero ints dropped)."""
    if isinstance(modifiers, bool):
        raise BadInput("a modifier must be a whole number")
    if isinstance(modifiers, int):
        return (Term("mod", modifiers),) if modifiers else ()
    items = modifiers.items() if isinstance(modifiers, Mapping) else modifiers
    terms: list[Term] = []
    for item in items:
        if isinstance(item, tuple):
            label, value = item
        else:
            label, value = "mod", item
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadInput(f"modifier {label!r} must be a whole number, not {value!r}")
        terms.append(Term(str(label), value))
    return tuple(terms)


_PURPOSES = {"ability": "the ability check", "skill": "the skill check", "danger_sense": "the danger sense check",
             "cooperative": "the cooperative check", "opposed": "the opposed check", "hide": "the hide check"}


def _roll(source: DiceSource, count: int, kind: str, name: str | None = None) -> tuple[int, ...]:
    from campaign.core.dice_source import roll_dice

    purpose = _PURPOSES.get(kind, f"the {kind} check")
    return roll_dice(source, count, SIDES, f"{purpose} of {name}" if name else purpose)


def _best_two(dice: Sequence[int]) -> tuple[int, ...]:
    """Indices of the two highest faces (earliest wins ties), in roll order."""
    order = sorted(range(len(dice)), key=lambda i: (-dice[i], i))
    return tuple(sorted(order[:2]))


_CRITICAL_RANKS = {CRITICAL_FAILURE: 0, None: 1, CRITICAL_SUCCESS: 2}


def critical_rank(critical: str | None) -> int:
    """How a critical ranks in a contest (R7): failure 0 < none 1 < success 2."""
    return _CRITICAL_RANKS[critical]


def beats(critical: str | None, total: int, other_critical: str | None, other_total: int) -> bool:
    """Whether one side strictly beats another: criticals first, then totals (R7)."""
    return (critical_rank(critical), total) > (critical_rank(other_critical), other_total)


def _judge(total: int, target: int | None, critical: str | None, compare: str) -> str:
    if critical is not None:
        return critical
    if target is None:
        return SUCCESS
    reached = total > target if compare == ">" else total >= target
    return SUCCESS if reached else FAILURE


def _plain(
    kind: str,
    terms: tuple[Term, ...],
    target: int | None,
    source: DiceSource,
    *,
    dice_modifier: int,
    criticals: CriticalRule,
    compare: str = ">=",
    name: str | None = None,
    occasion: str | None = None,
    result_type: type[CheckResult] = CheckResult,
    doubles: int = 0,
    halves: int = 0,
    **extra: Any,
) -> Any:
    """Roll 2 + dice_modifier d6, add them all to the terms, scale (x2/x1/2) and judge."""
    count = max(0, BASE_DICE + dice_modifier)
    base = sum(term.value for term in terms)
    if count == 0:
        total, scaling = _scaled(base, doubles, halves)
        return result_type(
            kind=kind, total=total, target=target, outcome=FAILURE, dice=(), kept_indices=(),
            terms=terms, dice_count=0, compare=compare, criticals=criticals, name=name,
            occasion=occasion, skipped=ZERO_DICE, scaling=scaling, **extra,
        )
    dice = _roll(source, count, kind, name)
    total, scaling = _scaled(base + sum(dice), doubles, halves)
    critical = criticals.judge(dice)
    return result_type(
        kind=kind, total=total, target=target, outcome=_judge(total, target, critical, compare),
        dice=dice, kept_indices=tuple(range(count)), terms=terms, dice_count=count,
        critical=critical, compare=compare, criticals=criticals, name=name, occasion=occasion,
        scaling=scaling, **extra,
    )


def _stat_term(stat: int, stat_name: str | None) -> Term:
    return Term(stat_name or "stat", stat)


# --------------------------------------------------------------------------- R5


def ability_check(
    stat: int,
    target: int,
    source: DiceSource,
    *,
    modifiers: Modifiers = (),
    dice_modifier: int = 0,
    criticals: CriticalRule = DEFAULT_CRITICALS,
    stat_name: str | None = None,
    name: str | None = None,
    occasion: str | None = None,
    doubles: int = 0,
    halves: int = 0,
) -> CheckResult:
    """能力判定: stat + 2d6 + modifiers >= target (the total x2 / x1/2 first, if asked)."""
    terms = (_stat_term(stat, stat_name),) + modifier_terms(modifiers)
    return _plain("ability", terms, target, source, dice_modifier=dice_modifier,
                  criticals=criticals, name=name, occasion=occasion, doubles=doubles, halves=halves)


def skill_check(
    stat: int,
    skill: int,
    target: int,
    source: DiceSource,
    *,
    modifiers: Modifiers = (),
    dice_modifier: int = 0,
    criticals: CriticalRule = DEFAULT_CRITICALS,
    stat_name: str | None = None,
    name: str | None = None,
    occasion: str | None = None,
    doubles: int = 0,
    halves: int = 0,
) -> CheckResult:
    """技能判定: stat + skill level + 2d6 + modifiers >= target (scaled first, if asked)."""
    terms = (_stat_term(stat, stat_name), Term("skill", skill)) + modifier_terms(modifiers)
    return _plain("skill", terms, target, source, dice_modifier=dice_modifier,
                  criticals=criticals, name=name, occasion=occasion, doubles=doubles, halves=halves)


def cooperative_check(
    stats: Sequence[int],
    target: int,
    source: DiceSource,
    *,
    skill: int = 0,
    modifiers: Modifiers = (),
    dice_modifier: int = 0,
    criticals: CriticalRule = DEFAULT_CRITICALS,
    participants: Sequence[str] | None = None,
    stat_name: str | None = None,
    occasion: str | None = None,
    doubles: int = 0,
    halves: int = 0,
) -> CooperativeResult:
    """協力判定 for n >= 2 participants.

    Highest stat among them, +1 per participant beyond the first, one skill level
    (only one participant's skill counts), (n+1)d6 (+ dice_modifier) keeping the best
    two; criticals are judged on the two kept dice.
    """
    n = len(stats)
    if n < 2:
        raise RuleRefused("a cooperative check needs at least 2 participants")
    names = tuple(participants) if participants is not None else tuple(f"#{i + 1}" for i in range(n))
    if len(names) != n:
        raise BadInput(f"{len(names)} participant names for {n} stats")
    stat_from = max(range(n), key=lambda i: (stats[i], -i))
    terms = (_stat_term(stats[stat_from], stat_name),)
    if skill:
        terms += (Term("skill", skill),)
    terms += (Term("cooperation", n - 1),) + modifier_terms(modifiers)
    base = sum(term.value for term in terms)
    count = max(0, n + 1 + dice_modifier)
    common = dict(
        kind="cooperative", target=target, terms=terms, dice_count=count, criticals=criticals,
        occasion=occasion, participants=names, stats=tuple(stats), stat_from=stat_from,
    )
    if count == 0:
        total, scaling = _scaled(base, doubles, halves)
        return CooperativeResult(total=total, outcome=FAILURE, dice=(), kept_indices=(),
                                 skipped=ZERO_DICE, scaling=scaling, **common)
    dice = _roll(source, count, "cooperative", "・".join(names) if names else None)
    kept_indices = _best_two(dice)
    kept = tuple(dice[i] for i in kept_indices)
    total, scaling = _scaled(base + sum(kept), doubles, halves)
    critical = criticals.judge(kept)
    return CooperativeResult(total=total, outcome=_judge(total, target, critical, ">="),
                             dice=dice, kept_indices=kept_indices, critical=critical,
                             scaling=scaling, **common)


def _contest_winner(keys: Sequence[tuple[int, int]]) -> int:
    """Index of the highest key; the active side (0) loses ties, the first passive keeps them."""
    winner = 0
    for index in range(1, len(keys)):
        if keys[index] > keys[winner] or (winner == 0 and keys[index] == keys[0]):
            winner = index
    return winner


def opposed_check(
    active: Contestant,
    passives: Sequence[Contestant],
    source: DiceSource,
    *,
    criticals: CriticalRule = DEFAULT_CRITICALS,
    occasion: str | None = None,
) -> OpposedResult:
    """対抗判定: active side rolls first, then each passive side in order.

    Each side's result is stat + skill + modifiers + its dice (0 when it does not
    roll or its dice drop to 0). A critical success beats and a critical failure loses
    to any side without one (R7); otherwise, and between equal criticals, the highest
    result wins; ties go to a passive side, the first listed among tied passives.
    """
    if not passives:
        raise RuleRefused("an opposed check needs at least one passive side")
    contestants = (active, *passives)
    rolled: list[tuple[int, tuple[int, ...], tuple[Term, ...], str | None, int, str | None]] = []
    for side in contestants:
        terms = _contestant_terms(side, None)
        count = max(0, BASE_DICE + side.dice_modifier)
        if not side.rolls or count == 0:
            rolled.append((0, (), terms, None, count, DID_NOT_ROLL if not side.rolls else ZERO_DICE))
            continue
        dice = _roll(source, count, "opposed", side.name)
        total = sum(t.value for t in terms) + sum(dice)
        rolled.append((total, dice, terms, criticals.judge(dice), count, None))

    # Passive sides come after the active side, so a later index wins ties except
    # among passives, where the first listed keeps the win. Criticals rank first (R7).
    keys = [(critical_rank(r[3]), r[0]) for r in rolled]
    winner = _contest_winner(keys)
    if winner != _contest_winner([(1, r[0]) for r in rolled]):
        decided_by = "critical"  # the totals alone would have picked another side
    elif any(keys[i] == keys[winner] for i in range(len(keys)) if i != winner):
        decided_by = "tie"
    else:
        decided_by = "total"

    sides = []
    for index, (side, (total, dice, terms, critical, count, skipped)) in enumerate(zip(contestants, rolled)):
        best_other = max(r[0] for i, r in enumerate(rolled) if i != index)
        sides.append(OpposedSideResult(
            kind="opposed", role="active" if index == 0 else "passive", name=side.name,
            total=total, target=best_other, outcome=SUCCESS if index == winner else FAILURE,
            dice=dice, kept_indices=tuple(range(len(dice))), terms=terms, dice_count=count,
            critical=critical, criticals=criticals, occasion=occasion, skipped=skipped,
        ))
    return OpposedResult(sides=tuple(sides), winner_index=winner, occasion=occasion, decided_by=decided_by)


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
        raise BadInput("doubling and halving counts cannot be negative")
    if doubles:
        value = double(value)
    if halves:
        value = halve(value)
    return value


# --------------------------------------------------------------------------- R6


def danger_sense(
    stat: int,
    difficulty: int,
    source: DiceSource,
    *,
    modifiers: Modifiers = (),
    dice_modifier: int = 0,
    criticals: CriticalRule = DEFAULT_CRITICALS,
    stat_name: str | None = "感",
    name: str | None = None,
    occasion: str | None = None,
    doubles: int = 0,
    halves: int = 0,
) -> DangerSenseResult:
    """危険感知/感知判定: 感 + 2d6 + modifiers must EXCEED the difficulty (tie fails)."""
    terms = (_stat_term(stat, stat_name),) + modifier_terms(modifiers)
    return _danger(terms, difficulty, source, dice_modifier=dice_modifier, criticals=criticals,
                   name=name, occasion=occasion, doubles=doubles, halves=halves)


def _danger(
    terms: tuple[Term, ...],
    difficulty: int,
    source: DiceSource,
    *,
    dice_modifier: int,
    criticals: CriticalRule,
    name: str | None,
    occasion: str | None,
    rolls: bool = True,
    doubles: int = 0,
    halves: int = 0,
) -> DangerSenseResult:
    if rolls:
        result = _plain("danger_sense", terms, difficulty, source, dice_modifier=dice_modifier,
                        criticals=criticals, compare=">", name=name, occasion=occasion,
                        result_type=DangerSenseResult, band=DANGER_BANDS[0],
                        doubles=doubles, halves=halves)
    else:
        result = DangerSenseResult(
            kind="danger_sense", total=0, target=difficulty, outcome=FAILURE, dice=(),
            kept_indices=(), terms=terms, dice_count=max(0, BASE_DICE + dice_modifier),
            compare=">", criticals=criticals, name=name, occasion=occasion,
            skipped=DID_NOT_ROLL, band=DANGER_BANDS[0],
        )
    return _with_band(result)


def _with_band(result: DangerSenseResult) -> DangerSenseResult:
    """Band from the margin, clamped so it agrees with the outcome (see module notes)."""
    index = DANGER_BANDS.index(danger_band(result.margin))
    if result.success:
        index = max(index, _FIRST_SUCCESS_BAND)
    else:
        index = min(index, _FIRST_SUCCESS_BAND - 1)
    return replace(result, band=DANGER_BANDS[index])


def _contestant_terms(side: Contestant, default_stat_name: str | None) -> tuple[Term, ...]:
    terms = (_stat_term(side.stat, side.stat_name or default_stat_name),)
    if side.skill:
        terms += (Term("skill", side.skill),)
    return terms + modifier_terms(side.modifiers)


def _against_hider(sensed: DangerSenseResult, hider_critical: str | None) -> DangerSenseResult:
    """An observer's outcome is whether it noticed: criticals first, then it must exceed
    the hider's total (R6/R7). One that took no dice never notices."""
    if sensed.skipped is not None:
        return sensed
    assert sensed.target is not None  # the hider's total
    if hider_critical == CRITICAL_FAILURE:
        noticed = True
    elif hider_critical == CRITICAL_SUCCESS:
        noticed = sensed.critical == CRITICAL_SUCCESS
    else:
        noticed = beats(sensed.critical, sensed.total, None, sensed.target)
    if noticed:
        outcome = CRITICAL_SUCCESS if sensed.critical == CRITICAL_SUCCESS else SUCCESS
    else:
        outcome = CRITICAL_FAILURE if sensed.critical == CRITICAL_FAILURE else FAILURE
    return _with_band(replace(sensed, outcome=outcome))


def hide_check(
    hider: Contestant,
    observers: Sequence[Contestant],
    source: DiceSource,
    *,
    criticals: CriticalRule = DEFAULT_CRITICALS,
    occasion: str | None = None,
) -> HideResult:
    """隠れる判定: hider's 技 + 2d6, then each observer's danger sense against it.

    `hider.stat` is its 技 and each observer's `stat` its 感. An observer notices when
    it beats the hider: criticals first (see the module notes), then strictly greater.
    """
    hider_terms = _contestant_terms(hider, "技")
    count = max(0, BASE_DICE + hider.dice_modifier)
    if count == 0:  # fails outright: nobody rolls, everyone notices
        skipped = ZERO_DICE
        hider_total, hider_dice, hider_critical = sum(t.value for t in hider_terms), (), None
    elif not hider.rolls:  # result 0, observers still roll against it
        skipped = DID_NOT_ROLL
        hider_total, hider_dice, hider_critical = 0, (), None
    else:
        skipped = None
        hider_dice = _roll(source, count, "hide", hider.name)
        hider_total = sum(t.value for t in hider_terms) + sum(hider_dice)
        hider_critical = criticals.judge(hider_dice)

    results: list[DangerSenseResult] = []
    if skipped == ZERO_DICE:
        noticed_by = tuple(obs.name for obs in observers)
    else:
        for obs in observers:
            sensed = _danger(
                _contestant_terms(obs, "感"), hider_total, source, dice_modifier=obs.dice_modifier,
                criticals=criticals, name=obs.name, occasion=occasion, rolls=obs.rolls,
            )
            results.append(_against_hider(sensed, hider_critical))
        noticed_by = tuple(r.name or "" for r in results if r.success)

    best_observer = max((r.total for r in results), default=None)
    hider_result = CheckResult(
        kind="hide", name=hider.name, total=hider_total, target=best_observer,
        outcome=FAILURE if noticed_by else SUCCESS, dice=hider_dice,
        kept_indices=tuple(range(len(hider_dice))), terms=hider_terms, dice_count=count,
        critical=hider_critical, criticals=criticals, occasion=occasion, skipped=skipped,
    )
    return HideResult(hider=hider_result, observers=tuple(results), noticed_by=noticed_by)

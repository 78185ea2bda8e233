"""Danger sense and hiding (docs/rules.md "Danger sense") as logged use-cases; the rules are in
campaign.core.danger_sense, the shared input cleaning and recording in
services.checks.records (see services.checks.action_checks for the entries a check writes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from campaign.core import checks2d6 as rules
from campaign.core.dice_source import DiceSource
from campaign.db.database import Database
from campaign.errors import BadInput
from campaign.i18n import _
from campaign.services.characters.presence import check_presence
from campaign.services.checks.lingering import with_penalties
from campaign.services.checks.records import (
    CheckContext,
    CheckHead,
    CheckRecorder,
    CheckRoll,
    DangerBandResult,
    SecretCheck,
    Sequenced,
    SideHead,
    SideSpec,
    StatCheckHead,
    band_of,
    bounded_value,
    clean_modifiers,
    clean_occasion,
    clean_side,
    clean_stat_name,
    contestant_of,
    criticals_of,
    margin_of,
    refuse_duplicates,
    roll_of,
    scaling_counts,
    side_of,
    stat_of,
)
from campaign.services.common import campaign_transaction, character_named, clean_text
from campaign.services.results import extended

# Field groups (services.checks.records): `class X(C, B, A)` is A's fields, B's, C's.


@dataclass(frozen=True)
class _DangerHead(StatCheckHead):
    difficulty: int


@dataclass(frozen=True)
class DangerSenseCheck(CheckContext, DangerBandResult, CheckRoll, _DangerHead):
    """危険感知 (check "danger"): the roll and the danger-sense band it reached."""


@dataclass(frozen=True)
class HiderRoll(CheckRoll, SideHead, Sequenced):
    """The hider's roll, with the seq of the main entry."""


@dataclass(frozen=True)
class ObserverRoll(DangerBandResult, CheckRoll, SideHead, Sequenced):
    """An observer's danger sense against the hider."""

    noticed: bool


@dataclass(frozen=True, slots=True)
class UnrolledObserver:
    """An observer who did not roll: the hider failed outright (0D6) and everyone noticed."""

    seq: int
    character: str
    stat: str | None
    rolls: bool
    dice: tuple[int, ...]
    total: None
    target: None
    outcome: str
    noticed: bool
    skipped: str


@dataclass(frozen=True)
class _HideHead(CheckHead):
    stat: str | None
    hidden: bool
    noticed_by: tuple[str, ...]
    dice: tuple[int, ...]
    expression: str
    total: int
    target: int | None
    outcome: str | None
    margin: int | None
    hider: HiderRoll
    observers: tuple[ObserverRoll | UnrolledObserver, ...]


@dataclass(frozen=True)
class HideCheck(CheckContext, _HideHead):
    """隠れる (check "hide"): the hider's roll in the head and in `hider`, then each observer."""


def danger_sense(
    db: Database,
    campaign_name: str | None,
    actor: str,
    source: DiceSource,
    *,
    character: str,
    difficulty: int,
    stat: str = "感",
    modifiers: Sequence[tuple[str, int]] = (),
    dice_modifier: int = 0,
    doubles: int = 0,
    halves: int = 0,
    occasion: str | None = None,
    reason: str | None = None,
    secret: bool = False,
    anyway: bool = False,
) -> DangerSenseCheck | SecretCheck:
    """危険感知: 感 + 2d6 + modifiers must exceed the difficulty; reports the danger-sense band."""
    stat = clean_stat_name(stat)
    difficulty = bounded_value(difficulty, "--difficulty")
    mods = clean_modifiers(modifiers)
    dice_modifier = bounded_value(dice_modifier, "--dice-mod")
    doubles, halves = scaling_counts(doubles, halves)
    occasion = clean_occasion(occasion)
    reason = clean_text(reason, "--reason")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        row = character_named(session, campaign, character)
        warnings = check_presence(session, [row], "danger", anyway=anyway)
        value = stat_of(row, stat)
        mods = with_penalties(row, mods)  # the -2 after waking applies by itself (services.checks.lingering)
        result = rules.danger_sense(
            value,
            difficulty,
            source,
            modifiers=mods,
            dice_modifier=dice_modifier,
            criticals=criticals_of(campaign),
            stat_name=stat,
            name=row.name,
            occasion=occasion,
            doubles=doubles,
            halves=halves,
        )
        source.ensure_all_used()
        recorder = CheckRecorder(session, campaign, actor, source, reason, occasion, secret, warnings=warnings)
        detail = {
            **result.to_detail(),
            "check": "danger",
            "stat": stat,
            "stat_value": value,
            "modifiers": [list(m) for m in mods],
            "dice_modifier": dice_modifier,
        }
        seq = recorder.write(row.name, result, detail)
        if secret:
            return recorder.secret_view(seq, "danger", row.name)
        return extended(
            DangerSenseCheck,
            roll_of(result),
            band_of(result),
            recorder.context(),
            seq=seq,
            check="danger",
            character=row.name,
            stat=stat,
            difficulty=difficulty,
        )


def hide_check(
    db: Database,
    campaign_name: str | None,
    actor: str,
    source: DiceSource,
    *,
    hider: SideSpec,
    observers: Sequence[SideSpec],
    occasion: str | None = None,
    reason: str | None = None,
    anyway: bool = False,
) -> HideCheck:
    """隠れる: the hider's 技 + 2d6 against each observer's danger sense (who must exceed it)."""
    hider = clean_side(hider)
    observers = [clean_side(spec) for spec in observers]
    if hider.stat is None:
        raise BadInput(_("the hider must roll: give its stat"))
    if not observers:
        raise BadInput(_("a hide check needs at least one --observer"))
    occasion = clean_occasion(occasion)
    reason = clean_text(reason, "--reason")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        specs = [hider, *observers]
        rows = [character_named(session, campaign, spec.character) for spec in specs]
        refuse_duplicates(rows, "hide")
        warnings = check_presence(session, rows, "hide", anyway=anyway)
        hider_side, hider_stat = contestant_of(rows[0], hider, "技")
        observer_sides = [contestant_of(row, spec, "感") for row, spec in zip(rows[1:], observers)]
        result = rules.hide_check(
            hider_side, [c for c, _ in observer_sides], source, criticals=criticals_of(campaign), occasion=occasion
        )
        source.ensure_all_used()
        recorder = CheckRecorder(session, campaign, actor, source, reason, occasion, warnings=warnings)
        stats = [hider_stat] + [stat for _, stat in observer_sides]
        detail = {**result.to_detail(), "check": "hide", "stats": stats}
        seq = recorder.write(rows[0].name, result.hider, detail)
        observed: list[UnrolledObserver | ObserverRoll] = []
        if result.hider.skipped == rules.ZERO_DICE:
            # The hider failed outright: nobody rolled and every observer noticed.
            for row, (_side, stat) in zip(rows[1:], observer_sides):
                sub = recorder.write(
                    row.name,
                    None,
                    {
                        "check": "hide",
                        "role": "observer",
                        "stat": stat,
                        "hider": rows[0].name,
                        "noticed": True,
                        "skipped": rules.ZERO_DICE,
                    },
                    parent_seq=seq,
                    outcome=rules.SUCCESS,
                )
                observed.append(
                    UnrolledObserver(
                        seq=sub,
                        character=row.name,
                        stat=stat,
                        rolls=False,
                        dice=(),
                        total=None,
                        target=None,
                        outcome=rules.SUCCESS,
                        noticed=True,
                        skipped=rules.ZERO_DICE,
                    )
                )
        for obs, (_side, stat) in zip(result.observers, observer_sides):
            sub = recorder.write(
                obs.name or "",
                obs,
                {
                    **obs.to_detail(),
                    "check": "hide",
                    "role": "observer",
                    "stat": stat,
                    "hider": rows[0].name,
                    "noticed": obs.success,
                },
                parent_seq=seq,
            )
            observed.append(extended(ObserverRoll, *side_of(obs, stat), band_of(obs), seq=sub, noticed=obs.success))
        hider_view = extended(HiderRoll, *side_of(result.hider, hider_stat), seq=seq)
        return extended(
            HideCheck,
            recorder.context(),
            seq=seq,
            check="hide",
            character=rows[0].name,
            stat=hider_stat,
            hidden=result.hidden,
            noticed_by=tuple(result.noticed_by),
            dice=tuple(result.dice),
            expression=hider_view.expression,
            total=result.hider.total,
            target=result.hider.target,
            outcome=result.hider.outcome,
            margin=margin_of(result.hider),
            hider=hider_view,
            observers=tuple(observed),
        )

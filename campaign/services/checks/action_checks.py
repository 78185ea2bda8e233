"""2d6 action checks and danger sense / hiding as logged use-cases (docs/rules.md
"2d6 checks", "Danger sense", "Hiding").

The rules live in campaign.core.checks2d6; this module (the 2d6 checks) and
services.checks.danger (danger sense and hiding, re-exported here) find the characters
and their stats, roll through the caller's dice source, and write the ledger. Checks change no
state: the ledger entry *is* the outcome, so every check is one transaction that either
records everything or nothing (a missing stat, an unknown character or leftover
`--dice` faces refuse the whole command).

Entries
    One entry of kind "check" per check, `character` = the acting character. A check
    with several characters also writes one sub-entry (kind "check", parent_seq = the
    main entry's seq) per other character, so `history --char X` finds every check X
    took part in:
    - opposed: main entry = the active side, one sub-entry per passive side, each with
      its own dice and result;
    - hide: main entry = the hider, one sub-entry per observer's danger sense;
    - cooperative: main entry = the first participant listed, one sub-entry per other
      participant repeating the shared roll (the dice were rolled together).

The critical rule (大成功/大失敗) is the campaign setting `criticals` (default on).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TypedDict

from campaign.core import checks2d6 as rules
from campaign.core.dice_source import DiceSource
from campaign.db.database import Database
from campaign.db.models import Character
from campaign.errors import BadInput, RuleRefused
from campaign.i18n import _
from campaign.services.characters.presence import check_presence
from campaign.services.checks.danger import danger_sense, hide_check
from campaign.services.checks.lingering import with_penalties
from campaign.services.checks.records import (
    EFFECT_RULES,
    OCCASIONS,
    VALUE_LIMIT,
    CheckContext,
    CheckHead,
    CheckRecorder,
    CheckRoll,
    SecretCheck,
    Sequenced,
    SideHead,
    SideSpec,
    StatCheckHead,
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
from campaign.services.results import as_json, extended

__all__ = [
    "EFFECT_RULES",
    "OCCASIONS",
    "VALUE_LIMIT",
    "CheckOptions",
    "SideSpec",
    "ability_check",
    "clean_occasion",
    "clean_stat_name",
    "cooperative_check",
    "danger_sense",
    "hide_check",
    "opposed_check",
    "stat_of",
]


# --------------------------------------------------------------------------- results
# Field groups (services.checks.records): `class X(C, B, A)` is A's fields, B's, C's.


@dataclass(frozen=True)
class AbilityCheck(CheckContext, CheckRoll, StatCheckHead):
    """能力判定 / 技能判定 (check "ability" or "skill")."""


@dataclass(frozen=True, slots=True)
class CooperativeParticipant:
    character: str
    stat_value: int


@dataclass(frozen=True)
class _CooperativeHead(StatCheckHead):
    participants: tuple[CooperativeParticipant, ...]
    stat_from: str  # whose stat the shared roll used (the best)


@dataclass(frozen=True)
class CooperativeCheck(CheckContext, CheckRoll, _CooperativeHead):
    """協力判定: one shared roll; the other participants' sub-entries repeat it."""


@dataclass(frozen=True, slots=True)
class OpposedEffect:
    """The active side's numeric effect: in full on a win, halved or vanished when resisted."""

    base: int
    if_resisted: str
    resisted: bool
    applied: int


@dataclass(frozen=True)
class _Role(Sequenced):
    role: str  # "active" or "passive"


@dataclass(frozen=True)
class OpposedSide(CheckRoll, SideHead, _Role):
    """One side of an opposed check, with the seq of its own entry."""


@dataclass(frozen=True)
class _OpposedHead(CheckHead):
    winner: str
    winner_role: str
    decided_by: str | None
    dice: tuple[int, ...]
    total: int
    target: int | None
    outcome: str | None
    margin: int | None
    effect: OpposedEffect | None
    sides: tuple[OpposedSide, ...]


@dataclass(frozen=True)
class OpposedCheck(CheckContext, _OpposedHead):
    """対抗判定: the active side's roll in the head, every side in `sides`."""


# --------------------------------------------------------------------------- 2d6 checks


class _CheckKeywords(TypedDict):
    """What an ability check and a skill check are both given."""

    modifiers: rules.Modifiers
    dice_modifier: int
    criticals: rules.CriticalRule
    stat_name: str | None
    name: str | None
    occasion: str | None
    doubles: int
    halves: int


def sheet_skill_level(row: Character, name: str, given: int | None) -> int:
    """The level of the skill the sheet records under `name`, else `given`."""
    from campaign.services.checks.skill_rolls import skill_key

    key = skill_key(row.skills or {}, name)
    if key is not None:
        level: int = (row.skills or {})[key]["level"]  # skills are {"level": int, ...}
        return level
    if given is None:
        from campaign.services.common import did_you_mean

        raise RuleRefused(
            _(
                "{name} has no skill {name2!r} on the sheet{value}; give its level with --skill N or record it "
                "with `skill add`"
            ).format(name=row.name, name2=name, value=did_you_mean(name, row.skills or {}))
        )
    return given


@dataclass(frozen=True)
class CheckOptions:
    """How a 2d6 check is asked (docs/rules.md "2d6 checks"), apart from who rolls which
    stat: built once by the caller (the CLI from its options, a call from its stored
    parameters) and checked once (`checked`) before the transaction opens."""

    target: int
    skill: int | None = None
    modifiers: Sequence[tuple[str, int]] = ()
    dice_modifier: int = 0
    doubles: int = 0
    halves: int = 0
    occasion: str | None = None
    reason: str | None = None
    secret: bool = False
    anyway: bool = False  # roll although a character is away (services.characters.presence)

    def checked(self) -> CheckOptions:
        """The same options with every value bounded and cleaned (BadInput otherwise)."""
        target = bounded_value(self.target, "--target")  # checked in the order the options are listed
        skill = bounded_value(self.skill, "--skill") if self.skill is not None else None
        modifiers = tuple(clean_modifiers(self.modifiers))
        dice_modifier = bounded_value(self.dice_modifier, "--dice-mod")
        doubles, halves = scaling_counts(self.doubles, self.halves)
        return replace(
            self,
            target=target,
            skill=skill,
            modifiers=modifiers,
            dice_modifier=dice_modifier,
            doubles=doubles,
            halves=halves,
            occasion=clean_occasion(self.occasion),
            reason=clean_text(self.reason, "--reason"),
        )


def ability_check(
    db: Database,
    campaign_name: str | None,
    actor: str,
    source: DiceSource,
    *,
    character: str,
    stat: str,
    options: CheckOptions,
    skill_name: str | None = None,
) -> AbilityCheck | SecretCheck:
    """能力判定 (or 技能判定 with a skill level): stat + 2d6 + skill + modifiers >= target.

    With `skill_name` the level is the sheet's (`skill add`), or `options.skill` when the
    sheet records none; one of them must say it."""
    stat = clean_stat_name(stat)
    o = options.checked()
    skill = o.skill
    with campaign_transaction(db, campaign_name) as (session, campaign):
        row = character_named(session, campaign, character)
        doing = "ability" if skill is None and skill_name is None else "skill"
        warnings = check_presence(session, [row], doing, anyway=o.anyway)
        if skill_name is not None:
            skill = sheet_skill_level(row, skill_name, skill)
        value = stat_of(row, stat)
        # the -2 after waking applies by itself (services.checks.lingering)
        mods = with_penalties(row, tuple(o.modifiers))
        common: _CheckKeywords = dict(
            modifiers=mods,
            dice_modifier=o.dice_modifier,
            criticals=criticals_of(campaign),
            stat_name=stat,
            name=row.name,
            occasion=o.occasion,
            doubles=o.doubles,
            halves=o.halves,
        )
        if skill is None:
            result = rules.ability_check(value, o.target, source, **common)
        else:
            result = rules.skill_check(value, skill, o.target, source, **common)
        source.ensure_all_used()
        recorder = CheckRecorder(session, campaign, actor, source, o.reason, o.occasion, o.secret, warnings=warnings)
        check = "ability" if skill is None else "skill"
        detail = {
            **result.to_detail(),
            "check": check,
            "stat": stat,
            "stat_value": value,
            "skill": skill,
            "modifiers": [list(m) for m in mods],
            "dice_modifier": o.dice_modifier,
        }
        seq = recorder.write(row.name, result, detail)
        if o.secret:
            return recorder.secret_view(seq, check, row.name)
        return extended(
            AbilityCheck, roll_of(result), recorder.context(), seq=seq, check=check, character=row.name, stat=stat
        )


def cooperative_check(
    db: Database,
    campaign_name: str | None,
    actor: str,
    source: DiceSource,
    *,
    participants: Sequence[str],
    stat: str,
    options: CheckOptions,
) -> CooperativeCheck:
    """協力判定: best stat among the participants, +1 per extra one, (n+1)d6 keep best two.
    Never secret (`options.secret` is refused)."""
    if options.secret:
        raise BadInput(_("a cooperative check is never secret"))
    stat = clean_stat_name(stat)
    o = options.checked()
    mods = list(o.modifiers)
    with campaign_transaction(db, campaign_name) as (session, campaign):
        rows = [character_named(session, campaign, name) for name in participants]
        refuse_duplicates(rows, "cooperative")
        warnings = check_presence(session, rows, "cooperative", anyway=o.anyway)
        values = [stat_of(row, stat) for row in rows]
        result = rules.cooperative_check(
            values,
            o.target,
            source,
            skill=o.skill or 0,
            modifiers=mods,
            dice_modifier=o.dice_modifier,
            criticals=criticals_of(campaign),
            participants=[row.name for row in rows],
            stat_name=stat,
            occasion=o.occasion,
            doubles=o.doubles,
            halves=o.halves,
        )
        source.ensure_all_used()
        recorder = CheckRecorder(session, campaign, actor, source, o.reason, o.occasion, warnings=warnings)
        detail = {
            **result.to_detail(),
            "check": "cooperative",
            "stat": stat,
            "skill": o.skill,
            "modifiers": [list(m) for m in mods],
            "dice_modifier": o.dice_modifier,
        }
        seq = recorder.write(rows[0].name, result, detail)
        for row, value in zip(rows[1:], values[1:]):
            recorder.write(
                row.name,
                result,
                {
                    "check": "cooperative",
                    "role": "participant",
                    "stat": stat,
                    "stat_value": value,
                    "kind": result.kind,
                    "total": result.total,
                    "outcome": result.outcome,
                },
                parent_seq=seq,
            )
        return extended(
            CooperativeCheck,
            roll_of(result),
            recorder.context(),
            seq=seq,
            check="cooperative",
            character=rows[0].name,
            stat=stat,
            participants=tuple(
                CooperativeParticipant(character=row.name, stat_value=value) for row, value in zip(rows, values)
            ),
            stat_from=result.participants[result.stat_from],
        )


def opposed_check(
    db: Database,
    campaign_name: str | None,
    actor: str,
    source: DiceSource,
    *,
    active: SideSpec,
    passives: Sequence[SideSpec],
    effect: int | None = None,
    if_resisted: str = "vanish",
    occasion: str | None = None,
    reason: str | None = None,
    anyway: bool = False,
) -> OpposedCheck:
    """対抗判定: the active side rolls first, highest result wins, a tie goes to the passive side.

    `effect` is the numeric effect (damage ...) of the active side's skill: in full when
    it wins; when it loses, halved rounding down (`if_resisted="halve"`, 半減) or nothing
    (`"vanish"`, 消滅).
    """
    active = clean_side(active)
    passives = [clean_side(spec) for spec in passives]
    if not passives:
        raise BadInput(_("an opposed check needs at least one --passive side"))
    if if_resisted not in EFFECT_RULES:
        raise BadInput(
            _("--if-resisted must be one of {value}, not {if_resisted!r}").format(
                value=", ".join(EFFECT_RULES), if_resisted=if_resisted
            )
        )
    effect = bounded_value(effect, "--effect") if effect is not None else None
    occasion = clean_occasion(occasion)
    reason = clean_text(reason, "--reason")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        specs = [active, *passives]
        rows = [character_named(session, campaign, spec.character) for spec in specs]
        refuse_duplicates(rows, "opposed")
        warnings = check_presence(session, rows, "opposed", anyway=anyway)
        contestants = [contestant_of(row, spec, "stat") for row, spec in zip(rows, specs)]
        result = rules.opposed_check(
            contestants[0][0],
            [c for c, _ in contestants[1:]],
            source,
            criticals=criticals_of(campaign),
            occasion=occasion,
        )
        source.ensure_all_used()
        stats = [stat for _, stat in contestants]
        applied = None
        if effect is not None:
            won = result.winner_index == 0
            value = effect if won else (rules.halve(effect) if if_resisted == "halve" else 0)
            applied = OpposedEffect(base=effect, if_resisted=if_resisted, resisted=not won, applied=value)
        recorder = CheckRecorder(session, campaign, actor, source, reason, occasion, warnings=warnings)
        detail = {
            **result.to_detail(),
            "check": "opposed",
            "role": "active",
            "stats": stats,
            "effect": as_json(applied),
        }
        seq = recorder.write(rows[0].name, result.active, detail)
        sides = [extended(OpposedSide, *side_of(result.active, stats[0]), seq=seq, role="active")]
        for side, stat in zip(result.passives, stats[1:]):
            sub = recorder.write(
                side.name or "",
                side,
                {**side.to_detail(), "check": "opposed", "stat": stat, "winner": result.winner},
                parent_seq=seq,
            )
            sides.append(extended(OpposedSide, *side_of(side, stat), seq=sub, role="passive"))
        return extended(
            OpposedCheck,
            recorder.context(),
            seq=seq,
            check="opposed",
            character=rows[0].name,
            winner=result.winner,
            winner_role="active" if result.winner_index == 0 else "passive",
            decided_by=result.decided_by,
            dice=tuple(result.dice),
            total=result.active.total,
            target=result.active.target,
            outcome=result.active.outcome,
            margin=margin_of(result.active),
            effect=applied,
            sides=tuple(sides),
        )

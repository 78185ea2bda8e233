"""2d6 action checks (RULES R5) and danger sense / hiding (R6) as logged use-cases.

The rules live in campaign.core.checks2d6; this module finds the characters and their
stats, rolls through the caller's dice source, and writes the ledger. Checks change no
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

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from campaign import ledger
from campaign.core import checks2d6 as rules
from campaign.core.dice_source import DiceSource
from campaign.db.database import Database
from campaign.db.models import Campaign, Character
from campaign.errors import BadInput, NotFound
from campaign.services.common import campaign_transaction, character_named, clean_text
from campaign.services.presence import check_presence, with_warnings

#: 機会 labels (R5): recorded on the check, no rule depends on them. English aliases
#: are accepted and stored as the Japanese label.
OCCASIONS = {"簡易": "簡易", "標準": "標準", "作業": "作業", "瞬間": "瞬間",
             "simple": "簡易", "standard": "標準", "work": "作業", "instant": "瞬間"}
VALUE_LIMIT = 1_000_000
EFFECT_RULES = ("halve", "vanish")
_BRACKETS = ("【】", "『』", "「」", "[]", "［］")


@dataclass(frozen=True)
class SideSpec:
    """One participant as the user named it: `stat=None` means it does not roll."""

    character: str
    stat: str | None
    modifiers: tuple[tuple[str, int], ...] = ()
    dice_modifier: int = 0


# --------------------------------------------------------------------------- validation


def clean_occasion(value: str | None) -> str | None:
    if value is None:
        return None
    key = unicodedata.normalize("NFC", value).strip()
    found = OCCASIONS.get(key) or OCCASIONS.get(key.lower())
    if found is None:
        raise BadInput(f"--occasion: {value!r} is not one of 簡易, 標準, 作業, 瞬間")
    return found


def clean_stat_name(value: str) -> str:
    """NFC, trimmed, and 【技】 / 『感』 written with their brackets accepted."""
    name = unicodedata.normalize("NFC", value).strip()
    for opening, closing in _BRACKETS:
        if len(name) > 2 and name[0] == opening and name[-1] == closing:
            name = name[1:-1].strip()
    if not name:
        raise BadInput("stat name must not be empty")
    return name


def _bounded(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(f"{what}: {value!r} is not a whole number")
    if abs(value) > VALUE_LIMIT:
        raise BadInput(f"{what}: {value} is out of range (at most ±{VALUE_LIMIT})")
    return value


def _modifiers(items: Sequence[tuple[str, int]], what: str = "--mod") -> tuple[tuple[str, int], ...]:
    cleaned = []
    for label, value in items:
        label = unicodedata.normalize("NFC", str(label)).strip() or "mod"
        cleaned.append((label, _bounded(value, f"{what} {label}")))
    return tuple(cleaned)


def _scaling_counts(doubles: int, halves: int) -> tuple[int, int]:
    """How many x2 / x1/2 effects were named (R6 applies at most one of each)."""
    doubles, halves = _bounded(doubles, "--double"), _bounded(halves, "--halve")
    if doubles < 0 or halves < 0:
        raise BadInput("--double / --halve count effects and cannot be negative")
    return doubles, halves


def _side(spec: SideSpec) -> SideSpec:
    return SideSpec(
        character=spec.character,
        stat=clean_stat_name(spec.stat) if spec.stat is not None else None,
        modifiers=_modifiers(spec.modifiers),
        dice_modifier=_bounded(spec.dice_modifier, "dice modifier"),
    )


def _distinct(characters: Sequence[Character], what: str) -> None:
    seen: set[int] = set()
    for character in characters:
        if character.id in seen:
            raise BadInput(f"{character.name} is listed twice in {what}")
        seen.add(character.id)


# --------------------------------------------------------------------------- lookups


def stat_of(character: Character, stat: str) -> int:
    """The stat's value; `stat` may be any spelling of it (心, WILL, ｗｉｌｌ ...)."""
    from campaign.core.stat_names import resolve_stat

    stats = character.stats or {}
    stat = resolve_stat(stat, stats, {}).name
    if stat not in stats:
        listed = ", ".join(f"{k}={v}" for k, v in stats.items()) or "none"
        raise NotFound(f"{character.name} has no stat {stat!r} (stats: {listed})")
    return int(stats[stat])


def _criticals(campaign: Campaign) -> rules.CriticalRule:
    return rules.CriticalRule(enabled=bool((campaign.settings or {}).get("criticals", True)))


# --------------------------------------------------------------------------- shaping


def _expression(result: rules.CheckResult) -> str:
    """BCDice-like text of one roll: `2D6+3>=10`, `3D6KH2+5>=12`, `2D6+2>9`."""
    if result.skipped == rules.DID_NOT_ROLL:
        return "no roll"
    base = sum(term.value for term in result.terms)
    dice = f"{result.dice_count}D6"
    if len(result.kept_indices) != len(result.dice):
        dice += f"KH{len(result.kept_indices)}"
    text = dice + (f"{base:+d}" if base else "")
    if result.scaling is not None:  # R6: one x2 then one x1/2 at most, on the total
        text = f"({text})" + ("*2" if result.scaling.doubled else "") + ("/2" if result.scaling.halved else "")
    if result.target is not None and not isinstance(result, rules.OpposedSideResult):
        text += f"{result.compare}{result.target}"
    return text


def _margin(result: rules.CheckResult) -> int | None:
    return None if result.target is None else result.total - result.target


def _view(result: rules.CheckResult) -> dict[str, Any]:
    """The JSON-able fields every rendered check shares."""
    return {
        "expression": _expression(result),
        "dice": list(result.dice),
        "kept": list(result.kept),
        "dice_count": result.dice_count,
        "terms": [term.to_detail() for term in result.terms],
        "total": result.total,
        "target": result.target,
        "compare": result.compare,
        "outcome": result.outcome,
        "success": result.success,
        "critical": result.critical,
        "margin": _margin(result),
        "skipped": result.skipped,
        "scaling": result.scaling.to_detail() if result.scaling is not None else None,
    }


def _source_detail(source: DiceSource) -> dict[str, Any]:
    seed = getattr(source, "seed", None)
    return {"seed": seed} if seed is not None else {}


class _Recorder:
    """Writes a check's entries into the open transaction with the common fields."""

    def __init__(self, session: Session, campaign: Campaign, actor: str, source: DiceSource,
                 reason: str | None, occasion: str | None, secret: bool = False, *,
                 warnings: list[str] | None = None) -> None:
        self.session, self.campaign, self.actor = session, campaign, actor
        self.warnings = warnings or []  # characters out of play (services.presence)
        self.secret = secret  # `--secret`: the entry commits to the result (services.secret_rolls)
        self.commitment: str | None = None
        self.source_kind = source.kind
        self.source_detail = _source_detail(source)
        self.reason, self.occasion = reason, occasion
        self.scenario = ledger.open_scenario_number(session, campaign.id)

    def write(self, character: str, result: rules.CheckResult | None, detail: dict[str, Any], *,
              parent_seq: int | None = None, outcome: str | None = None) -> int:
        """One entry; `result=None` for a participant that took no part in the rolling."""
        new = ledger.NewEntry(
            kind="check",
            character=character,
            scenario=self.scenario,
            parent_seq=parent_seq,
            expression=_expression(result) if result is not None else None,
            dice=list(result.dice) if result is not None else None,
            total=result.total if result is not None else None,
            target=result.target if result is not None else None,
            outcome=result.outcome if result is not None else outcome,
            margin=_margin(result) if result is not None else None,
            source=self.source_kind,
            reason=self.reason,
            detail={**detail, "occasion": self.occasion, **self.source_detail},
        )
        if self.secret:
            from campaign.services.secret_rolls import append_secret, secret_of

            entry = append_secret(self.session, self.campaign, self.actor, new)
            self.commitment = secret_of(entry.record)
        else:
            entry = ledger.append(self.session, self.campaign, self.actor, new)
        return entry.seq

    def secret_view(self, seq: int, check: str, character: str) -> dict[str, Any]:
        """All a secret check may say before its reveal: nothing about the result."""
        return with_warnings({"seq": seq, "check": check, "character": character, "secret": True,
                              "commitment": self.commitment, "actor": self.actor, "scenario": self.scenario},
                             self.warnings)

    def common(self) -> dict[str, Any]:
        return with_warnings({"occasion": self.occasion, "source": self.source_kind, "reason": self.reason,
                              "scenario": self.scenario}, self.warnings)


# --------------------------------------------------------------------------- R5


def ability_check(
    db: Database,
    campaign_name: str | None,
    actor: str,
    source: DiceSource,
    *,
    character: str,
    stat: str,
    target: int,
    skill: int | None = None,
    modifiers: Sequence[tuple[str, int]] = (),
    dice_modifier: int = 0,
    doubles: int = 0,
    halves: int = 0,
    occasion: str | None = None,
    reason: str | None = None,
    secret: bool = False,
    anyway: bool = False,
) -> dict[str, Any]:
    """能力判定 (or 技能判定 with a skill level): stat + 2d6 + skill + modifiers >= target."""
    stat = clean_stat_name(stat)
    target = _bounded(target, "--target")
    skill = _bounded(skill, "--skill") if skill is not None else None
    mods = _modifiers(modifiers)
    dice_modifier = _bounded(dice_modifier, "--dice-mod")
    doubles, halves = _scaling_counts(doubles, halves)
    occasion = clean_occasion(occasion)
    reason = clean_text(reason, "--reason")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        row = character_named(session, campaign, character)
        warnings = check_presence(session, [row], f"an {'ability' if skill is None else 'skill'} check", anyway=anyway)
        value = stat_of(row, stat)
        common = dict(modifiers=mods, dice_modifier=dice_modifier, criticals=_criticals(campaign),
                      stat_name=stat, name=row.name, occasion=occasion, doubles=doubles, halves=halves)
        if skill is None:
            result = rules.ability_check(value, target, source, **common)
        else:
            result = rules.skill_check(value, skill, target, source, **common)
        source.ensure_all_used()
        recorder = _Recorder(session, campaign, actor, source, reason, occasion, secret, warnings=warnings)
        check = "ability" if skill is None else "skill"
        detail = {**result.to_detail(), "check": check, "stat": stat, "stat_value": value, "skill": skill,
                  "modifiers": [list(m) for m in mods], "dice_modifier": dice_modifier}
        seq = recorder.write(row.name, result, detail)
        if secret:
            return recorder.secret_view(seq, check, row.name)
        return {"seq": seq, "check": check, "character": row.name, "stat": stat, **_view(result),
                **recorder.common()}


def cooperative_check(
    db: Database,
    campaign_name: str | None,
    actor: str,
    source: DiceSource,
    *,
    participants: Sequence[str],
    stat: str,
    target: int,
    skill: int | None = None,
    modifiers: Sequence[tuple[str, int]] = (),
    dice_modifier: int = 0,
    doubles: int = 0,
    halves: int = 0,
    occasion: str | None = None,
    reason: str | None = None,
    anyway: bool = False,
) -> dict[str, Any]:
    """協力判定: best stat among the participants, +1 per extra one, (n+1)d6 keep best two."""
    stat = clean_stat_name(stat)
    target = _bounded(target, "--target")
    skill = _bounded(skill, "--skill") if skill is not None else None
    mods = _modifiers(modifiers)
    dice_modifier = _bounded(dice_modifier, "--dice-mod")
    doubles, halves = _scaling_counts(doubles, halves)
    occasion = clean_occasion(occasion)
    reason = clean_text(reason, "--reason")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        rows = [character_named(session, campaign, name) for name in participants]
        _distinct(rows, "the cooperative check")
        warnings = check_presence(session, rows, "a cooperative check", anyway=anyway)
        values = [stat_of(row, stat) for row in rows]
        result = rules.cooperative_check(
            values, target, source, skill=skill or 0, modifiers=mods, dice_modifier=dice_modifier,
            criticals=_criticals(campaign), participants=[row.name for row in rows], stat_name=stat,
            occasion=occasion, doubles=doubles, halves=halves,
        )
        source.ensure_all_used()
        recorder = _Recorder(session, campaign, actor, source, reason, occasion, warnings=warnings)
        detail = {**result.to_detail(), "check": "cooperative", "stat": stat, "skill": skill,
                  "modifiers": [list(m) for m in mods], "dice_modifier": dice_modifier}
        seq = recorder.write(rows[0].name, result, detail)
        for row, value in zip(rows[1:], values[1:]):
            recorder.write(row.name, result, {
                "check": "cooperative", "role": "participant", "stat": stat, "stat_value": value,
                "kind": result.kind, "total": result.total, "outcome": result.outcome,
            }, parent_seq=seq)
        return {
            "seq": seq, "check": "cooperative", "character": rows[0].name, "stat": stat,
            "participants": [{"character": row.name, "stat_value": value} for row, value in zip(rows, values)],
            "stat_from": result.participants[result.stat_from],
            **_view(result), **recorder.common(),
        }


def _contestant(row: Character, spec: SideSpec, default_stat: str) -> tuple[rules.Contestant, str | None]:
    """The core's view of one side; a side with no stat does not roll (result 0)."""
    rolls = spec.stat is not None
    value = stat_of(row, spec.stat) if spec.stat is not None else 0
    return rules.Contestant(
        name=row.name, stat=value, modifiers=spec.modifiers, dice_modifier=spec.dice_modifier,
        rolls=rolls, stat_name=spec.stat or default_stat,
    ), spec.stat


def _side_view(result: rules.CheckResult, stat: str | None) -> dict[str, Any]:
    return {"character": result.name, "stat": stat, "rolls": result.skipped != rules.DID_NOT_ROLL,
            **_view(result)}


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
) -> dict[str, Any]:
    """対抗判定: the active side rolls first, highest result wins, a tie goes to the passive side.

    `effect` is the numeric effect (damage ...) of the active side's skill: in full when
    it wins; when it loses, halved rounding down (`if_resisted="halve"`, 半減) or nothing
    (`"vanish"`, 消滅).
    """
    active = _side(active)
    passives = [_side(spec) for spec in passives]
    if not passives:
        raise BadInput("an opposed check needs at least one --passive side")
    if if_resisted not in EFFECT_RULES:
        raise BadInput(f"--if-resisted must be one of {', '.join(EFFECT_RULES)}, not {if_resisted!r}")
    effect = _bounded(effect, "--effect") if effect is not None else None
    occasion = clean_occasion(occasion)
    reason = clean_text(reason, "--reason")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        specs = [active, *passives]
        rows = [character_named(session, campaign, spec.character) for spec in specs]
        _distinct(rows, "the opposed check")
        warnings = check_presence(session, rows, "an opposed check", anyway=anyway)
        contestants = [_contestant(row, spec, "stat") for row, spec in zip(rows, specs)]
        result = rules.opposed_check(contestants[0][0], [c for c, _ in contestants[1:]], source,
                                     criticals=_criticals(campaign), occasion=occasion)
        source.ensure_all_used()
        stats = [stat for _, stat in contestants]
        applied = None
        if effect is not None:
            won = result.winner_index == 0
            value = effect if won else (rules.halve(effect) if if_resisted == "halve" else 0)
            applied = {"base": effect, "if_resisted": if_resisted, "resisted": not won, "applied": value}
        recorder = _Recorder(session, campaign, actor, source, reason, occasion, warnings=warnings)
        detail = {**result.to_detail(), "check": "opposed", "role": "active", "stats": stats,
                  "effect": applied}
        seq = recorder.write(rows[0].name, result.active, detail)
        sides = [{"seq": seq, "role": "active", **_side_view(result.active, stats[0])}]
        for side, stat in zip(result.passives, stats[1:]):
            sub = recorder.write(side.name or "", side, {
                **side.to_detail(), "check": "opposed", "stat": stat, "winner": result.winner,
            }, parent_seq=seq)
            sides.append({"seq": sub, "role": "passive", **_side_view(side, stat)})
        return {
            "seq": seq, "check": "opposed", "character": rows[0].name,
            "winner": result.winner, "winner_role": "active" if result.winner_index == 0 else "passive",
            "decided_by": result.decided_by, "dice": list(result.dice),
            "total": result.active.total, "target": result.active.target,
            "outcome": result.active.outcome, "margin": _margin(result.active),
            "effect": applied, "sides": sides, **recorder.common(),
        }


# --------------------------------------------------------------------------- R6


def _band_view(result: rules.DangerSenseResult) -> dict[str, Any]:
    return {"band": result.band.label, "band_ja": result.band.ja, "band_en": result.band.en}


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
) -> dict[str, Any]:
    """危険感知: 感 + 2d6 + modifiers must exceed the difficulty; reports the R6 band."""
    stat = clean_stat_name(stat)
    difficulty = _bounded(difficulty, "--difficulty")
    mods = _modifiers(modifiers)
    dice_modifier = _bounded(dice_modifier, "--dice-mod")
    doubles, halves = _scaling_counts(doubles, halves)
    occasion = clean_occasion(occasion)
    reason = clean_text(reason, "--reason")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        row = character_named(session, campaign, character)
        warnings = check_presence(session, [row], "a danger sense check", anyway=anyway)
        value = stat_of(row, stat)
        result = rules.danger_sense(value, difficulty, source, modifiers=mods, dice_modifier=dice_modifier,
                                    criticals=_criticals(campaign), stat_name=stat, name=row.name,
                                    occasion=occasion, doubles=doubles, halves=halves)
        source.ensure_all_used()
        recorder = _Recorder(session, campaign, actor, source, reason, occasion, secret, warnings=warnings)
        detail = {**result.to_detail(), "check": "danger", "stat": stat, "stat_value": value,
                  "modifiers": [list(m) for m in mods], "dice_modifier": dice_modifier}
        seq = recorder.write(row.name, result, detail)
        if secret:
            return recorder.secret_view(seq, "danger", row.name)
        return {"seq": seq, "check": "danger", "character": row.name, "stat": stat,
                "difficulty": difficulty, **_view(result), **_band_view(result), **recorder.common()}


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
) -> dict[str, Any]:
    """隠れる: the hider's 技 + 2d6 against each observer's danger sense (who must exceed it)."""
    hider = _side(hider)
    observers = [_side(spec) for spec in observers]
    if hider.stat is None:
        raise BadInput("the hider must roll: give its stat")
    if not observers:
        raise BadInput("a hide check needs at least one --observer")
    occasion = clean_occasion(occasion)
    reason = clean_text(reason, "--reason")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        specs = [hider, *observers]
        rows = [character_named(session, campaign, spec.character) for spec in specs]
        _distinct(rows, "the hide check")
        warnings = check_presence(session, rows, "a hide check", anyway=anyway)
        hider_side, hider_stat = _contestant(rows[0], hider, "技")
        observer_sides = [_contestant(row, spec, "感") for row, spec in zip(rows[1:], observers)]
        result = rules.hide_check(hider_side, [c for c, _ in observer_sides], source,
                                  criticals=_criticals(campaign), occasion=occasion)
        source.ensure_all_used()
        recorder = _Recorder(session, campaign, actor, source, reason, occasion, warnings=warnings)
        stats = [hider_stat] + [stat for _, stat in observer_sides]
        detail = {**result.to_detail(), "check": "hide", "stats": stats}
        seq = recorder.write(rows[0].name, result.hider, detail)
        observed = []
        if result.hider.skipped == rules.ZERO_DICE:
            # The hider failed outright: nobody rolled and every observer noticed.
            for row, (_, stat) in zip(rows[1:], observer_sides):
                sub = recorder.write(row.name, None, {
                    "check": "hide", "role": "observer", "stat": stat, "hider": rows[0].name,
                    "noticed": True, "skipped": rules.ZERO_DICE,
                }, parent_seq=seq, outcome=rules.SUCCESS)
                observed.append({"seq": sub, "character": row.name, "stat": stat, "rolls": False,
                                 "dice": [], "total": None, "target": None, "outcome": rules.SUCCESS,
                                 "noticed": True, "skipped": rules.ZERO_DICE})
        for obs, (_, stat) in zip(result.observers, observer_sides):
            sub = recorder.write(obs.name or "", obs, {
                **obs.to_detail(), "check": "hide", "role": "observer", "stat": stat,
                "hider": rows[0].name, "noticed": obs.success,
            }, parent_seq=seq)
            observed.append({"seq": sub, **_side_view(obs, stat), **_band_view(obs), "noticed": obs.success})
        hider_view = _side_view(result.hider, hider_stat)
        return {
            "seq": seq, "check": "hide", "character": rows[0].name, "stat": hider_stat,
            "hidden": result.hidden, "noticed_by": list(result.noticed_by),
            "dice": list(result.dice), "expression": hider_view["expression"],
            "total": result.hider.total, "target": result.hider.target, "outcome": result.hider.outcome,
            "margin": _margin(result.hider), "hider": {"seq": seq, **hider_view},
            "observers": observed, **recorder.common(),
        }

"""What every logged 2d6 check shares: cleaning the user's input (occasions, stat names,
modifiers, sides), finding a character's stat, the result types, and the recorder that
writes a check's ledger entries (services.checks.action_checks, services.checks.danger).

A check's result is flat JSON put together from field groups (the head, the roll, a
danger band, the context), so each group is one dataclass and a result inherits the
groups it has. Dataclasses take fields from the last base first: `class X(C, B, A)`
has A's fields, then B's, then C's, then X's own, which is the JSON order. (No slots
here: a class with several slotted bases cannot be laid out.)
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session, object_session

from campaign import ledger
from campaign.core import checks2d6 as rules
from campaign.core.dice_source import DiceSource
from campaign.db.models import Campaign, Character
from campaign.errors import BadInput, NotFound
from campaign.i18n import _
from campaign.services.results import converted_by, omitted_when_empty

#: 機会 labels (docs/rules.md "2d6 checks"): recorded on the check, no rule depends on them. English aliases
#: are accepted and stored as the Japanese label.
OCCASIONS = {
    "簡易": "簡易",
    "標準": "標準",
    "作業": "作業",
    "瞬間": "瞬間",
    "simple": "簡易",
    "standard": "標準",
    "work": "作業",
    "instant": "瞬間",
}
VALUE_LIMIT = 1_000_000
EFFECT_RULES = ("halve", "vanish")
_BRACKETS: tuple[tuple[str, str], ...] = (("【", "】"), ("『", "』"), ("「", "」"), ("[", "]"), ("［", "］"))


@dataclass(frozen=True)
class SideSpec:
    """One participant as the user named it: `stat=None` means it does not roll."""

    character: str
    stat: str | None
    modifiers: tuple[tuple[str, int], ...] = ()
    dice_modifier: int = 0


# --------------------------------------------------------------------------- result types


def _term_details(terms: tuple[rules.Term, ...]) -> list[dict[str, Any]]:
    return [term.to_detail() for term in terms]


def _scaling_detail(scaling: rules.Scaling | None) -> dict[str, Any] | None:
    return None if scaling is None else scaling.to_detail()


@dataclass(frozen=True)
class CheckRoll:
    """One roll as every rendered check shows it. `terms` and `scaling` are the core's
    values; their JSON is their to_detail(), the same the ledger record holds."""

    expression: str
    dice: tuple[int, ...]
    kept: tuple[int, ...]
    dice_count: int
    terms: tuple[rules.Term, ...] = field(metadata=converted_by(_term_details))
    total: int
    target: int | None
    compare: str | None
    outcome: str | None
    success: bool | None
    critical: str | None
    margin: int | None
    skipped: str | None
    scaling: rules.Scaling | None = field(metadata=converted_by(_scaling_detail))


@dataclass(frozen=True)
class CheckContext:
    """Last in every check's result: where and why it was rolled."""

    occasion: str | None
    source: str
    reason: str | None
    scenario: int | None
    warnings: tuple[str, ...] = omitted_when_empty()


@dataclass(frozen=True)
class DangerBandResult:
    """The danger-sense band (docs/rules.md "Danger sense") of a result (how much the character senses)."""

    band: str
    band_ja: str
    band_en: str


@dataclass(frozen=True)
class CheckHead:
    seq: int
    check: str  # ability, skill, cooperative, opposed, danger, hide
    character: str


@dataclass(frozen=True)
class StatCheckHead(CheckHead):
    stat: str


@dataclass(frozen=True)
class Sequenced:
    """The seq of a participant's own entry (a sub-entry, or the main one)."""

    seq: int


@dataclass(frozen=True)
class SideHead:
    """A participant of an opposed or hide check; `rolls` is False for a side without a stat."""

    character: str
    stat: str | None
    rolls: bool


@dataclass(frozen=True)
class SecretCheck(CheckHead):
    """All a secret check may say before its reveal: nothing about the result."""

    secret: bool
    commitment: str | None
    actor: str
    scenario: int | None
    warnings: tuple[str, ...] = omitted_when_empty()


# --------------------------------------------------------------------------- validation


def clean_occasion(value: str | None) -> str | None:
    if value is None:
        return None
    key = unicodedata.normalize("NFC", value).strip()
    found = OCCASIONS.get(key) or OCCASIONS.get(key.lower())
    if found is None:
        raise BadInput(_("--occasion: {value!r} is not one of 簡易, 標準, 作業, 瞬間").format(value=value))
    return found


def clean_stat_name(value: str) -> str:
    """NFC, trimmed, and 【技】 / 『感』 written with their brackets accepted."""
    name = unicodedata.normalize("NFC", value).strip()
    for opening, closing in _BRACKETS:
        if len(name) > 2 and name[0] == opening and name[-1] == closing:
            name = name[1:-1].strip()
    if not name:
        raise BadInput(_("stat name must not be empty"))
    return name


def bounded_value(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(_("{what}: {value!r} is not a whole number").format(what=what, value=value))
    if abs(value) > VALUE_LIMIT:
        raise BadInput(
            _("{what}: {value} is out of range (at most ±{VALUE_LIMIT})").format(
                what=what, value=value, VALUE_LIMIT=VALUE_LIMIT
            )
        )
    return value


def clean_modifiers(items: Sequence[tuple[str, int]], what: str = "--mod") -> tuple[tuple[str, int], ...]:
    cleaned = []
    for label, value in items:
        label = unicodedata.normalize("NFC", str(label)).strip() or "mod"
        cleaned.append((label, bounded_value(value, f"{what} {label}")))
    return tuple(cleaned)


def scaling_counts(doubles: int, halves: int) -> tuple[int, int]:
    """How many x2 / x1/2 effects were named (docs/rules.md "2d6 checks": at most one of each applies)."""
    doubles, halves = bounded_value(doubles, "--double"), bounded_value(halves, "--halve")
    if doubles < 0 or halves < 0:
        raise BadInput(_("--double / --halve count effects and cannot be negative"))
    return doubles, halves


def clean_side(spec: SideSpec) -> SideSpec:
    return SideSpec(
        character=spec.character,
        stat=clean_stat_name(spec.stat) if spec.stat is not None else None,
        modifiers=clean_modifiers(spec.modifiers),
        dice_modifier=bounded_value(spec.dice_modifier, _("dice modifier")),
    )


def refuse_duplicates(characters: Sequence[Character], check: str) -> None:
    """A character named twice in one check (`check`: a code of presence.CHECK_NAMES)."""
    from campaign.services.characters.presence import CHECK_NAMES

    seen: set[int] = set()
    for character in characters:
        if character.id in seen:
            raise BadInput(
                _("{name} is listed twice in {what}").format(name=character.name, what=_(CHECK_NAMES[check]))
            )
        seen.add(character.id)


# --------------------------------------------------------------------------- lookups


def stat_of(character: Character, stat: str) -> int:
    """The stat's value; `stat` may be any spelling of it (心, こころ, WILL, ｗｉｌｌ ...)."""
    from campaign.core.stat_names import resolve_stat
    from campaign.db.models import Campaign
    from campaign.seeds import stat_names_for

    stats = character.stats or {}
    session = object_session(character)
    assert session is not None  # a character is read through a session
    campaign = session.get_one(Campaign, character.campaign_id)
    stat = resolve_stat(stat, stats, stat_names_for(campaign.ruleset).aliases).name
    if stat not in stats:
        listed = ", ".join(f"{k}={v}" for k, v in stats.items()) or "none"
        raise NotFound(
            _("{name} has no stat {stat!r} (stats: {listed})").format(name=character.name, stat=stat, listed=listed)
        )
    return int(stats[stat])


def criticals_of(campaign: Campaign) -> rules.CriticalRule:
    return rules.CriticalRule(enabled=bool((campaign.settings or {}).get("criticals", True)))


# --------------------------------------------------------------------------- shaping


def check_expression(result: rules.CheckResult) -> str:
    """BCDice-like text of one roll: `2D6+3>=10`, `3D6KH2+5>=12`, `2D6+2>9`."""
    if result.skipped == rules.DID_NOT_ROLL:
        return "no roll"
    base = sum(term.value for term in result.terms)
    dice = f"{result.dice_count}D6"
    if len(result.kept_indices) != len(result.dice):
        dice += f"KH{len(result.kept_indices)}"
    text = dice + (f"{base:+d}" if base else "")
    if result.scaling is not None:  # docs/rules.md "2d6 checks": one x2 then one x1/2 at most, on the total
        text = f"({text})" + ("*2" if result.scaling.doubled else "") + ("/2" if result.scaling.halved else "")
    if result.target is not None and not isinstance(result, rules.OpposedSideResult):
        text += f"{result.compare}{result.target}"
    return text


def margin_of(result: rules.CheckResult) -> int | None:
    return None if result.target is None else result.total - result.target


def roll_of(result: rules.CheckResult) -> CheckRoll:
    """The CheckRoll group of a result, to build a result class that has it (extended)."""
    return CheckRoll(
        expression=check_expression(result),
        dice=tuple(result.dice),
        kept=tuple(result.kept),
        dice_count=result.dice_count,
        terms=tuple(result.terms),
        total=result.total,
        target=result.target,
        compare=result.compare,
        outcome=result.outcome,
        success=result.success,
        critical=result.critical,
        margin=margin_of(result),
        skipped=result.skipped,
        scaling=result.scaling,
    )


def band_of(result: rules.DangerSenseResult) -> DangerBandResult:
    return DangerBandResult(band=result.band.label, band_ja=result.band.ja, band_en=result.band.en)


def dice_source_detail(source: DiceSource) -> dict[str, Any]:
    seed = getattr(source, "seed", None)
    return {"seed": seed} if seed is not None else {}


class CheckRecorder:
    """Writes a check's entries into the open transaction with the common fields."""

    def __init__(
        self,
        session: Session,
        campaign: Campaign,
        actor: str,
        source: DiceSource,
        reason: str | None,
        occasion: str | None,
        secret: bool = False,
        *,
        warnings: list[str] | None = None,
    ) -> None:
        self.session, self.campaign, self.actor = session, campaign, actor
        self.warnings = warnings or []  # characters out of play (services.characters.presence)
        self.secret = secret  # `--secret`: the entry commits to the result (services.checks.secret_rolls)
        self.commitment: str | None = None
        self.source_kind = source.kind
        self.source_detail = dice_source_detail(source)
        self.reason, self.occasion = reason, occasion
        self.scenario = ledger.open_scenario_number(session, campaign.id)

    def write(
        self,
        character: str,
        result: rules.CheckResult | None,
        detail: dict[str, Any],
        *,
        parent_seq: int | None = None,
        outcome: str | None = None,
    ) -> int:
        """One entry; `result=None` for a participant that took no part in the rolling."""
        new = ledger.NewEntry(
            kind="check",
            character=character,
            scenario=self.scenario,
            parent_seq=parent_seq,
            expression=check_expression(result) if result is not None else None,
            dice=list(result.dice) if result is not None else None,
            total=result.total if result is not None else None,
            target=result.target if result is not None else None,
            outcome=result.outcome if result is not None else outcome,
            margin=margin_of(result) if result is not None else None,
            source=self.source_kind,
            reason=self.reason,
            detail={**detail, "occasion": self.occasion, **self.source_detail},
        )
        if self.secret:
            from campaign.services.checks.secret_rolls import append_secret, secret_of

            entry = append_secret(self.session, self.campaign, self.actor, new)
            self.commitment = secret_of(entry.record)
        else:
            entry = ledger.append(self.session, self.campaign, self.actor, new)
        return entry.seq

    def secret_view(self, seq: int, check: str, character: str) -> SecretCheck:
        return SecretCheck(
            seq=seq,
            check=check,
            character=character,
            secret=True,
            commitment=self.commitment,
            actor=self.actor,
            scenario=self.scenario,
            warnings=tuple(self.warnings),
        )

    def context(self) -> CheckContext:
        """Where and why, last in every check's result."""
        return CheckContext(
            occasion=self.occasion,
            source=self.source_kind,
            reason=self.reason,
            scenario=self.scenario,
            warnings=tuple(self.warnings),
        )


def contestant_of(row: Character, spec: SideSpec, default_stat: str) -> tuple[rules.Contestant, str | None]:
    """The core's view of one side; a side with no stat does not roll (result 0)."""
    from campaign.services.checks.lingering import with_penalties

    rolls = spec.stat is not None
    value = stat_of(row, spec.stat) if spec.stat is not None else 0
    # the -2 after waking applies by itself to a side that rolls (services.checks.lingering)
    modifiers = with_penalties(row, tuple(spec.modifiers)) if rolls else spec.modifiers
    return rules.Contestant(
        name=row.name,
        stat=value,
        modifiers=modifiers,
        dice_modifier=spec.dice_modifier,
        rolls=rolls,
        stat_name=spec.stat or default_stat,
    ), spec.stat


def side_of(result: rules.CheckResult, stat: str | None) -> tuple[SideHead, CheckRoll]:
    """The SideHead and CheckRoll groups of one participant."""
    head = SideHead(character=result.name or "", stat=stat, rolls=result.skipped != rules.DID_NOT_ROLL)
    return head, roll_of(result)

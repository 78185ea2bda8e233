"""`campaign fright`: a fright check (docs/rules.md "Fright check") rolled, logged and applied in one transaction.

The rules are campaign.core.fright (pure); this module reads the character, rolls
through the caller's dice source, writes what the result says onto the character with
services.recording (so `history void` undoes all of it) and appends the ledger entries:
the check itself (kind "fright", parent) and one sub-entry per die roll it needed (the
table roll first, then each sub-roll in the order it was rolled).

Decisions (beyond core.fright's own):
- Will is the stat "Will" (or 意思 / 意志); a 3rd-edition sheet without one uses IQ
  (campaign.core.derived; docs/rules.md "Derived stats"); with neither the check is refused before any die is
  rolled. Combat Reflexes is an active trait named "Combat Reflexes" or 戦闘即応.
- A new trait gets the GM's `--pick` name, else the core's placeholder with the check's
  seq ("未命名の妄想 (#42)") to rename later with `trait rename`. A `--pick` that names
  an existing trait is refused before rolling, unless that trait is a mild phobia (the
  one entry 25 escalates); if the table then asks for a new trait instead, the new trait
  gets the placeholder and the JSON says the pick was not used.
- Fatigue and injury lower the current FP/HP (the pool's maximum is the stat of that
  name, or ST/HT on a 3e sheet without one). GURPS lets both go below zero, so nothing
  is clamped. A character with neither keeps no pool: the loss is recorded
  (`tracked: false`) but changes nothing.
- A condition that ends by itself after its rolled time (recovery "auto": a 1-turn stun,
  a faint, a seizure) is timed on the campaign clock, so `time advance` ends it; one that
  ends with a recovery roll stays until the GM clears it (services.characters.conditions).
- Attribute loss lowers the stat itself. Entry 40's cascade (mental skills, spells and
  psi drop too) is recorded in the effect; skills are not modelled, so the GM adjusts them.
- An escalated phobia keeps its counts_toward_limit flag; its category becomes
  "severe phobia" (see services.characters.traits about severity), and the CP the escalation adds
  is outside the disadvantage limit (docs/rules.md "Fright check"): its `unlimited_cp` grows by that much.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from sqlalchemy.orm import Session

from campaign import ledger
from campaign.core.applied_effects import (
    AppliedAttribute,
    AppliedCondition,
    AppliedEffect,
    AppliedEscalation,
    AppliedPool,
    AppliedTrait,
    FrightNote,
    StatLowered,
    TraitAdded,
)
from campaign.core.derived import DERIVATIONS, pool_current, stat_value
from campaign.core.dice_source import DiceSource, about
from campaign.core.effects_vocabulary import effect_data
from campaign.core.fright import (
    FRIGHT_TABLE,
    AddCondition,
    AddTrait,
    FrightResult,
    KnownTrait,
    LoseAttribute,
    LosePool,
    PhobiaEscalation,
    SubRoll,
    resolve_fright_check,
)
from campaign.core.gametime import unit_seconds
from campaign.core.stat_names import canonical_view, sheet_key
from campaign.core.suggest import closest, fold
from campaign.db.database import Database
from campaign.db.models import Campaign, Character
from campaign.effect_words import effect_documents, placeholder_name
from campaign.errors import BadInput, RuleRefused
from campaign.i18n import _
from campaign.labels import note_texts
from campaign.projection.views import CharacterSheet
from campaign.seeds import fright_table, stat_names_for
from campaign.services.characters.presence import check_presence
from campaign.services.characters.roster import character_view
from campaign.services.characters.traits import active_traits, find_trait, split_category, stored_category
from campaign.services.checks.lingering import RollPenalty, penalty_total, roll_penalties
from campaign.services.common import campaign_transaction, character_named, clean_name, clean_text
from campaign.services.recording import Recorder, recording
from campaign.services.results import as_json, converted_by, omitted_when_empty

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

COMBAT_REFLEXES_NAMES = frozenset({"combat reflexes", "戦闘即応"})
PLACEHOLDER_SUFFIX = " (恐怖判定)"
MODIFIER_LIMIT = 100
ESCALATION_ENTRY = 25  # the fright table entry that worsens a mild phobia (docs/rules.md "Fright check")


@dataclass(frozen=True, slots=True)
class WillRoll:
    """The fright check itself (the record's detail holds it too, as_json)."""

    target: int
    dice: tuple[int, ...]
    total: int
    outcome: str
    margin: int
    will: int
    will_stat: str
    will_derived_from: str | None
    modifier: int
    combat_reflexes: bool
    severe_phobia: bool
    cap: int | None
    # active penalties after waking ({"penalty", "origin", "follows"}), in the target already
    penalties: tuple[RollPenalty, ...] = omitted_when_empty()


@dataclass(frozen=True, slots=True)
class FrightTableResult:
    """The fright table roll on a failure: `entry` (raw roll, capped) and its words."""

    dice: tuple[int, ...]
    margin_added: int
    raw: int
    entry: int
    range: tuple[int, int]
    ja: str
    en: str


@dataclass(frozen=True, slots=True)
class TableSubRoll:
    """The sub-entry that records the table roll."""

    seq: int
    purpose: str  # "table"
    expression: str
    dice: tuple[int, ...]
    total: int
    raw: int
    entry: int


@dataclass(frozen=True, slots=True)
class EffectSubRoll:
    """A sub-entry for a roll an effect needed (how long a stun lasts, fatigue ...)."""

    seq: int
    purpose: str
    expression: str
    dice: tuple[int, ...]
    total: int
    target: int | None
    outcome: str | None
    margin: int | None
    entry: int


@dataclass(frozen=True, slots=True)
class FrightCheckResult:
    """A fright check rolled and applied. `effects` are what each effect did (typed,
    core.applied_effects; `--json` prints each as its record with the words it has always
    carried), `traits_added` the record's list of new traits, `notes` the rendered notes."""

    seq: int
    character: str
    check: WillRoll
    table: FrightTableResult | None
    effects: tuple[AppliedEffect, ...] = field(metadata=converted_by(effect_documents))
    traits_added: tuple[TraitAdded, ...]
    sub_rolls: tuple[TableSubRoll | EffectSubRoll, ...]
    notes: tuple[FrightNote, ...] = field(metadata=converted_by(note_texts))
    reason: str | None
    source: str
    character_after: CharacterSheet
    warnings: tuple[str, ...] = omitted_when_empty()


def _near_phobia(pick: str, mild: list[str]) -> str | None:
    """The mild phobia a --pick probably meant: one name inside the other (高所恐怖 for
    高所恐怖症), or for a Latin-letter name a one-letter slip. Edit distance alone would
    take 閉所恐怖症 (claustrophobia) for 高所恐怖症 (acrophobia): one kanji apart."""
    folded = fold(pick)
    for name in mild:
        if folded in fold(name) or fold(name) in folded:
            return name
    latin = [name for name in mild if name.isascii()]
    return closest(pick, latin) if pick.isascii() else None


def _placeholder(name: str, seq: int) -> str:
    base = name[: -len(PLACEHOLDER_SUFFIX)] if name.endswith(PLACEHOLDER_SUFFIX) else name
    return f"{base} (#{seq})"


class _Applier:
    """Writes a FrightResult's effects onto the character; `applied` is what each did
    (core.applied_effects), in the order they came."""

    def __init__(self, session: Session, character: Character, effects: Recorder, seq: int) -> None:
        self.session = session
        self.character = character
        self.effects = effects
        self.seq = seq
        self.applied: list[AppliedEffect] = []
        self.aliases: Mapping[str, tuple[str, ...]] = {}  # the ruleset's stat names (core.stat_names)
        self.notes: list[FrightNote] = []  # a record holds their codes (note.record()), labels.note_text says them
        self._names = {t.name.casefold() for t in active_traits(session, character)}

    @property
    def records(self) -> list[dict[str, Any]]:
        """The effects as the ledger record holds them: codes and numbers."""
        return [effect.record() for effect in self.applied]

    @property
    def traits_added(self) -> list[TraitAdded]:
        return [effect.added() for effect in self.applied if isinstance(effect, AppliedTrait)]

    def _note(self, note: FrightNote) -> None:
        self.notes.append(note)

    def apply(self, effect: Any) -> None:
        if isinstance(effect, AddTrait):
            self._trait(effect)
        elif isinstance(effect, PhobiaEscalation):
            self._escalate(effect)
        elif isinstance(effect, AddCondition):
            self._condition(effect)
        elif isinstance(effect, LosePool):
            self._pool(effect)
        elif isinstance(effect, LoseAttribute):
            self._attribute(effect)
        else:  # pragma: no cover - core.fright only makes the five kinds above
            raise RuleRefused(_("cannot apply fright effect {effect!r}").format(effect=effect))

    def _unique(self, name: str) -> str:
        candidate, n = name, 1
        while candidate.casefold() in self._names:
            n += 1
            candidate = f"{name} {n}"
        return candidate

    def _trait(self, effect: AddTrait) -> None:
        name = effect.name
        placeholder = effect.placeholder
        if placeholder:
            name = _placeholder(placeholder_name(effect.category, effect.severity), self.seq)
        elif name.casefold() in self._names:
            self._note(FrightNote("pick_unused", pick=name))
            name, placeholder = _placeholder(placeholder_name(effect.category, effect.severity), self.seq), True
        name = self._unique(name)
        self._names.add(name.casefold())
        category = stored_category(effect.category, effect.severity)
        trait = self.effects.add_trait(self.character, name, category, effect.cp, counts_toward_limit=False)
        self.effects.change_cp(self.character, effect.cp)
        self.applied.append(
            AppliedTrait(
                name=name,
                category=category,
                cp=effect.cp,
                severity=effect.severity,
                placeholder=placeholder,
                origin=trait.origin,
                entry=effect.entry,
                options=effect.options,
                choice=effect.choice,
            )
        )

    def _escalate(self, effect: PhobiaEscalation) -> None:
        trait = find_trait(self.session, self.character, effect.trait)
        if trait is None:  # pragma: no cover - the core only names traits we passed it
            raise RuleRefused(
                _("{name} has no trait named {trait!r}").format(name=self.character.name, trait=effect.trait)
            )
        category_before = trait.category
        added = effect.new_cp - effect.old_cp
        limit_before = trait.cp - (trait.unlimited_cp or 0)
        self.effects.set_trait_cp(self.character, trait, effect.new_cp)
        # only the added part is outside the limit (docs/rules.md "Fright check")
        self.effects.change_trait_unlimited(self.character, trait, added)
        self.effects.change_cp(self.character, added)
        self.effects.set_trait_category(self.character, trait, stored_category("phobia", "severe"))
        self.applied.append(
            AppliedEscalation(
                trait=trait.name,
                old_cp=effect.old_cp,
                new_cp=effect.new_cp,
                category_before=category_before,
                category=trait.category,
                limit_cp=limit_before,
                unlimited_cp=trait.unlimited_cp,
                origin=trait.origin,
                entry=effect.entry,
            )
        )

    def _condition(self, effect: AddCondition) -> None:
        # Ends by itself after its rolled time: timed on the campaign clock (`time advance`).
        length = (
            effect.duration * unit_seconds(effect.unit)
            if effect.recovery == "auto" and effect.duration is not None and effect.unit is not None
            else None
        )
        # the op holds codes only: the words are made when the condition is shown (campaign.effect_words)
        condition = self.effects.add_condition(self.character, effect.condition, None, effect_data(effect), length)
        self.applied.append(
            AppliedCondition(
                spec=effect, origin=condition.origin, timed=length is not None, until_clock=condition.until_clock
            )
        )

    def _pool(self, effect: LosePool) -> None:
        kind = "fatigue" if effect.pool == "FP" else "injury"
        stats = self.character.stats
        maximum = stat_value(stats, effect.pool, self.aliases)  # the sheet's FP/HP, or ST/HT on a 3e sheet
        if maximum is None:
            self._note(FrightNote("pool_untracked", self.character.name, pool=effect.pool, amount=effect.amount))
            self.applied.append(AppliedPool(kind, effect.pool, effect.amount, effect.dice, effect.entry, tracked=False))
            return
        before = pool_current(stats, self.character.pools, effect.pool, self.aliases)
        assert before is not None  # it has a maximum, so a current value
        self.effects.change_pool(self.character, effect.pool, -effect.amount)
        self.applied.append(
            AppliedPool(
                kind,
                effect.pool,
                effect.amount,
                effect.dice,
                effect.entry,
                tracked=True,
                before=before,
                after=before - effect.amount,  # GURPS FP and HP may go below zero: no clamp
                max=maximum.value,
                derived_from=maximum.derived_from,
            )
        )

    def _attribute(self, effect: LoseAttribute) -> None:
        key = sheet_key(self.character.stats, effect.stat, self.aliases)
        lost = AppliedAttribute(
            effect.stat, effect.amount, effect.permanent, effect.cascade, effect.entry, tracked=False
        )
        if key is None:
            self._note(FrightNote("stat_untracked", self.character.name, stat=effect.stat))
            self.applied.append(lost)
            return
        before = self.character.stats[key]
        self.effects.change_stat(self.character, key, -effect.amount)
        # A Will / HP / FP the sheet lists is the attribute plus what was bought on top,
        # so it falls with it (docs/rules.md "Derived stats"); a derived one follows by itself.
        lowered = []
        for derived, base in DERIVATIONS:
            own = (
                sheet_key(self.character.stats, derived, self.aliases)
                if base.casefold() == effect.stat.casefold()
                else None
            )
            if own is not None:
                was = self.character.stats[own]
                self.effects.change_stat(self.character, own, -effect.amount)
                lowered.append(StatLowered(own, was, was - effect.amount))
        self.applied.append(
            replace(lost, stat=key, tracked=True, before=before, after=before - effect.amount, with_it=tuple(lowered))
        )


def _check_view(result: FrightResult, will_stat: str, will_from: str | None, penalties: list[RollPenalty]) -> WillRoll:
    check = result.check
    return WillRoll(
        target=check.target,
        dice=tuple(check.dice),
        total=check.total,
        outcome=check.outcome,
        margin=check.margin,
        will=check.will,
        will_stat=will_stat,
        will_derived_from=will_from,
        modifier=check.modifier - penalty_total(penalties),
        combat_reflexes=check.combat_reflexes,
        severe_phobia=check.severe_phobia,
        cap=check.cap,
        penalties=tuple(penalties),
    )


def _table_view(result: FrightResult) -> FrightTableResult | None:
    table = result.table
    if table is None:
        return None
    return FrightTableResult(
        dice=tuple(table.dice),
        margin_added=table.margin_added,
        raw=table.raw,
        entry=table.result,
        range=(table.entry.lo, table.entry.hi),
        ja=table.entry.ja,
        en=table.entry.en,
    )


def _table_codes(view: FrightTableResult | None) -> dict[str, Any] | None:
    """The table roll as a record holds it: the table and entry number, not the entry's text
    (the seed table is its one home; campaign.labels looks it up to show it)."""
    if view is None:
        return None
    return {"name": FRIGHT_TABLE, **{key: value for key, value in as_json(view).items() if key not in ("ja", "en")}}


def append_sub_roll(
    session: Session, campaign: Campaign, actor: str, character: str, parent_seq: int, roll: SubRoll, source: str
) -> ledger.Appended:
    """A roll the table's entry asks for (turns of stun, fatigue) as a sub-entry of the
    fright entry: `campaign fright` and a fright read from a log (ccfolia_fright) write
    it alike, so history and void treat both the same."""
    return ledger.append(
        session,
        campaign,
        actor,
        ledger.NewEntry(
            kind="fright",
            character=character,
            parent_seq=parent_seq,
            expression=roll.expression,
            dice=list(roll.faces),
            total=roll.total,
            target=roll.target,
            outcome=roll.outcome,
            margin=roll.margin,
            source=source,
            # words: labels.entry_reason; "effect": which of the fright's effects its total sized,
            # so a checker compares them (docs/fair-dice.md "What is checked")
            detail={"purpose": roll.purpose, "entry": roll.entry}
            if roll.effect is None
            else {"purpose": roll.purpose, "entry": roll.entry, "effect": roll.effect},
        ),
    )


def fright_check(
    db: Database,
    campaign_name: str | None,
    actor: str,
    character_name: str,
    source: DiceSource,
    *,
    modifier: int = 0,
    pick: str | None = None,
    choice: int = 0,
    severe_phobia: bool = False,
    reason: str | None = None,
    anyway: bool = False,
) -> FrightCheckResult:
    """Roll a fright check for a character and apply what the table says (docs/rules.md "Fright check").

    Refused for a dead or retired character, and for a missing one unless `anyway`
    (services.characters.presence); a searcher is warned about in the result's "warnings"."""
    reason = clean_text(reason, "--reason")
    pick = clean_name(pick, "--pick") if pick is not None else None
    if isinstance(modifier, bool) or not isinstance(modifier, int) or abs(modifier) > MODIFIER_LIMIT:
        raise BadInput(_("--mod must be a whole number within ±{MODIFIER_LIMIT}").format(MODIFIER_LIMIT=MODIFIER_LIMIT))
    with campaign_transaction(db, campaign_name) as (session, campaign):
        character = character_named(session, campaign, character_name)
        warnings = check_presence(session, [character], "fright", anyway=anyway)
        aliases = stat_names_for(campaign.ruleset).aliases
        will = stat_value(
            character.stats, "Will", aliases
        )  # a 3e sheet's Will is its IQ (docs/rules.md "Derived stats")
        if will is None:
            have = ", ".join(character.stats) or "none"
            raise RuleRefused(
                _(
                    "{name} has no Will stat (Will / 意思) nor IQ to derive it from, to roll a fright check "
                    "against; stats: {have}"
                ).format(name=character.name, have=have)
            )
        traits = active_traits(session, character)
        combat_reflexes = any(t.name.strip().casefold() in COMBAT_REFLEXES_NAMES for t in traits)
        known = []
        for trait in traits:
            category, severity = split_category(trait.category)
            known.append(KnownTrait(name=trait.name, category=category, cp=trait.cp, severity=severity))
        mild = [t.name for t in traits if split_category(t.category) == ("phobia", None)]
        if pick is not None:
            existing = find_trait(session, character, pick)
            near = _near_phobia(pick, mild) if existing is None else None
            if near is not None:  # 高所恐怖 for 高所恐怖症: a slip, not a new -10 CP disadvantage
                raise RuleRefused(
                    _(
                        "--pick {pick!r}: did you mean {near!r}? ({name}'s mild phobia: its exact name worsens it "
                        "on entry {ESCALATION_ENTRY}; another name adds a new trait)"
                    ).format(pick=pick, near=near, name=character.name, ESCALATION_ENTRY=ESCALATION_ENTRY)
                )
            if existing is not None and split_category(existing.category) != ("phobia", None):
                raise RuleRefused(
                    _(
                        "--pick {pick!r}: {name} already has a trait of that name ({category}); give the new "
                        "trait another name"
                    ).format(pick=pick, name=character.name, category=existing.category)
                )
        penalties = roll_penalties(character, session)  # the -2 after waking applies by itself
        with about(source, character.name):
            result = resolve_fright_check(
                will.value,
                source,
                modifier=modifier + penalty_total(penalties),
                combat_reflexes=combat_reflexes,
                severe_phobia=severe_phobia,
                fright_cap=(campaign.settings or {}).get("fright_cap"),
                traits=known,
                stats=canonical_view(character.stats, aliases),
                pick=pick,
                choice=choice,
                table=fright_table(),
            )
        source.ensure_all_used()

        with recording(session, campaign, actor, "fright") as entry:
            applier = _Applier(session, character, entry, entry.seq)
            applier.aliases = aliases
            for effect in result.effects:
                applier.apply(effect)
            if pick is None and mild and result.table is not None and result.table.result == ESCALATION_ENTRY:
                applier._note(FrightNote("mild_phobias", character.name, phobias=tuple(mild)))
            check_view, table_view = _check_view(result, will.key, will.derived_from, penalties), _table_view(result)
            entry.describe(
                character=character.name,
                expression=f"3D6<={result.check.target}",
                dice=list(result.check.dice),
                total=result.check.total,
                target=result.check.target,
                outcome=result.check.outcome,
                margin=result.check.margin,
                source=source.kind,
                reason=reason,
                detail={
                    "check": as_json(check_view),
                    "table": _table_codes(table_view),
                    "effects": applier.records,
                    "traits_added": applier.traits_added,
                    "pick": pick,
                    "choice": choice,
                    "notes": [note.record() for note in applier.notes],
                },
            )
        seq = entry.seq

        sub_rolls: list[TableSubRoll | EffectSubRoll] = []
        if result.table is not None:
            table = result.table
            sub = ledger.append(
                session,
                campaign,
                actor,
                ledger.NewEntry(
                    kind="fright",
                    character=character.name,
                    parent_seq=seq,
                    expression=f"FEAR+{table.margin_added}" if table.margin_added else "FEAR",
                    dice=list(table.dice),
                    total=table.result,
                    source=source.kind,
                    detail={"purpose": "table", **(_table_codes(table_view) or {})},  # words: campaign.labels
                ),
            )
            sub_rolls.append(
                TableSubRoll(
                    seq=sub.seq,
                    purpose="table",
                    expression=sub.record["expression"],
                    dice=tuple(table.dice),
                    total=table.result,
                    raw=table.raw,
                    entry=table.result,
                )
            )
        for roll in result.sub_rolls:
            sub = append_sub_roll(session, campaign, actor, character.name, seq, roll, source.kind)
            sub_rolls.append(
                EffectSubRoll(
                    seq=sub.seq,
                    purpose=roll.purpose,
                    expression=roll.expression,
                    dice=tuple(roll.faces),
                    total=roll.total,
                    target=roll.target,
                    outcome=roll.outcome,
                    margin=roll.margin,
                    entry=roll.entry,
                )
            )
        session.flush()
        return FrightCheckResult(
            seq=seq,
            character=character.name,
            check=check_view,
            table=table_view,
            effects=tuple(applier.applied),
            traits_added=tuple(applier.traits_added),
            sub_rolls=tuple(sub_rolls),
            notes=tuple(applier.notes),
            reason=reason,
            source=source.kind,
            character_after=character_view(session, character),
            warnings=tuple(warnings),
        )

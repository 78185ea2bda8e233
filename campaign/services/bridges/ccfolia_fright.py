"""Fright results read from a log, applied to the character as `campaign fright` would.

A fright check in a log is a Will roll labelled 恐怖判定 (or "fright"), the same
speaker's FEAR+n that follows it, or a FEAR+n alone. The log holds the table's number
but not the rolls its entry asks for (how many turns of stun, how much fatigue): those
are rolled from the import's dice source (`--dice` for physical dice), and each is a
sub-entry as in `campaign fright`. The effects go through the fright service's own
applier (services.checks.fright), so traits get the same placeholder names, conditions the same
timers, FP/HP and CP the same ops, and `history void` undoes them alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from campaign.core.applied_effects import AppliedEffect, FrightNote
from campaign.core.dice_source import DiceSource, about
from campaign.core.fright import FRIGHT_TABLE, KnownTrait, apply_entry
from campaign.db.models import Campaign, Character
from campaign.effect_words import effect_documents
from campaign.labels import note_texts
from campaign.seeds import fright_table
from campaign.services.characters.traits import active_traits, split_category
from campaign.services.checks.fright import _Applier, append_sub_roll  # the one writer of fright effects
from campaign.services.recording import recording
from campaign.services.results import converted_by

FRIGHT_WORDS = ("恐怖判定", "fright")


@dataclass(frozen=True, slots=True)
class FrightApplied:
    """One fright result applied: the imported table entry, the entry that applied it."""

    character: str
    table_seq: int | None
    seq: int
    result: int
    entry: tuple[int, int]
    effects: tuple[AppliedEffect, ...] = field(metadata=converted_by(effect_documents))
    notes: tuple[FrightNote, ...] = field(metadata=converted_by(note_texts))


def is_fright_roll(line: Any) -> bool:
    comment = (getattr(line, "comment", None) or "").casefold()
    return getattr(line, "comparison", None) == "<=" and any(word in comment for word in FRIGHT_WORDS)


def apply_fright(
    session: Session,
    campaign: Campaign,
    actor: str,
    character: Character,
    result: int,
    modifier: int,
    source: DiceSource,
    table_seq: int | None,
    check_seq: int | None,
    *,
    dice: list[int] | None = None,
) -> FrightApplied:
    """Apply fright table entry `result` (as the log shows it) to `character`. With
    `dice`, the table's 3d6 were rolled here from `source` (a `FEAR+n` line on the table
    page, services.checks.palette_lines): recorded as that source's, not as imported."""
    table = fright_table()
    known = []
    for trait in active_traits(session, character):
        category, severity = split_category(trait.category)
        known.append(KnownTrait(name=trait.name, category=category, cp=trait.cp, severity=severity))
    entry = table.entry_for(table.clamp(result))
    with about(source, character.name):
        effects, sub_rolls = apply_entry(table, result, source, traits=known, stats=dict(character.stats))
    with recording(session, campaign, actor, "fright") as recorder:
        applier = _Applier(session, character, recorder, recorder.seq)
        for effect in effects:
            applier.apply(effect)
        codes = {
            "name": FRIGHT_TABLE,
            "dice": [],
            "margin_added": modifier,
            "raw": result,
            "entry": table.clamp(result),
            "range": [entry.lo, entry.hi],
        }
        recorder.describe(
            character=character.name,
            expression=f"FEAR{modifier:+d}" if modifier else "FEAR",
            dice=dice,
            total=table.clamp(result),
            source="ccfolia" if dice is None else source.kind,
            detail={
                "check": None,
                "table": codes,
                "effects": applier.records,
                "traits_added": applier.traits_added,
                "pick": None,
                "choice": 0,
                "notes": [note.record() for note in applier.notes],
                **({"imported": {"table_seq": table_seq, "check_seq": check_seq}} if dice is None else {}),
            },
        )
    seq = recorder.seq
    for roll in sub_rolls:
        append_sub_roll(session, campaign, actor, character.name, seq, roll, source.kind)
    return FrightApplied(
        character=character.name,
        table_seq=table_seq,
        seq=seq,
        result=result,
        entry=(entry.lo, entry.hi),
        effects=tuple(applier.applied),
        notes=tuple(applier.notes),
    )

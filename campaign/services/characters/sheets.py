"""The sheet as players write it: skills with their levels, notes and
equipment lines. Each change is one ledger entry of projection.ops_sheet ops, so it is
voidable, shows in `char timeline` and `char show --at`, and survives export/import.

A skill is found by any spelling that folds to its name (NFKC + case: ＫＡＴＡＮＡ is
Katana); an unknown one is refused with the closest name, as stats are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from campaign.core.stat_names import resolve_stat
from campaign.core.suggest import fold
from campaign.db.database import Database
from campaign.errors import BadInput, NotFound, RuleRefused
from campaign.i18n import _
from campaign.projection import ops as o
from campaign.projection.ops_sheet import DIFFICULTIES, SKILL_LIMIT
from campaign.projection.views import CharacterSheet
from campaign.services.characters.roster import character_view
from campaign.services.checks.skill_rolls import skill_key
from campaign.services.common import campaign_transaction, character_named, clean_name, clean_text, did_you_mean
from campaign.services.recording import recording
from campaign.services.results import extended

if TYPE_CHECKING:
    from campaign.db.models import Campaign, Character

LINE_LIMIT = 500


@dataclass(frozen=True, slots=True)
class SheetChanged(CharacterSheet):
    """The sheet after a skill, note or item change, and the entry that made it."""

    seq: int


def _level(level: int | None) -> int:
    if isinstance(level, bool) or not isinstance(level, int) or abs(level) > SKILL_LIMIT:
        raise BadInput(
            _("a skill level is a whole number within ±{SKILL_LIMIT}, not {level!r}").format(
                SKILL_LIMIT=SKILL_LIMIT, level=level
            )
        )
    return level


def _difficulty(difficulty: str | None) -> str | None:
    if difficulty is None:
        return None
    value = fold(difficulty).upper()
    if value not in DIFFICULTIES:
        raise BadInput(
            _("--difficulty must be one of {value}, not {difficulty!r}").format(
                value=", ".join(DIFFICULTIES), difficulty=difficulty
            )
        )
    return value


def _attr(campaign: Campaign, character: Character, attr: str | None) -> str | None:
    """The stat a skill is based on, by its canonical name (dx, ＤＸ and 敏捷力 are DX)."""
    if attr is None:
        return None
    from campaign.seeds import stat_names_for

    found = resolve_stat(clean_name(attr, "--attr"), character.stats or {}, stat_names_for(campaign.ruleset).aliases)
    if not found.known:
        hint = f" (did you mean {found.suggestion!r}?)" if found.suggestion else ""
        raise RuleRefused(
            _("--attr {attr!r} is not a stat of {name} or the ruleset{hint}").format(
                attr=attr, name=character.name, hint=hint
            )
        )
    return found.name


def _line(text: str, what: str) -> str:
    text = clean_text(text, what, limit=LINE_LIMIT)
    if text is None or not text.strip():
        raise BadInput(_("{what} must not be empty").format(what=what))
    if "\n" in text:
        raise BadInput(_("{what} is one line: give one command per line").format(what=what))
    return text.strip()


def change_skill(
    db: Database,
    campaign_name: str | None,
    actor: str,
    character_name: str,
    name: str,
    *,
    action: str,
    level: int | None = None,
    attr: str | None = None,
    difficulty: str | None = None,
) -> SheetChanged:
    """`action` "add" (a new skill), "set" (a skill the sheet has: level, and attr or
    difficulty when given, else kept) or "remove"."""
    name = clean_name(name, "skill")
    difficulty = _difficulty(difficulty)
    with campaign_transaction(db, campaign_name) as (session, campaign):
        character = character_named(session, campaign, character_name)
        skills = dict(character.skills or {})
        key = skill_key(skills, name)
        op: o.Op
        if action == "add":
            if key is not None:
                raise RuleRefused(
                    _("{name} already has the skill {key!r} ({level}); change it with `skill set`").format(
                        name=character.name, key=key, level=skills[key]["level"]
                    )
                )
            op = o.SkillAdded(character.name, name, _level(level), _attr(campaign, character, attr), difficulty)
        else:
            if key is None:
                raise NotFound(
                    _("{name} has no skill {skill!r}").format(name=character.name, skill=name)
                    + did_you_mean(name, skills)
                )
            if action == "set":
                old = skills[key]
                op = o.SkillSet(
                    character.name,
                    key,
                    _level(level),
                    _attr(campaign, character, attr) if attr is not None else old.get("attr"),
                    difficulty if difficulty is not None else old.get("difficulty"),
                )
            else:
                op = o.SkillRemoved(character.name, key)
        with recording(session, campaign, actor, "character") as entry:
            entry.sheet(character, op)
            entry.describe(character=character.name, reason=f"skill {action}")
        return extended(SheetChanged, character_view(session, character), seq=entry.seq)


def change_line(
    db: Database,
    campaign_name: str | None,
    actor: str,
    character_name: str,
    text: str,
    *,
    kind: str,
    remove: bool = False,
) -> SheetChanged:
    """Add a note, or add or remove an equipment line (`kind` "note" or "item")."""
    text = _line(text, kind)
    with campaign_transaction(db, campaign_name) as (session, campaign):
        character = character_named(session, campaign, character_name)
        if kind == "note":
            op: o.Op = o.NoteAdded(character.name, text)
        elif remove:
            items = list(character.items or [])
            if text not in items:
                raise NotFound(
                    _("{name} has no item {text!r}").format(name=character.name, text=text) + did_you_mean(text, items)
                )
            op = o.ItemRemoved(character.name, text)
        else:
            op = o.ItemAdded(character.name, text)
        with recording(session, campaign, actor, "character") as entry:
            entry.sheet(character, op)
            entry.describe(character=character.name, reason=f"{kind} {'removed' if remove else 'added'}")
        return extended(SheetChanged, character_view(session, character), seq=entry.seq)

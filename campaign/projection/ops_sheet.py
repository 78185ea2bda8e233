"""Ops on the sheet as players write it: skills, notes and equipment lines.

A skill is keyed by its name as the sheet writes it (回避, 聞き耳, 刀); its value is its
level with, optionally, the stat it is based on and its difficulty (GURPS: E, A, H,
VH). `skill_added` and `skill_set` carry absolute values, so voiding a change leaves
the level the earlier entry wrote. Notes and items are plain lines, kept in order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from campaign.errors import N_
from campaign.i18n import _
from campaign.projection.op_base import (
    BadOp,
    EntryContext,
    Op,
    OpConflict,
    Rule,
    character_row,
    choice,
    field_int,
    field_text,
)
from campaign.projection.state import CharacterRow, State

SKILL_LIMIT = 1000  # far above any GURPS skill level; keeps a record's numbers sane
DIFFICULTIES = ("E", "A", "H", "VH")


def skill_value(level: int, attr: str | None, difficulty: str | None) -> dict[str, Any]:
    """A skill as the state (and `char show --json`) holds it."""
    return {"level": level, "attr": attr, "difficulty": difficulty}


def _level(value: Any, what: str) -> int:
    return field_int(value, what, -SKILL_LIMIT, SKILL_LIMIT)


def _line(value: Any, what: str) -> str:
    text = field_text(value, what)
    if not text or not text.strip():
        raise BadOp(f"{what} must be a non-empty line")
    return text


_SKILL_RULES: Mapping[str, Rule] = {"level": _level, "difficulty": choice(*DIFFICULTIES)}
_LINE_RULES: Mapping[str, Rule] = {"text": _line}


@dataclass(frozen=True)
class _SkillWrite:
    """skill_added and skill_set write the same absolute value; they differ only in
    whether the skill must be new or already on the sheet (not an Op: not registered)."""

    rules: ClassVar[Mapping[str, Rule]] = _SKILL_RULES
    replaces: ClassVar[bool]
    character: str
    skill: str
    level: int
    attr: str | None
    difficulty: str | None

    def apply(self, state: State, entry: EntryContext) -> None:
        row = character_row(state, self.character)
        if self.replaces and self.skill not in row.skills:
            raise OpConflict(N_("{character} has no skill {skill!r}"), character=self.character, skill=self.skill)
        if not self.replaces and self.skill in row.skills:
            raise OpConflict(
                N_("{character} already has the skill {skill!r}"), character=self.character, skill=self.skill
            )
        row.skills = {**row.skills, self.skill: skill_value(self.level, self.attr, self.difficulty)}


@dataclass(frozen=True)
class SkillAdded(_SkillWrite, Op):
    name: ClassVar[str] = "skill_added"
    replaces: ClassVar[bool] = False


@dataclass(frozen=True)
class SkillSet(_SkillWrite, Op):
    name: ClassVar[str] = "skill_set"
    replaces: ClassVar[bool] = True


@dataclass(frozen=True)
class SkillRemoved(Op):
    name: ClassVar[str] = "skill_removed"
    character: str
    skill: str

    def apply(self, state: State, entry: EntryContext) -> None:
        row = character_row(state, self.character)
        if self.skill not in row.skills:
            raise OpConflict(N_("{character} has no skill {skill!r}"), character=self.character, skill=self.skill)
        row.skills = {k: v for k, v in row.skills.items() if k != self.skill}


@dataclass(frozen=True)
class _LineOp:
    """A line added to or taken from one of a character's line lists: note_added,
    item_added and item_removed differ only in the list (`lines`, a CharacterRow
    attribute) and the change. Not an Op itself (so not registered); the records keep
    the fields {character, text} each op has always written."""

    rules: ClassVar[Mapping[str, Rule]] = _LINE_RULES
    lines: ClassVar[str]
    character: str
    text: str

    def apply(self, state: State, entry: EntryContext) -> None:
        row = character_row(state, self.character)
        setattr(row, self.lines, self.changed(getattr(row, self.lines)))

    def changed(self, lines: list[str]) -> list[str]:
        return [*lines, self.text]


@dataclass(frozen=True)
class NoteAdded(_LineOp, Op):
    name: ClassVar[str] = "note_added"
    lines: ClassVar[str] = "notes"


@dataclass(frozen=True)
class ItemAdded(_LineOp, Op):
    name: ClassVar[str] = "item_added"
    lines: ClassVar[str] = "items"


@dataclass(frozen=True)
class ItemRemoved(_LineOp, Op):
    """The first line equal to `text` goes (two identical lines are two items)."""

    name: ClassVar[str] = "item_removed"
    lines: ClassVar[str] = "items"

    def changed(self, lines: list[str]) -> list[str]:
        if self.text not in lines:
            raise OpConflict(N_("{character} has no item {text!r}"), character=self.character, text=self.text)
        index = lines.index(self.text)
        return lines[:index] + lines[index + 1 :]


def sheet_changes(old: CharacterRow, new: CharacterRow) -> list[tuple[str, str, Any, Any, str]]:
    """(what, name, before, after, text) for each skill, note and item that differs
    between two CharacterRows: `char timeline` and a void's preview show these, in the
    output's language (a --json document's: English)."""

    added = {"note": _("note added: {line}"), "item": _("item added: {line}")}
    removed = {"note": _("note removed: {line}"), "item": _("item removed: {line}")}
    changes = []
    for skill in [*old.skills, *(s for s in new.skills if s not in old.skills)]:
        a, b = old.skills.get(skill), new.skills.get(skill)
        if a != b:
            level_a, level_b = (None if a is None else a["level"]), (None if b is None else b["level"])
            changes.append(
                (
                    "skill",
                    skill,
                    level_a,
                    level_b,
                    _("skill {skill} {before} → {after}").format(
                        skill=skill, before="—" if a is None else level_a, after="—" if b is None else level_b
                    ),
                )
            )
    for what, before, after in (("note", old.notes, new.notes), ("item", old.items, new.items)):
        for line in after[len(before) :] if after[: len(before)] == before else []:
            changes.append((what, line, None, line, added[what].format(line=line)))
        if after[: len(before)] != before:
            changes += [(what, line, line, None, removed[what].format(line=line)) for line in _without(before, after)]
            changes += [(what, line, None, line, added[what].format(line=line)) for line in _without(after, before)]
    return changes


def _without(lines: list[str], taken: list[str]) -> list[str]:
    """`lines` less one copy of each line of `taken` (two identical lines are two items)."""
    left = list(lines)
    for line in taken:
        if line in left:
            left.remove(line)
    return left

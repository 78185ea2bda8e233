"""The sheet template (docs/sheets.md): one character per record, one key per field.

The same flat record is a CSV row (one column per key) or a JSON object, so a
spreadsheet and a script write the same thing:

    name, kind (pc|npc), player, cp        the character and its CP total
    ST, DX, 意志力, Speed ...              a stat (any name or alias of the ruleset)
    skill:回避 = 14 | "14 DX/A"            a skill's level, optionally its stat / difficulty
    trait:戦闘即応 = 15 | "15 advantage"   a trait the CP total already includes, optionally its category
    trait:高所恐怖症 = "-10 phobia; uncounted" / "-15 severe phobia; outside -5"
                                          the disadvantage-limit split: not counted toward the
                                          limit (a fright check's), or N CP outside it
    note, item                            lines (several separated by newlines in one cell)

Pure: records in, drafts out; which names are stats is the caller's (core.stat_names).
Nothing is guessed: an unknown key is listed as an error, not dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from campaign.errors import N_, BadInput

SKILL, TRAIT = "skill:", "trait:"
FIXED = ("name", "kind", "player", "cp")
_SKILL = re.compile(r"\s*([+-]?\d{1,4})(?:\s+([^/\s]+)?(?:/(E|A|H|VH))?)?\s*", re.IGNORECASE)
_TRAIT = re.compile(r"\s*([+-]?\d{1,7})(?:\s+(.+?))?\s*")
_OUTSIDE = re.compile(r"outside\s+([+-]?\d{1,7})", re.IGNORECASE)
UNCOUNTED = "uncounted"


@dataclass(frozen=True)
class SkillDraft:
    name: str
    level: int
    attr: str | None = None
    difficulty: str | None = None


@dataclass(frozen=True)
class TraitDraft:
    """`counted`: counts toward the disadvantage limit; `outside`: its CP outside the limit
    (None: the default, none when counted, all of it when not; services.characters.traits)."""

    name: str
    cp: int
    category: str | None = None
    counted: bool = True
    outside: int | None = None


@dataclass(frozen=True)
class SheetDraft:
    """One character as the template says it, names not yet resolved."""

    name: str
    kind: str
    player: str | None
    cp: int
    stats: dict[str, Any] = field(default_factory=dict)
    skills: tuple[SkillDraft, ...] = ()
    traits: tuple[TraitDraft, ...] = ()
    notes: tuple[str, ...] = ()
    items: tuple[str, ...] = ()


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _lines(value: Any) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(_text(v) for v in value if _text(v))
    return tuple(line.strip() for line in _text(value).splitlines() if line.strip())


def _int(value: Any, what: str) -> int:
    text = _text(value)
    if isinstance(value, bool) or not re.fullmatch(r"[+-]?\d{1,7}", text):
        raise BadInput(N_("{what}: {value!r} is not a whole number"), what=what, value=value)
    return int(text)


def parse_record(
    record: Mapping[str, Any], where: str, is_stat: Callable[[str], bool], player: str | None = None
) -> SheetDraft:
    """A SheetDraft from one template record; `where` names it in errors ("row 3")."""
    unknown = [
        key
        for key in record
        if key not in FIXED and not key.startswith((SKILL, TRAIT)) and key not in ("note", "item") and not is_stat(key)
    ]
    if unknown:
        raise BadInput(
            N_(
                "{where}: unknown field(s) {fields} (not a stat of the ruleset; "
                "a skill is skill:NAME, a trait trait:NAME)"
            ),
            where=where,
            fields=", ".join(map(repr, unknown)),
        )
    name = _text(record.get("name"))
    if not name:
        raise BadInput(N_("{where}: no name"), where=where)
    kind = _text(record.get("kind")).lower() or "pc"
    if kind not in ("pc", "npc"):
        raise BadInput(N_("{where}: kind must be pc or npc, not {kind!r}"), where=where, kind=record.get("kind"))
    owner = _text(record.get("player")) or player
    stats, skills, traits = {}, [], []
    for key, value in record.items():
        if key in FIXED or key in ("note", "item") or _text(value) == "":
            continue
        if key.startswith(SKILL):
            match = _SKILL.fullmatch(_text(value))
            if not match or not key[len(SKILL) :].strip():
                raise BadInput(
                    N_("{where}: {key}: {value!r} is not a skill level (14, or 14 DX/A)"),
                    where=where,
                    key=key,
                    value=value,
                )
            skills.append(
                SkillDraft(key[len(SKILL) :].strip(), int(match[1]), match[2], match[3].upper() if match[3] else None)
            )
        elif key.startswith(TRAIT):
            traits.append(_trait(key, value, where))
        else:
            stats[key] = value if isinstance(value, int) and not isinstance(value, bool) else _text(value)
    cp = _int(record.get("cp") or 0, f"{where}: cp")
    return SheetDraft(
        name,
        kind,
        owner,
        cp,
        stats,
        tuple(skills),
        tuple(traits),
        _lines(record.get("note")),
        _lines(record.get("item")),
    )


def _trait(key: str, value: Any, where: str) -> TraitDraft:
    """`trait:NAME` = "CP [CATEGORY][; uncounted][; outside N]"."""
    head, *clauses = _text(value).split(";")
    match = _TRAIT.fullmatch(head)
    if not match or not key[len(TRAIT) :].strip():
        raise BadInput(
            N_("{where}: {key}: {value!r} is not a trait's CP (15, or 15 advantage)"), where=where, key=key, value=value
        )
    counted, outside = True, None
    for clause in (c.strip() for c in clauses):
        found = _OUTSIDE.fullmatch(clause)
        if clause.lower() == UNCOUNTED:
            counted = False
        elif found:
            outside = int(found[1])
        else:
            raise BadInput(
                N_(
                    "{where}: {key}: {clause!r} is neither 'uncounted' nor 'outside N' (the CP outside "
                    "the disadvantage limit)"
                ),
                where=where,
                key=key,
                clause=clause,
            )
    return TraitDraft(key[len(TRAIT) :].strip(), int(match[1]), match[2], counted, outside)


def trait_value(cp: int, category: str, counted: bool, unlimited: int) -> str:
    """A trait as its template value; the disadvantage-limit split only where it is not
    the default of its flag (none outside when counted, all of it when not)."""
    value = f"{cp} {category}"
    if not counted:
        value += f"; {UNCOUNTED}"
    if unlimited != (0 if counted else cp):
        value += f"; outside {unlimited}"
    return value


def skill_value(skill: Mapping[str, Any]) -> str | int:
    """A skill ({level, attr, difficulty}) as its template value: 14, "14 DX/A" or "14 /A"."""
    base = "/".join(part for part in (skill.get("attr") or "", skill.get("difficulty") or "") if part)
    if skill.get("difficulty") and not skill.get("attr"):
        base = "/" + skill["difficulty"]
    return skill["level"] if not base else f"{skill['level']} {base}"


def sheet_record(sheet: Any) -> dict[str, Any]:  # core may not import projection.views
    """A CharacterSheet (projection.views) as one template record: what `char export` writes."""
    record: dict[str, Any] = {
        "name": sheet.name,
        "kind": sheet.kind,
        "player": sheet.player or "",
        "cp": sheet.cp_total,
    }
    record.update(sheet.stats)
    for name, skill in sheet.skills.items():
        record[SKILL + name] = skill_value(skill)
    for trait in sheet.traits:
        record[TRAIT + trait.name] = trait_value(
            trait.cp, trait.category, trait.counts_toward_limit, trait.unlimited_cp
        )
    record["note"] = "\n".join(sheet.notes)
    record["item"] = "\n".join(sheet.items)
    return record

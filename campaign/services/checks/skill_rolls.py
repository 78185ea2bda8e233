"""`roll 回避 --char 鈴音`: a GURPS success roll against a level on the sheet.

The word is a skill the character has (回避 12), or else one of its stats by any of
the ruleset's names (意志力, DX ...; Will derived from IQ counts), with an optional
modifier glued to it (`回避-2`, `回避+1`, `回避−2`, and `回避ー2` as a Japanese IME
types it). It becomes `3D6<=10`, judged as every success roll is, and the entry's detail
keeps what it was read from, so the roll shows `3D6<=10 (回避 12 −2)`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from campaign.core.derived import stat_value
from campaign.core.dice_parse import split_comment
from campaign.core.stat_names import resolve_stat
from campaign.core.suggest import fold

if TYPE_CHECKING:
    from campaign.db.models import Character

MINUS = "\N{MINUS SIGN}"
#: What a Japanese keyboard gives for "minus" between a name and its modifier: the IME's
#: long-vowel mark ー (half-width ｰ folds to it under NFKC) and the dashes ‐ ‑ ‒ – — ―.
#: Only a mark followed by the modifier's digits at the end counts, so サーベル stays a name.
MINUS_LIKE = MINUS + "\u30fc\u2010\u2011\u2012\u2013\u2014\u2015"
_WORD = re.compile(rf"(?P<name>.+?)(?:(?P<sign>[+\-{MINUS_LIKE}])(?P<mod>\d{{1,3}}))?")


def skill_key(skills: Iterable[str], typed: str) -> str | None:
    """The sheet's own name of the skill `typed` means (folded: ＫＡＴＡＮＡ is Katana), or None."""
    target = fold(typed)
    return next((name for name in skills if fold(name) == target), None)


@dataclass(frozen=True, slots=True)
class SheetRoll:
    """The success roll to make (`text`, its comment kept) and what it was read from
    (`source`: the skill or stat, its level and the modifier, as the record keeps it)."""

    text: str
    source: dict[str, Any]


def skill_roll(text: str, character: Character, ruleset: str) -> SheetRoll | None:
    """(the success roll to make, what it came from) when `text` starts with a skill or
    stat of the character; None for anything else (a dice expression is rolled as written)."""
    if ruleset != "gurps3-ja":
        return None
    expression, comment = split_comment(text)
    word = unicodedata.normalize("NFKC", expression).strip()
    match = _WORD.fullmatch(word)
    if match is None or match["name"][:1].isdigit():
        return None
    name = match["name"]
    modifier = int(match["mod"]) * (1 if match["sign"] == "+" else -1) if match["mod"] else 0
    skills = character.skills or {}
    key = skill_key(skills, name)
    if key is not None:
        source: dict[str, Any] = {"skill": key, "level": skills[key]["level"]}
    else:
        from campaign.seeds import stat_names_for

        aliases = stat_names_for(ruleset).aliases
        stat = resolve_stat(name, character.stats or {}, aliases)
        value = stat_value(character.stats or {}, stat.name, aliases) if stat.known else None
        if value is None or not isinstance(value.value, int):
            return None
        source = {"stat": value.key if not value.derived else value.name, "level": value.value}
    source["modifier"] = modifier
    rolled = f"3D6<={source['level'] + modifier}"
    return SheetRoll(rolled if comment is None else f"{rolled} {comment}", source)


def skill_label(source: dict[str, Any]) -> str:
    """回避 12 −2: the name, its level and the modifier, as the roll line shows them."""
    name = source.get("skill") or source.get("stat")
    modifier = source.get("modifier") or 0
    shown = "" if modifier == 0 else f" {'+' if modifier > 0 else MINUS}{abs(modifier)}"
    return f"{name} {source['level']}{shown}"

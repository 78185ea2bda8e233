"""A ココフォリア piece (the clipboard JSON a player copies from their piece) read as a
sheet-template record (core.sheet_template), for `char import --format ccfolia`.

- `params` and `status` give the stats: a label the ruleset knows is a stat (status
  carries HP/FP; its `max` is the stat, `value` the current pool is not imported).
- the palette (`commands`) gives the skills: `3D6<=14 回避` (a level written out) or
  `3D6<={回避} 回避` (a param that is not a stat: its value is the level). A line may
  carry a modifier (`3D6<={回避}-2`): the level is still the param's.
- `name` and `memo` (a `PL: name` line names the player) are read too, and the memo
  lines `char export --format ccfolia` writes for the rest of the sheet: `CP: 100`,
  `種別: npc`, `特徴: NAME = -10 phobia; uncounted`, `技能: 回避 = 12 DX/A` (the stat and
  difficulty the palette cannot say), `メモ: ...`, `所持品: ...` (or, from an English
  export, `kind:`, `trait:`, `skill:`, `note:`, `item:`). Other memo lines are the
  player's own text and are left alone.

Nothing is guessed, and nothing is lost: a param that is neither a stat nor used as a
skill by the palette (a hand-written `回避` with no palette line) is kept as a note
(`param 回避: 12`) and named in the import's report (NOTED_PARAMS), never a reason to
refuse the rest of the piece.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from campaign.core.sheet_template import SKILL, TRAIT
from campaign.errors import BadInput
from campaign.i18n import _

_LINE = re.compile(
    r"^\s*(?:S)?3D6\s*<=\s*(?:\{(?P<ref>[^}]+)\}|(?P<level>\d{1,3}))\s*(?:[+-]\d+)?\s*(?P<label>.*)$", re.IGNORECASE
)
_PLAYER = re.compile(r"^\s*PL\s*[:：]\s*(.+?)\s*$", re.MULTILINE)
# The memo's sheet lines, as `char export --format ccfolia` writes them in either language
# (bridges.ccfolia_piece.memo): the key's Japanese word or its English one.
_SHEET_KEYS = {
    "CP": "CP",
    "種別": "種別",
    "kind": "種別",
    "特徴": "特徴",
    "trait": "特徴",
    "技能": "技能",
    "skill": "技能",
}
_SHEET_KEYS |= {"メモ": "メモ", "note": "メモ", "所持品": "所持品", "item": "所持品"}
_SHEET_LINE = re.compile(r"^\s*(" + "|".join(_SHEET_KEYS) + r")\s*[:：]\s*(.*?)\s*$", re.MULTILINE)
_NAMED = re.compile(r"(.+?)\s*=\s*(.+)")
IGNORED = ("目標値",)  # the 2d6 palette's difficulty param: the table's, not the character's
#: The record key listing the params kept as notes (services.characters.sheet_transfer takes it out
#: before the record is read as a sheet, and reports it).
NOTED_PARAMS = "ccfolia:noted_params"
#: The record key listing what the piece holds that the campaign does not keep (other
#: systems' status bars, palette lines it does not read, an initiative of its own).
NOT_KEPT = "ccfolia:not_kept"
_TABLE_LINE = re.compile(r"^\s*S?[A-Z]+(?:[+-]\d+)?\s*$")
_CHECK_2D6 = re.compile(r"^\s*2D6\+\{[^}]+\}>=?\{[^}]+\}")


def piece_record(document: Any, where: str, is_stat: Callable[[str], bool]) -> dict[str, Any]:  # noqa: C901 - one branch per ココフォリア document shape, each a few lines
    if (
        isinstance(document, Mapping)
        and document.get("kind") == "character"
        and isinstance(document.get("data"), Mapping)
    ):
        data = document["data"]
    elif isinstance(document, Mapping) and "name" in document:
        data = document  # the bare Character object, as some tools copy it
    else:
        raise BadInput(
            _('{where}: not a ココフォリア character piece (kind "character" with data)').format(where=where)
        )
    record: dict[str, Any] = {"name": str(data.get("name") or "").strip()}
    player = _PLAYER.search(str(data.get("memo") or ""))
    if player:
        record["player"] = player[1]
    memo_skills = _memo_sheet(str(data.get("memo") or ""), record, where)
    params: dict[str, str] = {}
    for item in data.get("params") or []:
        if not isinstance(item, Mapping) or not isinstance(item.get("label"), str):
            raise BadInput(_("{where}: a param without a label").format(where=where))
        params[item["label"].strip()] = str(item.get("value", "")).strip()
    used: set[str] = set()
    commands = data.get("commands") or ""
    if not isinstance(commands, str):
        raise BadInput(_("{where}: commands must be the palette text").format(where=where))
    unread = 0
    for line in commands.splitlines():
        match = _LINE.match(line)
        if match is None:
            unread += bool(line.strip()) and not _TABLE_LINE.match(line) and not _CHECK_2D6.match(line)
            continue
        ref, label = match["ref"], match["label"].strip()
        if ref is not None:
            ref = ref.strip()
            if is_stat(ref) or ref not in params:
                continue  # a stat check (or a ref to nothing: ココフォリア would not roll it either)
            used.add(ref)
            record[SKILL + ref] = params[ref]
        elif label and not is_stat(label.split()[0]):
            record[SKILL + label.split()[0]] = match["level"]
    unknown = []
    for label, value in params.items():
        if is_stat(label):
            record[label] = value
        elif label not in used and label not in IGNORED:
            unknown.append(label)
    if unknown:
        record.setdefault("note", []).extend(f"param {label}: {params[label]}" for label in unknown)
        record[NOTED_PARAMS] = unknown
    for item in data.get("status") or []:  # after the params: the stats keep the piece's order
        written = item.get("label") if isinstance(item, Mapping) else None
        label = written.strip() if isinstance(written, str) else ""
        if not label or not is_stat(label) or item.get("max") is None or label in record:
            continue
        if not _derived_as_shown(record, label, item["max"], is_stat):
            record[label] = str(item["max"])
    record.update(memo_skills)  # the memo's `技能:` line says the stat and difficulty too
    not_kept = _not_kept(data, record, is_stat, unread)
    if not_kept:
        record[NOT_KEPT] = not_kept
    return record


def _not_kept(
    data: Mapping[str, Any], record: Mapping[str, Any], is_stat: Callable[[str], bool], unread: int
) -> list[str]:
    """What the piece holds and the campaign will not (`MP`, `SAN`, 67 palette lines, an
    initiative that is neither Speed nor DX), so an import can say so."""
    lost = [
        f"status {item['label'].strip()}"
        for item in data.get("status") or []
        if isinstance(item, Mapping) and isinstance(item.get("label"), str) and not is_stat(item["label"].strip())
    ]
    if unread:
        lost.append(f"palette {unread}")
    initiative = data.get("initiative")
    if isinstance(initiative, int | float) and initiative:
        kept = {str(record.get(key, "")).strip() for key in ("Speed", "DX")}
        if not any(_same_number(initiative, value) for value in kept):
            lost.append(f"initiative {initiative:g}")
    return lost


def _same_number(number: float, text: str) -> bool:
    try:
        return float(text) == number
    except ValueError:
        return False


def _derived_as_shown(record: Mapping[str, Any], label: str, shown: Any, is_stat: Callable[[str], bool]) -> bool:
    """True when a status bar's maximum (HP 11) is what the sheet derives anyway (HP = HT
    on a sheet without HP): it stays derived, so raising HT still raises HP (docs/rules.md
    "Derived stats"); a different maximum is the sheet's own stat."""
    from campaign.core.derived import stat_value

    stats = {key: value for key, value in record.items() if is_stat(key) and re.fullmatch(r"-?\d+", str(value))}
    found = stat_value(stats, label)
    return found is not None and found.derived and str(found.value) == str(shown).strip()


def _memo_sheet(memo: str, record: dict[str, Any], where: str) -> dict[str, str]:
    """The memo's sheet lines into `record` (template keys); its `技能:` lines returned."""
    skills: dict[str, str] = {}
    for written, value in _SHEET_LINE.findall(memo):
        key = _SHEET_KEYS[written]
        if key == "CP":
            record["cp"] = value
        elif key == "種別":
            record["kind"] = value
        elif key in ("メモ", "所持品"):
            record.setdefault("note" if key == "メモ" else "item", []).append(value)
        else:
            named = _NAMED.fullmatch(value)
            if named is None:
                raise BadInput(
                    _("{where}: memo line {key}: {value!r} is not NAME = VALUE").format(
                        where=where, key=written, value=value
                    )
                )
            if key == "特徴":
                record[TRAIT + named[1]] = named[2]
            else:
                skills[SKILL + named[1]] = named[2]
    return skills

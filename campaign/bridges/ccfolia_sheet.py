"""A ココフォリア piece (the clipboard JSON a player copies from their piece) read as a
sheet-template record (core.sheet_template), for `char import --format ccfolia`.

- `params` and `status` give the stats: a label the ruleset knows is a stat (status
  carries HP/FP; its `max` is the stat, `value` the current pool is not imported).
- the palette (`commands`) gives the skills: `3D6<=14 回避` (a level written out) or
  `3D6<={回避} 回避` (a param that is not a stat: its value is the level). A line may
  carry a modifier (`3D6<={回避}-2`): the level is still the param's.
- `name` and `memo` (a `PL: name` line names the player) are read too.

Nothing is guessed: a param that is neither a stat nor used as a skill by the palette
is reported by name, and the import refuses the piece.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from campaign.core.sheet_template import SKILL
from campaign.errors import BadInput

_LINE = re.compile(r"^\s*(?:S)?3D6\s*<=\s*(?:\{(?P<ref>[^}]+)\}|(?P<level>\d{1,3}))\s*(?:[+-]\d+)?\s*(?P<label>.*)$",
                   re.IGNORECASE)
_PLAYER = re.compile(r"^\s*PL\s*[:：]\s*(.+?)\s*$", re.MULTILINE)
IGNORED = ("目標値",)  # the 2d6 palette's difficulty param: the table's, not the character's


def piece_record(document: Any, where: str, is_stat: Callable[[str], bool]) -> dict[str, Any]:
    if isinstance(document, Mapping) and document.get("kind") == "character" and isinstance(document.get("data"),
                                                                                           Mapping):
        data = document["data"]
    elif isinstance(document, Mapping) and "name" in document:
        data = document  # the bare Character object, as some tools copy it
    else:
        raise BadInput(f"{where}: not a ココフォリア character piece (kind \"character\" with data)")
    record: dict[str, Any] = {"name": str(data.get("name") or "").strip()}
    player = _PLAYER.search(str(data.get("memo") or ""))
    if player:
        record["player"] = player[1]
    params: dict[str, str] = {}
    for item in data.get("params") or []:
        if not isinstance(item, Mapping) or not isinstance(item.get("label"), str):
            raise BadInput(f"{where}: a param without a label")
        params[item["label"].strip()] = str(item.get("value", "")).strip()
    for item in data.get("status") or []:
        label = item.get("label") if isinstance(item, Mapping) else None
        if isinstance(label, str) and is_stat(label.strip()) and item.get("max") is not None:
            record.setdefault(label.strip(), str(item["max"]))
    used: set[str] = set()
    commands = data.get("commands") or ""
    if not isinstance(commands, str):
        raise BadInput(f"{where}: commands must be the palette text")
    for line in commands.splitlines():
        match = _LINE.match(line)
        if match is None:
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
        raise BadInput(f"{where}: param(s) {', '.join(map(repr, unknown))} are neither a stat of the ruleset nor a "
                       f"skill the palette rolls (3D6<={{NAME}})")
    return record

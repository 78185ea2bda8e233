"""BCDice's GURPS table answers (`FEAR+3 恐怖表(15)：...`, `CRT クリティカル表(13) ＞ ...`).

What BCDice names a table is what the group saw, so a line is recorded as BCDice's
table: the seed table of the same command only where it *is* the same table (the basic
criticals, fumbles, head blows, the fright table of 3rd edition, and the reaction table,
whose seed was written from BCDice's own bands). 妖魔夜行's special tables (YSCRT, YSFMB,
YFMB), the spell fumbles (MFMB) and hit locations (HIT) come from other books than the
seed's (百鬼夜翔 ...), so an entry of ours with the
same number would say something else: they are recorded with BCDice's name, number and
text, never mapped by number onto a seed entry.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from campaign.bridges.bcdice_why import Why
from campaign.errors import N_

# command: (BCDice's name, the seed table that is the same table, takes a modifier)
BCDICE_TABLES: dict[str, tuple[str, str | None, bool]] = {
    "CRT": ("クリティカル表", "CRT", False),
    "HCRT": ("頭部打撃クリティカル表", "HCRT", False),
    "FMB": ("ファンブル表", "FMB", False),
    "MFMB": ("呪文ファンブル表", None, False),
    "YSCRT": ("妖魔夜行スペシャルクリティカル表", None, False),
    "YSFMB": ("妖魔夜行スペシャルファンブル表", None, False),
    "YFMB": ("妖術ファンブル表", None, False),
    "HIT": ("命中部位表", None, False),
    "FEAR": ("恐怖表", "FEAR", True),
    "REACT": ("反応表", "REACT", True),  # seeds/react.toml is BCDice's own bands
}
BY_NAME = {name: command for command, (name, _, _) in BCDICE_TABLES.items()}
_RESULT = re.compile(r"(\S*?表)\s*[(（]\s*(-?[0-9０-９]+)\s*[)）]\s*(?:[:：]|[＞>])?\s*")
_COMMAND = re.compile(r"^(S)?([A-Z]+)([+-][0-9]+)?$")


@dataclass(frozen=True, slots=True)
class TableLine:
    command: str  # BCDice's command, e.g. "FEAR", "YSCRT"
    modifier: int
    result: int  # the number the log shows, after the modifier
    name: str  # the table's name as the log shows it
    comment: str | None
    text: str = ""  # BCDice's words for the result, as the log shows them
    seed: str | None = None  # the seed table that is this table, else None (recorded as BCDice's)
    secret: bool = False
    typed: bool = True  # the typed command is in the log (else the modifier is unknown)


@dataclass(frozen=True, slots=True)
class TableReading:
    kind: str  # table | other_system | contradictory
    line: TableLine | None = None
    why: Why | None = None


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip()


def typed_table(word: str) -> tuple[str, int, bool] | None:
    """(command, modifier, secret) for a typed table command such as `FEAR+3` or `SCRT`."""
    match = _COMMAND.match(_fold(word).upper())
    if match is None:
        return None
    secret, command, modifier = match.group(1), match.group(2), match.group(3)
    if secret and command not in BCDICE_TABLES and ("S" + command) in BCDICE_TABLES:
        secret, command = None, "S" + command
    if command not in BCDICE_TABLES:
        return None
    takes = BCDICE_TABLES[command][2]
    if modifier and not takes:
        return None
    return command, int(modifier or 0), bool(secret)


def read_table(text: str, tables: Mapping[str, Any]) -> TableReading | None:
    """A table answer in `text` (the typed command first, the answer after it or on the
    next line); None when `text` holds none."""
    found = _RESULT.search(text)
    if found is None:
        return None
    name, number = found.group(1), int(_fold(found.group(2)))
    words = text.split(None, 1)
    typed = typed_table(words[0]) if words and not text.startswith(name) else None
    answered = BY_NAME.get(name) or next((t.command for t in tables.values() if t.name == name), None)
    if answered is None:  # another system's table, or talk that mentions one
        first = _fold(words[0]).upper() if words else ""
        answered_like = text.startswith(name) and found.group(0).rstrip()[-1:] in ("：", ":", "＞", ">")
        if answered_like or re.match(r"^[A-Z][A-Z0-9+\-]*$", first):
            return TableReading("other_system", why=Why("other_table", N_("table {name}"), name=name))
        return None
    before = text[: found.start()]
    comment = before.split(None, 1)[1].strip() if typed and len(before.split(None, 1)) > 1 else None
    if typed is None:
        if before.strip():
            first = _fold(before.split(None, 1)[0])
            if re.match(r"^[A-Z0-9+\-]+$", first.upper()) and not _fold(before).startswith(name):
                return TableReading(
                    "other_system",
                    why=Why("not_table_command", N_("{command}: not a table command of this ruleset"), command=first),
                )
        command, modifier, secret = answered, 0, False
    else:
        command, modifier, secret = typed
        if command != answered:
            return TableReading(
                "contradictory",
                why=Why("answered_from", N_("{command} was answered from {name}"), command=words[0], name=name),
            )
    body = text[found.end() :].split("\n", 1)[0].strip()
    low, high = 3 + modifier, 18 + modifier  # every GURPS table here rolls 3D6 (+ the modifier)
    if typed is None and BCDICE_TABLES.get(command, ("", None, False))[2]:
        low, high = 3 - 100, 18 + 100  # FEAR+n / REACT±n without the typed n: any n
    if not low <= number <= high:
        return TableReading(
            "contradictory",
            why=Why(
                "table_range",
                N_("{name}({number}) cannot come of 3D6{modifier}"),
                name=name,
                number=number,
                modifier=f"{modifier:+d}" if modifier else "",
            ),
        )
    seed = BCDICE_TABLES[command][1] if command in BCDICE_TABLES else command
    if seed is not None and seed not in tables:
        seed = None
    return TableReading(
        "table",
        TableLine(
            command=command,
            modifier=modifier,
            result=number,
            name=name,
            comment=comment,
            text=body,
            seed=seed,
            secret=secret,
            typed=typed is not None,
        ),
    )

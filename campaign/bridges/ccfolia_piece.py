"""A character as a ココフォリア piece: the clipboard JSON its board accepts on paste.

Format: ココフォリア's Clipboard API (docs.ccfolia.com, "Clipboard API"):
`{"kind": "character", "data": {...}}` where data is a partial Character: name, memo,
initiative, externalUrl, status [{label, value, max}], params [{label, value}],
commands (the chat palette, one line per roll), and display flags. Numbers in status
are numbers; params values are strings.

The chat palette is BCDice syntax with `{label}` references, which ココフォリア fills
from the piece's status and params when the line is sent, so a palette keeps working
after a stat changes on the board:
- gurps3-ja: `3D6<={Will} 恐怖判定` (R2: Will is IQ when the sheet has no Will), one
  `3D6<={X} 【X】判定` per rollable stat (HP and FP are pools, not rolled against), and
  the seed tables BCDice knows (CRT FMB HCRT YSCRT YSFMB YFMB FEAR).
- 2d6-ja: `2D6+{心}>={目標値} 【心】判定` per stat (R5; `>` for 感, R6), with a 目標値
  param the table edits before rolling (BCDice needs a number after `>=`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

POOLS = ("HP", "FP")
# R2: third-edition sheets derive the pools when the sheet has no stat of that name.
DERIVED_POOLS = {"HP": "HT", "FP": "ST"}
WILL_NAMES = ("Will", "意思", "意志")
IQ_NAMES = ("IQ", "知力")
# Seed tables that BCDice's GURPS system also has: a palette line for GFMB would do
# nothing in ココフォリア's chat.
BCDICE_TABLES = ("CRT", "FMB", "HCRT", "YSCRT", "YSFMB", "YFMB", "FEAR")
TARGET_PARAM = "目標値"
DANGER_SENSE = "感"
DEFAULT_TARGET = 10


def _first(stats: Mapping[str, int], names: Iterable[str]) -> str | None:
    return next((name for name in names if name in stats), None)


def status_entries(view: Mapping[str, Any], gurps: bool) -> list[dict[str, Any]]:
    """HP and FP with their current value and maximum (the pools, else R2's derivation)."""
    stats, pools = view["stats"], view["pools"]
    status = []
    for pool in POOLS:
        if pool in pools:
            status.append({"label": pool, "value": pools[pool]["current"], "max": pools[pool]["max"]})
        elif gurps and DERIVED_POOLS[pool] in stats:
            value = stats[DERIVED_POOLS[pool]]
            status.append({"label": pool, "value": value, "max": value})
    return status


def memo(view: Mapping[str, Any]) -> str:
    lines = []
    if view.get("player"):
        lines.append(f"PL: {view['player']}")
    elif view.get("summoner"):
        lines.append(f"召喚者 / summoner: {view['summoner']}")
    if view.get("status") and view["status"] != "active":
        target = f" → {view['searching_for']}" if view.get("searching_for") else ""
        lines.append(f"状態 / status: {view['status']}{target}")
    if view.get("cp_total") is not None:
        lines.append(f"CP: {view['cp_total']}")
    for trait in view.get("traits", []):
        lines.append(f"特徴: {trait['name']} [{trait['category']}] {trait['cp']}CP")
    for condition in view.get("conditions", []):
        duration = f" ({condition['duration']})" if condition.get("duration") else ""
        lines.append(f"状態異常: {condition['name']}{duration}")
    return "\n".join(lines)


def palette(view: Mapping[str, Any], ruleset: str, tables: Iterable[str] = BCDICE_TABLES) -> list[str]:
    """The chat palette lines, one per check the character can make, then the tables."""
    stats = view["stats"]
    lines = []
    if ruleset == "gurps3-ja":
        will = _first(stats, WILL_NAMES) or _first(stats, IQ_NAMES)
        if will is not None:
            lines.append(f"3D6<={{{will}}} 恐怖判定")
        lines.extend(f"3D6<={{{stat}}} 【{stat}】判定" for stat in stats if stat not in POOLS)
        available = set(tables)
        lines.extend(table for table in BCDICE_TABLES if table in available)
    else:
        for stat in stats:
            if stat in POOLS:
                continue
            # R6: danger sense (感) succeeds only when it exceeds the difficulty.
            compare = ">" if stat == DANGER_SENSE else ">="
            lines.append(f"2D6+{{{stat}}}{compare}{{{TARGET_PARAM}}} 【{stat}】判定")
    return lines


def piece(view: Mapping[str, Any], ruleset: str, tables: Iterable[str] = BCDICE_TABLES) -> dict[str, Any]:
    """The clipboard document for one character (`char show --json`'s view)."""
    gurps = ruleset == "gurps3-ja"
    stats = view["stats"]
    params = [{"label": stat, "value": str(value)} for stat, value in stats.items()]
    if not gurps:
        params.append({"label": TARGET_PARAM, "value": str(DEFAULT_TARGET)})
    # GURPS acts in order of Basic Speed, which follows DX; the 2d6 rules name no order.
    initiative = stats.get("DX", stats.get("敏捷力", 0)) if gurps else 0
    return {
        "kind": "character",
        "data": {
            "name": view["name"],
            "memo": memo(view),
            "initiative": initiative,
            "externalUrl": "",
            "status": status_entries(view, gurps),
            "params": params,
            "commands": "\n".join(palette(view, ruleset, tables)),
            "secret": False,
            "invisible": False,
            "hideStatus": False,
        },
    }

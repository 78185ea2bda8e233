"""A character as a ココフォリア piece: the clipboard JSON its board accepts on paste.

Format: ココフォリア's Clipboard API (docs.ccfolia.com, "Clipboard API"):
`{"kind": "character", "data": {...}}` where data is a partial Character: name, memo,
initiative, externalUrl, status [{label, value, max}], params [{label, value}],
commands (the chat palette, one line per roll), and display flags. Numbers in status
are numbers; params values are strings.

The chat palette is BCDice syntax with `{label}` references, which ココフォリア fills
from the piece's status and params when the line is sent, so a palette keeps working
after a stat changes on the board:
- gurps3-ja: `3D6<={Will} 恐怖判定` (docs/rules.md "Derived stats": Will is IQ when the sheet has no Will), with
  `3D6<={Will}-4` after it when the character has a severe phobia, one
  `3D6<={X} 【X】判定` per rollable stat (HP and FP are pools, Basic Speed and Move are
  not rolled against), one `3D6<={回避} 回避` per skill (its level is a param), and
  the seed tables BCDice knows (CRT FMB HCRT YSCRT YSFMB YFMB FEAR). Initiative is
  Basic Speed where the sheet records it, else DX.
- 2d6-ja: `2D6+{心}>={目標値} 【心】判定` per stat (docs/rules.md "2d6 checks"; `>` for 感,
  "Danger sense"), with a 目標値
  param the table edits before rolling (BCDice needs a number after `>=`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from campaign.core.sheet_template import skill_value, trait_value
from campaign.core.stat_names import sheet_key

POOLS = ("HP", "FP")
# docs/rules.md "Derived stats": third-edition sheets derive the pools when the sheet has no stat of that name.
DERIVED_POOLS = {"HP": "HT", "FP": "ST"}
NOT_ROLLED = ("HP", "FP", "Speed", "Move")  # pools, Basic Speed and Move: nobody rolls 3D6 against them
SEVERE_PHOBIA = "severe phobia"
# Seed tables that BCDice's GURPS system also has: a palette line for GFMB would do
# nothing in ココフォリア's chat.
BCDICE_TABLES = ("CRT", "FMB", "HCRT", "YSCRT", "YSFMB", "YFMB", "FEAR")
TARGET_PARAM = "目標値"
DANGER_SENSE = "感"
DEFAULT_TARGET = 10


def status_entries(view: Mapping[str, Any], gurps: bool) -> list[dict[str, Any]]:
    """HP and FP with their current value and maximum (the pools, else the derivation in
    docs/rules.md "Derived stats")."""
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
    """The piece's memo in the output's language: what the table reads on the board, and
    the sheet lines `char import --format ccfolia` reads back (bridges.ccfolia_sheet
    knows their keys in both languages: 特徴 / trait, メモ / note ...)."""
    from campaign.i18n import _, pgettext
    from campaign.labels import condition_duration, condition_label, status_label

    word = {  # the sheet lines' keys (English ones too are read back)
        "kind": pgettext("memo", "kind"),
        "trait": pgettext("memo", "trait"),
        "skill": pgettext("memo", "skill"),
        "note": pgettext("memo", "note"),
        "item": pgettext("memo", "item"),
        "condition": pgettext("memo", "condition"),
    }
    lines = []
    if view.get("player"):
        lines.append(f"PL: {view['player']}")
    elif view.get("summoner"):
        lines.append(_("summoner: {name}").format(name=view["summoner"]))
    if view.get("status") and view["status"] != "active":
        status = status_label(view["status"])
        if view.get("searching_for"):
            status = f"{status} → {view['searching_for']}"
        lines.append(_("status: {status}").format(status=status))
    if view.get("kind") == "npc":
        lines.append(f"{word['kind']}: npc")
    if view.get("cp_total") is not None:
        lines.append(f"CP: {view['cp_total']}")
    # The rest of the sheet, in the template's words (core.sheet_template), so that
    # `char import --format ccfolia` reads the piece back as the same sheet.
    for trait in view.get("traits", []):
        value = trait_value(
            trait["cp"], trait["category"], trait.get("counts_toward_limit", True), trait.get("unlimited_cp", 0)
        )
        lines.append(f"{word['trait']}: {trait['name']} = {value}")
    for name, skill in view.get("skills", {}).items():
        if skill.get("attr") or skill.get("difficulty"):
            lines.append(f"{word['skill']}: {name} = {skill_value(skill)}")
    lines.extend(f"{word['note']}: {line}" for line in view.get("notes", []))
    lines.extend(f"{word['item']}: {line}" for line in view.get("items", []))
    for condition in view.get("conditions", []):
        duration = condition_duration(condition.get("duration"), condition.get("detail"))
        name = condition_label(condition["name"])
        lines.append(f"{word['condition']}: {name}" + (f" ({duration})" if duration else ""))
    return "\n".join(lines)


def palette(
    view: Mapping[str, Any],
    ruleset: str,
    tables: Iterable[str] = BCDICE_TABLES,
    aliases: Mapping[str, Iterable[str]] | None = None,
) -> list[str]:
    """The chat palette lines, one per check the character can make, then the tables.
    `aliases`: the ruleset's stat names (core.stat_names), so 意志力 is found as Will."""
    stats = view["stats"]
    lines = []
    if ruleset == "gurps3-ja":
        will = sheet_key(stats, "Will", aliases) or sheet_key(stats, "IQ", aliases)
        if will is not None:
            lines.append(f"3D6<={{{will}}} 恐怖判定")
            if any(t.get("category") == SEVERE_PHOBIA for t in view.get("traits", [])):
                lines.append(f"3D6<={{{will}}}-4 恐怖判定（強い恐怖症）")
        skipped = {sheet_key(stats, name, aliases) for name in NOT_ROLLED}
        lines.extend(
            f"3D6<={{{stat}}} 【{stat}】判定"
            for stat, value in stats.items()
            if stat not in skipped and isinstance(value, int)
        )
        lines.extend(f"3D6<={{{skill}}} {skill}" for skill in view.get("skills", {}))
        available = set(tables)
        lines.extend(table for table in BCDICE_TABLES if table in available)
    else:
        for stat in stats:
            if stat in POOLS:
                continue
            # docs/rules.md "Danger sense": danger sense (感) succeeds only when it exceeds the difficulty.
            compare = ">" if stat == DANGER_SENSE else ">="
            lines.append(f"2D6+{{{stat}}}{compare}{{{TARGET_PARAM}}} 【{stat}】判定")
    return lines


def piece(
    view: Mapping[str, Any],
    ruleset: str,
    tables: Iterable[str] = BCDICE_TABLES,
    aliases: Mapping[str, Iterable[str]] | None = None,
) -> dict[str, Any]:
    """The clipboard document for one character (`char show --json`'s view)."""
    gurps = ruleset == "gurps3-ja"
    stats = view["stats"]
    params = [{"label": stat, "value": str(value)} for stat, value in stats.items()]
    params += [
        {"label": name, "value": str(skill["level"])}
        for name, skill in view.get("skills", {}).items()
        if name not in stats
    ]
    if not gurps:
        params.append({"label": TARGET_PARAM, "value": str(DEFAULT_TARGET)})
    # GURPS acts in order of Basic Speed (a quarter: exact in a binary float), else DX;
    # the 2d6 rules name no order.
    initiative: float | int = 0
    if gurps:
        speed, dx = sheet_key(stats, "Speed", aliases), sheet_key(stats, "DX", aliases)
        value = stats[speed] if speed is not None else (stats[dx] if dx is not None else 0)
        initiative = value if isinstance(value, int) else float(value)
    return {
        "kind": "character",
        "data": {
            "name": view["name"],
            "memo": memo(view),
            "initiative": initiative,
            "externalUrl": "",
            "status": status_entries(view, gurps),
            "params": params,
            "commands": "\n".join(palette(view, ruleset, tables, aliases)),
            "secret": False,
            "invisible": False,
            "hideStatus": False,
        },
    }

"""`GET /api/table`: what the player's and the GM's table pages show, as one JSON document.

Read through the services (characters, calls, missing board, history) and shaped for a
phone: HP/FP as current and maximum, conditions and traits with their Japanese words,
the palette with the character's numbers filled in, the session's pending calls first,
and the latest entries as sentences (a fright check's consequences read 「暗所恐怖症
(−10 CP) を得た」, never as raw JSON). Everything here is what any page of the server
already shows anyone who may read it; a secret roll is a commitment, as in history.
"""

from __future__ import annotations

import re
from typing import Any

from campaign import labels
from campaign.services.table_writes import REQUESTABLE
from campaign.web import present

LATEST = 10
_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


def _palette(sheet: dict[str, Any], ruleset: str) -> list[str]:
    """The ココフォリア palette lines with the sheet's values in place of `{stat}`."""
    from campaign.bridges.ccfolia_piece import palette

    values = {name: str(value) for name, value in sheet["stats"].items()}
    values.update({name: str(d["value"]) for name, d in (sheet.get("derived") or {}).items()})
    lines = []
    for line in palette(sheet, ruleset, ()):
        filled = _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), line)
        if "{" not in filled:
            lines.append(filled)
    return lines


def _character(sheet: dict[str, Any], ruleset: str, me: Any) -> dict[str, Any]:
    pools = {name: {"current": level["current"], "max": level["max"]} for name, level in sheet["pools"].items()}
    mine = me is not None and (me.gm or sheet["player"] == me.player)
    return {
        "name": sheet["name"], "player": sheet["player"], "kind": sheet["kind"], "status": sheet["status"],
        "mine": bool(mine and sheet["player"] == getattr(me, "player", None)),
        "cp_total": sheet["cp_total"], "hp": pools.get("HP"), "fp": pools.get("FP"),
        "conditions": [{"name": c["name"], "label": labels.CONDITION_LABELS_JA.get(c["name"], c["name"]),
                        "duration": c["duration"]} for c in sheet["conditions"]],
        "traits": [{"name": t["name"], "category": labels.CATEGORY_JA.get(t["category"].split(" ")[0],
                                                                          t["category"]),
                    "cp": t["cp"], "seq": t["source_seq"]} for t in sheet["traits"]],
        "palette": _palette(sheet, ruleset) if mine else [],
    }


def consequences(entry: dict[str, Any]) -> list[str]:
    """A fright check's effects as sentences, in Japanese."""
    detail = entry.get("detail") or {}
    lines = []
    for effect in detail.get("effects") or []:
        kind = effect.get("kind")
        if kind == "trait":
            lines.append(f"{effect.get('name')} ({_cp(effect.get('cp'))}) を得た")
        elif kind == "phobia_escalation":
            lines.append(f"{effect.get('trait')} が強い恐怖症に悪化 ({effect.get('old_cp')} → {effect.get('new_cp')} CP)")
        elif kind == "condition":
            words = labels.fright_effect(effect)
            lines.append(f"{words.get('label_ja', effect.get('condition'))} {words.get('duration_ja', '')}".strip())
        elif kind in ("lose_pool", "pool"):
            lines.append(f"{effect.get('pool')} {effect.get('amount', '')} 減少".strip())
        elif kind == "lose_attribute":
            lines.append(f"{effect.get('stat')} {effect.get('amount', '')} 低下".strip())
    return lines


def _cp(value: Any) -> str:
    return f"{value:+d} CP".replace("-", "−") if isinstance(value, int) else f"{value} CP"


def _latest(entry: dict[str, Any]) -> dict[str, Any]:
    return {"seq": entry["seq"], "actor": entry["actor"], "character": entry["character"], "kind": entry["kind"],
            "kind_label": labels.kind_label(entry["kind"]), "text": present.roll_text(entry),
            "outcome": entry.get("outcome"), "reason": entry.get("reason"), "source": entry.get("source"),
            "voided": entry.get("voided_by") is not None, "consequences": consequences(entry),
            # what a player may ask to void: a top-level entry the ledger lets be voided
            "voidable": entry.get("parent_seq") is None and entry.get("voidable") is not False
            and entry["kind"] in REQUESTABLE}


def table_state(db, campaign_name: str, seat) -> dict[str, Any]:
    from campaign.services.browse import history_page
    from campaign.services.calls import list_calls
    from campaign.services.characters import list_characters
    from campaign.services.history import HistoryFilter
    from campaign.services.missing import list_missing
    from campaign.services.results import as_json
    from campaign.services.table_writes import ruleset_of
    from campaign.services.void_answers import list_requests

    ruleset = ruleset_of(db, campaign_name)
    sheets = [as_json(sheet) for sheet in list_characters(db, campaign_name)]
    characters = [_character(sheet, ruleset, seat) for sheet in sheets]
    characters.sort(key=lambda c: (not c["mine"], c["name"]))
    calls = [] if seat is None else list_calls(db, campaign_name, player=None if seat.gm else seat.player)
    requests = list_requests(db, campaign_name) if seat is not None and seat.gm else ()
    latest = history_page(db, campaign_name, HistoryFilter(), size=LATEST).entries
    return {
        "me": None if seat is None else {"player": seat.player, "gm": seat.gm},
        "calls": as_json(calls),
        "void_requests": as_json(requests),  # the GM's: the open ones
        "characters": characters,
        "missing": [{"character": m.character, "player": m.player, "chance": present.percent(m.chance),
                     "searchers": [s.name for s in m.searchers]} for m in list_missing(db, campaign_name)],
        "latest": [_latest(entry) for entry in latest],
        "head": latest[0]["seq"] if latest else 0,
    }

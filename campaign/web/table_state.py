"""`GET /api/table` and the feed's `table` state: what the table pages show, as JSON.

Read through the services (characters, calls, missing board, history) and shaped for a
phone: HP/FP as current and maximum, conditions and traits in the page's words,
skills and the palette with the character's numbers filled in, the session's pending
calls first, and the latest entries as sentences (a fright check's consequences read
「暗所恐怖症 (−10 CP) を得た; CP 100 → 90」 in Japanese, never as raw JSON; the record stays behind a
details fold). Everything here is what any page of the server already shows anyone who
may read it (a secret roll is a commitment, as in history), so the part that is the same
for every seat is computed once per ledger head (campaign.web.head_state) and sent by the
feed to every open page; only the calls and the `mine` marks depend on the session.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from campaign import labels
from campaign.services.table.writes import REQUESTABLE
from campaign.web import present

if TYPE_CHECKING:
    from campaign.db.database import Database
    from campaign.projection.views import CharacterSheet
    from campaign.services.table.invites import Seat

LATEST = 10
_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")
_STAT_WORD = re.compile(r"【([^【】]+)】")


def _palette(sheet: dict[str, Any], ruleset: str) -> list[str]:
    """The ココフォリア palette lines with the sheet's values in place of `{stat}`."""
    from campaign.bridges.ccfolia_piece import palette

    values = {name: str(value) for name, value in sheet["stats"].items()}
    values.update({name: str(d["value"]) for name, d in (sheet.get("derived") or {}).items()})
    skills = {f"3D6<={{{name}}} {name}" for name in sheet.get("skills") or {}}
    lines: list[str] = []
    for line in palette(sheet, ruleset, ()):
        if line in skills:  # the page shows each skill as its own button (回避 12)
            continue
        filled = _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), line)
        if "{" not in filled:  # 【IQ】判定 as the sheet names the stat on a Japanese page: 【知力】判定
            lines.append(_STAT_WORD.sub(lambda m: f"【{labels.sheet_stat_label(m.group(1))}】", filled))
    return lines


def _character(sheet: dict[str, Any], ruleset: str) -> dict[str, Any]:
    pools = {name: {"current": level["current"], "max": level["max"]} for name, level in sheet["pools"].items()}
    return {
        "name": sheet["name"],
        "player": sheet["player"],
        "kind": sheet["kind"],
        "status": sheet["status"],
        "status_label": labels.status_label(sheet["status"]),
        "mine": False,
        "cp_total": sheet["cp_total"],
        "hp": pools.get("HP"),
        "fp": pools.get("FP"),
        "conditions": [
            {
                "name": c["name"],
                "label": labels.condition_label(c["name"]),
                "duration": labels.condition_duration(c["duration"], c.get("detail")),
            }
            for c in sheet["conditions"]
        ],
        "traits": [
            {"name": t["name"], "category": labels.category_label(t["category"]), "cp": t["cp"], "seq": t["source_seq"]}
            for t in sheet["traits"]
        ],
        # the sheet's skills, each a one-tap roll (`回避` rolls 3D6 against 回避's level)
        "skills": [
            {"name": name, "level": s["level"], "attr": s.get("attr"), "difficulty": s.get("difficulty")}
            for name, s in sorted((sheet.get("skills") or {}).items())
        ],
        "palette": _palette(sheet, ruleset),
        "will": _will(sheet),
    }


def _will(sheet: dict[str, Any]) -> int | None:
    """The Will a fright check rolls against (a stat, or derived from IQ), for the call's prompt."""
    value = sheet["stats"].get("Will")
    if value is None:
        value = ((sheet.get("derived") or {}).get("Will") or {}).get("value")
    return value if isinstance(value, int) else None


def consequences(entry: dict[str, Any], cp: tuple[int, int] | None = None) -> list[str]:
    """A fright check's effects as sentences, in the page's language; `cp` (before, after)
    adds the CP line."""
    from campaign.core.applied_effects import applied_effect
    from campaign.effect_words import effect_summary

    detail = entry.get("detail") or {}
    effects = [applied_effect(e) for e in detail.get("effects") or [] if isinstance(e, dict)]
    lines = [effect_summary(effect) for effect in effects if effect is not None]
    if lines and cp is not None and cp[0] != cp[1]:
        lines[-1] += f"; CP {cp[0]} → {cp[1]}"
    return lines


#: The ops that move a CP total by an amount, and the field holding it
#: (campaign.projection.ops_characters: CpChanged, CpAwarded).
_CP_MOVES = {"cp_delta": "delta", "cp_awarded": "cp"}


def _cp_deltas(entry: dict[str, Any]) -> dict[str, int | None]:
    """character -> how far the entry moved its CP total; None when it set the total
    outright (cp_set), so nothing before it can be worked out from today's."""
    out: dict[str, int | None] = {}
    for op in entry.get("ops") or []:
        name, character = op.get("op"), op.get("character")
        if name == "cp_set":
            out[character] = None
        elif name in _CP_MOVES and isinstance(amount := op.get(_CP_MOVES[name]), int):
            so_far = out.get(character, 0)
            out[character] = None if so_far is None else so_far + amount
    return out


def _cp_spans(everything_after: list[dict[str, Any]], now: dict[str, int]) -> dict[int, tuple[str, int, int]]:
    """seq -> (character, CP before, CP after) for the entries that changed a CP total,
    walking back from today's totals over every entry since the oldest shown (sub-entries
    included). A void undoes ops its record does not list, so the walk stops at one."""
    running: dict[str, int] = dict(now)
    spans: dict[int, tuple[str, int, int]] = {}
    for entry in reversed(everything_after):
        if entry["kind"] == "void" or entry.get("voided_by") is not None:
            break
        for character, delta in _cp_deltas(entry).items():
            if character not in running:
                continue
            if delta is None:  # set outright: what came before is unknown from here
                del running[character]
                continue
            spans[entry["seq"]] = (character, running[character] - delta, running[character])
            running[character] -= delta
    return spans


def entry_item(entry: dict[str, Any], cp: tuple[str, int, int] | None = None) -> dict[str, Any]:
    """An entry as the table pages list it (the feed's entry events carry it, the state's
    latest entries too, there with `cp`: the CP before and after a fright check)."""
    from campaign.services.fair.seeds import fairness_of

    return {
        "seq": entry["seq"],
        "actor": entry["actor"],
        "character": entry["character"],
        "kind": entry["kind"],
        "kind_label": labels.kind_label(entry["kind"]),
        "text": present.roll_text(entry),
        "outcome": entry.get("outcome"),
        "reason": labels.reason_label(entry.get("reason")),
        "source": entry.get("source"),
        # docs/fair-dice.md: "provable" is labelled on the page; the history views read a
        # seed's abandonment (history.entry_view), which this entry's view carries
        "fairness": entry.get("fairness") or fairness_of(entry),
        "voided": entry.get("voided_by") is not None,
        "consequences": consequences(entry, None if cp is None else cp[1:]),
        # the hashed record, for the page's details fold (what /entries/SEQ shows); a big
        # roll's is left to its entry page (present.RECORD_SHOWN: every page stays bounded)
        **_record_fold(entry),
        # what a player may ask to void: a top-level entry the ledger lets be voided
        "voidable": entry.get("parent_seq") is None
        and entry.get("voidable") is not False
        and entry["kind"] in REQUESTABLE,
    }


def _record_fold(entry: dict[str, Any]) -> dict[str, Any]:
    import json

    record = {
        key: entry.get(key)
        for key in ("expression", "dice", "total", "target", "margin", "detail", "ops")
        if entry.get(key) is not None
    }
    if len(json.dumps(record, ensure_ascii=False)) > present.RECORD_SHOWN:
        return {"record": {}, "record_on_entry_page": True}
    return {"record": record, "record_on_entry_page": False}


def sheets_state(
    db: Database, campaign_name: str, characters: list[CharacterSheet]
) -> tuple[dict[str, Any], dict[str, int]]:
    """The part of the shared state that only an entry with ops changes (campaign.web.
    head_state): the characters in play, the missing board, the open void requests; and
    each character's CP total, which the latest entries' CP lines walk back from."""
    from campaign.services.disputes.answers import list_requests
    from campaign.services.results import as_json
    from campaign.services.scenarios.missing import list_missing
    from campaign.services.table.writes import ruleset_of

    ruleset = ruleset_of(db, campaign_name)
    sheets = [as_json(sheet) for sheet in characters]
    shown = {
        "characters": [_character(sheet, ruleset) for sheet in sheets],
        "missing": [
            {
                "character": m.character,
                "player": m.player,
                "chance": present.percent(m.chance),
                "searchers": [s.name for s in m.searchers],
            }
            for m in list_missing(db, campaign_name)
        ],
        "void_requests": as_json(list_requests(db, campaign_name)),
    }
    return shown, {sheet["name"]: sheet["cp_total"] for sheet in sheets}


def latest_items(latest: list[dict[str, Any]], cp: dict[str, int]) -> list[dict[str, Any]]:
    """The latest entries (newest first) as the table pages list them, each fright
    check's CP line walked back from today's totals `cp`."""
    # the page lists sub-entries too, so the shown run is every entry since its oldest:
    # walk it while it has no gap
    run = [entry for n, entry in enumerate(latest) if entry["seq"] == latest[0]["seq"] - n]
    spans = _cp_spans(list(reversed(run)), cp)
    return [entry_item(entry, spans.get(entry["seq"])) for entry in latest]


def calls_for(
    db: Database, campaign_name: str, seat: Seat | None, characters: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The seat's pending calls (the GM's: all), a fright call's prompt naming the Will
    rolled against: 「恐怖判定を振ってください: 鈴音 意志 11 −2」."""
    from campaign.services.results import as_json
    from campaign.services.table.calls import list_calls, prompt_of

    if seat is None:
        return []
    wills = {c["name"]: c["will"] for c in characters}
    calls: list[dict[str, Any]] = []
    for view in list_calls(db, campaign_name, player=None if seat.gm else seat.player_id):
        will = wills.get(view.character)
        calls.append({**as_json(view), "prompt": prompt_of(view.kind, view.character, view.params, will=will)})
    return calls


def table_state(shared: dict[str, Any], db: Database, campaign_name: str, seat: Seat | None) -> dict[str, Any]:
    """/api/table for one seat: the shared state at the head (campaign.web.head_state,
    left unchanged: it is every page's) with the seat's calls and `mine` marks."""
    characters = [
        {
            **c,
            "mine": seat is not None and c["player"] == seat.player,
            "palette": c["palette"] if seat is not None and (seat.gm or c["player"] == seat.player) else [],
        }
        for c in shared["characters"]
    ]
    characters.sort(key=lambda c: (not c["mine"], c["name"]))
    return {
        **shared,
        "characters": characters,
        "me": None if seat is None else {"player": seat.player, "gm": seat.gm},
        "calls": calls_for(db, campaign_name, seat, characters),
        "void_requests": shared["void_requests"] if seat is not None and seat.gm else [],  # the GM's: open ones
    }

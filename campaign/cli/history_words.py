"""`history show` in sentences: what a recorded check, fright check or table roll means.

A dispute is settled by reading the entry, and a player reads 「【技】2 + 2D6[4,5] + 2 = 13 ≥
8 → 成功」 or 「恐怖判定表 26: 18と22の結果を両方受ける」, not `kept_indices` or
`critical_rule`. The sentences are made from the record's codes (labels.shown_detail has
already put words to the codes), with the same functions the commands print with, so an
entry reads in `history show` as it read when it was rolled. The record itself, every
field, is `history show N --json`.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from campaign.i18n import _, pick

if TYPE_CHECKING:
    from campaign.services.checks.records import CheckRoll

# Detail keys the sentences (or the fields above them) say; anything else is still listed.
TOLD = {
    "fright": {
        *("check", "table", "effects", "traits_added", "choice", "pick", "notes"),
        *("entry", "margin_added", "name", "purpose", "range", "raw", "ja", "en"),  # its table roll's
    },
    "check": {
        *("check", "compare", "critical", "critical_rule", "dice", "dice_count", "dice_modifier", "kept"),
        *("kept_indices", "kind", "modifiers", "name", "outcome", "scaling", "skill", "skipped", "stat"),
        *("stat_value", "success", "target", "terms", "total", "band", "margin", "occasion", "role"),
        *("sides", "winner", "winner_index", "decided_by", "stats", "hider", "observers", "noticed_by"),
        *("hidden", "noticed", "participants", "stat_from", "effect", "if_resisted"),
    },
    "scenario": {"action", "number", "participants", "title", "reunions"},
    "missing": {"action", "faces", "searchers", "since_seq"},
    "award": {"cp", "cp_awarded", "cp_total"},
    "campaign": {"name", "ruleset"},
    "reunion": {"faces", "roll", "searchers", "since_seq", "success", "threshold", "on_behalf_of"},
    "note": {"note"},
    "player": {"player"},
    "relation": {"from", "to"},
    "seal": {"sealed_through"},
    "setting": {"changes"},
    "status": {"status"},
    "time": {"action", "from", "to", "seconds", "span", "span_ja"},
    "condition": {"action", "condition", "conditions", "follow_ups"},
    "trait": {"action", "trait", "before"},
    "damage": {"action", "after", "before", "change", "max", "pool", "requested", "derived_from"},
    "heal": {"action", "after", "before", "change", "max", "pool", "requested", "derived_from"},
    "table": {
        *("lines", "entry", "name", "name_en", "table", "raw", "result", "modifier", "text_ja", "text_en"),
        *("sub_rolls", "reroll_stands", "truncated", "declined", "directives", "text_rolls"),
        *("directive", "requested_in", "requested_by", "depth", "text_roll"),  # a sub-entry: its reason says
    },
}


def story(entry: dict[str, Any]) -> list[str]:
    """The entry's meaning, a sentence a line (nothing for kinds the fields above say whole)."""
    detail = entry.get("detail_shown", entry.get("detail")) or {}
    if not isinstance(detail, dict):
        return []
    if entry["kind"] == "fright" and isinstance(detail.get("check"), dict):
        return _fright(entry["character"] or "", detail)
    if entry["kind"] == "fright" and detail.get("purpose") == "table" and detail.get("entry") is not None:
        text = pick(str(detail.get("ja") or ""), str(detail.get("en") or ""))  # a fright's table roll
        return [_("fright table {entry}: {text}").format(entry=detail["entry"], text=text).rstrip(": ")]
    if entry["kind"] == "check" and ("terms" in detail or "sides" in detail or "hider" in detail):
        return _check(entry, detail)
    if entry["kind"] == "table":
        return [str(line) for line in detail.get("lines") or []]
    try:
        return _plain(entry["kind"], entry["character"] or "", detail)
    except (KeyError, TypeError, ValueError):  # an older or unusual record: its keys are listed
        return []


def _plain(kind: str, name: str, detail: dict[str, Any]) -> list[str]:
    """A scenario's start and end, a disappearance and its end, an award: one sentence
    each (a reunion check a line), from the record's fields."""
    action = detail.get("action")
    if kind == "scenario" and action == "start":
        names = ", ".join(map(str, detail["participants"]))
        return [_("scenario #{number} {title} began with {names}").format(names=names, **detail)]
    if kind == "scenario" and action == "end":
        lines = [_("scenario #{number} {title} ended").format(**detail)]
        for r in detail.get("reunions") or []:
            words = (
                _("reunion check of {name}: {roll}, needed {threshold} or less: reunited")
                if r["success"]
                else _("reunion check of {name}: {roll}, needed {threshold} or less: still missing")
            )
            lines.append(words.format(name=r["character"], roll=r["roll"], threshold=r["threshold"]))
        return lines
    if kind == "missing" and action == "mark":
        return [_("{name} went missing (reunion die 1d{faces})").format(name=name, faces=int(detail["faces"]))]
    if kind == "missing" and action == "found":
        return [_("{name} was found (missing since #{seq})").format(name=name, seq=int(detail["since_seq"]))]
    if kind in _MORE:
        return _MORE[kind](name, detail)
    if kind == "reunion" and {"roll", "success", "threshold"} <= set(detail):
        words = (
            _("reunion check of {name}: {roll}, needed {threshold} or less: reunited")
            if detail["success"]
            else _("reunion check of {name}: {roll}, needed {threshold} or less: still missing")
        )
        lines = [words.format(name=name, roll=detail["roll"], threshold=detail["threshold"])]
        if detail.get("on_behalf_of"):  # the missing character's player makes the roll (services.scenarios.runs)
            lines.append(_("rolled for {player}, who plays {name}").format(player=detail["on_behalf_of"], name=name))
        return lines
    if kind == "award" and {"cp", "cp_awarded", "cp_total"} <= set(detail):
        return [
            _("{cp:+d} CP awarded; awarded in all {awarded} CP, CP total {total}").format(
                cp=int(detail["cp"]), awarded=detail["cp_awarded"], total=detail["cp_total"]
            )
        ]
    return []


def untold(entry: dict[str, Any]) -> dict[str, Any]:
    """The detail keys `story` does not put into words (listed as they are)."""
    detail = entry.get("detail_shown", entry.get("detail")) or {}
    if not isinstance(detail, dict) or not story(entry):
        return detail if isinstance(detail, dict) else {}
    return {key: value for key, value in detail.items() if key not in TOLD.get(entry["kind"], set())}


def _fright(name: str, detail: dict[str, Any]) -> list[str]:
    from campaign.cli.fright import will_modifiers
    from campaign.core.applied_effects import applied_effect
    from campaign.effect_words import effect_lines

    check = detail["check"]
    lines = [
        _("Will roll: {modifiers} → target {target}").format(
            modifiers=" ".join(will_modifiers(SimpleNamespace(**{"penalties": [], **check}))), target=check["target"]
        )
    ]
    table = detail.get("table")
    if isinstance(table, dict) and table.get("entry") is not None:
        text = pick(str(table.get("ja") or ""), str(table.get("en") or ""))
        lines.append(_("fright table {entry}: {text}").format(entry=table["entry"], text=text).rstrip(": "))
    for record in detail.get("effects") or []:
        effect = applied_effect(record) if isinstance(record, dict) else None
        if effect is not None:  # an unknown or older shape: its codes stay in --json
            lines += effect_lines(name, effect)
    lines += [str(note) for note in detail.get("notes") or [] if isinstance(note, str)]
    return lines


def _check_view(side: dict[str, Any]) -> CheckRoll:
    """A recorded check as the CheckRoll the check command rendered (the record holds its fields)."""
    from campaign.core.check_results import Scaling, Term
    from campaign.services.checks.records import CheckRoll

    terms = tuple(Term(str(term.get("label")), int(term.get("value") or 0)) for term in side.get("terms") or ())
    scaling = side.get("scaling")
    return CheckRoll(
        expression=str(side.get("expression") or ""),
        dice=tuple(side.get("dice") or ()),
        kept=tuple(side.get("kept") or ()),
        dice_count=int(side.get("dice_count") or 0),
        terms=terms,
        total=int(side.get("total") or 0),
        target=side.get("target"),
        compare=side.get("compare"),
        outcome=side.get("outcome"),
        success=side.get("success"),
        critical=side.get("critical"),
        margin=side.get("margin"),
        skipped=side.get("skipped"),
        scaling=None
        if not scaling
        else Scaling(int(scaling.get("doubles") or 0), int(scaling.get("halves") or 0), int(scaling["unscaled"])),
    )


def _contest_line(role: str, side: dict[str, Any], result: str) -> str:
    """`能動 鈴音: 【技】3 + 2D6[4,5] + 2 = 14 → 勝ち`: a row of the command's contest table."""
    from campaign.cli.check import breakdown, critical_mark

    view = _check_view(side)
    return f"{role} {side.get('name')}: {breakdown(view)} = {side.get('total')} → {result}{critical_mark(view)}"


def _check(entry: dict[str, Any], detail: dict[str, Any]) -> list[str]:
    from campaign.cli.check import check_line

    if "sides" in detail:  # an opposed check: as `check oppose` printed it
        lines = [
            _contest_line(
                _("active") if side.get("role") == "active" else _("passive"),
                side,
                _("win") if side.get("name") == detail.get("winner") else _("lose"),
            )
            for side in detail["sides"]
        ]
        return [*lines, _("winner: {winner}").format(winner=detail.get("winner"))]
    if "hider" in detail:  # hiding: as `check hide` printed it
        lines = [_contest_line(_("hides"), detail["hider"], _("hidden") if detail.get("hidden") else _("found"))]
        for side in detail.get("observers") or []:
            band = (side.get("band") or {}).get("label")
            noticed = _("noticed") if side.get("noticed") else _("missed")
            lines.append(_contest_line(_("watches"), side, f"{noticed} ({band})" if band else noticed))
        noticed_by = detail.get("noticed_by") or []
        lines.append(
            _("noticed by: {names}").format(names=", ".join(noticed_by))
            if noticed_by
            else _("hidden (no observer beat the hider)")
        )
        return lines
    view = {**detail, "dice": entry.get("dice") or detail.get("dice"), "total": entry.get("total", detail.get("total"))}
    lines = [check_line(_check_view(view))]
    band = detail.get("band")
    if isinstance(band, dict) and detail.get("margin") is not None:
        lines.append(
            _("margin {margin:+d} → band {band}: {words}").format(
                margin=detail["margin"], band=band.get("label"), words=pick(str(band.get("ja")), str(band.get("en")))
            )
        )
    if detail.get("participants"):
        lines.append(_("together: {names}").format(names=", ".join(detail["participants"])))
    return lines


def _setting_value(value: object) -> str:
    """A setting's value as `settings KEY=VALUE` takes it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


def _status(name: str, detail: dict[str, Any]) -> list[str]:
    words = {"dead": _("{name} died"), "retired": _("{name} retired"), "active": _("{name} is back in play")}
    return [words[detail["status"]].format(name=name)] if detail["status"] in words else []


def _trait(name: str, detail: dict[str, Any]) -> list[str]:
    from campaign.labels import category_label

    trait = detail["trait"]
    if detail.get("action") == "add":
        return [
            _("{name} gains the trait {trait} ({cp:+d} CP, {category})").format(
                name=name, trait=trait["name"], cp=int(trait["cp"]), category=category_label(str(trait["category"]))
            )
        ]
    if detail.get("action") == "rename":
        return [_("trait {before} renamed to {after}").format(before=detail["before"], after=trait["name"])]
    return []


def _time(name: str, detail: dict[str, Any]) -> list[str]:
    if detail.get("action") != "advance":
        return []
    from campaign.effect_words import span_label
    from campaign.labels import clock_label

    def when(reading: dict[str, Any]) -> str:  # by its clock; its words only if it has none
        if isinstance(reading.get("clock"), int):
            return clock_label(reading["clock"])
        return pick(str(reading.get("text_ja") or reading["text"]), str(reading["text"]))

    seconds = detail.get("seconds")
    span = (
        span_label(seconds)
        if isinstance(seconds, int)
        else pick(str(detail.get("span_ja") or detail["span"]), str(detail["span"]))
    )
    return [
        _("the clock moved {span}: {start} → {end}").format(
            span=span, start=when(detail["from"]), end=when(detail["to"])
        )
    ]


def _condition(name: str, detail: dict[str, Any]) -> list[str]:
    """A condition put on or cleared, and the penalty after waking it left, in the words
    `condition add` and `condition clear` print (the entry's codes, campaign.labels)."""
    from campaign.core.condition_view import ConditionView
    from campaign.labels import condition_name, condition_shown_words, follow_up_begun

    if detail.get("action") == "add":
        added = ConditionView.from_record(detail["condition"])
        return [_("{character}: {condition}").format(character=name, condition=condition_shown_words(added))]
    if detail.get("action") != "clear":
        return []
    cleared = ", ".join(condition_name(ConditionView.from_record(c)) for c in detail["conditions"])
    lines = [_("{character}: cleared {conditions}").format(character=name, conditions=cleared)]
    follow_ups = [ConditionView.from_record(follow) for follow in detail.get("follow_ups") or []]
    return lines + [follow_up_begun(name, follow) for follow in follow_ups]


def _pool(name: str, detail: dict[str, Any]) -> list[str]:
    return [
        _("{name}: {pool} {before} → {after} (of {max})").format(
            name=name, pool=detail["pool"], before=detail["before"], after=detail["after"], max=detail["max"]
        )
    ]


_MORE = {
    "condition": _condition,
    "campaign": lambda name, d: [_("campaign {name} created, ruleset {ruleset}").format(**d)],
    "player": lambda name, d: [_("player {player} added").format(**d)],
    "relation": lambda name, d: [_("{a} and {b} are related").format(a=d["from"], b=d["to"])],
    "note": lambda name, d: [_("note on the scenario: {note}").format(note=d["note"])],
    "seal": lambda name, d: [_("sealed through #{seq}").format(seq=int(d["sealed_through"]))],
    "setting": lambda name, d: [
        _("setting {key}: {before} → {after}").format(
            key=key, before=_setting_value(change["before"]), after=_setting_value(change["after"])
        )
        for key, change in d["changes"].items()
    ],
    "status": _status,
    "time": _time,
    "trait": _trait,
    "damage": _pool,
    "heal": _pool,
}

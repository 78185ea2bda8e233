"""`table list` / `table roll` and the BCDice table commands of `campaign roll` (R3).

A table roll is a lookup: it is logged and changes no state. The first 3d6 is the parent
ledger entry (kind "table"); every extra roll its entry asked for (roll twice, reroll,
roll on another table) and every die its text names ("1d-3 turns", rolled when the
entry comes up) is a sub-entry (kind "table", parent_seq = the parent), written in the
same transaction, in the order the dice were rolled.
"""

from __future__ import annotations

import unicodedata
from dataclasses import fields, is_dataclass
from typing import Any

from campaign import ledger
from campaign.core.dice_source import DiceSource, about
from campaign.core.effects_vocabulary import DIRECTIVES
from campaign.core.table_model import Entry, Table
from campaign.core.table_roll import RerollQuestion, TableRoll, TextRoll, roll_on_table, table_for_command
from campaign.db.database import Database
from campaign.errors import BadInput, NotFound
from campaign.seeds import load_tables
from campaign.services.common import campaign_transaction, character_named, clean_text
from campaign.services.history import entry_view
from campaign.services.presence import roll_warnings, with_warnings

MODIFIER_LIMIT = 100


def list_tables() -> list[dict[str, Any]]:
    """Every seed table: what `table list` shows."""
    return [
        {"command": t.command, "name": t.name, "name_en": t.name_en, "dice": t.dice, "range": [t.lo, t.hi],
         "entries": len(t.entries), "modifiable": t.modifiable, "source": t.source or None,
         "note_ja": t.note_ja or None, "note_en": t.note_en or None}
        for t in sorted(load_tables().values(), key=lambda t: t.command)
    ]


def find_table(text: str, modifier: int = 0) -> tuple[Table, int]:
    """A table by BCDice command (`CRT`, `fear+5`), Japanese name or English name.

    Returns the table and the total modifier (the command's `+n` plus `modifier`).
    """
    tables = load_tables()
    wanted = unicodedata.normalize("NFC", text).strip()
    found = table_for_command(wanted, tables)
    if found is None:
        for table in tables.values():
            if wanted == table.name or wanted.casefold() == table.name_en.casefold():
                found = (table, 0)
                break
    if found is None:
        known = ", ".join(f"{t.command} ({t.name})" for t in sorted(tables.values(), key=lambda t: t.command))
        head = wanted.split("+")[0].split("-")[0].strip().upper()
        if head in tables and not tables[head].modifiable:
            raise BadInput(f"table {head} takes no modifier (only FEAR+n does)")
        raise NotFound(f"no table {wanted!r}; tables: {known}")
    table, from_command = found
    total = from_command + modifier
    if total and not table.modifiable:
        raise BadInput(f"table {table.command} takes no modifier (only FEAR+n does)")
    if abs(total) > MODIFIER_LIMIT:
        raise BadInput(f"table modifier {total:+d} is out of range (at most ±{MODIFIER_LIMIT})")
    return table, total


def expression_for(command: str, modifier: int) -> str:
    return f"{command}{modifier:+d}" if modifier else command


# --- JSON for the ledger ---


def _plain(value: Any) -> Any:
    if is_dataclass(value):
        return effect_data(value)
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


def effect_data(effect: Any) -> dict[str, Any]:
    """A seed effect (or trait option) as JSON: its kind and every field that is set."""
    out: dict[str, Any] = {}
    kind = getattr(effect, "kind", None)
    if kind is not None:
        out["kind"] = kind
    for field in fields(effect):
        value = getattr(effect, field.name)
        if value is None or value == () or (field.name == "gm_choice" and not value):
            continue
        out[field.name] = dict(value) if field.name == "overrides" else _plain(value)
    return out


def entry_data(entry: Entry) -> dict[str, Any]:
    data = {"range": [entry.lo, entry.hi], "label": entry.label, "ja": entry.ja, "en": entry.en,
            "tags": list(entry.tags), "effects": [effect_data(e) for e in entry.effects]}
    if entry.rolls:
        data["rolls"] = [{"dice": d.dice, "min": d.minimum, "ja": d.ja, "en": d.en} for d in entry.rolls]
    return data


def text_roll_data(rolled: TextRoll) -> dict[str, Any]:
    return {"dice": rolled.spec.dice, "faces": list(rolled.faces), "value": rolled.value,
            "min": rolled.spec.minimum, "ja": rolled.spec.ja, "en": rolled.spec.en}


def text_roll_label(rolled: TextRoll) -> str:
    return f"本文のダイス / dice in the text: {rolled.spec.ja} / {rolled.spec.en}"


def directive_text(directive: Any, tables: dict[str, Table]) -> str:
    """A short bilingual label for why an extra roll was made."""
    kind = directive.kind
    if kind == "roll_twice":
        text = "2回振って両方適用 / roll twice, apply both" if directive.apply == "both" else \
            "2回振って選ぶ / roll twice, choose one"
    elif kind == "reroll":
        text = "振り直し / reroll"
    else:
        other = tables.get(directive.table)
        text = f"{other.name if other else directive.table}を引く / roll on {other.name_en if other else directive.table}"
    only_ja, only_en = getattr(directive, "only_if_ja", None), getattr(directive, "only_if_en", None)
    if only_ja or only_en:
        text += f" (「{only_ja}」の場合のみ / only if {only_en})"
    if getattr(directive, "gm_choice", False):
        text += " [GMの判断 / the GM's choice]"
    return text


def _summary(roll: TableRoll) -> str:
    clamped = "" if roll.raw == roll.result else f" (raw {roll.raw})"
    return f"{roll.entry.label}{clamped}: {roll.text('ja')} / {roll.text('en')}"


def _notes(roll: TableRoll, tables: dict[str, Table], indent: str) -> list[str]:
    lines = []
    for declined in roll.declined:
        lines.append(indent + f"  (GMは振り直さない / the GM declined: {directive_text(declined, tables)})")
    if roll.stood:
        lines.append(indent + "  (振り直しの結果がまた振り直しなので、そのまま適用 / "
                              "a reroll gave a reroll result again: it stands)")
    return lines


def describe(rolled: TableRoll, first_sub_seq: int) -> list[str]:
    """Human lines: the entry's summary (with its text dice), then each extra roll
    (numbered by its seq)."""
    tables = load_tables()
    lines = []
    for index, (depth, step) in enumerate(rolled.steps()):
        indent = "  " * depth
        if isinstance(step, TextRoll):
            faces = ",".join(map(str, step.faces))
            lines.append(indent + f"↳ #{first_sub_seq + index - 1} {text_roll_label(step)}: "
                                  f"{step.spec.dice} [{faces}]={step.value}")
            continue
        if depth == 0:
            lines.append(_summary(step))
        else:
            dice = ",".join(map(str, step.dice))
            lines.append(indent + f"↳ #{first_sub_seq + index - 1} {directive_text(step.directive, tables)}: "
                                  f"{expression_for(step.command, step.modifier)} [{dice}]={step.result}")
            lines.append(indent + "  " + _summary(step))
        lines.extend(_notes(step, tables, indent))
    if any(r.truncated for _, r in rolled.walk()):
        lines.append("(further rolls not made: nesting limit reached / 入れ子の上限に達したので打ち切り)")
    return lines


def roll_detail(roll: TableRoll, tables: dict[str, Table]) -> dict[str, Any]:
    table = tables[roll.command]
    return {
        "table": roll.command,
        "name": table.name,
        "name_en": table.name_en,
        "modifier": roll.modifier,
        "raw": roll.raw,
        "result": roll.result,
        "entry": entry_data(roll.entry),
        "text_ja": roll.text("ja"),
        "text_en": roll.text("en"),
        "text_rolls": [text_roll_data(t) for t in roll.text_rolls],
        "directives": [effect_data(e) for e in roll.entry.effects if isinstance(e, DIRECTIVES)],
        "declined": [effect_data(e) for e in roll.declined],
        "reroll_stands": roll.stood,
        "truncated": roll.truncated,
    }


# --- rolling ---


def roll_table(
    db: Database,
    campaign_name: str | None,
    actor: str,
    command_or_name: str,
    source: DiceSource,
    *,
    character: str | None = None,
    modifier: int = 0,
    reason: str | None = None,
    gm_reroll: bool = True,
    ask: RerollQuestion | None = None,
) -> dict[str, Any]:
    """Roll on a table and log it; returns the parent entry (as `history` shows it) with
    its `sub_entries`. `gm_reroll=False`: the GM declines the rerolls a table leaves to
    the GM (YFMB 14, YSFMB 13). `ask` decides conditional rerolls as the dice come up
    (core.table_roll.roll_on_table): the GM's stated facts or questions at the table."""
    reason = clean_text(reason, "--reason")
    table, total_modifier = find_table(clean_text(command_or_name, "table") or "", modifier)
    tables = load_tables()
    with campaign_transaction(db, campaign_name) as (session, campaign):
        row_of = character_named(session, campaign, character) if character else None
        who = row_of.name if row_of is not None else None
        warnings = roll_warnings(session, [row_of] if row_of is not None else [])
        with about(source, who):
            rolled = roll_on_table(table, source, total_modifier, tables=tables, gm_reroll=gm_reroll, ask=ask)
        source.ensure_all_used()
        seq = ledger.next_seq(session, campaign.id)
        steps = list(rolled.steps())
        detail = roll_detail(rolled, tables)
        detail["sub_rolls"] = len(steps) - 1
        detail["lines"] = describe(rolled, seq + 1)
        parent = ledger.append(session, campaign, actor, ledger.NewEntry(
            kind="table", character=who, expression=expression_for(table.command, total_modifier),
            dice=list(rolled.dice), total=rolled.result, source=source.kind, reason=reason, detail=detail,
        ), expect_seq=seq)
        # Which roll asked for each extra one: the nearest shallower roll before it.
        subs = []
        asked_by: list[int] = [seq]  # seq of the latest roll at each depth
        for index, (depth, step) in enumerate(steps[1:], start=1):
            sub_seq = seq + index
            if isinstance(step, TextRoll):  # dice the entry's text names: a leaf
                sub_detail = {"text_roll": text_roll_data(step), "requested_by": asked_by[depth - 1],
                              "depth": depth}
                new = ledger.NewEntry(
                    kind="table", character=who, parent_seq=seq, expression=step.spec.dice,
                    dice=list(step.faces), total=step.value, source=source.kind,
                    reason=text_roll_label(step), detail=sub_detail,
                )
            else:
                sub_detail = roll_detail(step, tables)
                sub_detail["directive"] = effect_data(step.directive)
                sub_detail["requested_by"] = asked_by[depth - 1]
                sub_detail["depth"] = depth
                del asked_by[depth:]
                asked_by.append(sub_seq)
                new = ledger.NewEntry(
                    kind="table", character=who, parent_seq=seq,
                    expression=expression_for(step.command, step.modifier), dice=list(step.dice),
                    total=step.result, source=source.kind, reason=directive_text(step.directive, tables),
                    detail=sub_detail,
                )
            appended = ledger.append(session, campaign, actor, new, expect_seq=sub_seq)
            subs.append(entry_view(appended.record, appended.prev_hash, appended.hash, voided_by=None))
        view = entry_view(parent.record, parent.prev_hash, parent.hash, voided_by=None)
        view["sub_entries"] = subs
        return with_warnings(view, warnings)

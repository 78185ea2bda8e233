"""`table list` / `table roll` and the BCDice table commands of `campaign roll` (docs/rules.md "Tables").

A table roll is a lookup: it is logged and changes no state. The first 3d6 is the parent
ledger entry (kind "table"); every extra roll its entry asked for (roll twice, reroll,
roll on another table) and every die its text names ("1d-3 turns", rolled when the
entry comes up) is a sub-entry (kind "table", parent_seq = the parent), written in the
same transaction, in the order the dice were rolled.

The records hold codes and numbers (the table, the entry by its range, dice by their
index in the entry); campaign.table_labels makes the texts and the printed lines from
them and the seed tables, as `detail_shown`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from campaign import ledger
from campaign.core.dice_source import DiceSource, about
from campaign.core.effects_vocabulary import DIRECTIVES
from campaign.core.table_model import Table
from campaign.core.table_roll import RerollQuestion, TableRoll, TextRoll, roll_on_table, table_for_command
from campaign.db.database import Database
from campaign.errors import BadInput, NotFound
from campaign.i18n import _, pick
from campaign.seeds import load_tables
from campaign.services.characters.presence import roll_warnings, with_warnings
from campaign.services.common import campaign_transaction, character_named, clean_text
from campaign.services.ledger.history import entry_view
from campaign.table_labels import directive_code, entry_code, table_detail, text_roll_code

MODIFIER_LIMIT = 100


@dataclass(frozen=True, slots=True)
class TableSummary:
    """A row of `table list`: `range` the lowest and highest result, `modifiable` whether
    the command takes a `+n` (FEAR+5)."""

    command: str
    name: str
    name_en: str
    dice: str
    range: tuple[int, int]
    entries: int
    modifiable: bool
    source: str | None
    note_ja: str | None
    note_en: str | None


def list_tables() -> list[TableSummary]:
    """Every seed table: what `table list` shows."""
    return [
        TableSummary(
            command=t.command,
            name=t.name,
            name_en=t.name_en,
            dice=t.dice,
            range=(t.lo, t.hi),
            entries=len(t.entries),
            modifiable=t.modifiable,
            source=t.source or None,
            note_ja=t.note_ja or None,
            note_en=t.note_en or None,
        )
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
        known = ", ".join(
            f"{t.command} ({pick(t.name, t.name_en)})" for t in sorted(tables.values(), key=lambda t: t.command)
        )
        head = wanted.split("+")[0].split("-")[0].strip().upper()
        if head in tables and not tables[head].modifiable:
            raise BadInput(_("table {head} takes no modifier (only FEAR+n and REACT±n do)").format(head=head))
        raise NotFound(_("no table {wanted!r}; tables: {known}").format(wanted=wanted, known=known))
    table, from_command = found
    total = from_command + modifier
    if total and not table.modifiable:
        raise BadInput(
            _("table {command} takes no modifier (only FEAR+n and REACT±n do)").format(command=table.command)
        )
    if abs(total) > MODIFIER_LIMIT:
        raise BadInput(
            _("table modifier {total:+d} is out of range (at most ±{MODIFIER_LIMIT})").format(
                total=total, MODIFIER_LIMIT=MODIFIER_LIMIT
            )
        )
    return table, total


def expression_for(command: str, modifier: int) -> str:
    return f"{command}{modifier:+d}" if modifier else command


# --- the record: codes and numbers (campaign.table_labels makes the words) ---


def roll_detail(roll: TableRoll) -> dict[str, Any]:
    """One table roll as its record holds it: the table, modifier, raw and clamped result,
    the entry by its range, its text dice and directives by their index in the entry."""
    return {
        "table": roll.command,
        "modifier": roll.modifier,
        "raw": roll.raw,
        "result": roll.result,
        "entry": entry_code(roll.entry),
        "text_rolls": [text_roll_code(t, roll.entry) for t in roll.text_rolls],
        "directives": [directive_code(e, roll.entry) for e in roll.entry.effects if isinstance(e, DIRECTIVES)],
        "declined": [directive_code(e, roll.entry) for e in roll.declined],
        "reroll_stands": roll.stood,
        "truncated": roll.truncated,
    }


def shown_view(appended: Any, subs: Sequence[Any] = ()) -> dict[str, Any]:
    """An appended entry as `history show` shows it, with `detail_shown` (the words)."""
    view = entry_view(appended.record, appended.prev_hash, appended.hash, voided_by=None)
    shown = table_detail(appended.record, [sub.record for sub in subs])
    if shown != view["detail"]:
        view["detail_shown"] = shown
    return view


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
        detail = roll_detail(rolled)
        detail["sub_rolls"] = len(steps) - 1
        parent = ledger.append(
            session,
            campaign,
            actor,
            ledger.NewEntry(
                kind="table",
                character=who,
                expression=expression_for(table.command, total_modifier),
                dice=list(rolled.dice),
                total=rolled.result,
                source=source.kind,
                reason=reason,
                detail=detail,
            ),
            expect_seq=seq,
        )
        # Which roll asked for each extra one: the nearest shallower roll before it.
        appended_subs = []
        asked_by: list[tuple[int, TableRoll]] = [(seq, rolled)]  # the latest roll at each depth
        for index, (depth, step) in enumerate(steps[1:], start=1):
            sub_seq = seq + index
            asker_seq, asker = asked_by[depth - 1]
            if isinstance(step, TextRoll):  # dice the entry's text names: a leaf
                sub_detail = {
                    "text_roll": text_roll_code(step, asker.entry),
                    "table": asker.command,
                    "entry": entry_code(asker.entry),
                    "requested_by": asker_seq,
                    "depth": depth,
                }
                new = ledger.NewEntry(
                    kind="table",
                    character=who,
                    parent_seq=seq,
                    expression=step.spec.dice,
                    dice=list(step.faces),
                    total=step.value,
                    source=source.kind,
                    reason=None,
                    detail=sub_detail,
                )
            else:
                sub_detail = roll_detail(step)
                sub_detail["directive"] = directive_code(step.directive, asker.entry)
                sub_detail["requested_in"] = {"table": asker.command, "entry": entry_code(asker.entry)}
                sub_detail["requested_by"] = asker_seq
                sub_detail["depth"] = depth
                del asked_by[depth:]
                asked_by.append((sub_seq, step))
                new = ledger.NewEntry(
                    kind="table",
                    character=who,
                    parent_seq=seq,
                    expression=expression_for(step.command, step.modifier),
                    dice=list(step.dice),
                    total=step.result,
                    source=source.kind,
                    reason=None,
                    detail=sub_detail,
                )
            appended_subs.append(ledger.append(session, campaign, actor, new, expect_seq=sub_seq))
        view = shown_view(parent, appended_subs)
        view["sub_entries"] = [shown_view(sub) for sub in appended_subs]
        return with_warnings(view, warnings)

"""`ref list` / `ref show [--roll]`: the reference tables of docs/rules.md "Reference tables".

Reading a reference table changes nothing and writes nothing. Rolling on a rollable one
(hit location) is logged like `table roll`: one ledger entry of kind "table" whose
expression is the table's command (HIT) and whose detail names the reference table and the row
by its number (campaign.table_labels shows the row's words).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from campaign import ledger
from campaign.core.dice_source import DiceSource
from campaign.core.reference import RefRoll, RefTable, find_reference
from campaign.db.database import Database
from campaign.errors import BadInput, NotFound
from campaign.i18n import _, pick
from campaign.seeds import load_references
from campaign.services.common import campaign_transaction, character_named, clean_text
from campaign.services.ledger.history import entry_view
from campaign.table_labels import reference_row, table_detail


@dataclass(frozen=True, slots=True)
class ReferenceSummary:
    """A row of `ref list`: `origin` the seed it summarises, `rows` how many it has."""

    key: str
    name: str
    name_en: str
    origin: str
    source: str
    rows: int
    rollable: bool
    command: str | None
    aliases: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ReferenceColumn:
    key: str
    ja: str
    en: str


@dataclass(frozen=True, slots=True)
class ReferenceShown(ReferenceSummary):
    """`ref show`: the table's notes, columns and rows; each row of `data` stays a dict
    keyed by the columns' keys (the table's own shape, as a roll's record holds it)."""

    note_ja: str | None
    note_en: str | None
    columns: tuple[ReferenceColumn, ...]
    data: tuple[dict[str, Any], ...]


def _summary_fields(table: RefTable) -> dict[str, Any]:
    return dict(
        key=table.key,
        name=table.name,
        name_en=table.name_en,
        origin=table.origin,
        source=table.source,
        rows=len(table.rows),
        rollable=table.rollable,
        command=table.command,
        aliases=tuple(table.aliases),
    )


def list_references() -> list[ReferenceSummary]:
    """Every reference table, in seed order (000, 001, 002)."""
    return [ReferenceSummary(**_summary_fields(table)) for table in load_references().values()]


def reference_named(name: str) -> RefTable:
    wanted = clean_text(name, "table name") or ""
    table = find_reference(wanted, load_references())
    if table is None:
        known = ", ".join(pick(t.name, t.name_en) for t in load_references().values())
        raise NotFound(_("no reference table {wanted!r}; tables: {known}").format(wanted=wanted, known=known))
    return table


def show_reference(name: str) -> ReferenceShown:
    """One table: its columns, notes and every row (cells keyed by column)."""
    table = reference_named(name)
    return ReferenceShown(
        **_summary_fields(table),
        note_ja=table.note_ja or None,
        note_en=table.note_en or None,
        columns=tuple(ReferenceColumn(key=c.key, ja=c.ja, en=c.en) for c in table.columns),
        data=tuple(reference_row(table, i) for i in range(len(table.rows))),
    )


def roll_reference_table(
    db: Database,
    campaign_name: str | None,
    actor: str,
    name: str,
    source: DiceSource,
    *,
    character: str | None = None,
    reason: str | None = None,
) -> dict[str, Any]:
    """Roll 3d6 on a rollable reference table and log it; returns the entry as `history`
    shows it, plus the table."""
    from campaign.core.reference import roll_reference
    from campaign.services.characters.presence import with_warnings

    reason = clean_text(reason, "--reason")
    table = reference_named(name)
    if not table.rollable:
        rollable = ", ".join(pick(t.name, t.name_en) for t in load_references().values() if t.rollable)
        raise BadInput(
            _("{name} is a look-up, not a roll table (rollable: {rollable})").format(
                name=pick(table.name, table.name_en), rollable=rollable
            )
        )
    with campaign_transaction(db, campaign_name) as (session, campaign):
        from campaign.core.dice_source import about
        from campaign.services.characters.presence import roll_warnings

        row_of = character_named(session, campaign, character) if character else None
        who = row_of.name if row_of is not None else None
        warnings = roll_warnings(session, [row_of] if row_of is not None else [])
        with about(source, who):
            rolled: RefRoll = roll_reference(table, source)
        source.ensure_all_used()
        index = table.rows.index(rolled.row)
        row = {"index": index + 1, "roll": [rolled.row.lo, rolled.row.hi]}  # the words: table_labels
        appended = ledger.append(
            session,
            campaign,
            actor,
            ledger.NewEntry(
                kind="table",
                character=who,
                expression=table.command,
                dice=list(rolled.dice),
                total=rolled.total,
                source=source.kind,
                reason=reason,
                detail={"reference": table.key, "table": table.command, "result": rolled.total, "row": row},
            ),
        )
        view = entry_view(appended.record, appended.prev_hash, appended.hash, voided_by=None)
        view["detail_shown"] = table_detail(appended.record)
        view["sub_entries"] = []
        return with_warnings(view, warnings)

"""`char import` / `char export`: whole sheets in and out, in the template of
core.sheet_template (CSV or JSON).

Everything is checked before anything is written: names resolved through the one stat
resolver, unknown fields refused with their names, duplicates refused. Each character
is then one ledger entry (its stats, CP total, paid traits, skills, notes and items),
voidable like any other; `dry_run` returns the same plan and writes nothing.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from campaign.core.sheet_template import FIXED, SKILL, TRAIT, SheetDraft, parse_record, sheet_record
from campaign.core.stat_names import resolve_stat
from campaign.core.text_rule import spreadsheet_safe, spreadsheet_value
from campaign.db.database import Database
from campaign.db.models import Character
from campaign.errors import BadInput, RuleRefused
from campaign.i18n import _
from campaign.projection import ops as o
from campaign.services.characters.roster import canonical_stats, list_characters, show_character
from campaign.services.characters.sheets import _difficulty, _level, _line
from campaign.services.common import campaign_transaction, clean_name, clean_person_name, player_named
from campaign.services.recording import recording

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from campaign.db.models import Campaign, Player

# A sheet checked and ready to record: (stats, owner, skills as SkillAdded's fields,
# traits (name, category, cp, counted, outside), notes, items). A stat's value is an
# int, or the exact text of a decimal one (core.stat_names), which the models call int.
_Plan = tuple[
    dict[str, Any],
    "Player | None",
    list[tuple[str, int, str | None, str | None]],
    list[tuple[str, str, int, bool, int | None]],
    list[str],
    list[str],
]

FORMATS = ("csv", "json")
IMPORT_FORMATS = (*FORMATS, "ccfolia")
RECORD_LIMIT = 500  # characters in one file
FIELD_LIMIT = 10_000  # fields of one sheet (stats, traits, skills, notes ...): docs/sheets.md


@dataclass(frozen=True, slots=True)
class ImportedSheet:
    name: str
    kind: str
    player: str | None
    cp_total: int
    stats: dict[str, Any]
    skills: int
    traits: int
    seq: int | None  # None in a dry run
    noted_params: tuple[str, ...] = ()  # a ココフォリア piece's params kept as notes
    not_kept: tuple[str, ...] = ()  # what the piece holds that the campaign does not keep


@dataclass(frozen=True, slots=True)
class SheetImport:
    dry_run: bool
    characters: tuple[ImportedSheet, ...]


def _pieces(text: str) -> list[Any]:
    """ココフォリア pieces: one document, a JSON list, or one per line (`char export --ccfolia`)."""
    try:
        data = json.loads(text)
    except ValueError:
        try:
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError as exc:
            raise BadInput(_("not a ココフォリア piece (JSON): {exc}").format(exc=exc)) from None
    return data if isinstance(data, list) else [data]


def read_records(text: str, fmt: str, is_stat: Callable[[str], bool] | None = None) -> list[dict[str, Any]]:
    """The template records of a CSV or JSON file (a list, or {"characters": [...]}), or
    of ココフォリア pieces (bridges.ccfolia_sheet; `is_stat` tells stats from skills)."""
    if fmt not in IMPORT_FORMATS:
        raise BadInput(
            _("--format must be one of {value}, not {fmt!r}").format(value=", ".join(IMPORT_FORMATS), fmt=fmt)
        )
    if fmt == "ccfolia":
        from campaign.bridges.ccfolia_sheet import piece_record

        assert is_stat is not None  # pieces are told apart by the ruleset's stat names
        records = [piece_record(doc, f"piece {i}", is_stat) for i, doc in enumerate(_pieces(text), 1)]
    elif fmt == "json":
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise BadInput(_("not JSON: {exc}").format(exc=exc)) from None
        found = data.get("characters") if isinstance(data, dict) else data
        if not isinstance(found, list) or not all(isinstance(r, dict) for r in found):
            raise BadInput(_('a JSON sheet file is a list of objects (or {"characters": [...]})'))
        records = found
    else:
        reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
        if reader.fieldnames is None:
            raise BadInput(_("the CSV file is empty"))
        _refuse_wide(len(reader.fieldnames), 1)  # every row has the header's fields: no row read
        if len(set(reader.fieldnames)) != len(reader.fieldnames) or any(not f for f in reader.fieldnames):
            raise BadInput(_("the CSV header has an empty or repeated column"))
        records = [dict(row) for row in reader]
        if any(None in row for row in records):
            raise BadInput(_("a CSV row has more cells than the header"))
        # the formula guard export_sheets put in front of a cell comes off (core.text_rule)
        records = [{spreadsheet_value(k): spreadsheet_value(v) for k, v in row.items()} for row in records]
    if len(records) > RECORD_LIMIT:
        raise BadInput(_("at most {RECORD_LIMIT} characters in one file").format(RECORD_LIMIT=RECORD_LIMIT))
    for number, record in enumerate(records, 1):
        _refuse_wide(len(record), number)
    return records


def _refuse_wide(fields: int, number: int) -> None:
    """A sheet past FIELD_LIMIT is refused before any of its fields is read."""
    if fields > FIELD_LIMIT:
        raise BadInput(
            _("character {number} has {fields} fields: a sheet holds at most {limit}").format(
                number=number, fields=fields, limit=FIELD_LIMIT
            )
        )


def import_sheets(
    db: Database,
    campaign_name: str | None,
    actor: str,
    text: str,
    fmt: str,
    *,
    player: str | None = None,
    dry_run: bool = False,
) -> SheetImport:
    with campaign_transaction(db, campaign_name) as (session, campaign):
        from campaign.seeds import stat_names_for

        aliases = stat_names_for(campaign.ruleset).aliases

        def is_stat(key: str) -> bool:
            return resolve_stat(key, (), aliases).known

        records = read_records(text, fmt, is_stat)
        if not records:
            raise BadInput(_("the file holds no character"))
        from campaign.bridges.ccfolia_sheet import NOT_KEPT, NOTED_PARAMS

        noted = [tuple(record.pop(NOTED_PARAMS, ())) for record in records]
        not_kept = [tuple(record.pop(NOT_KEPT, ())) for record in records]

        drafts = [
            parse_record(r, f"character {i} ({r.get('name') or '?'})", is_stat, player)
            for i, r in enumerate(records, 1)
        ]
        names = [clean_person_name(d.name, "character") for d in drafts]
        if len(set(names)) != len(names):
            raise BadInput(_("the file names a character twice"))
        existing = set(session.scalars(select(Character.name).where(Character.campaign_id == campaign.id)))
        clash = [n for n in names if n in existing]
        if clash:
            raise RuleRefused(
                _("{value} already in {name!r}: nothing imported").format(
                    value=", ".join(map(repr, clash)), name=campaign.name
                )
            )
        planned = [_plan(session, campaign, d, name, aliases) for d, name in zip(drafts, names)]
        results = []
        for draft, name, (stats, owner, skills, traits, notes, items), params, lost in zip(
            drafts, names, planned, noted, not_kept, strict=True
        ):
            seq = None
            if not dry_run:
                with recording(session, campaign, actor, "character") as entry:
                    character = entry.add_character(name, draft.kind, owner, None, stats, draft.cp)
                    entry.add_traits(character, traits)
                    with entry.batch():
                        for skill in skills:
                            entry.sheet(character, o.SkillAdded(name, *skill))
                        for line in notes:
                            entry.sheet(character, o.NoteAdded(name, line))
                        for line in items:
                            entry.sheet(character, o.ItemAdded(name, line))
                    entry.describe(character=name, reason="sheet imported", detail={"action": "import", "format": fmt})
                seq = entry.seq
            results.append(
                ImportedSheet(
                    name,
                    draft.kind,
                    owner.name if owner else None,
                    draft.cp,
                    stats,
                    len(skills),
                    len(traits),
                    seq,
                    params,
                    lost,
                )
            )
        return SheetImport(dry_run=dry_run, characters=tuple(results))


def _plan(
    session: Session, campaign: Campaign, draft: SheetDraft, name: str, aliases: Mapping[str, Iterable[str]]
) -> _Plan:
    from campaign.services.characters.traits import _clean_category, _clean_cp

    if draft.kind == "pc" and draft.player is None:
        raise BadInput(_("{name}: a PC needs a player (a player column, or --player)").format(name=name))
    owner = player_named(session, campaign, draft.player) if draft.player else None
    stats = canonical_stats(campaign, draft.stats, {}, new_stat=False, who=name)
    skills: list[tuple[str, int, str | None, str | None]] = []
    seen: set[str] = set()
    for skill in draft.skills:
        skill_name = clean_name(skill.name, "skill")
        if skill_name.casefold() in seen:
            raise BadInput(
                _("{name}: the skill {skill_name!r} is given twice").format(name=name, skill_name=skill_name)
            )
        seen.add(skill_name.casefold())
        attr = None
        if skill.attr is not None:
            found = resolve_stat(skill.attr, stats, aliases)
            if not found.known:
                raise RuleRefused(
                    _("{name}: skill {skill_name}: {attr!r} is not a stat").format(
                        name=name, skill_name=skill_name, attr=skill.attr
                    )
                )
            attr = found.name
        skills.append((skill_name, _level(skill.level), attr, _difficulty(skill.difficulty)))
    traits: list[tuple[str, str, int, bool, int | None]] = []
    seen = set()
    for trait in draft.traits:
        trait_name = clean_name(trait.name, "trait")
        if trait_name.casefold() in seen:
            raise BadInput(
                _("{name}: the trait {trait_name!r} is given twice").format(name=name, trait_name=trait_name)
            )
        seen.add(trait_name.casefold())
        cp = _clean_cp(trait.cp)
        traits.append((trait_name, _clean_category(trait.category, cp), cp, trait.counted, trait.outside))
    notes = [_line(line, "note") for line in draft.notes]
    items = [_line(line, "item") for line in draft.items]
    return stats, owner, skills, traits, notes, items


def export_sheets(db: Database, campaign_name: str | None, fmt: str, names: list[str] | None = None) -> str:
    """The characters (all, dead and retired included, or `names`) in the template."""
    if fmt not in FORMATS:
        raise BadInput(_("--format must be one of {value}, not {fmt!r}").format(value=", ".join(FORMATS), fmt=fmt))
    if names:
        sheets = [show_character(db, campaign_name, n) for n in names]
    else:
        sheets = list_characters(db, campaign_name, include_gone=True)
    records = [sheet_record(s) for s in sheets]
    if fmt == "json":
        return json.dumps({"characters": records}, ensure_ascii=False, indent=2) + "\n"
    columns = list(FIXED)
    for record in records:
        for key in record:
            if key not in columns and not key.startswith((SKILL, TRAIT)) and key not in ("note", "item"):
                columns.append(key)
    for prefix in (SKILL, TRAIT):
        columns += [k for k in dict.fromkeys(k for r in records for k in r) if k.startswith(prefix)]
    columns += ["note", "item"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    # no cell runs as a formula when the file is opened in a spreadsheet (core.text_rule)
    writer.writerow([spreadsheet_safe(column) for column in columns])
    for record in records:
        writer.writerow([_cell(record.get(column)) for column in columns])
    return out.getvalue()


def _cell(value: Any) -> Any:
    return spreadsheet_safe(value) if isinstance(value, str) else ("" if value is None else value)

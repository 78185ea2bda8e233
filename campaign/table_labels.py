"""Words for table records: a table roll's codes become the entry texts and printed lines.

A `table roll` (and `roll CRT`, `ref show --roll`, a table result imported from
ココフォリア) records which table, the modifier, the raw and clamped result, the entry by
its range, the dice of its text by their index among the entry's `rolls`, and the
directives it followed or declined by their codes and their index among the entry's
effects. The seed tables (campaign.seeds) are the one home of the words: this module
makes from them, when a record is shown, exactly the words older records hold
(`name`, `text_ja`, the entry's `ja` / `en`, the `lines` the CLI prints, a sub-entry's
reason). A record that holds its words (written before) is shown as it is.

Kept beside campaign.labels (which hands table records here) so that module stays short.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from campaign.core.effects_vocabulary import DIRECTIVE_TEXT_FIELDS, DIRECTIVES, effect_data
from campaign.core.reference import Both, Cell, RefTable
from campaign.core.table_model import Table, TableEntry
from campaign.core.table_roll import TextRoll, entry_text
from campaign.i18n import N_, _, pick

TRUNCATED_LINE = N_("(further rolls not made: nesting limit reached)")
STANDS_NOTE = N_("(a reroll gave a reroll result again: it stands)")


def _tables() -> dict[str, Table]:
    from campaign.seeds import load_tables

    return load_tables()


# --- codes, as a new record holds them ---


def entry_code(entry: TableEntry) -> list[int]:
    """An entry's identity within its table: its range, [lo, hi]."""
    return [entry.lo, entry.hi]


def text_roll_code(rolled: TextRoll, entry: TableEntry) -> dict[str, Any]:
    """Dice of an entry's text: which of its `rolls` (index), the dice, faces and value,
    and the minimum the value keeps to, so a checker recomputes the value from the faces
    alone (docs/fair-dice.md "What is checked")."""
    return {
        "index": _position(entry.rolls, rolled.spec),
        "dice": rolled.spec.dice,
        "faces": list(rolled.faces),
        "value": rolled.value,
        "min": rolled.spec.minimum,
    }


def directive_code(directive: Any, entry: TableEntry) -> dict[str, Any]:
    """A directive of an entry: its codes (kind, apply, table, condition, gm_choice) and its
    index among the entry's effects, where its words ("only if ...") are."""
    data = {k: v for k, v in effect_data(directive).items() if k not in DIRECTIVE_TEXT_FIELDS}
    data["index"] = _position(entry.effects, directive)
    return data


def _position(items: tuple[Any, ...], item: Any) -> int:
    for index, candidate in enumerate(items):
        if candidate is item:
            return index
    return items.index(item)


# --- words, from the seed tables ---


def entry_words(entry: TableEntry) -> dict[str, Any]:
    """An entry as a record written before held it: range, label, texts, tags, effects."""
    data = {
        "range": [entry.lo, entry.hi],
        "label": entry.label,
        "ja": entry.ja,
        "en": entry.en,
        "tags": list(entry.tags),
        "effects": [effect_data(e) for e in entry.effects],
    }
    if entry.rolls:
        data["rolls"] = [{"dice": d.dice, "min": d.minimum, "ja": d.ja, "en": d.en} for d in entry.rolls]
    return data


def text_roll_label(ja: str, en: str) -> str:
    """The reason shown for a text-dice sub-entry, from the words the dice belong to."""
    return _("dice in the text: {words}").format(words=pick(ja, en))


def directive_text(directive: dict[str, Any], tables: dict[str, Table]) -> str:
    """A short label for why an extra roll was made (a directive with its words)."""
    kind = directive.get("kind")
    if kind == "roll_twice":
        text = _("roll twice, apply both") if directive.get("apply") == "both" else _("roll twice, choose one")
    elif kind == "reroll":
        text = _("reroll")
    else:
        named = directive.get("table")
        other = tables.get(named) if isinstance(named, str) else None
        text = _("roll on {table}").format(table=(pick(other.name, other.name_en) if other else named))
    only_ja, only_en = directive.get("only_if_ja"), directive.get("only_if_en")
    condition = pick(str(only_ja or only_en), str(only_en or only_ja)) if only_ja or only_en else None
    if condition and directive.get("gm_choice"):
        return _("{directive} (only if {condition}) [the GM's choice]").format(directive=text, condition=condition)
    if condition:
        return _("{directive} (only if {condition})").format(directive=text, condition=condition)
    if directive.get("gm_choice"):
        return _("{directive} [the GM's choice]").format(directive=text)
    return text


def _entry(tables: dict[str, Table], command: Any, code: Any) -> tuple[Table, TableEntry]:
    """The table and entry a record names; KeyError when the seeds no longer have it."""
    table = tables[command]
    if not (isinstance(code, list) and len(code) == 2 and all(isinstance(n, int) for n in code)):
        raise KeyError(code)
    for entry in table.entries:
        if [entry.lo, entry.hi] == code:
            return table, entry
    raise KeyError(code)


def _directive_words(code: Any, entry: TableEntry) -> dict[str, Any]:
    """A directive's seed data (with its "only if" words), by its index in the entry."""
    index = code.get("index") if isinstance(code, dict) else None
    if (
        not isinstance(index, int)
        or not 0 <= index < len(entry.effects)
        or not isinstance(entry.effects[index], DIRECTIVES)
    ):
        raise KeyError(index)
    return effect_data(entry.effects[index])


def _text_rolls(codes: list[Any], entry: TableEntry) -> list[TextRoll]:
    rolls = []
    for code in codes:
        if not isinstance(code["index"], int) or not 0 <= code["index"] < len(entry.rolls):
            raise IndexError(code["index"])
        spec = entry.rolls[code["index"]]
        rolls.append(TextRoll(spec=spec, faces=tuple(code["faces"]), value=code["value"]))
    return rolls


def _text_roll_words(rolled: TextRoll) -> dict[str, Any]:
    return {
        "dice": rolled.spec.dice,
        "faces": list(rolled.faces),
        "value": rolled.value,
        "min": rolled.spec.minimum,
        "ja": rolled.spec.ja,
        "en": rolled.spec.en,
    }


def _roll_words(detail: dict[str, Any], tables: dict[str, Table]) -> dict[str, Any]:
    """A table roll's record with its words: names, entry, texts, text dice, directives."""
    table, entry = _entry(tables, detail.get("table"), detail.get("entry"))
    text_rolls = _text_rolls(detail.get("text_rolls") or [], entry)
    shown = {
        **detail,
        "name": table.name,
        "name_en": table.name_en,
        "entry": entry_words(entry),
        "text_ja": entry_text(entry, text_rolls, "ja"),
        "text_en": entry_text(entry, text_rolls, "en"),
        "text_rolls": [_text_roll_words(t) for t in text_rolls],
        "directives": [_directive_words(d, entry) for d in detail.get("directives") or []],
        "declined": [_directive_words(d, entry) for d in detail.get("declined") or []],
    }
    if isinstance(detail.get("directive"), dict):  # a sub-roll: the directive of the roll that asked
        asker = detail.get("requested_in") or {}
        _table, asking = _entry(tables, asker.get("table"), asker.get("entry"))
        shown["directive"] = _directive_words(detail["directive"], asking)
    return shown


def _text_sub_words(detail: dict[str, Any], tables: dict[str, Table]) -> dict[str, Any]:
    _table, entry = _entry(tables, detail.get("table"), detail.get("entry"))
    [rolled] = _text_rolls([detail["text_roll"]], entry)
    return {**detail, "entry": entry_words(entry), "text_roll": _text_roll_words(rolled)}


def _summary(shown: dict[str, Any]) -> str:
    clamped = "" if shown["raw"] == shown["result"] else " " + _("(raw {raw})").format(raw=shown["raw"])
    return f"{shown['entry']['label']}{clamped}: {pick(shown['text_ja'], shown['text_en'])}"


def _notes(shown: dict[str, Any], tables: dict[str, Table], indent: str) -> list[str]:
    lines = [
        indent + "  " + _("(the GM declined: {directive})").format(directive=directive_text(d, tables))
        for d in shown["declined"]
    ]
    if shown.get("reroll_stands"):
        lines.append(indent + "  " + _(STANDS_NOTE))
    return lines


def table_lines(
    shown: dict[str, Any], subs: list[tuple[dict[str, Any], dict[str, Any]]], tables: dict[str, Table]
) -> list[str]:
    """The lines `table roll` prints: the entry, then each extra roll (numbered by its
    seq), in the order the dice were rolled. `shown` is the parent's detail with its
    words; `subs` are the sub-entries as (record, detail with its words)."""
    lines = [_summary(shown), *_notes(shown, tables, "")]
    truncated = bool(shown.get("truncated"))
    for record, sub in subs:
        indent = "  " * sub["depth"]
        if "text_roll" in sub:
            rolled = sub["text_roll"]
            lines.append(
                indent + f"↳ #{record['seq']} {text_roll_label(rolled['ja'], rolled['en'])}: "
                f"{rolled['dice']} [{','.join(map(str, rolled['faces']))}]={rolled['value']}"
            )
            continue
        lines.append(
            indent + f"↳ #{record['seq']} {directive_text(sub['directive'], tables)}: "
            f"{record['expression']} [{','.join(map(str, record['dice']))}]={sub['result']}"
        )
        lines.append(indent + "  " + _summary(sub))
        lines.extend(_notes(sub, tables, indent))
        truncated = truncated or bool(sub.get("truncated"))
    if truncated:
        lines.append(_(TRUNCATED_LINE))
    return lines


def holds_words(detail: dict[str, Any]) -> bool:
    """True for a record written before table records held codes: it has its words."""
    text_roll = detail.get("text_roll")
    return "name" in detail or "lines" in detail or (isinstance(text_roll, dict) and "ja" in text_roll)


def table_detail(record: dict[str, Any], sub_records: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A table entry's detail as a person reads it. A parent's `lines` need its
    sub-entries' records (`sub_records`, in seq order); without them a parent that has
    sub-rolls is shown without lines. A record that holds its words, or names what the
    seeds no longer have, is shown as it is."""
    detail = record.get("detail") or {}
    if not isinstance(detail, dict) or holds_words(detail):
        return detail
    try:
        if "reference" in detail:
            return _sorted(reference_detail(detail))
        tables = _tables()
        if "text_roll" in detail:  # a sub-entry: the dice of the asking entry's text
            shown = _text_sub_words(detail, tables)
            rolled = shown["text_roll"]
            faces = ",".join(map(str, rolled["faces"]))
            label = text_roll_label(rolled["ja"], rolled["en"])
            return _sorted({**shown, "lines": [f"{label}: {rolled['dice']} [{faces}]={rolled['value']}"]})
        if detail.get("source") == "ccfolia":  # an imported result: the entry, no dice of ours
            table, entry = _entry(tables, detail.get("table"), detail.get("entry"))
            return _sorted(
                {
                    **detail,
                    "name": table.name,
                    "name_en": table.name_en,
                    "entry": entry_words(entry),
                    "lines": [f"{entry.label}: {pick(entry.ja, entry.en)}"],
                }
            )
        shown = _roll_words(detail, tables)
        subs = sub_records or []
        if record.get("parent_seq") is None and len(subs) == detail.get("sub_rolls", 0):
            shown["lines"] = table_lines(shown, [(sub, table_detail(sub)) for sub in subs], tables)
        elif record.get("parent_seq") is not None:  # a sub-entry alone (history show): its entry
            shown["lines"] = [_summary(shown), *_notes(shown, tables, "")]
        return _sorted(shown)
    except (KeyError, IndexError, TypeError, ValueError):
        return detail


def _sorted(detail: dict[str, Any]) -> dict[str, Any]:
    """Keys in the order a stored record's are read back in (canonical JSON sorts them)."""
    return dict(sorted(detail.items()))


def sub_reason(record: dict[str, Any]) -> str | None:
    """The reason shown for a table sub-entry: why its dice were rolled."""
    detail = record.get("detail") or {}
    if not isinstance(detail, dict) or holds_words(detail):
        return None
    try:
        tables = _tables()
        if "text_roll" in detail:
            _table, entry = _entry(tables, detail.get("table"), detail.get("entry"))
            spec = entry.rolls[detail["text_roll"]["index"]]
            return text_roll_label(spec.ja, spec.en)
        if isinstance(detail.get("directive"), dict):
            asker = detail.get("requested_in") or {}
            _table, asking = _entry(tables, asker.get("table"), asker.get("entry"))
            return directive_text(_directive_words(detail["directive"], asking), tables)
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    return None


# --- reference tables (ref show --roll) ---


def cell_data(cell: Cell) -> str | dict[str, str]:
    """A cell as --json gives it: the seed's text, or {"ja": ..., "en": ...} as the seed
    gives a short name in both languages."""
    return {"ja": cell.ja, "en": cell.en} if isinstance(cell, Both) else cell


def cell_text(cell: Cell | Mapping[str, str]) -> str:
    """A cell in the output's language (one text for every language: as it is)."""
    if isinstance(cell, Both):
        return pick(cell.ja, cell.en)
    if isinstance(cell, Mapping):
        return pick(cell["ja"], cell["en"])
    return cell


def reference_row(table: RefTable, index: int) -> dict[str, Any]:
    """Row `index` (0-based) of a reference table: its number, roll range and cells."""
    row = table.rows[index]
    data: dict[str, Any] = {"index": index + 1}
    if table.rollable:
        data["roll"] = [row.lo, row.hi] if row.lo is not None else None
    data.update({column.key: cell_data(cell) for column, cell in zip(table.columns, row.cells)})
    return data


def reference_detail(detail: dict[str, Any]) -> dict[str, Any]:
    """A roll on a reference table with its words: the table's names, the row, the line."""
    from campaign.seeds import load_references

    table = load_references()[detail["reference"]]
    index = detail["row"]["index"] - 1
    if not 0 <= index < len(table.rows):
        raise IndexError(index)
    row = table.rows[index]
    return {
        **detail,
        "name": table.name,
        "name_en": table.name_en,
        "row": reference_row(table, index),
        "lines": [f"{row.roll_label}: {' / '.join(cell_text(cell) for cell in row.cells)}"],
    }

"""ココフォリア (CCFOLIA): character pieces out, chat-log dice in.

Imported results are ledger entries like any roll or table entry, with source
`ccfolia` (never `rng` or `manual`), so statistics can keep a log's dice apart from
dice this tool rolled. Each recorded message carries a fingerprint, SHA-256 of tab,
speaker, text and the ordinal of that exact message among identical ones in the log,
so importing the same log (or a longer export of the same room) twice adds nothing.
A whole import is one transaction: all its entries or none.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, BinaryIO

from sqlalchemy import select

from campaign import ledger
from campaign.bridges.bcdice_lines import RollLine, TableLine, classify
from campaign.bridges.ccfolia_log import LogReader, Message, read_chunks
from campaign.bridges.ccfolia_piece import piece
from campaign.db.database import Database
from campaign.db.models import Campaign, Character, LedgerEntry
from campaign.errors import BadInput, NotFound
from campaign.seeds import load_tables
from campaign.services.characters import character_view
from campaign.services.results import as_json
from campaign.services.common import campaign_named, campaign_transaction, character_named, clean_name
from campaign.services.history import INT_MAX

SOURCE = "ccfolia"
COUNTS = ("messages", "recorded", "rolls", "tables", "duplicates", "secret", "chat", "other_system",
          "unreadable", "malformed", "repaired")


@dataclass(frozen=True, slots=True)
class LogImported:
    """`import-log --ccfolia`: what was recorded (or, with dry_run, would be) and what
    was skipped, message by message (COUNTS), and the entries' seq range."""

    campaign: str
    dry_run: bool
    messages: int
    recorded: int
    rolls: int
    tables: int
    duplicates: int
    secret: int
    chat: int
    other_system: int
    unreadable: int
    malformed: int
    repaired: int
    unmapped_speakers: tuple[str, ...]
    first_seq: int | None
    last_seq: int | None
    scenario: int | None
    undecodable: bool  # some bytes were not UTF-8


# --- pieces out ---


def export_pieces(db: Database, campaign_name: str | None, names: Iterable[str] | None) -> list[dict[str, Any]]:
    """Clipboard documents for the named characters, or for every one (names None)."""
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        if names is None:
            rows = session.scalars(select(Character).where(Character.campaign_id == campaign.id)
                                   .order_by(Character.kind, Character.name)).all()
        else:
            rows = [character_named(session, campaign, name) for name in names]
        tables = tuple(load_tables())
        # The bridge reads the sheet as `char show --json` prints it (plain JSON values).
        return [piece(as_json(character_view(session, row)), campaign.ruleset, tables) for row in rows]


# --- logs in ---


def parse_map(items: Iterable[str]) -> dict[str, str]:
    """`ココフォリア名=キャラ名` pairs (--map)."""
    mapping: dict[str, str] = {}
    for item in items:
        speaker, sep, character = item.partition("=")
        if not sep or not speaker.strip() or not character.strip():
            raise BadInput(f"--map: expected 'ココフォリア名=キャラ名', got {item!r}")
        mapping[clean_name(speaker, "--map speaker")] = clean_name(character, "--map character")
    return mapping


def fingerprint(message: Message, ordinal: int) -> str:
    raw = f"{message.tab or ''}\t{message.speaker}\t{message.text}\t{ordinal}"
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def _known_fingerprints(session, campaign_id: int) -> set[str]:
    """Fingerprints of every entry imported before: one pass over the campaign's roll and
    table entries (the kind index), reading only those whose record says ccfolia."""
    query = (select(LedgerEntry.record)
             .where(LedgerEntry.campaign_id == campaign_id, LedgerEntry.kind.in_(("roll", "table")),
                    LedgerEntry.record.like('%"source":"ccfolia"%'))
             .execution_options(yield_per=2000))
    known = set()
    for (record,) in session.execute(query):
        mark = (json.loads(record).get("detail") or {}).get(SOURCE) or {}
        if mark.get("fingerprint"):
            known.add(mark["fingerprint"])
    return known


def _scenario_number(session, campaign: Campaign, scenario: int | None) -> int | None:
    from campaign.db.models import Scenario

    if scenario is None:
        return ledger.open_scenario_number(session, campaign.id)
    found = abs(scenario) <= INT_MAX and session.scalar(
        select(Scenario.id).where(Scenario.campaign_id == campaign.id, Scenario.number == scenario))
    if not found:
        raise NotFound(f"no scenario #{scenario} in campaign {campaign.name!r}")
    return scenario


def _origin(message: Message, mark: str, line: Any) -> dict[str, Any]:
    origin = {"fingerprint": mark, "tab": message.tab, "speaker": message.speaker, "line": message.text,
              "message": message.index}
    if isinstance(line, RollLine):
        origin.update(command=line.command, outcome_text=line.outcome_text)
    else:
        origin.update(table_name=line.name)
    return origin


def _roll_entry(line: RollLine, who: str | None, scenario: int | None, origin: dict) -> ledger.NewEntry:
    detail = {
        "expression": line.expression, "total": line.total, "faces": None if line.faces is None else list(line.faces),
        "comparison": line.comparison, "target": line.target, "outcome": line.outcome, "margin": line.margin,
        "comment": line.comment, "source": SOURCE, "rules_outcome": line.rules_outcome, SOURCE: origin,
    }
    return ledger.NewEntry(
        kind="roll", character=who, scenario=scenario, expression=line.expression,
        dice=None if line.faces is None else list(line.faces), total=line.total, target=line.target,
        outcome=line.outcome, margin=line.margin, source=SOURCE, reason=line.comment, detail=detail,
    )


def _table_entry(line: TableLine, tables, who: str | None, scenario: int | None, origin: dict) -> ledger.NewEntry:
    from campaign.services.tables import expression_for
    from campaign.table_labels import entry_code

    table = tables[line.command]
    result = table.clamp(line.result)
    entry = table.entry_for(result)
    detail = {  # codes: campaign.table_labels shows the entry's words
        "table": table.command, "modifier": line.modifier, "raw": line.result, "result": result,
        "entry": entry_code(entry), "source": SOURCE, SOURCE: origin,
    }
    return ledger.NewEntry(
        kind="table", character=who, scenario=scenario, expression=expression_for(table.command, line.modifier),
        dice=None, total=result, source=SOURCE, reason=line.comment, detail=detail,
    )


def _preview(entry: ledger.NewEntry, actor: str) -> dict[str, Any]:
    return {"actor": actor, "kind": entry.kind, "character": entry.character, "scenario": entry.scenario,
            "expression": entry.expression, "dice": entry.dice, "total": entry.total, "target": entry.target,
            "outcome": entry.outcome, "margin": entry.margin, "source": entry.source, "reason": entry.reason,
            "detail": entry.detail}


@contextmanager
def _read_only(db: Database, campaign_name: str | None) -> Iterator[tuple[Any, Campaign]]:
    """What a dry run reads, shaped like campaign_transaction; it can write nothing."""
    with db.read() as session:
        yield session, campaign_named(session, campaign_name)


def import_log(
    db: Database,
    campaign_name: str | None,
    actor: str,
    handle: BinaryIO,
    *,
    scenario: int | None = None,
    mapping: dict[str, str] | None = None,
    dry_run: bool = False,
    progress: Callable[[int], None] | None = None,
    on_entry: Callable[[dict[str, Any]], None] | None = None,
) -> LogImported:
    """Record every BCDice result of a ココフォリア log; returns the counts.

    Speakers become characters by --map, else by an exact character name; a speaker
    that is neither stays in the record (detail.ccfolia.speaker) with no character,
    and the entry's actor is the importing actor. A mapped PC's actor is its player.
    `on_entry` sees each entry as it is (or, with dry_run, would be) recorded.
    """
    mapping = mapping or {}
    context = _read_only(db, campaign_name) if dry_run else campaign_transaction(db, campaign_name)
    with context as (session, campaign):
        characters = {row.name: (row.name, row.player.name if row.player else None)
                      for row in session.scalars(select(Character).where(Character.campaign_id == campaign.id))}
        by_speaker: dict[str, tuple[str, str | None]] = {}
        for speaker, name in mapping.items():
            if name not in characters:
                raise NotFound(f"--map {speaker}={name}: no character named {name!r} in campaign {campaign.name!r}")
            by_speaker[speaker] = characters[name]
        number = _scenario_number(session, campaign, scenario)
        known = _known_fingerprints(session, campaign.id)
        tables = load_tables()
        gurps = campaign.ruleset == "gurps3-ja"
        counts = dict.fromkeys(COUNTS, 0)
        unmapped: set[str] = set()
        ordinals: dict[bytes, int] = {}
        first_seq = last_seq = None
        reader = LogReader(read_chunks(handle))
        for message in reader:
            counts["messages"] += 1
            if progress is not None:
                progress(reader.bytes_read)
            found = classify(message.text, tables, gurps=gurps)
            if found.kind not in ("roll", "table"):
                counts[found.kind] += 1
                continue
            same = hashlib.sha256(f"{message.tab}\t{message.speaker}\t{message.text}".encode()).digest()
            ordinal = ordinals.get(same, 0)
            ordinals[same] = ordinal + 1
            mark = fingerprint(message, ordinal)
            if mark in known:
                counts["duplicates"] += 1
                continue
            known.add(mark)
            speaker = unicodedata.normalize("NFC", message.speaker)
            who, player = by_speaker.get(speaker) or characters.get(speaker) or (None, None)
            if who is None:
                unmapped.add(speaker)
            origin = _origin(message, mark, found.line)
            if found.kind == "roll":
                entry = _roll_entry(found.line, who, number, origin)
                counts["rolls"] += 1
            else:
                entry = _table_entry(found.line, tables, who, number, origin)
                counts["tables"] += 1
            counts["recorded"] += 1
            entry_actor = player or actor
            if dry_run:
                view = _preview(entry, entry_actor)
            else:
                appended = ledger.append(session, campaign, entry_actor, entry)
                first_seq = appended.seq if first_seq is None else first_seq
                last_seq = appended.seq
                view = {**appended.record}
            if on_entry is not None:
                on_entry(view)
        counts["malformed"], counts["repaired"] = reader.malformed, reader.repaired
        if reader.paragraphs == 0:
            raise BadInput("no ココフォリア messages found: expected an HTML log export "
                           "(<p> per message with tab, speaker and text spans)")
        return LogImported(campaign=campaign.name, dry_run=dry_run, **counts, unmapped_speakers=tuple(sorted(unmapped)),
                           first_seq=first_seq, last_seq=last_seq, scenario=number, undecodable=reader.undecodable)

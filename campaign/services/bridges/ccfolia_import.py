"""`import-log --ccfolia`: the dice of a ココフォリア export, into the ledger, once.

Imported results are ledger entries like any roll or table entry, with source `ccfolia`
(never `rng` or `manual`), so statistics keep a log's dice apart from dice this tool
rolled; a GURPS success roll carries the detail `roll` writes (its "Success roll" judgement, docs/rules.md, so
`stats` scores it with its criticals). Which messages were recorded before is
services.bridges.ccfolia_identity's; what a line says, campaign.bridges. A whole import is one
transaction: all its entries (and, with apply_fright, their effects) or none.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, BinaryIO

from sqlalchemy import select
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.bridges.bcdice_lines import RollLine, read_message
from campaign.bridges.bcdice_tables import TableLine
from campaign.bridges.bcdice_why import Why, json_fields
from campaign.bridges.ccfolia_export import Export
from campaign.bridges.ccfolia_log import Message
from campaign.core.applied_effects import AppliedEffect, FrightNote
from campaign.core.dice_source import DiceSource
from campaign.db.models import Campaign, Character
from campaign.effect_words import effect_documents
from campaign.errors import N_, BadInput
from campaign.i18n import _
from campaign.labels import note_texts
from campaign.seeds import load_tables
from campaign.services.bridges.ccfolia_fright import apply_fright, is_fright_roll
from campaign.services.bridges.ccfolia_identity import (
    OPENING,
    SOURCE,
    Known,
    LogIdentity,
    answer_mark,
    opening_ids,
    speaker_key,
    speaker_name,
)
from campaign.services.results import converted_by, omitted_when_none, spread_by

if TYPE_CHECKING:
    from campaign.core.table_model import Table

SKIPPED = ("secret", "chat", "other_system", "unreadable", "contradictory")
SHOWN_TEXT = 120


def _why_fields(why: Why | None) -> dict[str, Any]:
    """A reason in --json: its English line (shown translated), its code and its values."""
    return {"why": why, **json_fields(why)}


@dataclass(frozen=True, slots=True)
class Explained:
    """`--explain`: a message not recorded (or recorded without a character), and why."""

    message: int  # its index in the log (shown counting from 1)
    speaker: str
    reason: str  # a code: duplicate, chat, unmapped_speaker ...
    why: Why | None = field(metadata=spread_by(_why_fields))
    recorded: bool
    text: str


@dataclass(frozen=True, slots=True)
class FrightRead:
    """A FEAR line of the log (a fright table result): applied with --apply-fright, else why
    not. `entry` (the table entry's span of entries) once applied."""

    message: int
    speaker: str
    character: str | None
    table_seq: int | None
    result: int
    check_seq: int | None  # the failed fright check it answers, if the log had one
    check_message: int | None
    applied: bool
    seq: int | None
    effects: tuple[AppliedEffect, ...] = field(metadata=converted_by(effect_documents))
    notes: tuple[FrightNote, ...] = field(metadata=converted_by(note_texts))
    entry: tuple[int, int] | None = omitted_when_none()
    why: Why | None = field(default=None, metadata=spread_by(_why_fields))


@dataclass(frozen=True, slots=True)
class FrightUnanswered:
    """A failed fright check no FEAR line followed."""

    message: int
    speaker: str
    check_seq: int | None
    applied: bool  # False
    why: Why = field(metadata=spread_by(_why_fields))


@dataclass(frozen=True, slots=True)
class _FailedCheck:
    """A failed fright check waiting for the FEAR line of its speaker."""

    check_seq: int | None
    margin: int
    message: int


def _origin(
    message: Message, mark: str, where: dict[str, Any], line: RollLine | TableLine, k: int, count: int | None
) -> dict[str, Any]:
    text = message.text if message.result is None else f"{message.text}\n{message.result}".strip()
    origin: dict[str, Any] = {
        "fingerprint": mark,
        **where,
        "tab": message.tab,
        "speaker": message.speaker,
        "line": text,
        "message": message.index,
    }
    if isinstance(line, RollLine):
        origin.update(command=line.command, outcome_text=line.outcome_text)
        if line.log_degree is not None:
            origin["degree"] = line.log_degree
    else:
        origin.update(table_name=line.name, table_text=line.text)
        if line.seed is None:
            origin["bcdice_table"] = True  # BCDice's own table, not the seed table of that command
    if line.secret:
        origin["secret"] = True  # rolled as secret dice; the log shows them
    if count is not None:
        origin["repeat"] = [k, count]
    return origin


def roll_entry(line: RollLine, who: str | None, scenario: int | None, origin: dict[str, Any]) -> ledger.NewEntry:
    detail: dict[str, Any] = (
        dict(line.detail)
        if line.detail is not None
        else {
            "expression": line.expression,
            "total": line.total,
            "comparison": line.comparison,
            "target": line.target,
            "outcome": line.outcome,
            "margin": line.margin,
            "comment": line.comment,
            "source": SOURCE,
        }
    )
    detail.update(faces=None if line.faces is None else list(line.faces), rules_outcome=line.rules_outcome)
    detail[SOURCE] = origin
    return ledger.NewEntry(
        kind="roll",
        character=who,
        scenario=scenario,
        expression=line.expression,
        dice=None if line.faces is None else list(line.faces),
        total=line.total,
        target=line.target,
        outcome=line.outcome,
        margin=line.margin,
        source=SOURCE,
        reason=line.comment,
        detail=detail,
    )


def table_entry(
    line: TableLine, tables: Mapping[str, Table], who: str | None, scenario: int | None, origin: dict[str, Any]
) -> ledger.NewEntry:
    from campaign.services.checks.tables import expression_for
    from campaign.table_labels import entry_code

    if line.seed is not None:
        table = tables[line.seed]
        result = table.clamp(line.result)
        detail = {
            "table": table.command,
            "modifier": line.modifier,
            "raw": line.result,
            "result": result,
            "entry": entry_code(table.entry_for(result)),
            "source": SOURCE,
            SOURCE: origin,
        }
        expression = expression_for(table.command, line.modifier)
    else:  # the words are the log's (in detail.ccfolia): no seed entry stands for them
        result = line.result
        detail = {
            "table": line.command,
            "modifier": line.modifier,
            "raw": line.result,
            "result": result,
            "bcdice_table": True,
            "source": SOURCE,
            SOURCE: origin,
        }
        expression = line.command + (f"{line.modifier:+d}" if line.modifier else "")
    return ledger.NewEntry(
        kind="table",
        character=who,
        scenario=scenario,
        expression=expression,
        dice=None,
        total=result,
        source=SOURCE,
        reason=line.comment,
        detail=detail,
    )


def _preview(entry: ledger.NewEntry, actor: str) -> dict[str, Any]:
    return {
        "actor": actor,
        "kind": entry.kind,
        "character": entry.character,
        "scenario": entry.scenario,
        "expression": entry.expression,
        "dice": entry.dice,
        "total": entry.total,
        "target": entry.target,
        "outcome": entry.outcome,
        "margin": entry.margin,
        "source": entry.source,
        "reason": entry.reason,
        "detail": entry.detail,
    }


class Importer:
    """One import's state: counts, what it explains, fright checks waiting for a FEAR line."""

    def __init__(
        self,
        session: Session,
        campaign: Campaign,
        actor: str,
        *,
        number: int | None,
        mapping: dict[str, str],
        dry_run: bool,
        explain: bool,
        apply: bool,
        source: DiceSource,
        session_name: str | None,
        on_entry: Callable[[dict[str, Any]], None] | None,
    ) -> None:
        self.session, self.campaign, self.actor = session, campaign, actor
        self.number, self.dry_run, self.explain, self.apply, self.source = number, dry_run, explain, apply, source
        self.session_name, self.on_entry = session_name, on_entry
        rows = session.scalars(select(Character).where(Character.campaign_id == campaign.id)).all()
        self.rows = {row.name: row for row in rows}
        self.characters = {speaker_key(row.name): (row.name, row.player.name if row.player else None) for row in rows}
        self.by_speaker = {
            speaker_key(speaker_name(speaker)): self.characters[speaker_key(name)] for speaker, name in mapping.items()
        }
        self.known = Known(session, campaign.id)
        self.tables = load_tables()
        self.gurps = campaign.ruleset == "gurps3-ja"
        self.counts = dict.fromkeys(
            (
                "messages",
                "recorded",
                "rolls",
                "tables",
                "duplicates",
                *SKIPPED,
                "incomplete",
                "secret_recorded",
                "fright_results",
                "fright_applied",
            ),
            0,
        )
        self.unmapped: set[str] = set()
        self.explained: list[Explained] = []
        self.frights: list[FrightRead | FrightUnanswered] = []
        self.pending: dict[str, _FailedCheck] = {}  # speaker -> a failed fright check
        self.first_seq: int | None = None
        self.last_seq: int | None = None
        self.identity: LogIdentity | None = None

    def _explain(self, message: Message, reason: str, why: Why | None = None, recorded: bool = False) -> None:
        if self.explain:
            text = message.text if message.result is None else f"{message.text} {message.result}"
            self.explained.append(
                Explained(
                    message=message.index,
                    speaker=speaker_name(message.speaker),
                    reason=reason,
                    why=why,
                    recorded=recorded,
                    text=text[:SHOWN_TEXT],
                )
            )

    def run(self, export: Export, progress: Callable[[int], None] | None) -> None:
        messages = iter(export)
        opening = list(itertools.islice(messages, OPENING + 1))
        ids = opening_ids(opening)
        log, count = self.known.log_identity(ids)
        self.identity = LogIdentity(log, count, self.session_name)
        for message in itertools.chain(opening, messages):
            if progress is not None:
                progress(export.bytes_read)
            self.message(message)

    def message(self, message: Message) -> None:
        assert self.identity is not None, "run() names the log first"
        self.counts["messages"] += 1
        mark, where = self.identity.fingerprint(message)
        if message.incomplete:
            self.counts["incomplete"] += 1
            self._explain(message, "incomplete", Why("incomplete", N_("the file ends inside this message")))
            return
        reading = read_message(
            message.text, self.tables, gurps=self.gurps, result=message.result, secret=message.secret
        )
        if reading.kind != "dice":
            self.counts[reading.kind] += 1
            self._explain(message, reading.kind, reading.why)
            return
        legacy = self.identity.legacy_ordinal(message)
        if mark in self.known.marks or self.known.legacy_match(message, legacy):
            self.counts["duplicates"] += 1
            self._explain(message, "duplicate", Why("duplicate", N_("imported before")))
            return
        self.known.marks.add(mark)
        speaker = speaker_name(message.speaker)
        key = speaker_key(speaker)
        who, player = self.by_speaker.get(key) or self.characters.get(key) or (None, None)
        if who is None:
            self.unmapped.add(speaker)
            self._explain(
                message, "unmapped_speaker", Why("unmapped_speaker", N_("recorded without a character")), recorded=True
            )
        count = reading.repeat
        for k, line in enumerate(reading.lines, start=1):
            origin = _origin(message, answer_mark(mark, k), where, line, k, count)
            seq = self._record(line, who, player, origin)
            self._fright(line, speaker, who, seq, message)

    def _record(
        self, line: RollLine | TableLine, who: str | None, player: str | None, origin: dict[str, Any]
    ) -> int | None:
        if isinstance(line, RollLine):
            entry = roll_entry(line, who, self.number, origin)
            self.counts["rolls"] += 1
        else:
            entry = table_entry(line, self.tables, who, self.number, origin)
            self.counts["tables"] += 1
        self.counts["recorded"] += 1
        self.counts["secret_recorded"] += bool(line.secret)
        entry_actor = player or self.actor
        if self.dry_run:
            view, seq = _preview(entry, entry_actor), None
        else:
            appended = ledger.append(self.session, self.campaign, entry_actor, entry)
            seq = appended.seq
            self.first_seq = seq if self.first_seq is None else self.first_seq
            self.last_seq = seq
            view = {**appended.record}
        if self.on_entry is not None:
            self.on_entry(view)
        return seq

    def _fright(
        self, line: RollLine | TableLine, speaker: str, who: str | None, seq: int | None, message: Message
    ) -> None:
        if isinstance(line, RollLine):
            if is_fright_roll(line):
                if line.outcome in ("failure", "critical_failure") and line.target is not None:  # it has one
                    self.pending[speaker] = _FailedCheck(seq, line.total - line.target, message.index)
                else:
                    self.pending.pop(speaker, None)
            return
        if line.command != "FEAR":
            return
        check = self.pending.pop(speaker, None)
        self.counts["fright_results"] += 1
        found = FrightRead(
            message=message.index,
            speaker=speaker,
            character=who,
            table_seq=seq,
            result=line.result,
            check_seq=None if check is None else check.check_seq,
            check_message=None if check is None else check.message,
            applied=False,
            seq=None,
            effects=(),
            notes=(),
        )
        if not self.apply:
            found = replace(found, why=Why("not_applied", N_("not applied (--apply-fright applies it)")))
        elif who is None:
            found = replace(
                found, why=Why("no_character", N_("no character for {speaker} (use --map)"), speaker=speaker)
            )
        elif self.dry_run:
            found = replace(found, why=Why("dry_run", N_("a dry run applies nothing")))
        else:
            applied = apply_fright(
                self.session,
                self.campaign,
                self.actor,
                self.rows[who],
                line.result,
                line.modifier,
                self.source,
                seq,
                found.check_seq,
            )
            found = replace(
                found, applied=True, seq=applied.seq, entry=applied.entry, effects=applied.effects, notes=applied.notes
            )
            self.counts["fright_applied"] += 1
            self.last_seq = max(self.last_seq or 0, applied.seq)
        self.frights.append(found)

    def finish(self, export: Export) -> None:
        for speaker, check in self.pending.items():  # a failed check the log rolled no table for
            why = Why("no_fear_line", N_("failed by {margin}: no FEAR line followed"), margin=check.margin)
            self.frights.append(
                FrightUnanswered(
                    message=check.message, speaker=speaker, check_seq=check.check_seq, applied=False, why=why
                )
            )
        if self.counts["messages"] == 0 or (export.malformed > 10 and export.malformed > self.counts["messages"]):
            raise BadInput(
                _(
                    "this is not a ココフォリア export; of its {paragraphs} paragraphs {malformed} are not "
                    "messages (a formatter's output, or another tool's log?)"
                ).format(paragraphs=export.paragraphs, malformed=export.malformed)
                if export.paragraphs
                else _("this is not a ココフォリア export; no messages found in it")
            )
        if self.apply and self.counts["fright_applied"] and hasattr(self.source, "ensure_all_used"):
            self.source.ensure_all_used()


def run_import(
    session: Session,
    campaign: Campaign,
    actor: str,
    handle: BinaryIO,
    *,
    progress: Callable[[int], None] | None = None,
    **options: Any,
) -> tuple[Importer, Export]:
    importer = Importer(session, campaign, actor, **options)
    export = Export(handle)
    importer.run(export, progress)
    importer.finish(export)
    return importer, export

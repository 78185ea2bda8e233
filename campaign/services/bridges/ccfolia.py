"""ココフォリア (CCFOLIA): character pieces out, chat-log dice in.

Pieces out are here; the log import is services.bridges.ccfolia_import (what it records and
how), with services.bridges.ccfolia_identity (which messages were imported before) and
services.bridges.ccfolia_fright (fright results applied). This module keeps the import's entry
point and its result, so the CLI has one place to call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO

from sqlalchemy import select
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.bridges.ccfolia_piece import piece
from campaign.db.database import Database
from campaign.db.models import Campaign, Character
from campaign.errors import BadInput, NotFound
from campaign.i18n import _
from campaign.seeds import load_tables
from campaign.services.characters.roster import character_view
from campaign.services.common import campaign_named, campaign_transaction, character_named, clean_name
from campaign.services.ledger.history import INT_MAX
from campaign.services.results import as_json

if TYPE_CHECKING:
    from campaign.services.bridges.ccfolia_import import Explained, FrightRead, FrightUnanswered

SOURCE = "ccfolia"
COUNTS = (
    "messages",
    "recorded",
    "rolls",
    "tables",
    "duplicates",
    "secret",
    "chat",
    "other_system",
    "unreadable",
    "contradictory",
    "incomplete",
    "malformed",
    "repaired",
)


@dataclass(frozen=True, slots=True)
class LogImported:
    """`import-log --ccfolia`: what was recorded (or, with dry_run, would be) and what
    was not, message by message (COUNTS; `explain` names each message not recorded, and
    those recorded without a character), the entries' seq range, and the log: its
    format, encoding, parts and `session` (the identity its messages are known by)."""

    campaign: str
    dry_run: bool
    format: str
    encoding: str
    parts: int
    session: str | None
    messages: int
    recorded: int
    rolls: int
    tables: int
    duplicates: int
    secret: int
    chat: int
    other_system: int
    unreadable: int
    contradictory: int
    incomplete: int
    malformed: int
    repaired: int
    secret_recorded: int  # secret dice the log shows, recorded (marked secret)
    fright_results: int
    fright_applied: int
    unmapped_speakers: tuple[str, ...]
    first_seq: int | None
    last_seq: int | None
    scenario: int | None
    undecodable: bool  # some bytes were not text in the encoding read
    explain: tuple[Explained, ...]
    frights: tuple[FrightRead | FrightUnanswered, ...]


# --- pieces out ---


def export_pieces(db: Database, campaign_name: str | None, names: Iterable[str] | None) -> list[dict[str, Any]]:
    """Clipboard documents for the named characters, or for every one (names None)."""
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        if names is None:
            rows = session.scalars(
                select(Character).where(Character.campaign_id == campaign.id).order_by(Character.kind, Character.name)
            ).all()
        else:
            rows = [character_named(session, campaign, name) for name in names]
        tables = tuple(load_tables())
        # The bridge reads the sheet as `char show --json` prints it (plain JSON values).
        from campaign.seeds import stat_names_for

        aliases = stat_names_for(campaign.ruleset).aliases
        return [piece(as_json(character_view(session, row)), campaign.ruleset, tables, aliases) for row in rows]


# --- logs in ---


def parse_map(items: Iterable[str]) -> dict[str, str]:
    """`ココフォリア名=キャラ名` pairs (--map)."""
    mapping: dict[str, str] = {}
    for item in items:
        speaker, sep, character = item.partition("=")
        if not sep or not speaker.strip() or not character.strip():
            raise BadInput(_("--map: expected 'ココフォリア名=キャラ名', got {item!r}").format(item=item))
        mapping[clean_name(speaker, "--map speaker")] = clean_name(character, "--map character")
    return mapping


def _scenario_number(session: Session, campaign: Campaign, scenario: int | None) -> int | None:
    from campaign.db.models import Scenario

    if scenario is None:
        return ledger.open_scenario_number(session, campaign.id)
    found = abs(scenario) <= INT_MAX and session.scalar(
        select(Scenario.id).where(Scenario.campaign_id == campaign.id, Scenario.number == scenario)
    )
    if not found:
        raise NotFound(_("no scenario #{scenario} in campaign {name!r}").format(scenario=scenario, name=campaign.name))
    return scenario


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
    session_name: str | None = None,
    apply_fright: bool = False,
    explain: bool = False,
    source: Any = None,
    progress: Callable[[int], None] | None = None,
    on_entry: Callable[[dict[str, Any]], None] | None = None,
) -> LogImported:
    """Record every BCDice result of a ココフォリア export; returns the counts.

    Speakers become characters by --map, else by an exact character name (whitespace
    runs count as one space; an empty speaker is "(no name)"); a speaker that is
    neither stays in the record (detail.ccfolia.speaker) with no character, and the
    entry's actor is the importing actor. A mapped PC's actor is its player.
    `apply_fright` applies each FEAR result to its character (services.bridges.ccfolia_fright),
    rolling what the entry asks for from `source`. `on_entry` sees each entry as it is
    (or, with dry_run, would be) recorded.
    """
    from campaign.services.bridges.ccfolia_import import run_import

    mapping = mapping or {}
    if session_name is not None:
        session_name = clean_name(session_name, "--session")
    context = _read_only(db, campaign_name) if dry_run else campaign_transaction(db, campaign_name)
    with context as (session, campaign):
        names = set(session.scalars(select(Character.name).where(Character.campaign_id == campaign.id)))
        for speaker, name in mapping.items():
            if name not in names:
                raise NotFound(
                    _("--map {speaker}={name}: no character named {name!r} in campaign {name2!r}").format(
                        speaker=speaker, name=name, name2=campaign.name
                    )
                )
        number = _scenario_number(session, campaign, scenario)
        if source is None:
            from campaign.core.dice_source import SystemDice

            source = SystemDice()
        importer, export = run_import(
            session,
            campaign,
            actor,
            handle,
            progress=progress,
            number=number,
            mapping=mapping,
            dry_run=dry_run,
            explain=explain,
            apply=apply_fright,
            source=source,
            session_name=session_name,
            on_entry=on_entry,
        )
        counts = importer.counts
        identity = importer.identity
        shown = (
            None
            if identity is None
            else (
                f"session:{identity.session_name}"
                if identity.session_name
                else identity.log
                if identity.used_log
                else None
            )
        )
        assert export.format is not None and export.encoding is not None  # set by its first part
        return LogImported(
            campaign=campaign.name,
            dry_run=dry_run,
            format=export.format,
            encoding=export.encoding,
            parts=export.parts,
            session=shown,
            messages=counts["messages"],
            recorded=counts["recorded"],
            rolls=counts["rolls"],
            tables=counts["tables"],
            duplicates=counts["duplicates"],
            secret=counts["secret"],
            chat=counts["chat"],
            other_system=counts["other_system"],
            unreadable=counts["unreadable"],
            contradictory=counts["contradictory"],
            incomplete=counts["incomplete"],
            malformed=export.malformed,
            repaired=export.repaired,
            secret_recorded=counts["secret_recorded"],
            fright_results=counts["fright_results"],
            fright_applied=counts["fright_applied"],
            unmapped_speakers=tuple(sorted(importer.unmapped)),
            first_seq=importer.first_seq,
            last_seq=importer.last_seq,
            scenario=number,
            undecodable=export.undecodable,
            explain=tuple(importer.explained),
            frights=tuple(importer.frights),
        )

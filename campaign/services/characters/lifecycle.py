"""Names and lifecycle: renaming characters and players, death and retirement, CP awards.

Every change is an op in the one write mechanism (services.recording), so each is voidable
by replay. A rename re-keys the character everywhere in the projection; entries written
before it keep the old name in their records, and `name_spans` tells history filters
which name a character had when.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from campaign.db.database import Database
from campaign.db.models import Campaign, Character, LedgerEntry, Player
from campaign.errors import BadInput, RuleRefused
from campaign.i18n import _, pgettext
from campaign.labels import status_label
from campaign.services.common import (
    active_character_named,
    campaign_transaction,
    character_named,
    clean_person_name,
    clean_text,
    player_named,
)
from campaign.services.recording import recording

AWARD_LIMIT = 10_000


@dataclass(frozen=True, slots=True)
class Renamed:
    """A character or player renamed (`from_` is "from" in JSON)."""

    from_: str
    to: str
    seq: int


@dataclass(frozen=True, slots=True)
class StatusSet:
    """`char kill` / `char retire`."""

    character: str
    status: str
    reason: str | None
    seq: int


@dataclass(frozen=True, slots=True)
class CpAwardResult:
    """One character's award entry, with the totals after it."""

    character: str
    cp: int
    cp_total: int
    cp_awarded: int
    seq: int


@dataclass(frozen=True, slots=True)
class AwardGiven:
    """`award`: the same CP to each character named, one entry each."""

    cp: int
    reason: str | None
    awards: tuple[CpAwardResult, ...]


def rename_character(db: Database, campaign_name: str | None, old: str, new: str, actor: str) -> Renamed:
    new = clean_person_name(new, "character")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        character = character_named(session, campaign, old)
        if character.name == new:
            raise RuleRefused(_("{name} already has that name").format(name=character.name))
        if session.scalar(select(Character.id).where(Character.campaign_id == campaign.id, Character.name == new)):
            raise RuleRefused(
                _("a character named {new!r} already exists in {name!r}").format(new=new, name=campaign.name)
            )
        before = character.name
        with recording(session, campaign, actor, "rename") as entry:
            entry.rename_character(character, new)
            entry.describe(character=new, reason="character renamed", detail={"from": before, "to": new})
        return Renamed(from_=before, to=new, seq=entry.seq)


def rename_player(db: Database, campaign_name: str | None, old: str, new: str, actor: str) -> Renamed:
    new = clean_person_name(new, "player")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        player = player_named(session, campaign, old)
        if player.name == new:
            raise RuleRefused(_("{name} already has that name").format(name=player.name))
        if session.scalar(select(Player.id).where(Player.campaign_id == campaign.id, Player.name == new)):
            raise RuleRefused(
                _("a player named {new!r} already exists in {name!r}").format(new=new, name=campaign.name)
            )
        before = player.name
        with recording(session, campaign, actor, "rename") as entry:
            entry.rename_player(player, new)
            entry.describe(reason="player renamed", detail={"player_from": before, "player_to": new})
        return Renamed(from_=before, to=new, seq=entry.seq)


def set_status(
    db: Database, campaign_name: str | None, name: str, actor: str, status: str, reason: str | None
) -> StatusSet:
    """`char kill` (dead) and `char retire` (retired). A character out missing or searching
    must be brought back first (`missing found`, or the reunion), so no search is left
    pointing at someone who can no longer act."""
    from campaign.services.scenarios.missing import active_search_of, open_disappearance

    reason = clean_text(reason, "--reason")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        character = character_named(session, campaign, name)
        if character.status == status:
            raise RuleRefused(_("{name} is already {status}").format(name=character.name, status=status_label(status)))
        if character.status != "active":
            raise RuleRefused(
                _("{name} is {status}; void that entry to bring them back").format(
                    name=character.name, status=status_label(character.status)
                )
            )
        if open_disappearance(session, character) is not None:
            raise RuleRefused(
                _("{name} is missing; end that first with `campaign missing found {name} --reason ...`").format(
                    name=character.name
                )
            )
        searching = active_search_of(session, character)
        if searching is not None:
            raise RuleRefused(
                _(
                    "{name} is out searching for {name2}; end that first with `campaign missing found {name2} "
                    "--reason ...` or void the search"
                ).format(name=character.name, name2=searching[1].name)
            )
        with recording(session, campaign, actor, "status") as entry:
            entry.set_status(character, status)
            entry.describe(character=character.name, reason=reason, detail={"status": status})
        return StatusSet(character=character.name, status=status, reason=reason, seq=entry.seq)


def check_award(cp: int) -> int:
    if isinstance(cp, bool) or not isinstance(cp, int) or not 1 <= cp <= AWARD_LIMIT:
        raise BadInput(
            _("an award is 1..{AWARD_LIMIT} CP, not {cp!r} (a wrong award is voided, not reversed)").format(
                AWARD_LIMIT=AWARD_LIMIT, cp=cp
            )
        )
    return cp


def record_award(
    session: Session,
    campaign: Campaign,
    actor: str,
    character: Character,
    cp: int,
    reason: str | None,
    scenario: int | None,
    parent_seq: int | None = None,
) -> CpAwardResult:
    """One "award" entry per character, so each can be voided alone."""
    with recording(session, campaign, actor, "award") as entry:
        entry.award_cp(character, cp)
        entry.describe(
            character=character.name,
            scenario=scenario,
            parent_seq=parent_seq,
            reason=reason,
            total=cp,
            detail={"cp": cp, "cp_total": character.cp_total, "cp_awarded": character.cp_awarded},
        )
    return CpAwardResult(
        character=character.name, cp=cp, cp_total=character.cp_total, cp_awarded=character.cp_awarded, seq=entry.seq
    )


def award(
    db: Database, campaign_name: str | None, cp: int, names: Sequence[str], actor: str, reason: str | None
) -> AwardGiven:
    from campaign.services.scenarios.missing import open_scenario

    reason = clean_text(reason, "--reason")
    if isinstance(cp, int) and not isinstance(cp, bool) and -AWARD_LIMIT <= cp < 0:
        if not reason or not reason.strip():  # taking points away is a decision to record
            raise BadInput(_("a negative award takes CP away: say why with --reason"))
    else:
        cp = check_award(cp)
    if not names:
        raise BadInput(_("say who gets the award: --to NAME[,NAME...]"))
    with campaign_transaction(db, campaign_name) as (session, campaign):
        characters: list[Character] = []
        for name in names:
            character = active_character_named(session, campaign, name, pgettext("doing", "receive CP"))
            if character in characters:
                raise BadInput(_("{name} is named twice in --to").format(name=character.name))
            characters.append(character)
        scenario = open_scenario(session, campaign)
        number = scenario.number if scenario else None
        awards = [record_award(session, campaign, actor, c, cp, reason, number) for c in characters]
        return AwardGiven(cp=cp, reason=reason, awards=tuple(awards))


def name_spans(session: Session, campaign_id: int, name: str) -> list[tuple[str, int, int | None]]:
    """[(name, first seq, last seq or None)]: the names a character (called `name` now)
    had, and the seqs during which it had each. Built from the rename entries' ops,
    newest first; ledger entries with `character == n` in a span belong to it."""
    from campaign.projection.replay import effective_voids

    voided = effective_voids(
        (seq, target)
        for seq, target in session.execute(
            select(LedgerEntry.seq, LedgerEntry.voids_seq).where(
                LedgerEntry.campaign_id == campaign_id, LedgerEntry.kind == "void"
            )
        ).all()
        if target is not None  # a void always names its target
    )
    renames: list[tuple[int, str, str]] = []
    for seq, record in session.execute(
        select(LedgerEntry.seq, LedgerEntry.record)
        .where(LedgerEntry.campaign_id == campaign_id, LedgerEntry.kind == "rename")
        .order_by(LedgerEntry.seq)
    ):
        if seq in voided:
            continue
        for op in json.loads(record).get("ops") or ():
            if op.get("op") == "character_renamed":
                renames.append((seq, op["character"], op["new"]))
    spans: list[tuple[str, int, int | None]] = []
    current, until = name, None
    for seq, old, new in reversed(renames):
        if until is not None and seq >= until:
            continue
        if new == current:
            spans.append((current, seq, until))
            current, until = old, seq - 1
    spans.append((current, 1, until))
    return spans

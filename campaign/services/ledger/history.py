"""Reading, proving and correcting the ledger: history, show, verify, seal, void."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, ColumnExpressionArgument, Select, and_, exists, func, or_, select, text
from sqlalchemy.orm import Session, aliased

from campaign import ledger
from campaign.db.database import Database
from campaign.db.models import Campaign, Character, LedgerEntry
from campaign.errors import BadInput, NotFound
from campaign.i18n import _
from campaign.labels import entry_reason, shown_detail
from campaign.services.common import campaign_named, campaign_transaction, character_named, clean_text, player_named

# `history verify` lives in services.ledger.verification; these names stay importable from here.
from campaign.services.ledger.verification import (  # noqa: F401
    StateCheck,
    StateDifference,
    VerifyReport,
    verify,
)

Span = tuple[str, int, int | None]  # a name a character had, from seq, to seq (None: still)

OUTCOMES = ("success", "failure", "critical_success", "critical_failure")
# Entry kinds the services write (and the first releases wrote). `--kind` accepts these, and any
# other kind this campaign's ledger holds; anything else is a typo worth naming.
KINDS = (
    "campaign",
    "setting",
    "player",
    "character",
    "relation",
    "roll",
    "table",
    "check",
    "fright",
    "trait",
    "condition",
    "missing",
    "search",
    "scenario",
    "reunion",
    "void",
    "seal",
    "reveal",
    "seed_commit",
    "seed_reveal",
    "seed_abandon",
)
# seq, limits and scenario numbers are 32-bit INTEGER columns (PostgreSQL); SQLite refuses
# Python ints beyond 64 bits outright. Numbers outside this range never match anything.
INT_MAX = 2**31 - 1


def entry_view(
    record: dict[str, Any], prev_hash: str, digest: str, voided_by: int | None, abandoned: Collection[int] = ()
) -> dict[str, Any]:
    """An entry as `history --json` shows it: the hashed record plus chain fields.
    `abandoned`: the commitments a seed_abandon ended (their dice are labelled so)."""
    view = {
        key: record.get(key)
        for key in (
            "seq",
            "at",
            "actor",
            "kind",
            "character",
            "scenario",
            "parent_seq",
            "expression",
            "dice",
            "total",
            "target",
            "outcome",
            "margin",
            "source",
        )
    }
    from campaign.services.fair.seeds import fair_version, fairness_of

    view["fairness"] = fairness_of(record, abandoned)  # provable / server / typed / ... (docs/fair-dice.md)
    if (version := fair_version(record)) is not None:
        view["fair_version"] = version  # the derivation: 2, or 1 for entries written before it
    view["reason"] = entry_reason(record)  # a sub-roll records its purpose; the words are made here
    view["voids_seq"] = record.get("voids_seq")
    view["voided_by"] = voided_by
    view["detail"] = record.get("detail") or {}
    view["ops"] = record.get("ops")
    view["voidable"] = record.get("voidable")
    view["prev_hash"] = prev_hash
    view["hash"] = digest
    return view


#: Where dice come from (campaign.core.dice_source kinds, and the bridges').
SOURCES = ("rng", "server", "manual", "seeded", "bcdice-api", "ccfolia")


@dataclass(frozen=True)
class HistoryFilter:
    character: str | None = None
    player: str | None = None
    actor: str | None = None
    kind: str | None = None
    scenario: int | None = None
    outcome: str | None = None
    since: str | None = None
    until: str | None = None
    limit: int | None = 50
    source: str | None = None  # where the dice came from: rng, server, manual, bcdice-api, ccfolia ...
    zone: str | None = None  # --since / --until read in it: the campaign's `timezone` (resolve_filter)


@dataclass(frozen=True, slots=True)
class Sealed:
    """A seal appended: `head` is its hash, the one players keep."""

    campaign: str
    seq: int
    head: str


def parse_when(text: str, *, end: bool, option: str, zone: str | None = None) -> str:
    """A date (2026-11-29) or ISO time, as the comparable UTC text stored in `at`.

    A date, or a time without an offset, is read in `zone` (the campaign's `timezone`
    setting; None: the system's zone), the zone every table shows times in, so
    `--since 2026-12-02` starts at midnight where the table plays, not in UTC. --until
    with a bare date includes that whole day.
    """
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            moment = _in_zone(datetime(day.year, day.month, day.day), zone)
            if end:
                moment = _in_zone(datetime(day.year, day.month, day.day) + timedelta(days=1), zone)
        else:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
            if moment.tzinfo is None:
                moment = _in_zone(moment, zone)
        moment = moment.astimezone(UTC)
    except ValueError:
        raise BadInput(
            _("{option}: {text!r} is not a date (YYYY-MM-DD) or ISO time").format(option=option, text=text)
        ) from None
    except OverflowError:  # e.g. 0001-01-01T00:00+01:00 is before year 1 in UTC
        raise BadInput(
            _("{option}: {text!r} is out of range (years 1 to 9999, UTC)").format(option=option, text=text)
        ) from None
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _in_zone(moment: datetime, zone: str | None) -> datetime:
    """A wall-clock time in `zone` (None: the system's zone) as an aware datetime."""
    if zone is None:
        return moment.astimezone()
    from zoneinfo import ZoneInfo

    return moment.replace(tzinfo=ZoneInfo(zone))


def _live_void_of(voider: type[LedgerEntry], target_seq: ColumnExpressionArgument[int | None]) -> ColumnElement[bool]:
    """Join condition: `voider` is a void of `target_seq` that no later void took back.

    A void of a void cannot itself be voided (services refuse it), so one level of
    "taken back" is the whole story."""
    undo = aliased(LedgerEntry)
    return and_(
        voider.campaign_id == LedgerEntry.campaign_id,
        voider.voids_seq == target_seq,
        voider.kind == "void",
        ~exists().where(undo.campaign_id == voider.campaign_id, undo.voids_seq == voider.seq, undo.kind == "void"),
    )


def _spans_condition(spans: Iterable[Span]) -> ColumnElement[bool]:
    """Entries recorded under any name a character had, while it had it (renames)."""
    return or_(
        *(
            and_(
                LedgerEntry.character == name,
                LedgerEntry.seq >= first,
                *(() if last is None else (LedgerEntry.seq <= last,)),
            )
            for name, first, last in spans
        )
    )


def filter_clauses(
    flt: HistoryFilter, spans: list[Span] | None = None, player_spans: list[Span] | None = None
) -> list[ColumnElement[bool]]:
    """The WHERE clauses of a resolved filter (besides the campaign), each served by an
    index. `spans` (name, first seq, last seq): one character's entries under each name
    it had (renames); `player_spans` the same for all the characters flt.player plays
    (owned, or summoned NPCs), plus every entry the player made (rolls for NPCs). Shared
    with `stats`."""
    clauses = []
    if spans is not None:
        clauses.append(_spans_condition(spans))
    elif flt.character is not None:
        clauses.append(LedgerEntry.character == flt.character)
    if player_spans is not None:
        made = LedgerEntry.actor == flt.player
        clauses.append(or_(_spans_condition(player_spans), made) if player_spans else made)
    if flt.actor is not None:
        clauses.append(LedgerEntry.actor == flt.actor)
    if flt.kind is not None:
        clauses.append(LedgerEntry.kind == flt.kind)
    if flt.scenario is not None:
        clauses.append(LedgerEntry.scenario == flt.scenario)
    if flt.outcome is not None:
        clauses.append(LedgerEntry.outcome == flt.outcome)
    if flt.source is not None:
        # The source has no column of its own: the canonical record (sorted keys, no
        # spaces) holds it as `"source":"..."`, and iter_history drops the rare record
        # that holds the pair only inside its detail. A scan, bounded by the other filters.
        clauses.append(LedgerEntry.record.contains('"source":' + json.dumps(flt.source), autoescape=True))
    if flt.since is not None:
        clauses.append(LedgerEntry.at >= parse_when(flt.since, end=False, option="--since", zone=flt.zone))
    if flt.until is not None:
        bound = parse_when(flt.until, end=True, option="--until", zone=flt.zone)
        clauses.append(LedgerEntry.at < bound if len(flt.until) == 10 else LedgerEntry.at <= bound)
    return clauses


# The campaign's entries with their void marks, built once per campaign and process:
# building the aliased joins cost more than running the query, and the table server
# reads entries at every roll and every new head (the key is the campaign's id: as many
# as the campaigns served). Statements are immutable, so threads share them.
_ENTRIES: dict[int, Select[str, str, str, int]] = {}


def _campaign_entries(campaign_id: int) -> Select[str, str, str, int]:
    query = _ENTRIES.get(campaign_id)
    if query is None:
        voider, parent_voider = aliased(LedgerEntry), aliased(LedgerEntry)
        query = _ENTRIES[campaign_id] = (
            select(
                LedgerEntry.record,
                LedgerEntry.prev_hash,
                LedgerEntry.hash,
                func.coalesce(voider.seq, parent_voider.seq),
            )
            .outerjoin(voider, _live_void_of(voider, LedgerEntry.seq))
            .outerjoin(parent_voider, _live_void_of(parent_voider, LedgerEntry.parent_seq))
            .where(LedgerEntry.campaign_id == campaign_id)
        )
    return query


def _query(
    session: Session,
    campaign_id: int,
    flt: HistoryFilter,
    spans: list[Span] | None = None,
    player_spans: list[Span] | None = None,
) -> Select[str, str, str, int]:
    query = _campaign_entries(campaign_id).where(*filter_clauses(flt, spans, player_spans))
    query = query.order_by(LedgerEntry.seq.desc())
    if flt.limit is not None:
        query = query.limit(flt.limit)
    return query


def check_filter(flt: HistoryFilter) -> HistoryFilter:
    """Refuse malformed filter values before any query (exit 2)."""
    if flt.outcome is not None and flt.outcome not in OUTCOMES:
        raise BadInput(_("--outcome must be one of {value}").format(value=", ".join(OUTCOMES)))
    if flt.source is not None and flt.source not in SOURCES:
        raise BadInput(_("--source must be one of {value}").format(value=", ".join(SOURCES)))
    if flt.limit is not None and flt.limit < 1:
        raise BadInput(_("--limit must be at least 1"))
    if flt.limit is not None and flt.limit > INT_MAX:
        flt = replace(flt, limit=None)  # more than there can ever be: all
    if flt.scenario is not None and abs(flt.scenario) > INT_MAX:
        raise BadInput(_("--scenario: {scenario} is out of range").format(scenario=flt.scenario))
    return flt


def resolve_filter(
    session: Session, campaign: Campaign, flt: HistoryFilter
) -> tuple[HistoryFilter, list[Span] | None, list[Span] | None]:
    """(flt with names as stored, spans of --char, spans of --player's characters);
    NotFound for an unknown character or player, BadInput for an unknown kind."""
    spans: list[Span] | None = None
    player_spans: list[Span] | None = None
    if flt.character is not None or flt.player is not None:  # only then load the lifecycle service
        from campaign.services.characters.lifecycle import name_spans
    if flt.character is not None:
        character = character_named(session, campaign, flt.character).name
        flt = replace(flt, character=character)
        spans = name_spans(session, campaign.id, character)
    if flt.player is not None:
        player = player_named(session, campaign, flt.player)
        flt = replace(flt, player=player.name)
        # The characters the player plays: its own, and unowned NPCs its characters summoned
        # (services.scenarios.missing.playing_player). Reunion rolls and searches are recorded as who
        # typed them, on behalf of that player, and always name such a character: the
        # character spans find them, with the indexes the rest of the filter uses.
        summoner = aliased(Character)
        owned = list(session.scalars(select(Character.name).where(Character.player_id == player.id)))
        owned += session.scalars(
            select(Character.name)
            .join(summoner, Character.summoner_id == summoner.id)
            .where(Character.player_id.is_(None), summoner.player_id == player.id)
        )
        player_spans = [span for name in owned for span in name_spans(session, campaign.id, name)]
    if flt.actor is not None:
        flt = replace(flt, actor=unicodedata.normalize("NFC", flt.actor).strip())
    if flt.kind is not None:
        flt = replace(flt, kind=_known_kind(session, campaign.id, flt.kind))
    if flt.zone is None and (flt.since is not None or flt.until is not None):
        zone = (campaign.settings or {}).get("timezone")
        flt = replace(flt, zone=zone if isinstance(zone, str) else None)
    return flt, spans, player_spans


def iter_history(db: Database, campaign_name: str | None, flt: HistoryFilter) -> Iterator[dict[str, Any]]:
    """Stream matching entries, newest first, in constant memory."""
    flt = check_filter(flt)
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        flt, spans, player_spans = resolve_filter(session, campaign, flt)
        query = _query(session, campaign.id, flt, spans, player_spans)
        from campaign.services.fair.seeds import abandoned_commitments

        abandoned = abandoned_commitments(session, campaign.id)
        result = session.execute(query.execution_options(yield_per=1000))
        # The first fetch happens here, so option errors surface before any output.
        for record, prev_hash, digest, voided_by in result:
            view = entry_view(json.loads(record), prev_hash, digest, voided_by, abandoned)
            if flt.source is None or view["source"] == flt.source:
                yield view


def _known_kind(session: Session, campaign_id: int, kind: str) -> str:
    """The kind as stored (lower case); a kind neither known nor in this ledger is refused
    with the closest known one, so `--kind frigth` does not quietly list nothing."""
    import difflib

    wanted = unicodedata.normalize("NFKC", kind).strip().lower()
    if wanted in KINDS:
        return wanted
    if (
        "\x00" not in wanted
        and session.execute(
            text("SELECT 1 FROM ledger WHERE campaign_id = :c AND kind = :k LIMIT 1"), {"c": campaign_id, "k": wanted}
        ).first()
        is not None
    ):
        return wanted
    close = difflib.get_close_matches(wanted, KINDS, n=1, cutoff=0.6)
    if close:
        raise BadInput(
            _("--kind: no entries are of kind {kind!r}; did you mean {close!r}?").format(kind=kind, close=close[0])
        )
    raise BadInput(
        _("--kind: no entries are of kind {kind!r} (kinds: {kinds})").format(
            kind=kind, kinds=", ".join(f"`{name}`" for name in KINDS)
        )
    )


def _entry(session: Session, campaign_id: int, seq: int) -> tuple[dict[str, Any], str, str, int | None] | None:
    if not 1 <= seq <= INT_MAX:
        return None
    row = session.execute(_query(session, campaign_id, HistoryFilter(limit=None)).where(LedgerEntry.seq == seq)).first()
    return None if row is None else (json.loads(row[0]), row[1], row[2], row[3])


def show_entry(db: Database, campaign_name: str | None, seq: int) -> dict[str, Any]:
    """The entry and its sub-entries (the dice a check needed along the way)."""
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        found = _entry(session, campaign.id, seq)
        if found is None:
            raise NotFound(_("no ledger entry #{seq} in campaign {name!r}").format(seq=seq, name=campaign.name))
        from campaign.services.fair.seeds import abandoned_commitments

        abandoned = abandoned_commitments(session, campaign.id)
        view = entry_view(*found, abandoned)
        # Sorted here, not by ORDER BY: ordering by seq lets SQLite walk the whole campaign
        # in seq order instead of using the parent_seq index (seconds at 1M entries).
        children = sorted(
            session.scalars(
                select(LedgerEntry.seq).where(LedgerEntry.campaign_id == campaign.id, LedgerEntry.parent_seq == seq)
            ).all()
        )
        subs = [sub for child in children if (sub := _entry(session, campaign.id, child)) is not None]
        # the codes with their words (campaign.labels); a table roll's lines need its sub-entries
        _add_shown(view, shown_detail(found[0], [sub[0] for sub in subs]))
        view["sub_entries"] = []
        for sub in subs:
            sub_view = entry_view(*sub, abandoned)
            _add_shown(sub_view, shown_detail(sub[0]))
            view["sub_entries"].append(sub_view)
        return view


def _add_shown(view: dict[str, Any], shown: dict[str, Any]) -> None:
    if shown != view["detail"]:
        view["detail_shown"] = shown


def seal(db: Database, campaign_name: str | None, actor: str, reason: str | None = None) -> Sealed:
    """Append a seal entry; its hash is the head players keep to prove history later."""
    reason = clean_text(reason, "--reason")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        sealed_seq = ledger.head(session, campaign.id)[0]
        appended = ledger.append(
            session,
            campaign,
            actor,
            ledger.NewEntry(kind="seal", reason=reason, detail={"sealed_through": sealed_seq}, voidable=False),
        )
        from campaign.db.models import SealHead

        session.add(SealHead(campaign_id=campaign.id, seq=appended.seq, hash=appended.hash))
        return Sealed(campaign=campaign.name, seq=appended.seq, head=appended.hash)


def record_of(session: Session, campaign_id: int, seq: int) -> dict[str, Any]:
    found = _entry(session, campaign_id, seq)
    if found is None:
        raise NotFound(_("no ledger entry #{seq}").format(seq=seq))
    return found[0]

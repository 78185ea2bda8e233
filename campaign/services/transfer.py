"""Moving a campaign between databases as JSON Lines (`export` / `import`).

The file holds the campaign's state (players, characters, traits, conditions,
scenarios, disappearances, searches) and its whole ledger, each entry with its record
exactly as hashed. Import re-verifies the chain line by line and writes everything in
one transaction, so a broken or tampered file leaves the target database untouched.
Both directions stream: memory stays flat however long the ledger is.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.db.database import Database
from campaign.db.models import (
    Campaign,
    Character,
    Condition,
    Disappearance,
    LedgerEntry,
    Player,
    Relationship,
    ReunionCheck,
    Scenario,
    ScenarioParticipant,
    Search,
    Trait,
)
from campaign.errors import DataError, RuleRefused
from campaign.services.common import campaign_named

FORMAT = "campaign-export"
VERSION = 1
BATCH = 5000


_encode = json.JSONEncoder(ensure_ascii=False).encode  # one encoder for every line, not one per line


def _line(line_type: str, /, **fields: Any) -> str:
    return _encode({"type": line_type, **fields}) + "\n"


def export_lines(session: Session, campaign: Campaign, progress: Callable[[int], None] | None = None) -> Iterator[str]:
    """Yield the export file line by line (header, state, ledger, footer)."""
    cid = campaign.id
    yield _line("header", format=FORMAT, version=VERSION,
                campaign={"name": campaign.name, "ruleset": campaign.ruleset, "settings": campaign.settings,
                          "created_at": campaign.created_at})
    players = {p.id: p.name for p in session.scalars(select(Player).where(Player.campaign_id == cid).order_by(Player.id))}
    for name in players.values():
        yield _line("player", name=name)
    characters = session.scalars(select(Character).where(Character.campaign_id == cid).order_by(Character.id)).all()
    names = {c.id: c.name for c in characters}
    # Summoners first, so import can resolve every reference in one pass.
    for character in sorted(characters, key=lambda c: (c.summoner_id is not None, c.id)):
        yield _line("character", name=character.name, kind=character.kind, player=players.get(character.player_id),
                    summoner=names.get(character.summoner_id), stats=character.stats, cp_total=character.cp_total,
                    pools=character.pools)
    for rel in session.scalars(select(Relationship).where(Relationship.campaign_id == cid).order_by(Relationship.id)):
        yield _line("relationship", **{"from": names[rel.from_id], "to": names[rel.to_id], "note": rel.note})
    char_ids = list(names)
    for trait in session.scalars(select(Trait).where(Trait.character_id.in_(char_ids)).order_by(Trait.id)):
        yield _line("trait", character=names[trait.character_id], name=trait.name, category=trait.category,
                    cp=trait.cp, counts_toward_limit=trait.counts_toward_limit, origin=trait.origin,
                    source_seq=trait.source_seq, removed_seq=trait.removed_seq)
    for cond in session.scalars(select(Condition).where(Condition.character_id.in_(char_ids)).order_by(Condition.id)):
        yield _line("condition", character=names[cond.character_id], name=cond.name, duration=cond.duration,
                    detail=cond.detail, origin=cond.origin, source_seq=cond.source_seq, cleared_seq=cond.cleared_seq)
    scenario_numbers = {}
    for scenario in session.scalars(select(Scenario).where(Scenario.campaign_id == cid).order_by(Scenario.number)):
        scenario_numbers[scenario.id] = scenario.number
        participants = session.scalars(
            select(ScenarioParticipant.character_id).where(ScenarioParticipant.scenario_id == scenario.id)
            .order_by(ScenarioParticipant.character_id)
        ).all()
        yield _line("scenario", number=scenario.number, title=scenario.title, started_seq=scenario.started_seq,
                    ended_seq=scenario.ended_seq, started_at=scenario.started_at, ended_at=scenario.ended_at,
                    participants=[names[p] for p in participants])
    disappearances = {}
    for gone in session.scalars(select(Disappearance).where(Disappearance.campaign_id == cid).order_by(Disappearance.id)):
        disappearances[gone.id] = gone.since_seq
        yield _line("disappearance", character=names[gone.character_id], faces=gone.faces, reason=gone.reason,
                    since_seq=gone.since_seq, since_at=gone.since_at,
                    since_scenario=scenario_numbers.get(gone.since_scenario_id), reunited_seq=gone.reunited_seq)
    if disappearances:
        for search in session.scalars(select(Search).where(Search.disappearance_id.in_(list(disappearances)))
                                      .order_by(Search.id)):
            yield _line("search", missing_since_seq=disappearances[search.disappearance_id],
                        searcher=names[search.searcher_id], player=players[search.player_id],
                        started_seq=search.started_seq, scenario=scenario_numbers.get(search.scenario_id),
                        ended_seq=search.ended_seq)
        for check in session.scalars(select(ReunionCheck).where(ReunionCheck.disappearance_id.in_(list(disappearances)))
                                     .order_by(ReunionCheck.id)):
            yield _line("reunion_check", missing_since_seq=disappearances[check.disappearance_id],
                        scenario=scenario_numbers[check.scenario_id], seq=check.seq, roll=check.roll,
                        threshold=check.threshold, success=check.success)
    count, head = 0, ledger.GENESIS_HASH
    rows = session.execute(
        select(LedgerEntry.record, LedgerEntry.prev_hash, LedgerEntry.hash)
        .where(LedgerEntry.campaign_id == cid).order_by(LedgerEntry.seq).execution_options(yield_per=BATCH)
    )
    for record, prev_hash, digest in rows:
        count += 1
        head = digest
        yield _line("entry", record=record, prev_hash=prev_hash, hash=digest)
        if progress is not None:
            progress(1)
    yield _line("footer", entries=count, head=head)


def export_campaign(db: Database, campaign_name: str | None, out: IO[str],
                    progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        count = 0
        for line in export_lines(session, campaign, progress):
            out.write(line)
            count += 1
        return {"campaign": campaign.name, "lines": count, "entries": ledger.head(session, campaign.id)[0]}


class _Importer:
    """Builds one campaign from export lines inside the caller's transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.campaign: Campaign | None = None
        self.players: dict[str, int] = {}
        self.characters: dict[str, int] = {}
        self.scenarios: dict[int, int] = {}
        self.disappearances: dict[int, int] = {}
        self.expected_seq = 1
        self.prev_hash = ledger.GENESIS_HASH
        self.pending: list[dict[str, Any]] = []
        self.footer: dict[str, Any] | None = None

    def feed(self, item: dict[str, Any]) -> None:
        kind = item.get("type")
        if self.campaign is None and kind != "header":
            raise ValueError("the file must start with a header line")
        if self.footer is not None:
            raise ValueError("nothing may follow the footer")
        handler = getattr(self, f"_{kind}", None) if isinstance(kind, str) else None
        if handler is None:
            raise ValueError(f"unknown line type {kind!r}")
        handler(item)

    def _header(self, item: dict[str, Any]) -> None:
        if self.campaign is not None:
            raise ValueError("a second header")
        if item.get("format") != FORMAT or item.get("version") != VERSION:
            raise ValueError(f"not a {FORMAT} version {VERSION} file")
        meta = item["campaign"]
        if self.session.scalar(select(Campaign.id).where(Campaign.name == meta["name"])) is not None:
            raise RuleRefused(f"a campaign named {meta['name']!r} already exists in the target database")
        self.campaign = Campaign(name=meta["name"], ruleset=meta["ruleset"], settings=meta["settings"],
                                 created_at=meta["created_at"])
        self.session.add(self.campaign)
        self.session.flush()

    @staticmethod
    def _ref(known: dict, key: Any, what: str) -> Any:
        """The new id for a name/number the file refers to; None stays None."""
        if key is None:
            return None
        if key not in known:
            raise ValueError(f"refers to an unknown {what} {key!r}")
        return known[key]

    def _char(self, name: str | None) -> int | None:
        return self._ref(self.characters, name, "character")

    def _add(self, row) -> Any:
        self.session.add(row)
        self.session.flush()
        return row

    def _player(self, item):
        self.players[item["name"]] = self._add(Player(campaign_id=self.campaign.id, name=item["name"])).id

    def _character(self, item):
        row = Character(campaign_id=self.campaign.id, name=item["name"], kind=item["kind"],
                        player_id=self._ref(self.players, item["player"], "player"),
                        summoner_id=self._char(item["summoner"]),
                        stats=item["stats"], cp_total=item["cp_total"], pools=item["pools"])
        self.characters[item["name"]] = self._add(row).id

    def _relationship(self, item):
        self._add(Relationship(campaign_id=self.campaign.id, from_id=self._char(item["from"]),
                               to_id=self._char(item["to"]), note=item["note"]))

    def _trait(self, item):
        self._add(Trait(character_id=self._char(item["character"]), name=item["name"], category=item["category"],
                        cp=item["cp"], counts_toward_limit=item["counts_toward_limit"], origin=item["origin"],
                        source_seq=item["source_seq"], removed_seq=item["removed_seq"]))

    def _condition(self, item):
        self._add(Condition(character_id=self._char(item["character"]), name=item["name"],
                            duration=item["duration"], detail=item["detail"], origin=item["origin"],
                            source_seq=item["source_seq"], cleared_seq=item["cleared_seq"]))

    def _scenario(self, item):
        row = self._add(Scenario(campaign_id=self.campaign.id, number=item["number"], title=item["title"],
                                 started_seq=item["started_seq"], ended_seq=item["ended_seq"],
                                 started_at=item["started_at"], ended_at=item["ended_at"]))
        self.scenarios[item["number"]] = row.id
        for name in item["participants"]:
            self.session.add(ScenarioParticipant(scenario_id=row.id, character_id=self._char(name)))

    def _disappearance(self, item):
        row = self._add(Disappearance(
            campaign_id=self.campaign.id, character_id=self._char(item["character"]), faces=item["faces"],
            reason=item["reason"], since_seq=item["since_seq"], since_at=item["since_at"],
            since_scenario_id=self._ref(self.scenarios, item["since_scenario"], "scenario"),
            reunited_seq=item["reunited_seq"],
        ))
        self.disappearances[item["since_seq"]] = row.id

    def _search(self, item):
        self._add(Search(
            disappearance_id=self._ref(self.disappearances, item["missing_since_seq"], "disappearance"),
            searcher_id=self._char(item["searcher"]), player_id=self._ref(self.players, item["player"], "player"),
            started_seq=item["started_seq"], scenario_id=self._ref(self.scenarios, item["scenario"], "scenario"),
            ended_seq=item["ended_seq"],
        ))

    def _reunion_check(self, item):
        self._add(ReunionCheck(
            disappearance_id=self._ref(self.disappearances, item["missing_since_seq"], "disappearance"),
            scenario_id=self._ref(self.scenarios, item["scenario"], "scenario"), seq=item["seq"],
            roll=item["roll"], threshold=item["threshold"], success=item["success"],
        ))

    def _entry(self, item):
        record_json, prev_hash, digest = item["record"], item["prev_hash"], item["hash"]
        if prev_hash != self.prev_hash:
            raise ValueError(f"entry {self.expected_seq}: prev_hash does not link to the previous entry")
        if ledger.chain_hash(prev_hash, record_json) != digest:
            raise ValueError(f"entry {self.expected_seq}: hash does not match its content (edited)")
        record = json.loads(record_json)
        if record.get("seq") != self.expected_seq:
            raise ValueError(f"entry {record.get('seq')} found where entry {self.expected_seq} was expected")
        if record.get("campaign") != self.campaign.name:
            raise ValueError(f"entry {self.expected_seq} belongs to another campaign")
        row = {name: record.get(name) for name in ledger.INDEXED_FIELDS}
        row.update(campaign_id=self.campaign.id, record=record_json, prev_hash=prev_hash, hash=digest)
        self.pending.append(row)
        self.expected_seq += 1
        self.prev_hash = digest
        if len(self.pending) >= BATCH:
            self.flush_entries()

    def _footer(self, item):
        if item.get("entries") != self.expected_seq - 1 or item.get("head") != self.prev_hash:
            raise ValueError("the footer does not match the entries (file truncated or edited)")
        self.footer = item

    def flush_entries(self) -> None:
        if self.pending:
            self.session.execute(LedgerEntry.__table__.insert(), self.pending)
            self.pending = []


def import_campaign(db: Database, lines: Iterable[str], progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Recreate a campaign from export lines; all or nothing, errors name the line."""
    line_number = 0
    try:
        with db.write() as session:
            importer = _Importer(session)
            for line_number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    item = json.loads(line)
                    if not isinstance(item, dict):
                        raise ValueError("not a JSON object")
                    importer.feed(item)
                except RuleRefused:
                    raise
                except (ValueError, KeyError, TypeError, AttributeError) as exc:
                    problem = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
                    raise DataError(f"line {line_number}: {problem}; nothing imported") from None
                if progress is not None:
                    progress(1)
            if importer.footer is None:
                raise DataError(f"line {line_number + 1}: the file ends without its footer (truncated); nothing imported")
            importer.flush_entries()
            return {"campaign": importer.campaign.name, "entries": importer.expected_seq - 1,
                    "head": importer.prev_hash}
    except IntegrityError as exc:
        raise DataError(f"line {line_number}: inconsistent content ({str(exc.orig).splitlines()[0]}); "
                        "nothing imported") from None

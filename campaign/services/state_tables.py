"""The state tables as a campaign.projection State: read them, check them, rewrite them.

- `ledger_entries` parses the campaign's ledger for replay (only kinds that can carry
  ops, plus voids).
- `load_state` reads the tables into the same shape replay produces.
- `check_state` compares the two and names the first difference.
- `sync_state` rewrites the tables to equal a given State, touching only what differs:
  a void writes its projection this way, and import builds a campaign this way.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import delete, select, text
from sqlalchemy.orm import Session

from campaign.db.models import (
    Campaign,
    Character,
    Condition,
    Disappearance,
    Player,
    Relationship,
    ReunionCheck,
    Scenario,
    ScenarioParticipant,
    Search,
    Trait,
)
from campaign.projection.replay import Entry, entry_from_record, project
from campaign.projection.state import (
    CharacterRow,
    ConditionRow,
    Difference,
    DisappearanceRow,
    ReunionRow,
    ScenarioRow,
    SearchRow,
    State,
    TraitRow,
    first_difference,
)

# Entries of these kinds never change state (rolls, tables, checks, seals): replay skips
# reading them, which is most of a long ledger.
STATELESS_KINDS = ("roll", "table", "check", "seal")


def ledger_entries(session: Session, campaign: Campaign, progress=None) -> list[Entry]:
    rows = session.execute(
        text("SELECT record FROM ledger WHERE campaign_id = :c AND kind NOT IN ('roll', 'table', 'check', 'seal') "
             "ORDER BY seq").execution_options(yield_per=2000),
        {"c": campaign.id},
    )
    entries = []
    for (record,) in rows:
        entries.append(entry_from_record(json.loads(record)))
        if progress is not None:
            progress(1)
    return entries


def load_state(session: Session, campaign: Campaign, only: str | None = None) -> State:
    """The tables as a State. With `only` (a character's name): just what that character's
    view needs (its traits and conditions, no scenario participants, no reunion rolls),
    so `char show` and a command's "character after" stay cheap in a long campaign."""
    cid = campaign.id
    state = State(ruleset=campaign.ruleset, settings=dict(campaign.settings or {}), clock=campaign.clock or 0)
    players = {p.id: p.name for p in session.scalars(select(Player).where(Player.campaign_id == cid)
                                                     .order_by(Player.id))}
    state.players = dict.fromkeys(players.values())
    characters = session.scalars(select(Character).where(Character.campaign_id == cid).order_by(Character.id)).all()
    names = {c.id: c.name for c in characters}
    for c in characters:
        state.characters[c.name] = CharacterRow(c.kind, players.get(c.player_id), names.get(c.summoner_id),
                                                dict(c.stats or {}), c.cp_total, dict(c.pools or {}), c.status,
                                                c.cp_awarded, dict(c.skills or {}), list(c.notes or []),
                                                list(c.items or []), c.reading)
    for r in session.scalars(select(Relationship).where(Relationship.campaign_id == cid).order_by(Relationship.id)):
        state.relationships[(names.get(r.from_id), names.get(r.to_id))] = r.note
    ids = list(names) if only is None else [i for i, name in names.items() if name == only]
    for t in session.scalars(select(Trait).where(Trait.character_id.in_(ids)).order_by(Trait.id)):
        state.traits[t.origin] = TraitRow(names[t.character_id], t.name, t.category, t.cp, t.counts_toward_limit,
                                          t.source_seq, t.removed_seq, t.unlimited_cp)
    for c in session.scalars(select(Condition).where(Condition.character_id.in_(ids)).order_by(Condition.id)):
        state.conditions[c.origin] = ConditionRow(names[c.character_id], c.name, c.duration, dict(c.detail or {}),
                                                  c.source_seq, c.cleared_seq, c.since_clock, c.until_clock)
    numbers = {}
    for s in session.scalars(select(Scenario).where(Scenario.campaign_id == cid).order_by(Scenario.number)):
        numbers[s.id] = s.number
        if only is not None:
            continue
        participants = session.scalars(
            select(Character.name).join(ScenarioParticipant, ScenarioParticipant.character_id == Character.id)
            .where(ScenarioParticipant.scenario_id == s.id).order_by(Character.id)).all()
        state.scenarios[s.number] = ScenarioRow(s.title, s.started_seq, s.started_at, list(participants),
                                                s.ended_seq, s.ended_at)
    since = {}
    for d in session.scalars(select(Disappearance).where(Disappearance.campaign_id == cid).order_by(Disappearance.id)):
        since[d.id] = d.since_seq
        state.disappearances[d.since_seq] = DisappearanceRow(names.get(d.character_id), d.faces, d.reason, d.since_at,
                                                             numbers.get(d.since_scenario_id), d.reunited_seq)
    if since:
        for s in session.scalars(select(Search).where(Search.disappearance_id.in_(list(since))).order_by(Search.id)):
            state.searches[s.started_seq] = SearchRow(since[s.disappearance_id], names.get(s.searcher_id),
                                                      players.get(s.player_id), numbers.get(s.scenario_id), s.ended_seq)
        reunions = [] if only is not None else session.scalars(
            select(ReunionCheck).where(ReunionCheck.disappearance_id.in_(list(since))).order_by(ReunionCheck.id))
        for r in reunions:
            state.reunions[r.seq] = ReunionRow(since[r.disappearance_id], numbers.get(r.scenario_id), r.roll,
                                               r.threshold, r.success)
    return state


def check_state(session: Session, campaign: Campaign, progress=None) -> Difference | None:
    """None when the tables equal the ledger's projection, else the first difference.

    A ledger that does not replay (malformed or impossible ops) raises BadOp or
    ReplayConflict, both naming the entry.
    """
    expected = project(ledger_entries(session, campaign, progress))
    return first_difference(expected, load_state(session, campaign))


class _Ids:
    """Database ids of the campaign's rows by stable key, refreshed as rows are added."""

    def __init__(self, session: Session, campaign: Campaign) -> None:
        cid = campaign.id
        self.players = {n: i for i, n in session.execute(select(Player.id, Player.name)
                                                         .where(Player.campaign_id == cid))}
        self.characters = {n: i for i, n in session.execute(select(Character.id, Character.name)
                                                            .where(Character.campaign_id == cid))}
        self.scenarios = {n: i for i, n in session.execute(select(Scenario.id, Scenario.number)
                                                           .where(Scenario.campaign_id == cid))}
        self.disappearances = {s: i for i, s in session.execute(select(Disappearance.id, Disappearance.since_seq)
                                                                .where(Disappearance.campaign_id == cid))}

    @staticmethod
    def of(known: dict[Any, int], key: Any) -> int | None:
        return None if key is None else known[key]


def _apply_renames(session: Session, campaign: Campaign, before: State, target: State) -> None:
    """Rename the character and player rows that `target` knows under another name than
    `before` (the projection the tables equal now), so the rows match by name again.
    Two steps through a temporary name, so a swap of two names never clashes."""
    from campaign.projection.state import renamed_between

    characters, players = renamed_between(before, target)
    for model, renames in ((Character, characters), (Player, players)):
        rows = [session.scalars(select(model).where(model.campaign_id == campaign.id, model.name == old)).one()
                for old in renames]
        for row in rows:
            row.name = f"\x01renaming {row.id}"
        session.flush()
        for row, new in zip(rows, renames.values()):
            row.name = new
        session.flush()


def _same_order(old: dict, new: dict) -> dict:
    """`new`, keeping the keys `old` had in the order they had (the GM's order of stats;
    replayed records hold them sorted)."""
    return {**{key: new[key] for key in old if key in new}, **new}


def _sheet_columns(row: CharacterRow) -> dict:
    """Skills, notes and items as the columns hold them: NULL when empty (revision 0015)."""
    return {"skills": dict(row.skills) or None, "notes": list(row.notes) or None, "items": list(row.items) or None,
            "reading": row.reading}


def sync_state(session: Session, campaign: Campaign, target: State, before: State | None = None) -> None:
    """Make the tables equal `target`, changing only what differs.

    Rows are matched by stable key; a row the target lacks is deleted (children
    first), a row it adds is inserted (parents first), a differing row is updated.
    `before`, the replayed state the tables equal now, lets a renamed character or
    player keep its row (a void of a rename renames it back).
    """
    if before is not None:
        _apply_renames(session, campaign, before, target)
    current = load_state(session, campaign)
    cid = campaign.id
    if current.settings != target.settings:
        campaign.settings = dict(target.settings)
    if current.clock != target.clock:
        campaign.clock = target.clock
    session.flush()

    # Children that go away, first (foreign keys).
    ids = _Ids(session, campaign)
    gone_reunions = [seq for seq in current.reunions if seq not in target.reunions]
    gone_searches = [seq for seq in current.searches if seq not in target.searches]
    gone_missing = [seq for seq in current.disappearances if seq not in target.disappearances]
    if gone_reunions:
        session.execute(delete(ReunionCheck).where(ReunionCheck.seq.in_(gone_reunions),
                                                   ReunionCheck.disappearance_id.in_(list(ids.disappearances.values()))))
    if gone_searches:
        session.execute(delete(Search).where(Search.started_seq.in_(gone_searches),
                                             Search.disappearance_id.in_(list(ids.disappearances.values()))))
    if gone_missing:
        session.execute(delete(Disappearance).where(Disappearance.campaign_id == cid,
                                                    Disappearance.since_seq.in_(gone_missing)))
    char_ids = list(ids.characters.values())
    for origin in [o for o in current.traits if o not in target.traits]:
        session.execute(delete(Trait).where(Trait.character_id.in_(char_ids), Trait.origin == origin))
    for origin in [o for o in current.conditions if o not in target.conditions]:
        session.execute(delete(Condition).where(Condition.character_id.in_(char_ids), Condition.origin == origin))
    # A voided sheet import (services.sheet_transfer) takes its character away again; its
    # traits went above, and nothing else can hold it (a later entry using it depends on it).
    gone_characters = [name for name in current.characters if name not in target.characters]
    if gone_characters:
        session.execute(delete(Character).where(Character.campaign_id == cid, Character.name.in_(gone_characters)))
        current.characters = {k: v for k, v in current.characters.items() if k not in gone_characters}
    for gone in ("players", "characters", "relationships", "scenarios"):
        extra = set(getattr(current, gone)) - set(getattr(target, gone))
        if extra:  # never made by a voidable entry: the tables were edited by hand
            raise ValueError(f"cannot remove {gone} {sorted(map(str, extra))[:3]} by replay")

    # Parents that appear, then everything else, in key order.
    for name in target.players:
        if name not in current.players:
            session.add(Player(campaign_id=cid, name=name))
    session.flush()
    ids = _Ids(session, campaign)
    for name, row in target.characters.items():
        if name not in current.characters:  # summoners come before the NPCs they summon
            character = Character(campaign_id=cid, name=name, kind=row.kind, player_id=ids.of(ids.players, row.player),
                                  summoner_id=ids.of(ids.characters, row.summoner), stats=dict(row.stats),
                                  cp_total=row.cp_total, pools=dict(row.pools), status=row.status,
                                  cp_awarded=row.cp_awarded, **_sheet_columns(row))
            session.add(character)
            session.flush()
            ids.characters[name] = character.id
        elif current.characters[name] != row:
            character = session.get(Character, ids.characters[name])
            old = current.characters[name]
            character.stats, character.cp_total = _same_order(old.stats, row.stats), row.cp_total
            character.pools = _same_order(old.pools, row.pools)
            character.status, character.cp_awarded = row.status, row.cp_awarded
            for column, value in _sheet_columns(row).items():
                setattr(character, column, value)
            character.player_id = ids.of(ids.players, row.player)
            character.summoner_id = ids.of(ids.characters, row.summoner)
    for (a, b), note in target.relationships.items():
        if (a, b) not in current.relationships:
            session.add(Relationship(campaign_id=cid, from_id=ids.characters[a], to_id=ids.characters[b], note=note))
    char_ids = list(ids.characters.values())
    for origin, row in target.traits.items():
        if origin not in current.traits:
            session.add(Trait(character_id=ids.characters[row.character], name=row.name, category=row.category,
                              cp=row.cp, counts_toward_limit=row.counts_toward_limit, origin=origin,
                              source_seq=row.source_seq, removed_seq=row.removed_seq, unlimited_cp=row.unlimited_cp))
        elif current.traits[origin] != row:
            trait = session.scalars(select(Trait).where(Trait.character_id.in_(char_ids), Trait.origin == origin)).one()
            trait.name, trait.category, trait.cp = row.name, row.category, row.cp
            trait.counts_toward_limit, trait.source_seq, trait.removed_seq = (
                row.counts_toward_limit, row.source_seq, row.removed_seq)
            trait.unlimited_cp = row.unlimited_cp
    for origin, row in target.conditions.items():
        if origin not in current.conditions:
            session.add(Condition(character_id=ids.characters[row.character], name=row.name, duration=row.duration,
                                  detail=dict(row.detail), origin=origin, source_seq=row.source_seq,
                                  cleared_seq=row.cleared_seq, since_clock=row.since_clock,
                                  until_clock=row.until_clock))
        elif current.conditions[origin] != row:
            condition = session.scalars(select(Condition).where(Condition.character_id.in_(char_ids),
                                                                Condition.origin == origin)).one()
            condition.name, condition.duration, condition.detail = row.name, row.duration, dict(row.detail)
            condition.source_seq, condition.cleared_seq = row.source_seq, row.cleared_seq
            condition.since_clock, condition.until_clock = row.since_clock, row.until_clock
    for number, row in target.scenarios.items():
        if number not in current.scenarios:
            scenario = Scenario(campaign_id=cid, number=number, title=row.title, started_seq=row.started_seq,
                                ended_seq=row.ended_seq, started_at=row.started_at, ended_at=row.ended_at)
            session.add(scenario)
            session.flush()
            ids.scenarios[number] = scenario.id
            for name in row.participants:
                session.add(ScenarioParticipant(scenario_id=scenario.id, character_id=ids.characters[name]))
        elif current.scenarios[number] != row:
            scenario = session.get(Scenario, ids.scenarios[number])
            scenario.title, scenario.started_seq, scenario.started_at = row.title, row.started_seq, row.started_at
            scenario.ended_seq, scenario.ended_at = row.ended_seq, row.ended_at
            if sorted(current.scenarios[number].participants) != sorted(row.participants):
                session.execute(delete(ScenarioParticipant).where(ScenarioParticipant.scenario_id == scenario.id))
                for name in row.participants:
                    session.add(ScenarioParticipant(scenario_id=scenario.id, character_id=ids.characters[name]))
    session.flush()
    for since_seq, row in target.disappearances.items():
        values = dict(character_id=ids.characters[row.character], faces=row.faces, reason=row.reason,
                      since_at=row.since_at, since_scenario_id=ids.of(ids.scenarios, row.since_scenario),
                      reunited_seq=row.reunited_seq)
        if since_seq not in current.disappearances:
            gone = Disappearance(campaign_id=cid, since_seq=since_seq, **values)
            session.add(gone)
            session.flush()
            ids.disappearances[since_seq] = gone.id
        elif current.disappearances[since_seq] != row:
            gone = session.get(Disappearance, ids.disappearances[since_seq])
            for key, value in values.items():
                setattr(gone, key, value)
    disappearance_ids = list(ids.disappearances.values())
    for started_seq, row in target.searches.items():
        values = dict(disappearance_id=ids.disappearances[row.since_seq], searcher_id=ids.characters[row.searcher],
                      player_id=ids.players[row.player], scenario_id=ids.of(ids.scenarios, row.scenario),
                      ended_seq=row.ended_seq)
        if started_seq not in current.searches:
            session.add(Search(started_seq=started_seq, **values))
        elif current.searches[started_seq] != row:
            search = session.scalars(select(Search).where(Search.disappearance_id.in_(disappearance_ids),
                                                          Search.started_seq == started_seq)).one()
            for key, value in values.items():
                setattr(search, key, value)
    for seq, row in target.reunions.items():
        values = dict(disappearance_id=ids.disappearances[row.since_seq], scenario_id=ids.scenarios[row.scenario],
                      roll=row.roll, threshold=row.threshold, success=row.success)
        if seq not in current.reunions:
            session.add(ReunionCheck(seq=seq, **values))
        elif current.reunions[seq] != row:
            check = session.scalars(select(ReunionCheck).where(ReunionCheck.disappearance_id.in_(disappearance_ids),
                                                               ReunionCheck.seq == seq)).one()
            for key, value in values.items():
                setattr(check, key, value)
    session.flush()

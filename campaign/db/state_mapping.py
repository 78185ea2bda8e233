"""The one module that writes the state tables: each table declared against its State model.

Why one place: an op's `apply` is the only code that decides what a change does (the
same code replays the ledger, plans a void and checks `history verify`); this module
only makes the tables say what a State says. `StateTables` holds a working State
loaded for the rows a command touches (or all of them: a void, an import, verify),
and `flush()` writes the rows that differ from what the tables held: inserts, updates
of the changed columns only, deletes, children after parents (and deleted before them).

The mapping is declared, not written out per table: a row model's field is the ORM
column of the same name, unless a `Ref` says it names another row by its stable key
(a character by name, a disappearance by the seq that began it), in which case the
column holds that row's id. So a new state field is one field on the row model and
its column; a field naming another row adds one `Ref`. Two tables are pairs rather
than rows and are spelled out below: relationships and scenario participants.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, fields
from typing import Any

from sqlalchemy import delete, or_, select
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
from campaign.i18n import _
from campaign.projection.op_base import EntryContext
from campaign.projection.ops_characters import CharacterRenamed, PlayerRenamed
from campaign.projection.state import (
    CharacterRow,
    ConditionRow,
    DisappearanceRow,
    ReunionRow,
    ScenarioRow,
    SearchRow,
    State,
    TraitRow,
    renamed_between,
)


@dataclass(frozen=True)
class Ref:
    """A row model's field that names another row: the column holds that row's id."""

    field: str  # on the row model: "player", "since_seq"
    column: str  # on the ORM model: "player_id", "disappearance_id"
    section: str  # the State section whose key it is: "players", "disappearances"


@dataclass(frozen=True)
class Table:
    """One state table: the State section it holds, keyed by the column `key`."""

    section: str
    model: Any
    key: str
    row: type | None  # None: the section is an ordered set of keys (players)
    refs: tuple[Ref, ...] = ()
    scope: str = "campaign"  # rows belong to the campaign by campaign_id, "character" or "disappearance"
    null_when_empty: tuple[str, ...] = ()  # columns that hold NULL for an empty value (revision 0015)

    def plain(self) -> tuple[str, ...]:
        """The row model's fields stored as they are, in a column of the same name."""
        return _plain(self)


@functools.cache
def _plain(table: Table) -> tuple[str, ...]:
    if table.row is None:
        return ()
    skip = {ref.field for ref in table.refs} | {"participants"}
    return tuple(f.name for f in fields(table.row) if f.name not in skip)


@functools.cache
def _empty(row: type, name: str) -> Any:
    """What a NULL in a JSON column reads as: {} for a dict field, [] for a list, else None."""
    kind = str(next(f.type for f in fields(row) if f.name == name))
    return dict if kind.startswith("dict") else list if kind.startswith("list") else None


_CHARACTER = Ref("character", "character_id", "characters")
_SINCE = Ref("since_seq", "disappearance_id", "disappearances")

# Parents before children: inserts go in this order, deletes in the reverse.
TABLES: tuple[Table, ...] = (
    Table("players", Player, "name", None),
    Table(
        "characters",
        Character,
        "name",
        CharacterRow,
        (Ref("player", "player_id", "players"), Ref("summoner", "summoner_id", "characters")),
        null_when_empty=("skills", "notes", "items"),
    ),
    Table("traits", Trait, "origin", TraitRow, (_CHARACTER,), scope="character"),
    Table("conditions", Condition, "origin", ConditionRow, (_CHARACTER,), scope="character"),
    Table("scenarios", Scenario, "number", ScenarioRow),
    Table(
        "disappearances",
        Disappearance,
        "since_seq",
        DisappearanceRow,
        (_CHARACTER, Ref("since_scenario", "since_scenario_id", "scenarios")),
    ),
    Table(
        "searches",
        Search,
        "started_seq",
        SearchRow,
        (
            _SINCE,
            Ref("searcher", "searcher_id", "characters"),
            Ref("player", "player_id", "players"),
            Ref("scenario", "scenario_id", "scenarios"),
        ),
        scope="disappearance",
    ),
    Table(
        "reunions",
        ReunionCheck,
        "seq",
        ReunionRow,
        (_SINCE, Ref("scenario", "scenario_id", "scenarios")),
        scope="disappearance",
    ),
)
BY_SECTION = {table.section: table for table in TABLES}
CAMPAIGN_COLUMNS = ("settings", "clock")  # the campaign row's state (its ruleset is fixed when it is made)
_NO_ENTRY = EntryContext(0, "", None)  # a rename's apply reads nothing of its entry
# Sections no voidable entry adds, so replay never takes a row of them away.
NEVER_REMOVED = ("players", "scenarios")


def _same_order(old: Any, new: Any) -> Any:
    """`new`, keeping the keys `old` had in the order they had (the GM's order of stats;
    replayed records hold them sorted)."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return new
    return {**{key: new[key] for key in old if key in new}, **new}


@functools.cache
def _reading(table: Table) -> tuple[tuple[str, Any], ...]:
    """(field, what a NULL reads as) for each plain field of the table's row model."""
    return tuple((name, _empty(table.row, name)) for name in table.plain()) if table.row is not None else ()


def _value(value: Any, empty: Any) -> Any:
    """A column's value as the row model holds it: JSON columns as fresh dicts and lists
    (shallow: ops rebind a field, they never change what it holds in place)."""
    if value is None:
        return empty() if empty is not None else None
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return list(value)
    return value


def _row_copy(row: Any) -> Any:
    """A row as it stands: ops rebind a row's fields (never change a dict or list in
    place), so a shallow copy keeps what the row was."""
    if row is None:
        return None
    made = copy.copy(row)
    if isinstance(row, ScenarioRow):
        made.participants = list(row.participants)
    return made


def _snapshot(state: State) -> State:
    """What `state` holds now, cheaply: the sections' dicts and rows copied, not the values."""
    made = copy.copy(state)
    for name in ("relationships", "born", "player_born", *(t.section for t in TABLES)):
        setattr(
            made,
            name,
            {key: _row_copy(row) if name in BY_SECTION else row for key, row in getattr(state, name).items()},
        )
    return made


class StateTables:
    """One campaign's state tables as a working State, and the writes that make the
    tables equal to it. Rows are loaded on demand (`need`, `character`, `adopt`);
    `state` is what the ops change, `written` what the tables hold of the loaded rows."""

    def __init__(self, session: Session, campaign: Campaign) -> None:
        self.session, self.campaign = session, campaign
        self.state = State(ruleset=campaign.ruleset, settings=dict(campaign.settings or {}), clock=campaign.clock or 0)
        self.written = self.state.copy()
        self.rows: dict[str, dict[Any, Any]] = {table.section: {} for table in TABLES}
        self.ids: dict[str, dict[Any, int]] = {table.section: {} for table in TABLES}
        self.keys: dict[str, dict[int, Any]] = {table.section: {} for table in TABLES}
        self.loaded: set[str] = set()
        self._traits_of: set[str] = set()
        # Whose participants a scenario row holds: "open" scenarios' (the only ones an op
        # changes: a live write), "all" (verify, a void, an import) or "none" (a sheet).
        self.participants = "open"
        self._with_participants: set[int] = set()
        self.tracking = True  # False: a read (a sheet), nothing will be written

    # --------------------------------------------------------------------- reading

    def _scope(self, table: Table) -> Any:
        cid = self.campaign.id
        if table.scope == "character":
            return table.model.character_id.in_(select(Character.id).where(Character.campaign_id == cid))
        if table.scope == "disappearance":
            return table.model.disappearance_id.in_(select(Disappearance.id).where(Disappearance.campaign_id == cid))
        return table.model.campaign_id == cid

    def key_of(self, section: str, row_id: int | None) -> Any:
        """The stable key of the row with database id `row_id` (looked up once)."""
        if row_id is None:
            return None
        known = self.keys[section]
        if row_id not in known:
            table = BY_SECTION[section]
            known[row_id] = getattr(self.session.get(table.model, row_id), table.key)
            self.ids[section][known[row_id]] = row_id
        return known[row_id]

    def id_of(self, section: str, key: Any) -> int | None:
        """The database id of the row `key` names (looked up once)."""
        if key is None:
            return None
        known = self.ids[section]
        if key not in known:
            table = BY_SECTION[section]
            row_id = self.session.scalars(
                select(table.model.id).where(self._scope(table), getattr(table.model, table.key) == key)
            ).one()
            known[key], self.keys[section][row_id] = row_id, key
        return known[key]

    def _row(self, table: Table, orm: Any) -> Any:
        values = {name: _value(getattr(orm, name), empty) for name, empty in _reading(table)}
        for ref in table.refs:
            values[ref.field] = self.key_of(ref.section, getattr(orm, ref.column))
        if table.section == "scenarios":
            values["participants"] = []
        return table.row(**values) if table.row is not None else None

    def adopt(self, section: str, orm: Any) -> Any:
        """Take one ORM row (already in the session) into the working state; its key."""
        table = BY_SECTION[section]
        key = getattr(orm, table.key)
        if key in self.rows[section]:
            return key
        self.rows[section][key] = orm
        self.ids[section][key], self.keys[section][orm.id] = orm.id, key
        row = self._row(table, orm)
        self.state_section(section)[key] = row
        if self.tracking:
            getattr(self.written, section)[key] = _row_copy(row)
        if section == "characters":
            self.state.born[key] = self.written.born[key] = -orm.id  # identity across renames, never a seq
        elif section == "players":
            self.state.player_born[key] = self.written.player_born[key] = -orm.id
        return key

    def _load(self, section: str, *where: Any) -> list[Any]:
        table = BY_SECTION[section]
        found = self.session.scalars(
            select(table.model).where(self._scope(table), *where).order_by(table.model.id)
        ).all()
        for orm in found:
            self.adopt(section, orm)
        return list(found)

    def need(self, *sections: str) -> State:
        """Load whole sections (each once) into the working state; the state."""
        for section in sections:
            if section in self.loaded:
                continue
            if section in ("characters", "relationships"):
                self.need("players")
            if section == "relationships":
                self.need("characters")
                self._load_relationships()
            else:
                found = self._load(section)
                if section == "scenarios" and self.participants != "none":
                    self._load_participants(
                        [
                            s.id
                            for s in found
                            if s.id not in self._with_participants
                            and (self.participants == "all" or s.ended_seq is None)
                        ]
                    )
            self.loaded.add(section)
        return self.state

    def traits_of(self, name: str) -> None:
        """The character's traits that are not removed (a new name must not clash with one)."""
        if name not in self._traits_of and "traits" not in self.loaded:
            self._load("traits", Trait.character_id == self.id_of("characters", name), Trait.removed_seq.is_(None))
            self._traits_of.add(name)

    def open_rows(self, number: int | None) -> None:
        """What the busy checks and a scenario's start, join or leave read: the open
        scenarios (with their participants) and scenario `number`, the disappearances
        not yet ended and the searches still out."""
        if "scenarios" not in self.loaded:
            found = self._load("scenarios", or_(Scenario.ended_seq.is_(None), Scenario.number == number))
            self._load_participants([row.id for row in found if row.id not in self._with_participants])
        if "disappearances" not in self.loaded:
            self._load("disappearances", Disappearance.reunited_seq.is_(None))
        if "searches" not in self.loaded:
            self._load("searches", Search.ended_seq.is_(None))

    def rows_of(self, name: str) -> None:
        """All the character's traits and conditions, removed and cleared ones too (its sheet)."""
        character_id = self.id_of("characters", name)
        self._load("traits", Trait.character_id == character_id)
        self._load("conditions", Condition.character_id == character_id)

    def _load_participants(self, scenario_ids: list[int]) -> None:
        if not scenario_ids:
            return
        pairs = self.session.execute(
            select(ScenarioParticipant.scenario_id, Character.name)
            .join(Character, ScenarioParticipant.character_id == Character.id)
            .where(ScenarioParticipant.scenario_id.in_(scenario_ids))
            .order_by(Character.id)
        )
        self._with_participants.update(scenario_ids)
        for scenario_id, name in pairs:
            number = self.key_of("scenarios", scenario_id)
            for state in (self.state, self.written):
                state.scenarios[number].participants.append(name)

    def _load_relationships(self) -> None:
        for rel in self.session.scalars(
            select(Relationship).where(Relationship.campaign_id == self.campaign.id).order_by(Relationship.id)
        ):
            pair = (self.key_of("characters", rel.from_id), self.key_of("characters", rel.to_id))
            self.state.relationships[pair] = self.written.relationships[pair] = rel.note

    def load_all(self) -> State:
        """Every state table of the campaign (verify, a void, an import)."""
        self.participants = "all"
        return self.need("players", "characters", "relationships", *(t.section for t in TABLES))

    def orm(self, section: str, key: Any) -> Any:
        """The ORM row the working state's `key` is written to (services keep using it)."""
        return self.rows[section][key]

    # --------------------------------------------------------------------- writing

    def state_section(self, section: str) -> dict[Any, Any]:
        rows: dict[Any, Any] = getattr(self.state, section)
        return rows

    def discard(self) -> None:
        """Forget what the working state changed since the last flush (an op that refused)."""
        self.state = _snapshot(self.written)

    def flush(self) -> None:
        """Write what the working state changed since the last flush; then they agree."""
        self._write(self.written, self.state)
        self.written = _snapshot(self.state)

    def write_target(self, target: State, before: State | None = None) -> None:
        """Make the tables equal `target` (all sections loaded first). `before`, the
        replayed state the tables equal now, says which rows `target` renamed."""
        self.load_all()
        target = target.copy()
        if before is not None:
            characters, players = renamed_between(before, target)
        else:
            characters, players = {}, {}
        for born, names, renames in (
            (target.born, self.state.born, characters),
            (target.player_born, self.state.player_born, players),
        ):
            born.clear()
            for name in names:  # a row keeps its identity under its new name
                born[renames.get(name, name)] = names[name]
        self.state = target
        self.flush()

    def _write(self, before: State, after: State) -> None:
        campaign = self.campaign
        for column in CAMPAIGN_COLUMNS:
            if getattr(before, column) != getattr(after, column):
                setattr(campaign, column, copy.deepcopy(getattr(after, column)))
        before = self._rename(before, after)
        for table in reversed(TABLES):
            self._delete(table, getattr(before, table.section), getattr(after, table.section))
            if table.section == "characters":
                self._delete_relationships(before, after)
        for table in TABLES:
            self._upsert(table, getattr(before, table.section), getattr(after, table.section))
            if table.section == "characters":
                self._insert_relationships(before, after)
            if table.section == "scenarios":
                self._participants(before, after)

    def _rename(self, before: State, after: State) -> State:
        """Rename the character and player rows `after` knows under a new name (two steps
        through a temporary name, so a swap of two names never clashes); `before` under
        the new names."""
        characters, players = renamed_between(before, after)
        if not characters and not players:
            return before
        before = before.copy()
        for section, renames, op in (("characters", characters, CharacterRenamed), ("players", players, PlayerRenamed)):
            rows = [self.rows[section].pop(old) for old in renames]
            for orm, old in zip(rows, renames):
                orm.name = f"\x01renaming {orm.id}"
                op(old, orm.name).apply(before, _NO_ENTRY)  # every row of `before` naming it follows
            self.session.flush()
            for orm, new in zip(rows, renames.values()):
                op(orm.name, new).apply(before, _NO_ENTRY)
                orm.name = new
                self.rows[section][new] = orm
                self.ids[section][new], self.keys[section][orm.id] = orm.id, new
            self.session.flush()
        return before

    def _delete(self, table: Table, old: dict[Any, Any], new: dict[Any, Any]) -> None:
        gone = [key for key in old if key not in new]
        if not gone:
            return
        if table.section in NEVER_REMOVED:  # never made by a voidable entry: the tables were edited by hand
            raise ValueError(
                _("cannot remove {section} {value} by replay").format(
                    section=table.section, value=sorted(map(str, gone))[:3]
                )
            )
        for key in gone:
            self.session.delete(self.rows[table.section].pop(key))
        self.session.flush()

    def _upsert(self, table: Table, old: dict[Any, Any], new: dict[Any, Any]) -> None:
        added = False
        for key, row in new.items():
            if key not in old:
                self._insert(table, key, row)
                added = True
            elif old[key] != row:
                self._update(table, key, old[key], row)
        if added:
            self.session.flush()  # ids for the rows that name these
            for key, orm in self.rows[table.section].items():
                self.ids[table.section][key], self.keys[table.section][orm.id] = orm.id, key

    def _columns(self, table: Table, row: Any, names: tuple[str, ...]) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for name in names:
            value = copy.deepcopy(getattr(row, name))
            values[name] = None if name in table.null_when_empty and not value else value
        for ref in table.refs:
            if ref.field in names:
                values[ref.column] = self.id_of(ref.section, getattr(row, ref.field))
                del values[ref.field]
        return values

    def _insert(self, table: Table, key: Any, row: Any) -> None:
        values = {table.key: key}
        if table.scope == "campaign":
            values["campaign_id"] = self.campaign.id
        if row is not None:
            values.update(self._columns(table, row, table.plain() + tuple(r.field for r in table.refs)))
        orm = table.model(**values)
        self.session.add(orm)
        self.rows[table.section][key] = orm
        if table.section == "characters":  # a summoner before the NPCs it summons
            self.session.flush()
            self.ids["characters"][key], self.keys["characters"][orm.id] = orm.id, key

    def _update(self, table: Table, key: Any, old: Any, new: Any) -> None:
        orm = self.rows[table.section][key]
        changed = tuple(
            f.name for f in fields(new) if f.name != "participants" and getattr(old, f.name) != getattr(new, f.name)
        )
        for column, value in self._columns(table, new, changed).items():
            setattr(orm, column, _same_order(getattr(orm, column), value))

    def _participants(self, before: State, after: State) -> None:
        for number, row in after.scenarios.items():
            had = before.scenarios[number].participants if number in before.scenarios else []
            if had == row.participants:
                continue
            scenario_id = self.id_of("scenarios", number)
            for name in [n for n in had if n not in row.participants]:
                self.session.execute(
                    delete(ScenarioParticipant).where(
                        ScenarioParticipant.scenario_id == scenario_id,
                        ScenarioParticipant.character_id == self.id_of("characters", name),
                    )
                )
            for name in [n for n in row.participants if n not in had]:
                self.session.add(
                    ScenarioParticipant(scenario_id=scenario_id, character_id=self.id_of("characters", name))
                )

    def _delete_relationships(self, before: State, after: State) -> None:
        gone = [pair for pair in before.relationships if pair not in after.relationships]
        if gone:
            raise ValueError(
                _("cannot remove relationships {value} by replay").format(value=sorted(map(str, gone))[:3])
            )

    def _insert_relationships(self, before: State, after: State) -> None:
        for (a, b), note in after.relationships.items():
            if (a, b) not in before.relationships:
                self.session.add(
                    Relationship(
                        campaign_id=self.campaign.id,
                        from_id=self.id_of("characters", a),
                        to_id=self.id_of("characters", b),
                        note=note,
                    )
                )

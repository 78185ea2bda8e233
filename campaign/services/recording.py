"""The one way a command changes state: `recording()` an entry.

A use-case opens `recording(session, campaign, actor, kind)`, which fixes the entry's
seq and time up front; every change goes through the recorder's methods, each of which
builds the op (campaign.projection.ops), applies it to a working state loaded for the
rows it touches, and lets db.state_mapping write the rows that changed; on exit
the entry is appended with those ops in its hashed record. So the op's `apply` is the
only code that decides what a change does, live as in replay, and the tables are what
replaying the ops makes (`history verify` checks exactly that). Reversing a change has
no code here at all: a void is the projection without the voided entry (services.disputes.voids).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy.orm import Session

from campaign import ledger
from campaign.core.derived import stat_value
from campaign.core.gametime import CLOCK_LIMIT
from campaign.db.models import Campaign, Character, Condition, Disappearance, Player, Scenario, Search, Trait
from campaign.db.state_mapping import StateTables
from campaign.errors import RuleRefused
from campaign.i18n import _
from campaign.projection import ops as o
from campaign.projection.state import State
from campaign.seeds import stat_names_for
from campaign.services.common import check_cp_total


class Recorder:
    """Builds the ops of one ledger entry and applies each as it comes: to the working
    state (the op's own `apply`, as replay applies it), then to the tables
    (db.state_mapping writes the rows that changed). An op that does not apply
    (a number past what a column holds, a trait that is gone) is a refusal; the checks
    left here are the services' rules (the CP total's limit) and the clock's wording."""

    def __init__(self, session: Session, campaign: Campaign, seq: int, at: str) -> None:
        self.session = session
        self.campaign = campaign
        self.seq = seq
        self.at = at
        self.ops: list[o.Op] = []
        self._ordinal = 0
        self.fields: dict[str, Any] = {}
        self.appended: ledger.Appended | None = None
        self.tables = StateTables(session, campaign)
        self._deferred = False  # inside batch(): the tables are written once, at its end

    def describe(self, **fields: Any) -> None:
        """Set fields of the entry (NewEntry's): character, reason, detail, dice ..."""
        self.fields.update(fields)

    def _next_origin(self) -> str:
        self._ordinal += 1
        return f"{self.seq}.{self._ordinal}"

    def _apply(self, op: o.Op) -> State:
        """The op changes the working state, the tables follow; a conflict is a refusal."""
        state = self.tables.state
        try:
            op.apply(state, o.EntryContext(self.seq, self.at, self.fields.get("scenario")))
        except o.OpConflict as exc:
            self.tables.discard()  # whatever the op changed before it refused is not written
            raise RuleRefused(exc.template, **exc.params) from None
        if not self._deferred:
            self.tables.flush()
        self.ops.append(op)
        return state

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Apply many ops to the working state and write the tables once, at the end: a
        flush compares every loaded row, so one per op would make a sheet of n traits
        cost n^2. An op refused inside discards the whole batch (its ops too)."""
        start, self._deferred = len(self.ops), True
        try:
            yield
        except BaseException:
            self.tables.discard()
            del self.ops[start:]
            raise
        finally:
            self._deferred = False
        self.tables.flush()

    def _character(self, character: Character, *more: str) -> str:
        """The character's row (and `more` sections) in the working state: an op on one
        character reads only it (a rename or a new character read them all)."""
        self.tables.adopt("characters", character)
        self.tables.need(*more)
        return character.name

    def _trait(self, character: Character, trait: Trait) -> tuple[str, str]:
        name = self._character(character)
        self.tables.traits_of(name)
        self.tables.adopt("traits", trait)
        return name, trait.origin

    # --- structure

    def created_campaign(self) -> None:
        """The campaign row exists (it holds the chain); record what it starts with."""
        self.tables.state.ruleset = self.tables.written.ruleset = None  # the op begins it
        self._apply(o.CampaignCreated(self.campaign.ruleset, dict(self.campaign.settings or {})))

    def add_player(self, name: str) -> Player:
        self.tables.need("players")
        self._apply(o.PlayerAdded(name))
        player: Player = self.tables.orm("players", name)
        return player

    def add_character(
        self,
        name: str,
        kind: str,
        player: Player | None,
        summoner: Character | None,
        stats: dict[str, int | str],
        cp: int,
        reading: str | None = None,
    ) -> Character:
        self.tables.need("characters")
        self._apply(
            o.CharacterAdded(
                name,
                kind,
                player.name if player else None,
                summoner.name if summoner else None,
                dict(stats),
                cp,
                reading,
            )
        )
        character: Character = self.tables.orm("characters", name)
        return character

    def relate(self, first: Character, second: Character, note: str | None) -> None:
        self.tables.need("relationships")
        self._apply(o.RelationAdded(first.name, second.name, note))

    def set_setting(self, key: str, value: Any) -> None:
        self._apply(o.SettingSet(key, value))

    # --- characters

    def set_stat(self, character: Character, stat: str, value: int | str) -> None:
        self._apply(o.StatSet(self._character(character), stat, value))

    def change_stat(self, character: Character, stat: str, delta: int) -> None:
        self._apply(o.StatChanged(self._character(character), stat, delta))

    def set_cp(self, character: Character, value: int) -> None:
        check_cp_total(value, character.name)
        self._apply(o.CpSet(self._character(character), value))

    def change_cp(self, character: Character, delta: int) -> None:
        check_cp_total(character.cp_total + delta, character.name)
        self._apply(o.CpChanged(self._character(character), delta))

    def unset_stat(self, character: Character, stat: str) -> None:
        self._apply(o.StatUnset(self._character(character), stat))

    def sheet(self, character: Character, op: o.Op) -> None:
        """A sheet op (projection.ops_sheet: skills, notes, items)."""
        self._character(character)
        self._apply(op)

    def award_cp(self, character: Character, cp: int) -> None:
        self._apply(o.CpAwarded(self._character(character), cp))

    def rename_character(self, character: Character, new: str) -> None:
        self._apply(o.CharacterRenamed(self._character(character, "characters"), new))

    def rename_player(self, player: Player, new: str) -> None:
        self.tables.need("characters")
        self._apply(o.PlayerRenamed(player.name, new))

    def set_status(self, character: Character, status: str) -> None:
        self._apply(o.CharacterStatusSet(self._character(character, "disappearances", "searches"), status))

    def change_pool(self, character: Character, pool: str, delta: int) -> int:
        """Lose (negative) or regain FP/HP; returns the new current value. The op names
        the sheet stat its maximum is read from (the ruleset's names are looked up here,
        never in replay); a sheet without one gets the op's own refusal."""
        name = self._character(character)
        aliases = stat_names_for(self.campaign.ruleset).aliases
        maximum = stat_value(self.tables.state.characters[name].stats, pool, aliases)
        state = self._apply(o.PoolChanged(name, pool, delta, stat=pool if maximum is None else maximum.key))
        return state.characters[character.name].pools[pool]

    def add_trait(self, character: Character, name: str, category: str, cp: int, *, counts_toward_limit: bool) -> Trait:
        who = self._character(character)
        self.tables.traits_of(who)
        origin = self._next_origin()
        self._apply(o.TraitAdded(who, origin, name, category, cp, counts_toward_limit))
        return self.tables.orm("traits", origin)

    def add_traits(self, character: Character, traits: list[tuple[str, str, int, bool, int | None]]) -> None:
        """A sheet's traits (name, category, cp, counted, CP outside the disadvantage limit
        or None for the default), in one batch: no ORM row is handed back."""
        who = self._character(character)
        self.tables.traits_of(who)
        with self.batch():
            for name, category, cp, counted, outside in traits:
                origin = self._next_origin()
                state = self._apply(o.TraitAdded(who, origin, name, category, cp, counted))
                default = state.traits[origin].unlimited_cp
                if outside is not None and outside != default:  # the sheet's limit split
                    self._apply(o.TraitUnlimitedChanged(who, origin, outside - default))

    def remove_trait(self, character: Character, trait: Trait) -> None:
        self._apply(o.TraitRemoved(*self._trait(character, trait)))

    def rename_trait(self, character: Character, trait: Trait, new_name: str) -> None:
        self._apply(o.TraitRenamed(*self._trait(character, trait), new_name))

    def set_trait_cp(self, character: Character, trait: Trait, cp: int) -> None:
        self._apply(o.TraitCpSet(*self._trait(character, trait), cp))

    def change_trait_unlimited(self, character: Character, trait: Trait, delta: int) -> None:
        """Move part of a trait's CP outside the disadvantage limit (an escalated phobia:
        docs/rules.md "Fright check")."""
        self._apply(o.TraitUnlimitedChanged(*self._trait(character, trait), delta))

    def set_trait_category(self, character: Character, trait: Trait, category: str) -> None:
        """E.g. a mild phobia that a fright check made severe ("phobia" -> "severe phobia")."""
        self._apply(o.TraitCategorySet(*self._trait(character, trait), category))

    def add_condition(
        self, character: Character, name: str, duration: str | None, detail: dict[str, Any], length: int | None = None
    ) -> Condition:
        """A condition beginning at the campaign clock; with `length` (seconds) it is timed."""
        clock = self.campaign.clock or 0
        if length is not None and clock + length > CLOCK_LIMIT:
            raise RuleRefused(
                _("the condition would run past the end of the campaign clock ({CLOCK_LIMIT} seconds)").format(
                    CLOCK_LIMIT=CLOCK_LIMIT
                )
            )
        origin = self._next_origin()
        self._apply(o.ConditionAdded(self._character(character), origin, name, duration, dict(detail), length))
        return self.tables.orm("conditions", origin)

    def clear_condition(self, character: Character, condition: Condition) -> None:
        self.tables.adopt("conditions", condition)
        self._apply(o.ConditionCleared(self._character(character), condition.origin))

    # --- campaign time

    def advance_clock(self, seconds: int) -> int:
        """Campaign time moves on; returns the new clock."""
        if (self.campaign.clock or 0) + seconds > CLOCK_LIMIT:
            raise RuleRefused(
                _("the campaign clock would pass {CLOCK_LIMIT} seconds (about 68 years), as far as it counts").format(
                    CLOCK_LIMIT=CLOCK_LIMIT
                )
            )
        return self._apply(o.ClockAdvanced(seconds)).clock

    # --- scenarios, missing characters, searches

    def _scenarios(self, number: int | None = None) -> None:
        self.tables.need("characters")
        self.tables.open_rows(number)

    def start_scenario(self, number: int, title: str, participants: list[Character]) -> Scenario:
        self._scenarios(number)
        self._apply(o.ScenarioStarted(number, title, [c.name for c in participants]))
        return self.tables.orm("scenarios", number)

    def join_scenario(self, scenario: Scenario, character: Character) -> None:
        self._scenarios(scenario.number)
        self._apply(o.ScenarioJoined(scenario.number, character.name))

    def leave_scenario(self, scenario: Scenario, character: Character) -> None:
        self._scenarios(scenario.number)
        self._apply(o.ScenarioLeft(scenario.number, character.name))

    def end_scenario(self, scenario: Scenario) -> None:
        self.tables.adopt("scenarios", scenario)  # its participants are not read: an end keeps them
        self._apply(o.ScenarioEnded(scenario.number))

    def start_missing(
        self, character: Character, faces: int, reason: str | None, scenario: Scenario | None
    ) -> Disappearance:
        self._scenarios(scenario.number if scenario else None)
        self._apply(o.MissingStarted(character.name, faces, reason, scenario.number if scenario else None))
        return self.tables.orm("disappearances", self.seq)

    def end_missing(self, disappearance: Disappearance) -> None:
        self.tables.need("disappearances")
        self._apply(o.MissingEnded(disappearance.since_seq))

    def set_faces(self, disappearance: Disappearance, faces: int) -> None:
        self.tables.need("disappearances")
        self._apply(o.FacesSet(disappearance.since_seq, faces))

    def start_search(self, disappearance: Disappearance, searcher: Character, scenario: Scenario | None) -> Search:
        assert searcher.player is not None  # core.reunion.check_can_search: only PCs search
        self._scenarios(scenario.number if scenario else None)
        self._apply(
            o.SearchStarted(
                disappearance.since_seq, searcher.name, searcher.player.name, scenario.number if scenario else None
            )
        )
        return self.tables.orm("searches", self.seq)

    def end_search(self, search: Search, searcher: Character) -> None:
        self.tables.need("searches")
        self._apply(o.SearchEnded(search.started_seq, searcher.name))

    def record_reunion_check(
        self,
        disappearance: Disappearance,
        scenario: Scenario,
        roll: int,
        threshold: int,
        success: bool,
        counted_at: int | None = None,
    ) -> None:
        """`counted_at`: a re-roll's searchers were counted at that seq (the scenario's end)."""
        self.tables.need("scenarios", "disappearances", "searches", "reunions")
        self._apply(o.ReunionChecked(disappearance.since_seq, scenario.number, roll, threshold, success, counted_at))


@contextmanager
def recording(
    session: Session, campaign: Campaign, actor: str, kind: str, *, voidable: bool = True
) -> Iterator[Recorder]:
    """Record one entry: its seq and time are fixed now, it is appended on exit with
    the ops of every change made through the recorder (nothing is appended on error).

    The caller holds the campaign's append lock (services.common.campaign_transaction).
    """
    recorder = Recorder(session, campaign, *ledger.next_entry(session, campaign.id))
    yield recorder
    session.flush()
    recorder.appended = ledger.append(
        session,
        campaign,
        actor,
        ledger.NewEntry(kind=kind, ops=[op.to_json() for op in recorder.ops], voidable=voidable, **recorder.fields),
        expect_seq=recorder.seq,
        at=recorder.at,
    )

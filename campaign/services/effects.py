"""The one way a command changes state: `recording()` an entry.

A use-case opens `recording(session, campaign, actor, kind)`, which fixes the entry's
seq and time up front; every change goes through the recorder's methods, each of which
writes the table rows and records the matching op (campaign.projection.ops); on exit
the entry is appended with those ops in its hashed record. So an entry's ops are, by
construction, what it did to the tables, and replaying them rebuilds the tables
(`history verify` checks exactly that). Reversing a change has no code here at all:
a void is the projection without the voided entry (services.history).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy.orm import Session

from campaign import ledger
from campaign.core.derived import pool_current
from campaign.core.gametime import CLOCK_LIMIT
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
from campaign.errors import RuleRefused
from campaign.projection import ops as o
from campaign.projection.ops import INT_LIMIT
from campaign.seeds import stat_names_for
from campaign.services.common import check_cp_total


def _bounded(value: int, what: str) -> int:
    """Both backends store 32-bit integers: refuse what PostgreSQL would overflow."""
    if not -INT_LIMIT <= value <= INT_LIMIT:
        raise RuleRefused(f"{what} would be {value}, beyond the ±{INT_LIMIT} a database column holds")
    return value


class Recorder:
    """Applies the changes of one ledger entry and remembers them as ops."""

    def __init__(self, session: Session, campaign: Campaign, seq: int, at: str) -> None:
        self.session = session
        self.campaign = campaign
        self.seq = seq
        self.at = at
        self.ops: list[o.Op] = []
        self._ordinal = 0
        self.fields: dict[str, Any] = {}
        self.appended: ledger.Appended | None = None

    def describe(self, **fields: Any) -> None:
        """Set fields of the entry (NewEntry's): character, reason, detail, dice ..."""
        self.fields.update(fields)

    def _next_origin(self) -> str:
        self._ordinal += 1
        return f"{self.seq}.{self._ordinal}"

    # --- structure

    def created_campaign(self) -> None:
        """The campaign row exists (it holds the chain); record what it starts with."""
        self.ops.append(o.CampaignCreated(self.campaign.ruleset, dict(self.campaign.settings or {})))

    def add_player(self, name: str) -> Player:
        player = Player(campaign_id=self.campaign.id, name=name)
        self.session.add(player)
        self.ops.append(o.PlayerAdded(name))
        return player

    def add_character(self, name: str, kind: str, player: Player | None, summoner: Character | None,
                      stats: dict[str, int], cp: int, reading: str | None = None) -> Character:
        character = Character(campaign_id=self.campaign.id, name=name, kind=kind,
                              player_id=player.id if player else None, summoner_id=summoner.id if summoner else None,
                              stats=dict(stats), cp_total=cp, pools={}, reading=reading)
        self.session.add(character)
        self.session.flush()
        self.ops.append(o.CharacterAdded(name, kind, player.name if player else None,
                                         summoner.name if summoner else None, dict(stats), cp, reading))
        return character

    def relate(self, first: Character, second: Character, note: str | None) -> None:
        self.session.add(Relationship(campaign_id=self.campaign.id, from_id=first.id, to_id=second.id, note=note))
        self.ops.append(o.RelationAdded(first.name, second.name, note))

    def set_setting(self, key: str, value: Any) -> None:
        self.campaign.settings = {**(self.campaign.settings or {}), key: value}
        self.ops.append(o.SettingSet(key, value))

    # --- characters

    def set_stat(self, character: Character, stat: str, value: int) -> None:
        character.stats = {**character.stats, stat: value}
        self.ops.append(o.StatSet(character.name, stat, value))

    def change_stat(self, character: Character, stat: str, delta: int) -> None:
        character.stats = {**character.stats, stat: _bounded(character.stats[stat] + delta, stat)}
        self.ops.append(o.StatChanged(character.name, stat, delta))

    def set_cp(self, character: Character, value: int) -> None:
        character.cp_total = check_cp_total(value, character.name)
        self.ops.append(o.CpSet(character.name, value))

    def change_cp(self, character: Character, delta: int) -> None:
        character.cp_total = check_cp_total(character.cp_total + delta, character.name)
        self.ops.append(o.CpChanged(character.name, delta))

    def unset_stat(self, character: Character, stat: str) -> None:
        character.stats = {k: v for k, v in character.stats.items() if k != stat}
        character.pools = {k: v for k, v in character.pools.items() if k != stat}
        self.ops.append(o.StatUnset(character.name, stat))

    def sheet(self, character: Character, op: o.Op) -> None:
        """A sheet op (projection.ops_sheet: skills, notes, items), applied to the row
        exactly as replay applies it, so the tables cannot drift from the ledger."""
        from campaign.projection.state import CharacterRow, State

        row = CharacterRow(character.kind, None, None, {}, 0, skills=dict(character.skills or {}),
                           notes=list(character.notes or []), items=list(character.items or []))
        state = State(characters={character.name: row})
        try:
            op.apply(state, None)
        except o.OpConflict as exc:
            raise RuleRefused(str(exc)) from None
        character.skills, character.notes = dict(row.skills) or None, list(row.notes) or None
        character.items = list(row.items) or None
        self.ops.append(op)

    def award_cp(self, character: Character, cp: int) -> None:
        character.cp_total = _bounded(character.cp_total + cp, "the CP total")
        character.cp_awarded = _bounded(character.cp_awarded + cp, "the awarded CP")
        self.ops.append(o.CpAwarded(character.name, cp))

    def rename_character(self, character: Character, new: str) -> None:
        old, character.name = character.name, new
        self.ops.append(o.CharacterRenamed(old, new))

    def rename_player(self, player: Player, new: str) -> None:
        old, player.name = player.name, new
        self.ops.append(o.PlayerRenamed(old, new))

    def set_status(self, character: Character, status: str) -> None:
        character.status = status
        self.ops.append(o.CharacterStatusSet(character.name, status))

    def change_pool(self, character: Character, pool: str, delta: int) -> int:
        """Lose (negative) or regain FP/HP; returns the new current value."""
        current = pool_current(character.stats, character.pools, pool,
                               stat_names_for(self.campaign.ruleset).aliases)  # a 3e sheet's max is ST/HT
        after = _bounded(current + delta, pool)
        character.pools = {**character.pools, pool: after}
        self.ops.append(o.PoolChanged(character.name, pool, delta))
        return after

    def add_trait(self, character: Character, name: str, category: str, cp: int, *,
                  counts_toward_limit: bool) -> Trait:
        trait = Trait(character_id=character.id, name=name, category=category, cp=cp,
                      counts_toward_limit=counts_toward_limit, origin=self._next_origin(), source_seq=self.seq,
                      unlimited_cp=0 if counts_toward_limit else cp)
        self.session.add(trait)
        self.ops.append(o.TraitAdded(character.name, trait.origin, name, category, cp, counts_toward_limit))
        return trait

    def remove_trait(self, character: Character, trait: Trait) -> None:
        trait.removed_seq = self.seq
        self.ops.append(o.TraitRemoved(character.name, trait.origin))

    def rename_trait(self, character: Character, trait: Trait, new_name: str) -> None:
        trait.name = new_name
        self.ops.append(o.TraitRenamed(character.name, trait.origin, new_name))

    def set_trait_cp(self, character: Character, trait: Trait, cp: int) -> None:
        trait.cp = cp
        self.ops.append(o.TraitCpSet(character.name, trait.origin, cp))

    def change_trait_unlimited(self, character: Character, trait: Trait, delta: int) -> None:
        """Move part of a trait's CP outside the disadvantage limit (an escalated phobia:
        docs/rules.md "Fright check")."""
        trait.unlimited_cp = _bounded((trait.unlimited_cp or 0) + delta, "CP outside the limit")
        self.ops.append(o.TraitUnlimitedChanged(character.name, trait.origin, delta))

    def set_trait_category(self, character: Character, trait: Trait, category: str) -> None:
        """E.g. a mild phobia that a fright check made severe ("phobia" -> "severe phobia")."""
        trait.category = category
        self.ops.append(o.TraitCategorySet(character.name, trait.origin, category))

    def add_condition(self, character: Character, name: str, duration: str | None,
                      detail: dict[str, Any], length: int | None = None) -> Condition:
        """A condition beginning at the campaign clock; with `length` (seconds) it is timed."""
        clock = self.campaign.clock or 0
        until = None if length is None else clock + length
        if until is not None and until > CLOCK_LIMIT:
            raise RuleRefused(f"the condition would run past the end of the campaign clock ({CLOCK_LIMIT} seconds)")
        condition = Condition(character_id=character.id, name=name, duration=duration, detail=dict(detail),
                              origin=self._next_origin(), source_seq=self.seq, since_clock=clock,
                              until_clock=until)
        self.session.add(condition)
        self.ops.append(o.ConditionAdded(character.name, condition.origin, name, duration, dict(detail), length))
        return condition

    def clear_condition(self, character: Character, condition: Condition) -> None:
        condition.cleared_seq = self.seq
        self.ops.append(o.ConditionCleared(character.name, condition.origin))

    # --- campaign time

    def advance_clock(self, seconds: int) -> int:
        """Campaign time moves on; returns the new clock."""
        after = (self.campaign.clock or 0) + seconds
        if after > CLOCK_LIMIT:
            raise RuleRefused(f"the campaign clock would pass {CLOCK_LIMIT} seconds (about 68 years), "
                              "as far as it counts")
        self.campaign.clock = after
        self.ops.append(o.ClockAdvanced(seconds))
        return after

    # --- scenarios, missing characters, searches

    def start_scenario(self, number: int, title: str, participants: list[Character]) -> Scenario:
        scenario = Scenario(campaign_id=self.campaign.id, number=number, title=title, started_seq=self.seq,
                            started_at=self.at)
        self.session.add(scenario)
        self.session.flush()
        for character in participants:
            self.session.add(ScenarioParticipant(scenario_id=scenario.id, character_id=character.id))
        self.ops.append(o.ScenarioStarted(number, title, [c.name for c in participants]))
        return scenario

    def join_scenario(self, scenario: Scenario, character: Character) -> None:
        self.session.add(ScenarioParticipant(scenario_id=scenario.id, character_id=character.id))
        self.ops.append(o.ScenarioJoined(scenario.number, character.name))

    def leave_scenario(self, scenario: Scenario, character: Character) -> None:
        from sqlalchemy import delete

        self.session.execute(delete(ScenarioParticipant).where(ScenarioParticipant.scenario_id == scenario.id,
                                                               ScenarioParticipant.character_id == character.id))
        self.ops.append(o.ScenarioLeft(scenario.number, character.name))

    def end_scenario(self, scenario: Scenario) -> None:
        scenario.ended_seq, scenario.ended_at = self.seq, self.at
        self.ops.append(o.ScenarioEnded(scenario.number))

    def start_missing(self, character: Character, faces: int, reason: str | None,
                      scenario: Scenario | None) -> Disappearance:
        disappearance = Disappearance(campaign_id=self.campaign.id, character_id=character.id, faces=faces,
                                      reason=reason, since_seq=self.seq, since_at=self.at,
                                      since_scenario_id=scenario.id if scenario else None)
        self.session.add(disappearance)
        self.session.flush()
        self.ops.append(o.MissingStarted(character.name, faces, reason, scenario.number if scenario else None))
        return disappearance

    def end_missing(self, disappearance: Disappearance) -> None:
        disappearance.reunited_seq = self.seq
        self.ops.append(o.MissingEnded(disappearance.since_seq))

    def set_faces(self, disappearance: Disappearance, faces: int) -> None:
        disappearance.faces = faces
        self.ops.append(o.FacesSet(disappearance.since_seq, faces))

    def start_search(self, disappearance: Disappearance, searcher: Character, scenario: Scenario | None) -> Search:
        search = Search(disappearance_id=disappearance.id, searcher_id=searcher.id, player_id=searcher.player_id,
                        started_seq=self.seq, scenario_id=scenario.id if scenario else None)
        self.session.add(search)
        self.ops.append(o.SearchStarted(disappearance.since_seq, searcher.name, searcher.player.name,
                                        scenario.number if scenario else None))
        return search

    def end_search(self, search: Search, searcher: Character) -> None:
        search.ended_seq = self.seq
        self.ops.append(o.SearchEnded(search.started_seq, searcher.name))

    def record_reunion_check(self, disappearance: Disappearance, scenario: Scenario, roll: int, threshold: int,
                             success: bool, counted_at: int | None = None) -> None:
        """`counted_at`: a re-roll's searchers were counted at that seq (the scenario's end)."""
        self.session.add(ReunionCheck(disappearance_id=disappearance.id, scenario_id=scenario.id, seq=self.seq,
                                      roll=roll, threshold=threshold, success=success))
        self.ops.append(o.ReunionChecked(disappearance.since_seq, scenario.number, roll, threshold, success,
                                         counted_at))


@contextmanager
def recording(session: Session, campaign: Campaign, actor: str, kind: str, *,
              voidable: bool = True) -> Iterator[Recorder]:
    """Record one entry: its seq and time are fixed now, it is appended on exit with
    the ops of every change made through the recorder (nothing is appended on error).

    The caller holds the campaign's append lock (services.common.campaign_transaction).
    """
    recorder = Recorder(session, campaign, *ledger.next_entry(session, campaign.id))
    yield recorder
    session.flush()
    recorder.appended = ledger.append(
        session, campaign, actor,
        ledger.NewEntry(kind=kind, ops=[op.to_json() for op in recorder.ops], voidable=voidable, **recorder.fields),
        expect_seq=recorder.seq, at=recorder.at,
    )

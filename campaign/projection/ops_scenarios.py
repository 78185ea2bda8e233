"""Ops on campaign time and the rules' long-running business: the clock, scenarios,
missing characters (docs/rules.md "Missing and reunion check"), searches for them and reunion checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from campaign.errors import N_
from campaign.projection.op_base import (
    EntryContext,
    Op,
    OpConflict,
    character_row,
    clock_value,
    open_disappearance_row,
    refuse_busy,
)
from campaign.projection.state import DisappearanceRow, ReunionRow, ScenarioRow, SearchRow, State


@dataclass(frozen=True)
class ClockAdvanced(Op):
    """Campaign time moves on by `seconds` (relative, so it survives the void of an
    earlier advance). A time entry interleaves these with the ends of the conditions
    that run out on the way, so each follow-up begins at the moment its cause ended."""

    name: ClassVar[str] = "clock_advanced"
    seconds: int

    def apply(self, state: State, entry: EntryContext) -> None:
        state.clock = clock_value(state.clock + self.seconds)


@dataclass(frozen=True)
class ScenarioStarted(Op):
    name: ClassVar[str] = "scenario_started"
    number: int
    title: str
    participants: list[str]

    @property
    def character_names(self) -> tuple[str, ...]:
        return tuple(self.participants)

    def apply(self, state: State, entry: EntryContext) -> None:
        current = state.open_scenario()
        if current is not None:
            raise OpConflict(N_("scenario #{current} is still open"), current=current)
        if self.number in state.scenarios:
            raise OpConflict(N_("scenario #{number} exists already"), number=self.number)
        for name in self.participants:
            character_row(state, name)
            refuse_busy(state, name)
        state.scenarios[self.number] = ScenarioRow(self.title, entry.seq, entry.at, list(self.participants))


@dataclass(frozen=True)
class ScenarioEnded(Op):
    name: ClassVar[str] = "scenario_ended"
    number: int

    def apply(self, state: State, entry: EntryContext) -> None:
        row = state.scenarios.get(self.number)
        if row is None or row.ended_seq is not None:
            raise OpConflict(N_("scenario #{number} is not open"), number=self.number)
        row.ended_seq, row.ended_at = entry.seq, entry.at


@dataclass(frozen=True)
class ScenarioJoined(Op):
    """A late arrival: a character joins the open scenario (`scenario join`)."""

    name: ClassVar[str] = "scenario_joined"
    number: int
    character: str

    def apply(self, state: State, entry: EntryContext) -> None:
        row = state.scenarios.get(self.number)
        if row is None or row.ended_seq is not None:
            raise OpConflict(N_("scenario #{number} is not open"), number=self.number)
        character_row(state, self.character)
        refuse_busy(state, self.character)
        if self.character in row.participants:
            raise OpConflict(
                N_("{character} already takes part in scenario #{number}"), character=self.character, number=self.number
            )
        row.participants = [*row.participants, self.character]


@dataclass(frozen=True)
class ScenarioLeft(Op):
    """A character leaves the open scenario before its end (`scenario leave`): no share of
    its end-of-scenario award."""

    name: ClassVar[str] = "scenario_left"
    number: int
    character: str

    def apply(self, state: State, entry: EntryContext) -> None:
        row = state.scenarios.get(self.number)
        if row is None or row.ended_seq is not None:
            raise OpConflict(N_("scenario #{number} is not open"), number=self.number)
        if self.character not in row.participants:
            raise OpConflict(
                N_("{character} does not take part in scenario #{number}"), character=self.character, number=self.number
            )
        row.participants = [p for p in row.participants if p != self.character]


@dataclass(frozen=True)
class MissingStarted(Op):
    name: ClassVar[str] = "missing_started"
    character: str
    faces: int
    reason: str | None
    scenario: int | None

    def apply(self, state: State, entry: EntryContext) -> None:
        character_row(state, self.character)
        refuse_busy(state, self.character)
        if self.scenario is not None and self.scenario not in state.scenarios:
            raise OpConflict(N_("there is no scenario #{scenario}"), scenario=self.scenario)
        state.disappearances[entry.seq] = DisappearanceRow(
            self.character, self.faces, self.reason, entry.at, self.scenario
        )


@dataclass(frozen=True)
class MissingEnded(Op):
    name: ClassVar[str] = "missing_ended"
    since_seq: int

    def apply(self, state: State, entry: EntryContext) -> None:
        open_disappearance_row(state, self.since_seq).reunited_seq = entry.seq


@dataclass(frozen=True)
class FacesSet(Op):
    name: ClassVar[str] = "faces"
    since_seq: int
    faces: int

    def apply(self, state: State, entry: EntryContext) -> None:
        open_disappearance_row(state, self.since_seq).faces = self.faces


@dataclass(frozen=True)
class SearchStarted(Op):
    name: ClassVar[str] = "search_started"
    since_seq: int
    searcher: str
    player: str
    scenario: int | None

    @property
    def character_names(self) -> tuple[str, ...]:
        return (self.searcher,)

    def apply(self, state: State, entry: EntryContext) -> None:
        open_disappearance_row(state, self.since_seq)
        row = character_row(state, self.searcher)
        if row.player != self.player:
            raise OpConflict(N_("{searcher} is not {player}'s character"), searcher=self.searcher, player=self.player)
        refuse_busy(state, self.searcher)
        state.searches[entry.seq] = SearchRow(self.since_seq, self.searcher, self.player, self.scenario)


@dataclass(frozen=True)
class SearchEnded(Op):
    name: ClassVar[str] = "search_ended"
    started_seq: int
    searcher: str

    @property
    def character_names(self) -> tuple[str, ...]:
        return (self.searcher,)

    def apply(self, state: State, entry: EntryContext) -> None:
        row = state.searches.get(self.started_seq)
        if row is None or row.searcher != self.searcher:
            raise OpConflict(
                N_("{searcher} was not sent searching by #{started_seq}"),
                searcher=self.searcher,
                started_seq=self.started_seq,
            )
        if row.ended_seq is not None:
            raise OpConflict(
                N_("{searcher} came back by #{ended_seq}"), searcher=self.searcher, ended_seq=row.ended_seq
            )
        row.ended_seq = entry.seq


@dataclass(frozen=True)
class ReunionChecked(Op):
    """A reunion roll (docs/rules.md "Missing and reunion check"). Replay re-judges it:
    the roll must fit the die, the threshold
    must be 1 + the searchers out at that moment, success must be roll <= threshold."""

    name: ClassVar[str] = "reunion_checked"
    since_seq: int
    scenario: int
    roll: int
    threshold: int
    success: bool
    # a re-roll for an ended scenario (`missing reunion --scenario N`) counts the searchers
    # out at that scenario's end (this seq), not those sent since (docs/rules.md "Reunion check")
    counted_at: int | None = None

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        if self.counted_at is None:  # a roll at the scenario's end reads as it always has
            del data["counted_at"]
        return data

    def apply(self, state: State, entry: EntryContext) -> None:
        gone = open_disappearance_row(state, self.since_seq)
        scenario = state.scenarios.get(self.scenario)
        if scenario is None or scenario.ended_seq is None:
            raise OpConflict(N_("scenario #{scenario} has not ended"), scenario=self.scenario)
        if not 1 <= self.roll <= gone.faces:
            raise OpConflict(N_("a roll of {roll} does not fit 1d{faces}"), roll=self.roll, faces=gone.faces)
        if self.counted_at is not None and self.counted_at != scenario.ended_seq:
            raise OpConflict(
                N_("the searchers are counted at scenario #{scenario}'s end (#{ended_seq})"),
                scenario=self.scenario,
                ended_seq=scenario.ended_seq,
            )
        searchers = len(
            state.active_searchers(self.since_seq)
            if self.counted_at is None
            else state.searchers_at(self.since_seq, self.counted_at)
        )
        if self.threshold != 1 + searchers:
            raise OpConflict(
                N_("the threshold is 1 + {searchers} searchers = {value}, not {threshold}"),
                searchers=searchers,
                value=1 + searchers,
                threshold=self.threshold,
            )
        if self.success != (self.roll <= self.threshold):
            refusal = (
                N_("{roll} against {threshold} is not a success")
                if self.success
                else N_("{roll} against {threshold} is not a failure")
            )
            raise OpConflict(refusal, roll=self.roll, threshold=self.threshold)
        for row in state.reunions.values():
            if row.since_seq == self.since_seq and row.scenario == self.scenario:
                raise OpConflict(
                    N_("{character}'s reunion check for scenario #{scenario} was already rolled"),
                    character=gone.character,
                    scenario=self.scenario,
                )
        state.reunions[entry.seq] = ReunionRow(self.since_seq, self.scenario, self.roll, self.threshold, self.success)

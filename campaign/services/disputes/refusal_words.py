"""Why a void is refused, in words a player reads: which later entry needs the voided one
and what it did ("#83 removes the stun that #80 gave").

A void is refused when a later entry's op no longer applies without the voided entry
(campaign.projection.replay.plan_void). The op names what it acted on by reference, a
trait's or condition's origin ("80.1"), a disappearance's or search's first entry, a
scenario's number, a character's name; the state before the void says what that was and
which entry made it. Origins are internal and never shown; an op this module does not
know is described by its conflict, translated.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from campaign.i18n import _
from campaign.labels import condition_label, status_label
from campaign.projection import ops as o
from campaign.projection.replay import ReplayConflict
from campaign.projection.state import State

_TRAIT_DOINGS: dict[type, Callable[[], str]] = {
    o.TraitRemoved: lambda: _("#{seq} removes the trait {trait!r} that #{giver} gave"),
    o.TraitRenamed: lambda: _("#{seq} renames the trait {trait!r} that #{giver} gave"),
    o.TraitCpSet: lambda: _("#{seq} changes the CP of the trait {trait!r} that #{giver} gave"),
    o.TraitCategorySet: lambda: _("#{seq} changes the category of the trait {trait!r} that #{giver} gave"),
    o.TraitUnlimitedChanged: lambda: _("#{seq} changes the CP of the trait {trait!r} that #{giver} gave"),
}


def dependency_reason(conflict: ReplayConflict, before: State, voided: Collection[int]) -> str:
    """The entry `conflict` names depends on a voided entry: what it did, naming the entry
    that made what it acted on; `before` is the state with every entry live, `voided` the
    entries the void sets aside (an entry it acts on that was not voided is not the reason)."""
    described = _described(conflict.seq, conflict.op, before) if conflict.op is not None else None
    if described is not None and described[1] not in voided:
        described = None
    if described is not None:
        return described[0]
    cause = conflict.cause
    problem = conflict.problem
    if cause is not None:
        params = {
            name: status_label(v) if name == "status" and isinstance(v, str) else v for name, v in cause.params.items()
        }
        problem = _(cause.template).format(**params) if params else _(cause.template)
    return _("#{seq} no longer applies: {problem}").format(seq=conflict.seq, problem=problem)


def _described(seq: int, op: o.Op, before: State) -> tuple[str, int] | None:
    """(what entry `seq` did, the entry that made what it acted on), or None."""
    origin = getattr(op, "origin", None)
    if isinstance(op, o.ConditionCleared) and origin in before.conditions:
        condition = before.conditions[origin]
        text = _("#{seq} clears the condition {condition!r} that #{giver} gave")
        return text.format(seq=seq, condition=condition_label(condition.name), giver=condition.source_seq), (
            condition.source_seq
        )
    if type(op) in _TRAIT_DOINGS and origin in before.traits:
        trait = before.traits[origin]
        text = _TRAIT_DOINGS[type(op)]()
        return text.format(seq=seq, trait=trait.name, giver=trait.source_seq), trait.source_seq
    return _missing_or_scenario(seq, op, before)


def _missing_or_scenario(seq: int, op: o.Op, before: State) -> tuple[str, int] | None:
    since = getattr(op, "since_seq", None)
    gone = before.disappearances.get(since) if isinstance(since, int) else None
    if since is not None and gone is not None:
        if isinstance(op, o.SearchStarted):
            text = _("#{seq} sends {searcher} to search for {character}, missing since #{giver}")
            return text.format(seq=seq, searcher=op.searcher, character=gone.character, giver=since), since
        if isinstance(op, o.ReunionChecked):
            text = _("#{seq} rolls the reunion check of {character}, missing since #{giver}")
        elif isinstance(op, o.FacesSet):
            text = _("#{seq} changes the reunion die of {character}, missing since #{giver}")
        else:
            text = _("#{seq} ends the disappearance of {character} that #{giver} began")
        return text.format(seq=seq, character=gone.character, giver=since), since
    if isinstance(op, o.SearchEnded) and op.started_seq in before.searches:
        text = _("#{seq} calls back {searcher}, whom #{giver} sent searching")
        return text.format(seq=seq, searcher=op.searcher, giver=op.started_seq), op.started_seq
    number = getattr(op, "number", None)
    scenario = before.scenarios.get(number) if isinstance(number, int) else None
    if scenario is not None and isinstance(op, (o.ScenarioEnded, o.ScenarioJoined, o.ScenarioLeft)):
        if isinstance(op, o.ScenarioEnded):
            text = _("#{seq} ends scenario #{number}, which #{giver} started")
        elif isinstance(op, o.ScenarioJoined):
            text = _("#{seq} adds {character} to scenario #{number}, which #{giver} started")
        else:
            text = _("#{seq} takes {character} out of scenario #{number}, which #{giver} started")
        character = getattr(op, "character", "")
        return text.format(seq=seq, number=number, giver=scenario.started_seq, character=character), (
            scenario.started_seq
        )
    character = getattr(op, "character", None)
    if isinstance(character, str) and character in before.born and not isinstance(op, o.CharacterAdded):
        giver = before.born[character]
        return _("#{seq} changes {character}, whom #{giver} added").format(seq=seq, character=character, giver=giver), (
            giver
        )
    return None

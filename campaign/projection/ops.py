"""The changes a ledger entry makes to the state, as small typed values ("ops").

Every entry that changes state records its ops in the hashed record (`record["ops"]`,
canonical JSON). Replaying every live entry's ops in seq order produces the state
tables, so the ops are the only description of a change there is: they carry codes,
names and numbers (never database ids, never sentences) and each says how it applies.

`apply` checks the op's precondition against the state first and raises OpConflict
when it does not hold (a trait that is not there, a character missing twice, a reunion
roll that does not fit its die). During a void, a conflict means a later entry depends
on the voided one; during verify, that the ledger does not describe a possible history.

Parsing (`parse_op`) checks every field's type and range, because a ledger can come
from a file: a record whose hash is right can still have been written by anyone.

Each op family has its own module (ops_characters, ops_traits, ops_scenarios, ops_sheet; the base
class, registry and checks in op_base). This module is the one callers import: it
gathers every op (importing the families registers them in OPS) and parses any op.
"""

from __future__ import annotations

from typing import Any

from campaign.projection.op_base import INT_LIMIT, NAME_LIMIT, OPS, TEXT_LIMIT, BadOp, EntryContext, Op, OpConflict
from campaign.projection.ops_characters import (
    STATUSES,
    CampaignCreated,
    CharacterAdded,
    CharacterRenamed,
    CharacterStatusSet,
    CpAwarded,
    CpChanged,
    CpSet,
    PlayerAdded,
    PlayerRenamed,
    PoolChanged,
    PoolSet,
    RelationAdded,
    SettingSet,
    StatChanged,
    StatSet,
    StatUnset,
)
from campaign.projection.ops_scenarios import (
    ClockAdvanced,
    FacesSet,
    MissingEnded,
    MissingStarted,
    ReunionChecked,
    ScenarioEnded,
    ScenarioJoined,
    ScenarioLeft,
    ScenarioStarted,
    SearchEnded,
    SearchStarted,
)
from campaign.projection.ops_sheet import ItemAdded, ItemRemoved, NoteAdded, SkillAdded, SkillRemoved, SkillSet
from campaign.projection.ops_traits import (
    ConditionAdded,
    ConditionCleared,
    TraitAdded,
    TraitCategorySet,
    TraitCpSet,
    TraitRemoved,
    TraitRenamed,
    TraitUnlimitedChanged,
)

__all__ = [
    "INT_LIMIT",
    "NAME_LIMIT",
    "TEXT_LIMIT",
    "OPS",
    "BadOp",
    "EntryContext",
    "Op",
    "OpConflict",
    "CampaignCreated",
    "SettingSet",
    "PlayerAdded",
    "CharacterAdded",
    "RelationAdded",
    "StatSet",
    "StatChanged",
    "CpChanged",
    "CpSet",
    "PoolChanged",
    "PoolSet",
    "CharacterRenamed",
    "PlayerRenamed",
    "CharacterStatusSet",
    "CpAwarded",
    "StatUnset",
    "STATUSES",
    "TraitAdded",
    "TraitRemoved",
    "TraitRenamed",
    "TraitCpSet",
    "TraitCategorySet",
    "ConditionAdded",
    "ConditionCleared",
    "TraitUnlimitedChanged",
    "ClockAdvanced",
    "ScenarioStarted",
    "ScenarioEnded",
    "ScenarioJoined",
    "ScenarioLeft",
    "MissingStarted",
    "MissingEnded",
    "FacesSet",
    "SearchStarted",
    "SearchEnded",
    "ReunionChecked",
    "SkillAdded",
    "SkillSet",
    "SkillRemoved",
    "NoteAdded",
    "ItemAdded",
    "ItemRemoved",
    "parse_op",
]


def parse_op(data: Any) -> Op:
    if not isinstance(data, dict) or not isinstance(data.get("op"), str):
        raise BadOp("an op must be an object with an 'op' name")
    cls = OPS.get(data["op"])
    if cls is None:
        raise BadOp(f"unknown op {data['op']!r}")
    unknown = set(data) - {"op"} - set(cls.__dataclass_fields__)
    if unknown:
        raise BadOp(f"op {data['op']!r} has unknown fields: {', '.join(sorted(unknown))}")
    return cls.parse(data)

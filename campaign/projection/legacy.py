"""Ops for entries written before records carried them (the first releases).

Those records kept their changes in `detail["applied"]`, in a shorter form that named
the thing changed and left its facts (a trait's name and CP, a search's player) in the
rest of the detail, and they kept structure (campaign, players, characters,
relationships, scenarios) in the detail alone. Everything needed is in the hashed
record, so each old entry translates to the ops a new one would carry. Stats and pools
were recorded as values after the change, so they become absolute ops.
"""

from __future__ import annotations

from typing import Any

from campaign.projection import ops as o
from campaign.projection.ops import BadOp

# Kinds of first-release entries (no "ops" key) that recorded structure, not a result: never voidable.
STRUCTURE_KINDS = frozenset({"campaign", "player", "relation", "seal", "void", "scenario"})


def _trait_facts(detail: dict[str, Any], origin: object) -> dict[str, Any]:
    candidates: list[dict[str, Any]] = [detail["trait"]] if isinstance(detail.get("trait"), dict) else []
    candidates += [t for t in detail.get("traits_added") or [] if isinstance(t, dict)]
    for trait in candidates:
        if trait.get("origin") == origin:
            return trait
    raise BadOp(f"the entry adds trait {origin} but does not describe it")


def _condition_facts(detail: dict[str, Any], origin: object) -> tuple[str, str | None, dict[str, Any]]:
    for effect in detail.get("effects") or []:
        if isinstance(effect, dict) and effect.get("kind") == "condition" and effect.get("origin") == origin:
            data = {k: v for k, v in effect.items() if k not in ("kind", "duration_text", "origin")}
            return effect["condition"], effect.get("duration_text"), data
    raise BadOp(f"the entry adds condition {origin} but does not describe it")


def _applied(record: dict[str, Any], op: dict[str, Any]) -> o.Op:  # noqa: C901 - one branch per first-release op kind, read as the old format's list
    detail = record["detail"]
    kind = op.get("op")
    who = op.get("character")
    if kind == "stat":
        return o.StatSet.parse({"character": who, "stat": op.get("stat"), "value": op.get("after")})
    if kind == "cp":
        return o.CpChanged.parse({"character": who, "delta": op.get("delta")})
    if kind == "pool":
        return o.PoolSet.parse({"character": who, "pool": op.get("pool"), "value": op.get("after")})
    if kind == "trait_added":
        facts = _trait_facts(detail, op.get("origin"))
        return o.TraitAdded.parse(
            {
                "character": who,
                "origin": op.get("origin"),
                "trait": facts.get("name"),
                "category": facts.get("category"),
                "cp": facts.get("cp"),
                "counts_toward_limit": facts.get("counts_toward_limit"),
            }
        )
    if kind == "trait_removed":
        return o.TraitRemoved.parse({"character": who, "origin": op.get("origin")})
    if kind == "trait_renamed":
        return o.TraitRenamed.parse({"character": who, "origin": op.get("origin"), "trait": op.get("after")})
    if kind == "trait_cp":
        return o.TraitCpSet.parse({"character": who, "origin": op.get("origin"), "cp": op.get("after")})
    if kind == "trait_category":
        return o.TraitCategorySet.parse({"character": who, "origin": op.get("origin"), "category": op.get("after")})
    if kind == "setting":
        return o.SettingSet.parse({"key": op.get("key"), "value": op.get("after")})
    if kind == "condition_added":
        name, duration, data = _condition_facts(detail, op.get("origin"))
        return o.ConditionAdded.parse(
            {"character": who, "origin": op.get("origin"), "condition": name, "duration": duration, "detail": data}
        )
    if kind == "condition_cleared":
        return o.ConditionCleared.parse({"character": who, "origin": op.get("origin")})
    if kind == "missing_started":
        return o.MissingStarted.parse(
            {
                "character": record.get("character"),
                "faces": detail.get("faces"),
                "reason": record.get("reason"),
                "scenario": record.get("scenario"),
            }
        )
    if kind == "missing_ended":
        return o.MissingEnded.parse({"since_seq": op.get("since_seq")})
    if kind == "faces":
        return o.FacesSet.parse({"since_seq": op.get("since_seq"), "faces": op.get("after")})
    if kind == "search_started":
        return o.SearchStarted.parse(
            {
                "since_seq": detail.get("since_seq"),
                "searcher": op.get("searcher"),
                "player": detail.get("player"),
                "scenario": record.get("scenario"),
            }
        )
    if kind == "search_ended":
        return o.SearchEnded.parse({"started_seq": op.get("started_seq"), "searcher": op.get("searcher")})
    if kind == "reunion_check":
        return o.ReunionChecked.parse(
            {
                "since_seq": detail.get("since_seq"),
                "scenario": record.get("scenario"),
                "roll": detail.get("roll"),
                "threshold": detail.get("threshold"),
                "success": detail.get("success"),
            }
        )
    raise BadOp(f"unknown first-release op {kind!r}")


def legacy_ops(record: dict[str, Any]) -> tuple[list[o.Op], bool]:
    """(ops, voidable) for a first-release record (no "ops" key)."""
    kind, detail = record.get("kind"), record.get("detail")
    if not isinstance(detail, dict):
        raise BadOp("detail must be an object")
    applied = detail.get("applied")
    if applied is not None and not isinstance(applied, list):
        raise BadOp("applied must be a list")
    if kind == "campaign":
        return [o.CampaignCreated.parse({"ruleset": detail.get("ruleset"), "settings": detail.get("settings")})], False
    if kind == "player":
        return [o.PlayerAdded.parse({"player": detail.get("player")})], False
    if kind == "character" and applied is None:
        return [
            o.CharacterAdded.parse(
                {
                    "character": record.get("character"),
                    "kind": detail.get("kind"),
                    "player": detail.get("player"),
                    "summoner": detail.get("summoner"),
                    "stats": detail.get("stats"),
                    "cp": detail.get("cp_total"),
                }
            )
        ], False
    if kind == "relation":
        return [
            o.RelationAdded.parse({"a": detail.get("from"), "b": detail.get("to"), "note": record.get("reason")})
        ], False
    if kind == "scenario":
        if (detail.get("action") or record.get("reason")) == "start":
            return [
                o.ScenarioStarted.parse(
                    {
                        "number": detail.get("number"),
                        "title": detail.get("title"),
                        "participants": detail.get("participants"),
                    }
                )
            ], False
        return [o.ScenarioEnded.parse({"number": detail.get("number")})], False
    ops = [_applied(record, op if isinstance(op, dict) else {}) for op in applied or []]
    voidable = kind not in STRUCTURE_KINDS and (record.get("parent_seq") is None or applied is not None)
    return ops, voidable

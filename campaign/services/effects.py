"""Reversible state changes.

Every change a command makes to characters is applied through an `Effects` recorder,
which also returns a JSON description of it ("ops") for the ledger entry's detail.
`history void` replays those ops backwards, so reversing a roll's consequences is one
generic routine instead of one per command. Ops name things by stable keys (character
names, origins, seqs), never by database ids, so they survive export and import.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from campaign.db.models import (
    Campaign,
    Character,
    Condition,
    Disappearance,
    ReunionCheck,
    Search,
    Trait,
)
from campaign.errors import RuleRefused
from campaign.services.common import character_named, check_cp_total


class Effects:
    """Applies changes for one ledger entry (seq) and remembers them as ops."""

    def __init__(self, session: Session, campaign: Campaign, seq: int) -> None:
        self.session = session
        self.campaign = campaign
        self.seq = seq
        self.ops: list[dict[str, Any]] = []
        self._ordinal = 0

    def _next_origin(self) -> str:
        self._ordinal += 1
        return f"{self.seq}.{self._ordinal}"

    def set_stat(self, character: Character, stat: str, value: int) -> None:
        before = character.stats.get(stat)
        character.stats = {**character.stats, stat: value}
        self.ops.append({"op": "stat", "character": character.name, "stat": stat, "before": before, "after": value})

    def change_cp(self, character: Character, delta: int) -> None:
        character.cp_total = check_cp_total(character.cp_total + delta, character.name)
        self.ops.append({"op": "cp", "character": character.name, "delta": delta})

    def set_pool(self, character: Character, pool: str, value: int) -> None:
        before = character.pools.get(pool)
        character.pools = {**character.pools, pool: value}
        self.ops.append({"op": "pool", "character": character.name, "pool": pool, "before": before, "after": value})

    def add_trait(self, character: Character, name: str, category: str, cp: int, *, counts_toward_limit: bool) -> Trait:
        trait = Trait(
            character_id=character.id, name=name, category=category, cp=cp,
            counts_toward_limit=counts_toward_limit, origin=self._next_origin(), source_seq=self.seq,
        )
        self.session.add(trait)
        self.ops.append({"op": "trait_added", "character": character.name, "origin": trait.origin})
        return trait

    def remove_trait(self, character: Character, trait: Trait) -> None:
        trait.removed_seq = self.seq
        self.ops.append({"op": "trait_removed", "character": character.name, "origin": trait.origin})

    def rename_trait(self, character: Character, trait: Trait, new_name: str) -> None:
        self.ops.append({"op": "trait_renamed", "character": character.name, "origin": trait.origin,
                         "before": trait.name, "after": new_name})
        trait.name = new_name

    def set_trait_cp(self, character: Character, trait: Trait, cp: int) -> None:
        self.ops.append({"op": "trait_cp", "character": character.name, "origin": trait.origin,
                         "before": trait.cp, "after": cp})
        trait.cp = cp

    def set_trait_category(self, character: Character, trait: Trait, category: str) -> None:
        """E.g. a mild phobia that a fright check made severe ("phobia" -> "severe phobia")."""
        self.ops.append({"op": "trait_category", "character": character.name, "origin": trait.origin,
                         "before": trait.category, "after": category})
        trait.category = category

    def set_setting(self, key: str, value: Any) -> None:
        """A campaign setting (fright_cap, criticals ...); `had` tells void whether to drop the key."""
        settings = dict(self.campaign.settings or {})
        self.ops.append({"op": "setting", "key": key, "had": key in settings, "before": settings.get(key),
                         "after": value})
        settings[key] = value
        self.campaign.settings = settings

    def add_condition(self, character: Character, name: str, duration: str | None, detail: dict[str, Any]) -> Condition:
        condition = Condition(
            character_id=character.id, name=name, duration=duration, detail=detail,
            origin=self._next_origin(), source_seq=self.seq,
        )
        self.session.add(condition)
        self.ops.append({"op": "condition_added", "character": character.name, "origin": condition.origin})
        return condition

    def clear_condition(self, character: Character, condition: Condition) -> None:
        condition.cleared_seq = self.seq
        self.ops.append({"op": "condition_cleared", "character": character.name, "origin": condition.origin})

    def start_missing(self, disappearance: Disappearance) -> None:
        self.session.add(disappearance)
        self.ops.append({"op": "missing_started", "since_seq": disappearance.since_seq})

    def end_missing(self, disappearance: Disappearance) -> None:
        disappearance.reunited_seq = self.seq
        self.ops.append({"op": "missing_ended", "since_seq": disappearance.since_seq})

    def set_faces(self, disappearance: Disappearance, faces: int) -> None:
        self.ops.append({"op": "faces", "since_seq": disappearance.since_seq, "before": disappearance.faces, "after": faces})
        disappearance.faces = faces

    def start_search(self, search: Search, searcher: Character) -> None:
        self.session.add(search)
        self.ops.append({"op": "search_started", "started_seq": search.started_seq, "searcher": searcher.name})

    def end_search(self, search: Search, searcher: Character) -> None:
        search.ended_seq = self.seq
        self.ops.append({"op": "search_ended", "started_seq": search.started_seq, "searcher": searcher.name})

    def record_reunion_check(self, check: ReunionCheck) -> None:
        self.session.add(check)
        self.ops.append({"op": "reunion_check", "seq": check.seq})


def _trait(session: Session, character: Character, origin: str) -> Trait:
    return session.scalars(select(Trait).where(Trait.character_id == character.id, Trait.origin == origin)).one()


def _refuse_duplicate_trait(session: Session, character: Character, name: str, trait: Trait) -> None:
    """Trait names are unique among a character's active traits, restored ones included."""
    clash = session.scalars(
        select(Trait).where(Trait.character_id == character.id, Trait.removed_seq.is_(None), Trait.id != trait.id)
    ).all()
    if any(other.name.casefold() == name.casefold() for other in clash):
        raise RuleRefused(f"cannot void: {character.name} has another trait named {name!r} now; rename it first")


def _condition(session: Session, character: Character, origin: str) -> Condition:
    return session.scalars(
        select(Condition).where(Condition.character_id == character.id, Condition.origin == origin)
    ).one()


def _disappearance(session: Session, campaign: Campaign, since_seq: int) -> Disappearance:
    return session.scalars(
        select(Disappearance).where(Disappearance.campaign_id == campaign.id, Disappearance.since_seq == since_seq)
    ).one()


def _search(session: Session, campaign: Campaign, started_seq: int, searcher: str) -> Search:
    character = character_named(session, campaign, searcher)
    return session.scalars(
        select(Search)
        .join(Disappearance, Search.disappearance_id == Disappearance.id)
        .where(Disappearance.campaign_id == campaign.id, Search.started_seq == started_seq,
               Search.searcher_id == character.id)
    ).one()


def _refuse_if_busy(session: Session, character: Character) -> None:
    """Restoring an old missing/searching status must not give a character two at once."""
    if session.scalar(select(Disappearance.id).where(
            Disappearance.character_id == character.id, Disappearance.reunited_seq.is_(None))) is not None:
        raise RuleRefused(f"cannot void: {character.name} has gone missing again since")
    if session.scalar(select(Search.id).where(
            Search.searcher_id == character.id, Search.ended_seq.is_(None))) is not None:
        raise RuleRefused(f"cannot void: {character.name} is out searching again since")


def reverse(session: Session, campaign: Campaign, ops: list[dict[str, Any]], void_seq: int) -> list[str]:
    """Undo ops in reverse order; returns one human line per undone change.

    Refuses (RuleRefused) when the state has moved on in a way that makes the undo
    unsafe, e.g. a stat that a later command changed again.
    """
    said: list[str] = []
    for op in reversed(ops):
        kind = op["op"]
        character = character_named(session, campaign, op["character"]) if "character" in op else None
        if kind == "stat":
            if character.stats.get(op["stat"]) != op["after"]:
                raise RuleRefused(f"cannot void: {character.name}'s {op['stat']} changed again since")
            stats = dict(character.stats)
            if op["before"] is None:
                stats.pop(op["stat"], None)
            else:
                stats[op["stat"]] = op["before"]
            character.stats = stats
            said.append(f"{character.name}: {op['stat']} {op['after']} -> {op['before']}")
        elif kind == "cp":
            character.cp_total -= op["delta"]
            said.append(f"{character.name}: CP total {-op['delta']:+d}")
        elif kind == "pool":
            pools = dict(character.pools)
            delta = op["after"] - (op["before"] if op["before"] is not None else op["after"])
            pools[op["pool"]] = pools.get(op["pool"], op["after"]) - delta
            if op["before"] is None:
                pools.pop(op["pool"])
            character.pools = pools
            said.append(f"{character.name}: {op['pool']} {-delta:+d}")
        elif kind == "trait_added":
            trait = _trait(session, character, op["origin"])
            if trait.removed_seq is not None and trait.removed_seq != void_seq:
                # Its removal (a buy-off) moved the CP total too; undoing both here would
                # count that twice. The later entry must be voided first.
                raise RuleRefused(f"cannot void: {character.name}'s trait {trait.name!r} was removed by "
                                  f"#{trait.removed_seq} since; void #{trait.removed_seq} first")
            trait.removed_seq = void_seq
            said.append(f"{character.name}: trait {trait.name!r} removed")
        elif kind == "trait_removed":
            trait = _trait(session, character, op["origin"])
            _refuse_duplicate_trait(session, character, trait.name, trait)
            trait.removed_seq = None
            said.append(f"{character.name}: trait {trait.name!r} restored")
        elif kind == "trait_renamed":
            trait = _trait(session, character, op["origin"])
            if trait.name != op["after"]:
                raise RuleRefused(f"cannot void: {character.name}'s trait {op['after']!r} was renamed again since")
            if trait.removed_seq is None:
                _refuse_duplicate_trait(session, character, op["before"], trait)
            trait.name = op["before"]
            said.append(f"{character.name}: trait renamed back to {op['before']!r}")
        elif kind == "trait_cp":
            trait = _trait(session, character, op["origin"])
            if trait.cp != op["after"]:
                raise RuleRefused(f"cannot void: {character.name}'s trait {trait.name!r} changed CP again since")
            trait.cp = op["before"]
            said.append(f"{character.name}: trait {trait.name!r} back to {op['before']} CP")
        elif kind == "trait_category":
            trait = _trait(session, character, op["origin"])
            if trait.category != op["after"]:
                raise RuleRefused(f"cannot void: {character.name}'s trait {trait.name!r} changed category again since")
            trait.category = op["before"]
            said.append(f"{character.name}: trait {trait.name!r} back to {op['before']!r}")
        elif kind == "setting":
            settings = dict(campaign.settings or {})
            if settings.get(op["key"]) != op["after"]:
                raise RuleRefused(f"cannot void: setting {op['key']} changed again since")
            if op["had"]:
                settings[op["key"]] = op["before"]
            else:
                settings.pop(op["key"], None)
            campaign.settings = settings
            said.append(f"setting {op['key']} back to {op['before']!r}")
        elif kind == "condition_added":
            condition = _condition(session, character, op["origin"])
            if condition.cleared_seq is None:
                condition.cleared_seq = void_seq
            said.append(f"{character.name}: condition {condition.name!r} removed")
        elif kind == "condition_cleared":
            condition = _condition(session, character, op["origin"])
            condition.cleared_seq = None
            said.append(f"{character.name}: condition {condition.name!r} restored")
        elif kind == "missing_started":
            disappearance = _disappearance(session, campaign, op["since_seq"])
            if disappearance.reunited_seq is None:
                disappearance.reunited_seq = void_seq
                # Nobody can search for a disappearance that never happened.
                for search in session.scalars(select(Search).where(
                        Search.disappearance_id == disappearance.id, Search.ended_seq.is_(None))):
                    search.ended_seq = void_seq
                    said.append(f"{session.get(Character, search.searcher_id).name} called back from the search")
            said.append("missing status withdrawn")
        elif kind == "missing_ended":
            disappearance = _disappearance(session, campaign, op["since_seq"])
            _refuse_if_busy(session, session.get(Character, disappearance.character_id))
            disappearance.reunited_seq = None
            said.append("missing status restored")
        elif kind == "faces":
            _disappearance(session, campaign, op["since_seq"]).faces = op["before"]
            said.append(f"reunion die back to d{op['before']}")
        elif kind == "search_started":
            search = _search(session, campaign, op["started_seq"], op["searcher"])
            if search.ended_seq is None:
                search.ended_seq = void_seq
            said.append(f"{op['searcher']} no longer searching")
        elif kind == "search_ended":
            _refuse_if_busy(session, character_named(session, campaign, op["searcher"]))
            _search(session, campaign, op["started_seq"], op["searcher"]).ended_seq = None
            said.append(f"{op['searcher']} searching again")
        elif kind == "reunion_check":
            check = session.scalars(
                select(ReunionCheck)
                .join(Disappearance, ReunionCheck.disappearance_id == Disappearance.id)
                .where(Disappearance.campaign_id == campaign.id, ReunionCheck.seq == op["seq"])
            ).one()
            session.delete(check)
            said.append("reunion check withdrawn")
        else:
            raise RuleRefused(f"cannot void: unknown change {kind!r}")
    return said

"""A character as `char show --json` shows it, read from a projected State.

`char show` reads the state tables; `char show --at SEQ` replays the ledger up to SEQ
and reads the resulting State with `character_view` below. Both must give the same
document for the same state (a property test holds them together), so a field added
to one view must be added here too.
"""

from __future__ import annotations

from typing import Any

from campaign.core.derived import POOLS, derived_stats, pool_current, stat_value
from campaign.projection.state import State


def origin_key(origin: str) -> tuple:
    """Traits and conditions in the order they came about ("12.2" before "104.1"),
    the same in the tables and in a replay (database ids change when a void of a void
    re-inserts a row; origins never do)."""
    parts = str(origin).split(".")
    try:
        return (0, *(int(part) for part in parts))
    except ValueError:
        return (1, str(origin))


def status(state: State, name: str) -> tuple[str, str | None]:
    """("dead"|"retired", None), ("missing", None), ("searching", target) or ("active", None)."""
    row = state.characters[name]
    if row.status != "active":
        return row.status, None
    if state.open_disappearance(name) is not None:
        return "missing", None
    started = state.active_search_of(name)
    if started is not None:
        return "searching", state.disappearances[state.searches[started].since_seq].character
    return "active", None


def character_view(state: State, name: str) -> dict[str, Any]:
    """Everything `char show --json` promises, as plain JSON-able values; `char show`
    (the tables) and `char show --at` (a replay) both read a State through this."""
    row = state.characters[name]
    current, searching_for = status(state, name)
    traits = [(origin, t) for origin, t in state.traits.items() if t.character == name and t.removed_seq is None]
    conditions = [(origin, c) for origin, c in state.conditions.items()
                  if c.character == name and c.cleared_seq is None]
    relations = []
    for (a, b), note in state.relationships.items():
        if name in (a, b):
            relations.append({"name": b if a == name else a, "note": note})
    pools = {}
    for pool in POOLS:  # a 3e sheet's FP/HP maximum is its ST/HT: "derived" says so
        maximum = stat_value(row.stats, pool)
        if maximum is not None:
            pools[pool] = {"max": maximum.value, "current": pool_current(row.stats, row.pools, pool)}
    return {
        "name": name,
        "kind": row.kind,
        "player": row.player,
        "summoner": row.summoner,
        "stats": dict(row.stats),
        "derived": {stat: {"value": value.value, "from": value.derived_from}
                    for stat, value in derived_stats(row.stats).items()},
        "cp_total": row.cp_total,
        "cp_awarded": row.cp_awarded,
        "status": current,
        "searching_for": searching_for,
        "traits": [
            {"name": t.name, "category": t.category, "cp": t.cp, "counts_toward_limit": t.counts_toward_limit,
             "limit_cp": t.cp - (t.unlimited_cp or 0), "unlimited_cp": t.unlimited_cp or 0,
             "source_seq": t.source_seq, "origin": origin}
            for origin, t in sorted(traits, key=lambda pair: origin_key(pair[0]))
        ],
        "conditions": [
            {"name": c.name, "duration": c.duration, "detail": c.detail, "source_seq": c.source_seq,
             "origin": origin, "since_clock": c.since_clock or 0, "until_clock": c.until_clock}
            for origin, c in sorted(conditions, key=lambda pair: origin_key(pair[0]))
        ],
        "pools": pools,
        "relations": relations,
    }

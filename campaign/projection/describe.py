"""What a change of state means to a person: one line per difference between two states.

A void shows these lines before it asks for confirmation and records nothing of them:
the lines are rendered from the two states, never stored as prose.
"""

from __future__ import annotations

from campaign.core.derived import pool_max
from campaign.core.gametime import clock_text
from campaign.projection.ops_sheet import sheet_changes
from campaign.projection.state import DisappearanceRow, SearchRow, State, renamed_between
from campaign.seeds import stat_names_for


def _pool_text(state: State, name: str, pool: str) -> str:
    row = state.characters[name]
    maximum = pool_max(row.stats, pool, stat_names_for(state.ruleset).aliases)
    return f"{row.pools.get(pool, maximum)}/{maximum}"


def _renames(before: State, after: State) -> list[str]:
    characters, players = renamed_between(before, after)
    return [f"character {old} renamed back to {new}" for old, new in characters.items()] + [
        f"player {old} renamed back to {new}" for old, new in players.items()
    ]


def _characters(before: State, after: State) -> list[str]:
    lines = []
    renamed = renamed_between(before, after)[0]
    aliases = stat_names_for(after.ruleset).aliases
    for name, old in before.characters.items():
        new = after.characters.get(renamed.get(name, name))
        if new is None:
            continue
        if old.status != new.status:
            lines.append(f"{name}: {old.status} → {new.status}")
        if old.cp_awarded != new.cp_awarded:
            lines.append(f"{name}: awarded CP {old.cp_awarded} → {new.cp_awarded}")
        if old.cp_total != new.cp_total:
            lines.append(f"{name}: CP total {old.cp_total} → {new.cp_total}")
        for stat in sorted(set(old.stats) | set(new.stats)):
            if old.stats.get(stat) != new.stats.get(stat):
                lines.append(f"{name}: {stat} {old.stats.get(stat)} → {new.stats.get(stat)}")
        lines += [f"{name}: {change[-1]}" for change in sheet_changes(old, new)]
        for pool in sorted(set(old.pools) | set(new.pools)):
            if (
                old.pools.get(pool) != new.pools.get(pool)
                and pool_max(new.stats, pool, aliases) is not None
                and pool_max(old.stats, pool, aliases) is not None
            ):
                lines.append(
                    f"{name}: {pool} {_pool_text(before, name, pool)} → "
                    f"{_pool_text(after, renamed.get(name, name), pool)}"
                )
    return lines


def _traits(before: State, after: State) -> list[str]:
    lines = []
    for origin in sorted(set(before.traits) | set(after.traits), key=str):
        old, new = before.traits.get(origin), after.traits.get(origin)
        live_old = old is not None and old.removed_seq is None
        live_new = new is not None and new.removed_seq is None
        shown = new or old
        assert shown is not None  # the origin is in one state or the other
        label = f"{shown.character}: trait {shown.name!r} ({shown.cp:+d} CP)"
        if live_old and not live_new:
            lines.append(f"{label} removed")
        elif live_new and not live_old:
            lines.append(f"{label} restored")
        elif live_old and live_new:
            assert old is not None and new is not None  # what live_old and live_new say
            if old.name != new.name:
                lines.append(f"{new.character}: trait {old.name!r} renamed back to {new.name!r}")
            if old.cp != new.cp:
                lines.append(f"{new.character}: trait {new.name!r} {old.cp:+d} → {new.cp:+d} CP")
            if old.category != new.category:
                lines.append(f"{new.character}: trait {new.name!r} {old.category} → {new.category}")
    return lines


def _conditions(before: State, after: State) -> list[str]:
    lines = []
    for origin in sorted(set(before.conditions) | set(after.conditions), key=str):
        old, new = before.conditions.get(origin), after.conditions.get(origin)
        live_old = old is not None and old.cleared_seq is None
        live_new = new is not None and new.cleared_seq is None
        shown = new or old
        assert shown is not None  # the origin is in one state or the other
        if live_old and not live_new:
            lines.append(f"{shown.character}: condition {shown.name!r} removed")
        elif live_new and not live_old:
            lines.append(f"{shown.character}: condition {shown.name!r} restored")
    return lines


def _missing(before: State, after: State) -> list[str]:
    lines = []
    # The disappearances' loop, then the searches' (each narrows these to its row type).
    old: DisappearanceRow | SearchRow | None
    new: DisappearanceRow | SearchRow | None
    shown: DisappearanceRow | SearchRow | None
    for since in sorted(set(before.disappearances) | set(after.disappearances)):
        old, new = before.disappearances.get(since), after.disappearances.get(since)
        shown = new or old
        assert shown is not None  # the seq is in one state or the other
        open_old = old is not None and old.reunited_seq is None
        open_new = new is not None and new.reunited_seq is None
        if open_old and not open_new:
            lines.append(
                f"{shown.character}: missing status withdrawn"
                if new is None
                else f"{shown.character}: no longer missing"
            )
        elif open_new and not open_old:
            lines.append(f"{shown.character}: missing again (since #{since})")
        elif old is not None and new is not None and old.faces != new.faces:
            lines.append(f"{shown.character}: reunion die back to d{new.faces}")
    for started in sorted(set(before.searches) | set(after.searches)):
        old, new = before.searches.get(started), after.searches.get(started)
        shown = new or old
        assert shown is not None  # the seq is in one state or the other
        active_old = old is not None and old.ended_seq is None
        active_new = new is not None and new.ended_seq is None
        target = (after.disappearances.get(shown.since_seq) or before.disappearances[shown.since_seq]).character
        if active_old and not active_new:
            lines.append(f"{shown.searcher}: no longer searching for {target}")
        elif active_new and not active_old:
            lines.append(f"{shown.searcher}: searching for {target} again")
    for seq in sorted(set(before.reunions) - set(after.reunions)):
        row = before.reunions[seq]
        lines.append(f"reunion check #{seq} for {before.disappearances[row.since_seq].character} withdrawn")
    for seq in sorted(set(after.reunions) - set(before.reunions)):
        row = after.reunions[seq]
        lines.append(f"reunion check #{seq} for {after.disappearances[row.since_seq].character} restored")
    return lines


def _scenarios(before: State, after: State) -> list[str]:
    lines = []
    for number in sorted(set(before.scenarios) & set(after.scenarios)):
        old, new = set(before.scenarios[number].participants), set(after.scenarios[number].participants)
        lines += [f"{name}: no longer takes part in scenario #{number}" for name in sorted(old - new)]
        lines += [f"{name}: takes part in scenario #{number} again" for name in sorted(new - old)]
    return lines


def _settings(before: State, after: State) -> list[str]:
    lines = [
        f"setting {key}: {before.settings.get(key)!r} → {after.settings.get(key)!r}"
        for key in sorted(set(before.settings) | set(after.settings))
        if before.settings.get(key) != after.settings.get(key)
    ]
    if before.clock != after.clock:
        lines.append(f"campaign time {clock_text(before.clock)[0]} → {clock_text(after.clock)[0]}")
    return lines


def describe_changes(before: State, after: State) -> list[str]:
    return (
        _renames(before, after)
        + _settings(before, after)
        + _characters(before, after)
        + _traits(before, after)
        + _conditions(before, after)
        + _missing(before, after)
        + _scenarios(before, after)
    )

"""What a change of state means to a person: one line per difference between two states.

A void shows these lines before it asks for confirmation and records nothing of them:
the lines are rendered from the two states, never stored as prose. The ruleset's stat
names (`aliases`, for a pool's maximum) come from the caller: the projection reads no
seed file.
"""

from __future__ import annotations

from campaign.core.derived import Aliases, pool_max
from campaign.core.gametime import clock_text
from campaign.i18n import _, pick
from campaign.labels import category_label, condition_label, status_label
from campaign.projection.ops_sheet import sheet_changes
from campaign.projection.state import DisappearanceRow, SearchRow, State, renamed_between


def _pool_text(state: State, name: str, pool: str, aliases: Aliases) -> str:
    row = state.characters[name]
    maximum = pool_max(row.stats, pool, aliases)
    return f"{row.pools.get(pool, maximum)}/{maximum}"


def _renames(before: State, after: State) -> list[str]:
    characters, players = renamed_between(before, after)
    return [_("character {old} renamed back to {new}").format(old=old, new=new) for old, new in characters.items()] + [
        _("player {old} renamed back to {new}").format(old=old, new=new) for old, new in players.items()
    ]


def _characters(before: State, after: State, aliases: Aliases) -> list[str]:
    lines = []
    renamed = renamed_between(before, after)[0]
    for name, old in before.characters.items():
        new = after.characters.get(renamed.get(name, name))
        if new is None:
            continue
        if old.status != new.status:
            lines.append(f"{name}: {status_label(old.status)} → {status_label(new.status)}")
        if old.cp_awarded != new.cp_awarded:
            lines.append(
                _("{name}: awarded CP {old} → {new}").format(name=name, old=old.cp_awarded, new=new.cp_awarded)
            )
        if old.cp_total != new.cp_total:
            lines.append(_("{name}: CP total {old} → {new}").format(name=name, old=old.cp_total, new=new.cp_total))
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
                    f"{name}: {pool} {_pool_text(before, name, pool, aliases)} → "
                    f"{_pool_text(after, renamed.get(name, name), pool, aliases)}"
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
        words = {"character": shown.character, "trait": shown.name, "cp": f"{shown.cp:+d}"}
        if live_old and not live_new:
            lines.append(_("{character}: trait '{trait}' ({cp} CP) removed").format(**words))
        elif live_new and not live_old:
            lines.append(_("{character}: trait '{trait}' ({cp} CP) restored").format(**words))
        elif live_old and live_new:
            assert old is not None and new is not None  # what live_old and live_new say
            if old.name != new.name:
                lines.append(
                    _("{character}: trait '{old}' renamed back to '{new}'").format(
                        character=new.character, old=old.name, new=new.name
                    )
                )
            if old.cp != new.cp:
                lines.append(f"{new.character}: '{new.name}' {old.cp:+d} → {new.cp:+d} CP")
            if old.category != new.category:
                lines.append(
                    f"{new.character}: '{new.name}' {category_label(old.category)} → {category_label(new.category)}"
                )
    return lines


def _conditions(before: State, after: State) -> list[str]:
    lines = []
    for origin in sorted(set(before.conditions) | set(after.conditions), key=str):
        old, new = before.conditions.get(origin), after.conditions.get(origin)
        live_old = old is not None and old.cleared_seq is None
        live_new = new is not None and new.cleared_seq is None
        shown = new or old
        assert shown is not None  # the origin is in one state or the other
        words = {"character": shown.character, "condition": condition_label(shown.name)}
        if live_old and not live_new:
            lines.append(_("{character}: condition '{condition}' removed").format(**words))
        elif live_new and not live_old:
            lines.append(_("{character}: condition '{condition}' restored").format(**words))
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
                (
                    _("{character}: missing status withdrawn") if new is None else _("{character}: no longer missing")
                ).format(character=shown.character)
            )
        elif open_new and not open_old:
            lines.append(
                _("{character}: missing again (since #{since})").format(character=shown.character, since=since)
            )
        elif old is not None and new is not None and old.faces != new.faces:
            lines.append(
                _("{character}: reunion die back to d{faces}").format(character=shown.character, faces=new.faces)
            )
    for started in sorted(set(before.searches) | set(after.searches)):
        old, new = before.searches.get(started), after.searches.get(started)
        shown = new or old
        assert shown is not None  # the seq is in one state or the other
        active_old = old is not None and old.ended_seq is None
        active_new = new is not None and new.ended_seq is None
        target = (after.disappearances.get(shown.since_seq) or before.disappearances[shown.since_seq]).character
        if active_old and not active_new:
            lines.append(
                _("{searcher}: no longer searching for {target}").format(searcher=shown.searcher, target=target)
            )
        elif active_new and not active_old:
            lines.append(_("{searcher}: searching for {target} again").format(searcher=shown.searcher, target=target))
    for seq in sorted(set(before.reunions) - set(after.reunions)):
        row = before.reunions[seq]
        character = before.disappearances[row.since_seq].character
        lines.append(_("reunion check #{seq} for {character} withdrawn").format(seq=seq, character=character))
    for seq in sorted(set(after.reunions) - set(before.reunions)):
        row = after.reunions[seq]
        character = after.disappearances[row.since_seq].character
        lines.append(_("reunion check #{seq} for {character} restored").format(seq=seq, character=character))
    return lines


def _scenarios(before: State, after: State) -> list[str]:
    lines = []
    for number in sorted(set(before.scenarios) & set(after.scenarios)):
        old, new = set(before.scenarios[number].participants), set(after.scenarios[number].participants)
        lines += [
            _("{name}: no longer takes part in scenario #{number}").format(name=name, number=number)
            for name in sorted(old - new)
        ]
        lines += [
            _("{name}: takes part in scenario #{number} again").format(name=name, number=number)
            for name in sorted(new - old)
        ]
    return lines


def _settings(before: State, after: State) -> list[str]:
    lines = [
        _("setting {key}: {old} → {new}").format(
            key=key, old=repr(before.settings.get(key)), new=repr(after.settings.get(key))
        )
        for key in sorted(set(before.settings) | set(after.settings))
        if before.settings.get(key) != after.settings.get(key)
    ]
    if before.clock != after.clock:
        lines.append(
            _("campaign time {old} → {new}").format(
                old=pick(clock_text(before.clock)[1], clock_text(before.clock)[0]),
                new=pick(clock_text(after.clock)[1], clock_text(after.clock)[0]),
            )
        )
    return lines


def describe_changes(before: State, after: State, aliases: Aliases) -> list[str]:
    """One line per difference; `aliases` are the ruleset's stat names (core.derived)."""
    return (
        _renames(before, after)
        + _settings(before, after)
        + _characters(before, after, aliases)
        + _traits(before, after)
        + _conditions(before, after)
        + _missing(before, after)
        + _scenarios(before, after)
    )

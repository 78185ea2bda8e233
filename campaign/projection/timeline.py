"""The ledger as a sequence of states: what each entry changed, as the table saw it then.

"The state right after entry N" means the ledger as it stood then: the entries up to
N, with the voids among them and none of the later ones. That is the question a
dispute asks ("what did the sheet say when Aki rolled?"); a void made later is an
entry of its own, and shows up as a change when it happens.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from campaign.core.derived import POOLS, Aliases, pool_current
from campaign.effect_words import shown_condition
from campaign.i18n import _
from campaign.labels import category_label, condition_duration, condition_label, stat_label, status_label
from campaign.projection.ops import OpConflict
from campaign.projection.ops_sheet import sheet_changes
from campaign.projection.replay import Entry, ReplayConflict, effective_voids, project, void_pairs
from campaign.projection.state import State
from campaign.projection.views import status


def state_at(entries: Sequence[Entry], seq: int) -> State:
    """The projection of the entries up to and including `seq` (entries in seq order)."""
    return project([entry for entry in entries if entry.seq <= seq])


def states_through(entries: Sequence[Entry]) -> Iterator[tuple[Entry, State, State]]:
    """(entry, state before it, state after it) for every entry, in seq order.

    Each `after` equals state_at(entries, entry.seq); it is computed incrementally (an
    entry applies its ops to the state before it) except at a void, which replays the
    prefix again, as a void is "the projection without the voided entry".
    """
    state = State()
    skipped: set[int] = set()
    for index, entry in enumerate(entries):
        if entry.kind == "void":
            prefix = entries[: index + 1]
            skipped = set(effective_voids(void_pairs(prefix)))
            after = project(prefix)
        elif not entry.ops or entry.seq in skipped or entry.parent_seq in skipped:
            after = state
        else:
            after = state.copy()
            for op in entry.ops:
                try:
                    op.apply(after, entry.context)
                except OpConflict as exc:
                    if entry.legacy:
                        continue
                    raise ReplayConflict(entry.seq, str(exc), op, exc) from None
        yield entry, state, after
        state = after


def _change(what: str, name: str | None, before: Any, after: Any, text: str) -> dict[str, Any]:
    return {"what": what, "name": name, "before": before, "after": after, "text": text}


def character_changes(before: State, after: State, name: str, aliases: Aliases) -> list[dict[str, Any]]:
    """What changed for one character between two states, one item per change
    (`aliases`: the ruleset's stat names, for a pool's maximum; core.derived)."""
    old, new = before.characters.get(name), after.characters.get(name)
    if new is None and old is None:
        return []
    if old is None:
        assert new is not None  # not both None: returned above
        stats = " ".join(f"{stat_label(k)}={v}" for k, v in new.stats.items())
        added = _("added as {kind}, CP {cp}, {stats}") if stats else _("added as {kind}, CP {cp}")
        return [
            _change(
                "character", name, None, new.kind, added.format(kind=new.kind.upper(), cp=new.cp_total, stats=stats)
            )
        ]
    if new is None:
        return [_change("character", name, old.kind, None, _("removed"))]
    changes = []
    if old.cp_total != new.cp_total:
        changes.append(_change("cp", "CP", old.cp_total, new.cp_total, f"CP {old.cp_total} → {new.cp_total}"))
    for stat in sorted(set(old.stats) | set(new.stats)):
        a, b = old.stats.get(stat), new.stats.get(stat)
        if a != b:
            changes.append(
                _change("stat", stat, a, b, f"{stat_label(stat)} {'—' if a is None else a} → {'—' if b is None else b}")
            )
    for pool in POOLS:  # a derived maximum (3e: HP is HT) counts too
        a, b = pool_current(old.stats, old.pools, pool, aliases), pool_current(new.stats, new.pools, pool, aliases)
        if a is not None and b is not None and a != b:
            changes.append(_change("pool", pool, a, b, f"{pool} {a} → {b}"))
    changes += [_change(*change) for change in sheet_changes(old, new)]
    changes += _trait_changes(before, after, name)
    changes += _condition_changes(before, after, name)
    was, now = status(before, name), status(after, name)
    if was != now:
        changes.append(
            _change(
                "status", "status", _status_text(was), _status_text(now), f"{_status_text(was)} → {_status_text(now)}"
            )
        )
    return changes


def _status_text(value: tuple[str, str | None]) -> str:
    """A status in the output's language (a --json document's: English, campaign.i18n)."""
    shown = status_label(value[0])
    return shown if value[1] is None else _("{status} for {name}").format(status=shown, name=value[1])


def _trait_changes(before: State, after: State, name: str) -> list[dict[str, Any]]:
    changes = []
    origins = [
        o for o in {**before.traits, **after.traits} if (before.traits.get(o) or after.traits[o]).character == name
    ]
    for origin in origins:
        old, new = before.traits.get(origin), after.traits.get(origin)
        live_old = old is not None and old.removed_seq is None
        live_new = new is not None and new.removed_seq is None
        if live_new and not live_old:
            assert new is not None  # what live_new says
            changes.append(_change("trait", new.name, None, new.cp, f"+{new.name} {new.cp:+d}"))
        elif live_old and not live_new:
            assert old is not None  # what live_old says
            changes.append(_change("trait", old.name, old.cp, None, f"-{old.name} ({old.cp:+d})"))
        elif live_old and live_new:
            assert old is not None and new is not None  # what live_old and live_new say
            if old.name != new.name:
                changes.append(
                    _change(
                        "trait",
                        new.name,
                        old.name,
                        new.name,
                        _("{old} renamed {new}").format(old=old.name, new=new.name),
                    )
                )
            if old.cp != new.cp:
                changes.append(_change("trait", new.name, old.cp, new.cp, f"{new.name} {old.cp:+d} → {new.cp:+d}"))
            if old.category != new.category:
                changes.append(
                    _change(
                        "trait",
                        new.name,
                        old.category,
                        new.category,
                        f"{new.name} {category_label(old.category)} → {category_label(new.category)}",
                    )
                )
    return changes


def _condition_changes(before: State, after: State, name: str) -> list[dict[str, Any]]:
    changes = []
    origins = [
        o
        for o in {**before.conditions, **after.conditions}
        if (before.conditions.get(o) or after.conditions[o]).character == name
    ]
    for origin in origins:
        old, new = before.conditions.get(origin), after.conditions.get(origin)
        live_old = old is not None and old.cleared_seq is None
        live_new = new is not None and new.cleared_seq is None
        if live_new and not live_old:
            assert new is not None  # what live_new says
            words = condition_duration(new.duration, new.detail)
            duration = f" ({words})" if words else ""
            label = condition_label(new.name)
            length = shown_condition(new.duration, new.detail)[0]  # the row's codes in English words
            changes.append(_change("condition", new.name, None, length, f"+{label}{duration}"))
        elif live_old and not live_new:
            assert old is not None  # what live_old says
            length = shown_condition(old.duration, old.detail)[0]
            changes.append(_change("condition", old.name, length, None, f"-{condition_label(old.name)}"))
    return changes

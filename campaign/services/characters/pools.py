"""Damage and healing: a character's FP and HP moved by the GM, one voidable entry each.

The change is relative (op `pool_delta`), so voiding an earlier loss keeps a later one.
GURPS lets FP and HP fall below zero, so damage is never clamped; healing stops at the
maximum (the FP/HP stat, or ST/HT on a 3rd-edition sheet: campaign.core.derived), and a
pool already full is refused rather than recorded as a heal of nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from campaign.core.derived import pool_current, pool_name, stat_value
from campaign.db.database import Database
from campaign.errors import BadInput, RuleRefused
from campaign.i18n import _
from campaign.seeds import stat_names_for
from campaign.services.common import campaign_transaction, character_named, clean_text
from campaign.services.recording import recording

AMOUNT_LIMIT = 1_000_000


class _PoolView(TypedDict):
    """The fields a change shares between its record's detail and its result."""

    pool: str
    requested: int
    change: int
    before: int
    after: int
    max: int
    derived_from: str | None


@dataclass(frozen=True, slots=True)
class PoolChangeResult:
    """`char damage` / `char heal` (action): `change` is what moved (a heal stops at the
    maximum, so it can be less than `requested`); the record's detail holds the same."""

    seq: int
    action: str
    character: str
    pool: str
    requested: int
    change: int
    before: int
    after: int
    max: int
    derived_from: str | None
    notes: tuple[dict[str, object], ...] = ()  # HP thresholds crossed (campaign.core.injury), as codes


def _clean(pool: str, amount: int, name: str = "CHAR", *, heal: bool = False) -> str:
    canonical = pool_name(pool)
    if canonical is None:
        raise BadInput(_("pool must be HP or FP, not {pool!r}").format(pool=pool))
    if isinstance(amount, int) and not isinstance(amount, bool) and -AMOUNT_LIMIT <= amount < 0:
        other = "damage" if heal else "heal"
        raise BadInput(
            _("the amount is 1 or more; to {other} instead: `campaign char {other} {name} {canonical} {value}`").format(
                other=other, name=name, canonical=canonical, value=-amount
            )
        )
    if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= AMOUNT_LIMIT:
        raise BadInput(
            _("the amount must be a whole number from 1 to {AMOUNT_LIMIT}, not {amount!r}").format(
                AMOUNT_LIMIT=AMOUNT_LIMIT, amount=amount
            )
        )
    return canonical


def change_pool(
    db: Database,
    campaign_name: str | None,
    actor: str,
    character_name: str,
    pool: str,
    amount: int,
    *,
    heal: bool,
    reason: str | None = None,
) -> PoolChangeResult:
    """Lose (`heal=False`) or regain `amount` FP/HP."""
    pool = _clean(pool, amount, character_name, heal=heal)
    reason = clean_text(reason, "--reason")
    action = "heal" if heal else "damage"
    with campaign_transaction(db, campaign_name) as (session, campaign):
        character = character_named(session, campaign, character_name)
        aliases = stat_names_for(campaign.ruleset).aliases
        maximum = stat_value(character.stats, pool, aliases)
        if maximum is None:
            base = "ST" if pool == "FP" else "HT"
            raise RuleRefused(
                _(
                    "{name} has no {pool} stat nor {base} to derive it from; give one with `char set {name} "
                    "--stat {pool}=N`"
                ).format(name=character.name, pool=pool, base=base)
            )
        before = pool_current(character.stats, character.pools, pool, aliases)
        assert before is not None  # the pool has a maximum, so it has a current value
        delta = min(amount, maximum.value - before) if heal else -amount
        if heal and delta <= 0:
            raise RuleRefused(
                _("{name}'s {pool} is {before}/{value}: nothing to heal").format(
                    name=character.name, pool=pool, before=before, value=maximum.value
                )
            )
        with recording(session, campaign, actor, action) as entry:
            after = entry.change_pool(character, pool, delta)
            view: _PoolView = {
                "pool": pool,
                "requested": amount,
                "change": delta,
                "before": before,
                "after": after,
                "max": maximum.value,
                "derived_from": maximum.derived_from,
            }
            notes = _hp_notes(character.stats, maximum.value, before, after) if pool == "HP" else []
            entry.describe(
                character=character.name,
                reason=reason or action,
                detail={"action": action, **view, **({"notes": notes} if notes else {})},
            )
        return PoolChangeResult(seq=entry.seq, action=action, character=character.name, **view, notes=tuple(notes))


def _hp_notes(stats: dict[str, int], hp_max: int, before: int, after: int) -> list[dict[str, object]]:
    """The GURPS thresholds this loss crossed, against HT (the HP maximum on a sheet
    without HT)."""
    from campaign.core.injury import crossed

    ht = stat_value(stats, "HT")
    base = ht.value if ht is not None else hp_max
    return [{"code": t.code, "at": t.at, "multiple": t.multiple, "ht": base} for t in crossed(before, after, base)]

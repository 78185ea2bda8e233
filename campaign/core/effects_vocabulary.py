"""The effect vocabulary of the rule tables: what an entry of a seed can say happens.

A seed entry lists effects (`effects = [{ kind = "stun", turns = 2, recovery = "ht" }]`);
each kind is one frozen dataclass here, and core.fright turns them into changes to a
character. Kept apart from loading and rolling so that adding an effect kind means
touching this vocabulary, its validation schema (core.table_validation) and fright.

Effect kinds (fields; `amount`-like fields take an integer or dice such as "2D"):
    stun              turns, recovery
    fatigue / injury  amount                      (lose FP / HP)
    condition         condition, duration?, unit?, recovery, every?, every_unit?,
                      after_penalty?, after_duration?, after_unit?, extend?, hp_drain?,
                      severity_dice?
    trait             category, cp, severity?  or  options = [{category, cp, severity?}, ...]
                      (first option is the default)
    phobia_escalation factor?, fallback = {category, cp, severity?}
    check             stat, on_failure = [...], on_critical_failure = [...]
                      (a roll made at once against the character's stat; a critical
                      failure applies on_failure and then on_critical_failure)
    lose_attribute    stat, amount, cascade?
    as_entry          entry, set?   (the effects of another entry of this table, with
                      fields overridden by `set`, e.g. set = { cp = -30 })
    roll_twice        apply = "both" | "choose"
    reroll            only_if_ja?, only_if_en?, gm_choice?, condition?
                      (conditional when only_if is present; gm_choice = true: the GM
                      decides, `roll_on_table(gm_reroll=False)` declines it; condition =
                      crushing | impaling | grenade names the fact that decides it, so
                      the GM can state it (--weapon, --grenade) or be asked)
    roll_table        table, only_if_ja?, only_if_en?
The last three are directives that `roll_on_table` resolves itself by rolling again.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from campaign.errors import N_

RECOVERIES = frozenset({"auto", "will_ignoring_penalties", "will", "ht", "iq", "iq_ignoring_penalties", "gm"})
UNITS = frozenset({"turn", "minute", "hour", "day"})
CONDITIONS = frozenset(
    {
        "stun",
        "unconscious",
        "faint",
        "panic",
        "major_panic",
        "light_coma",
        "coma",
        "catatonia",
        "seizure",
        "heart_attack",
    }
)
# Facts that decide a conditional reroll: the weapon was a solid crushing one (FMB 3, 4,
# 15, 16), an impaling or missile one (FMB 5, 6), a grenade (GFMB jam).
REROLL_CONDITIONS = frozenset({"crushing", "impaling", "grenade"})
#: Lasting disadvantages an entry can give: the code and its English words (the catalog
#: holds the Japanese; campaign.effect_words shows them). A new kind is one line here.
TRAIT_CATEGORY_WORDS = {
    "quirk": N_("quirk"),
    "delusion": N_("delusion"),
    "phobia": N_("phobia"),
    "mental": N_("mental disadvantage"),
    "physical": N_("physical disadvantage"),
}
TRAIT_CATEGORIES = TRAIT_CATEGORY_WORDS.keys()  # a live view: what the line above lists
SEVERITIES = frozenset({"mild", "severe"})
STATS = frozenset({"ST", "DX", "IQ", "HT", "Will"})

Amount = int | str  # a fixed number, or dice such as "2D" (d6s)

# --- effect specifications (what a seed says; fright.py turns them into changes) ---


@dataclass(frozen=True, slots=True)
class Stun:
    turns: Amount
    recovery: str
    kind = "stun"


@dataclass(frozen=True, slots=True)
class Fatigue:
    amount: Amount
    kind = "fatigue"


@dataclass(frozen=True, slots=True)
class Injury:
    amount: Amount
    kind = "injury"


@dataclass(frozen=True, slots=True)
class ConditionEffect:
    condition: str
    recovery: str
    duration: Amount | None = None  # None: lasts until the recovery roll succeeds
    unit: str | None = None
    every: int | None = None  # recovery roll interval, e.g. every 30 minutes
    every_unit: str | None = None
    after_penalty: int | None = None  # penalty to all rolls once recovered ...
    after_duration: int | str | None = None  # ... for this long ("same": as long as it lasted)
    after_unit: str | None = None
    extend: Amount | None = None  # a failed recovery roll extends it by this much
    hp_drain: str | None = None  # "escalating_daily": lose 1, 2, 3 ... HP a day untreated
    severity_dice: Amount | None = None  # rolled at once; higher is worse (major panic)
    kind = "condition"


@dataclass(frozen=True, slots=True)
class TraitOption:
    category: str
    cp: int
    severity: str | None = None


@dataclass(frozen=True, slots=True)
class TraitEffect:
    options: tuple[TraitOption, ...]  # the first is the default choice
    kind = "trait"


@dataclass(frozen=True, slots=True)
class EscalatePhobia:
    fallback: TraitOption  # gained when no related mild phobia exists
    factor: int = 2
    kind = "phobia_escalation"


@dataclass(frozen=True, slots=True)
class AttributeLoss:
    stat: str
    amount: int
    cascade: str | None = None  # "mental": mental skills, spells and psi drop with it
    kind = "lose_attribute"


@dataclass(frozen=True, slots=True)
class Check:
    stat: str
    on_failure: tuple[Any, ...] = ()
    on_critical_failure: tuple[Any, ...] = ()
    kind = "check"


@dataclass(frozen=True, slots=True)
class AsEntry:
    entry: int
    overrides: tuple[tuple[str, Any], ...] = ()  # the seed's `set = {...}`
    kind = "as_entry"


@dataclass(frozen=True, slots=True)
class RollTwice:
    apply: str  # "both" | "choose"
    kind = "roll_twice"


@dataclass(frozen=True, slots=True)
class Reroll:
    only_if_ja: str | None = None
    only_if_en: str | None = None
    gm_choice: bool = False  # the text leaves the reroll to the GM (YFMB 14, YSFMB 13)
    condition: str | None = None  # a fact of the situation that decides it (REROLL_CONDITIONS)
    kind = "reroll"


@dataclass(frozen=True, slots=True)
class RollTable:
    table: str
    only_if_ja: str | None = None
    only_if_en: str | None = None
    kind = "roll_table"


Effect = (
    Stun
    | Fatigue
    | Injury
    | ConditionEffect
    | TraitEffect
    | EscalatePhobia
    | AttributeLoss
    | Check
    | AsEntry
    | RollTwice
    | Reroll
    | RollTable
)
Directive = RollTwice | Reroll | RollTable
DIRECTIVES = (RollTwice, Reroll, RollTable)


#: The words a directive of a seed carries ("only if a grenade"); a record holds the rest.
DIRECTIVE_TEXT_FIELDS = ("only_if_ja", "only_if_en")


def effect_data(effect: Any) -> dict[str, Any]:
    """A seed effect (or trait option) as JSON: its kind and every field that is set."""
    out: dict[str, Any] = {}
    kind = getattr(effect, "kind", None)
    if kind is not None:
        out["kind"] = kind
    for field in fields(effect):
        value = getattr(effect, field.name)
        if value is None or value == () or (field.name == "gm_choice" and not value):
            continue
        out[field.name] = dict(value) if field.name == "overrides" else _plain(value)
    return out


def _plain(value: Any) -> Any:
    if is_dataclass(value):
        return effect_data(value)
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value

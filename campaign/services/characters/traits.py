"""Traits (advantages, disadvantages, quirks) and conditions, edited by the GM.

Every change is one ledger entry (kind "trait") of ops recorded by services.recording, so
`history void` can reverse it. Conditions live in services.characters.conditions.

CP arithmetic (one rule everywhere, fright checks included): a character's CP total is
its point value, so gaining a trait adds the trait's CP to it (a -10 CP disadvantage
lowers it by 10) and removing a trait takes it back out (buying off a -10 CP
disadvantage raises the total by 10: the points the player spends on it). Renaming
changes nothing but the name. `counts_toward_limit` is only a flag: fright-check
disadvantages carry False (docs/rules.md "Fright check"); the GM's own additions default to True.
`unlimited_cp` is the part of a trait's CP outside the disadvantage limit: all of it for
a fright-check trait, none for the GM's, and for a GM's mild phobia that entry 25 made
severe, the CP the escalation added (the original part still counts as it did).

Severity: the schema has no severity column, so a severe trait's category says so with
a "severe " prefix ("severe phobia", "severe delusion"). A fright check escalates only a
plain "phobia" (a mild one).

Names are unique per character among its active traits, compared without case.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from campaign.db.database import Database
from campaign.db.models import Campaign, Character, Trait
from campaign.errors import BadInput, NotFound, RuleRefused
from campaign.i18n import _
from campaign.projection.views import TraitLine
from campaign.services.common import campaign_named, campaign_transaction, character_named, clean_name, clean_text
from campaign.services.recording import recording
from campaign.services.results import as_json

SEVERE_PREFIX = "severe "
CP_LIMIT = 1_000_000
MAX_CATEGORY = 50


def stored_category(category: str, severity: str | None) -> str:
    return SEVERE_PREFIX + category if severity == "severe" else category


def split_category(stored: str) -> tuple[str, str | None]:
    """("phobia", "severe") for "severe phobia"; ("phobia", None) for "phobia"."""
    if stored.startswith(SEVERE_PREFIX):
        return stored[len(SEVERE_PREFIX) :], "severe"
    return stored, None


def default_category(cp: int) -> str:
    if cp > 0:
        return "advantage"
    if cp == -1:
        return "quirk"
    if cp < 0:
        return "disadvantage"
    return "feature"


def active_traits(session: Session, character: Character) -> list[Trait]:
    return list(
        session.scalars(
            select(Trait).where(Trait.character_id == character.id, Trait.removed_seq.is_(None)).order_by(Trait.id)
        )
    )


def find_trait(session: Session, character: Character, name: str) -> Trait | None:
    """The active trait called `name`: exact match first, then ignoring case."""
    traits = active_traits(session, character)
    for trait in traits:
        if trait.name == name:
            return trait
    folded = name.casefold()
    for trait in traits:
        if trait.name.casefold() == folded:
            return trait
    return None


def trait_named(session: Session, character: Character, name: str) -> Trait:
    found = find_trait(session, character, name)
    if found is None:
        have = ", ".join(t.name for t in active_traits(session, character)) or "none"
        raise NotFound(
            _("{name} has no trait named {name2!r} (traits: {have})").format(name=character.name, name2=name, have=have)
        )
    return found


def refuse_duplicate(session: Session, character: Character, name: str) -> None:
    if find_trait(session, character, name) is not None:
        raise RuleRefused(_("{name} already has a trait named {name2!r}").format(name=character.name, name2=name))


@dataclass(frozen=True, slots=True)
class TraitListing:
    character: str
    cp_total: int
    traits: tuple[TraitLine, ...]


@dataclass(frozen=True, slots=True)
class TraitChanged:
    """`trait add` and `trait remove` (action "add" / "remove"): the trait as it was
    written (the record's detail holds as_json of it) and the CP total after."""

    seq: int
    action: str
    character: str
    trait: TraitLine
    cp_total: int


@dataclass(frozen=True, slots=True)
class TraitRenameResult:
    seq: int
    action: str  # "rename"
    character: str
    before: str
    trait: TraitLine
    cp_total: int


def trait_view(trait: Trait) -> TraitLine:
    """The trait as `char show` lists it (the same line a replay makes)."""
    unlimited = trait.unlimited_cp or 0
    return TraitLine(
        name=trait.name,
        category=trait.category,
        cp=trait.cp,
        counts_toward_limit=trait.counts_toward_limit,
        limit_cp=trait.cp - unlimited,
        unlimited_cp=unlimited,
        source_seq=trait.source_seq,
        origin=trait.origin,
    )


def _clean_cp(cp: int) -> int:
    if isinstance(cp, bool) or not isinstance(cp, int) or abs(cp) > CP_LIMIT:
        raise BadInput(_("--cp must be a whole number within ±{CP_LIMIT}, not {cp!r}").format(CP_LIMIT=CP_LIMIT, cp=cp))
    return cp


def _clean_category(category: str | None, cp: int) -> str:
    if category is None:
        return default_category(cp)
    category = clean_name(category, "category")
    if len(category) > MAX_CATEGORY:
        raise BadInput(
            _("category is too long ({count} characters, at most {MAX_CATEGORY})").format(
                count=len(category), MAX_CATEGORY=MAX_CATEGORY
            )
        )
    return category


@contextmanager
def _write(
    db: Database, campaign_name: str | None, character_name: str
) -> Iterator[tuple[Session, Campaign, Character]]:
    """A write transaction locked on the campaign: (session, campaign, character)."""
    with campaign_transaction(db, campaign_name) as (session, campaign):
        yield session, campaign, character_named(session, campaign, character_name)


# --- traits ---


def list_traits(db: Database, campaign_name: str | None, character_name: str) -> TraitListing:
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        character = character_named(session, campaign, character_name)
        return TraitListing(
            character=character.name,
            cp_total=character.cp_total,
            traits=tuple(trait_view(t) for t in active_traits(session, character)),
        )


def add_trait(
    db: Database,
    campaign_name: str | None,
    actor: str,
    character_name: str,
    name: str,
    cp: int,
    *,
    category: str | None = None,
    counts_toward_limit: bool = True,
    reason: str | None = None,
    paid: bool = False,
) -> TraitChanged:
    """Give a character a trait; its CP is added to the CP total, unless `paid`: a
    finished sheet's total already includes it (its removal still takes it out)."""
    name = clean_name(name, "trait")
    cp = _clean_cp(cp)
    category = _clean_category(category, cp)
    reason = clean_text(reason, "--reason")
    with _write(db, campaign_name, character_name) as (session, campaign, character):
        refuse_duplicate(session, character, name)
        with recording(session, campaign, actor, "trait") as entry:
            trait = entry.add_trait(character, name, category, cp, counts_toward_limit=counts_toward_limit)
            if not paid:
                entry.change_cp(character, cp)
            entry.describe(
                character=character.name,
                reason=reason or "added",
                detail={"action": "add", "trait": as_json(trait_view(trait)), **({"paid": True} if paid else {})},
            )
        return TraitChanged(
            seq=entry.seq, action="add", character=character.name, trait=trait_view(trait), cp_total=character.cp_total
        )


def rename_trait(
    db: Database,
    campaign_name: str | None,
    actor: str,
    character_name: str,
    old: str,
    new: str,
    *,
    reason: str | None = None,
) -> TraitRenameResult:
    """Rename a trait, typically the placeholder a fright check left for the GM to name."""
    new = clean_name(new, "trait")
    reason = clean_text(reason, "--reason")
    with _write(db, campaign_name, character_name) as (session, campaign, character):
        trait = trait_named(session, character, old)
        other = find_trait(session, character, new)
        if other is not None and other.id != trait.id:
            raise RuleRefused(
                _("{name} already has a trait named {name2!r}").format(name=character.name, name2=other.name)
            )
        if trait.name == new:
            raise RuleRefused(_("the trait is already named {new!r}").format(new=new))
        before = trait.name
        with recording(session, campaign, actor, "trait") as entry:
            entry.rename_trait(character, trait, new)
            entry.describe(
                character=character.name,
                reason=reason or "renamed",
                detail={"action": "rename", "before": before, "trait": as_json(trait_view(trait))},
            )
        return TraitRenameResult(
            seq=entry.seq,
            action="rename",
            character=character.name,
            before=before,
            trait=trait_view(trait),
            cp_total=character.cp_total,
        )


def remove_trait(
    db: Database, campaign_name: str | None, actor: str, character_name: str, name: str, *, reason: str
) -> TraitChanged:
    """Remove (buy off) a trait: its CP comes back out of the CP total (-10 CP -> +10)."""
    reason = clean_text(reason, "--reason") or ""
    if not reason or not reason.strip():
        raise BadInput(_("--reason is required: say why the trait goes (bought off, cured ...)"))
    with _write(db, campaign_name, character_name) as (session, campaign, character):
        trait = trait_named(session, character, name)
        with recording(session, campaign, actor, "trait") as entry:
            entry.remove_trait(character, trait)
            entry.change_cp(character, -trait.cp)
            entry.describe(
                character=character.name,
                reason=reason,
                detail={"action": "remove", "trait": as_json(trait_view(trait))},
            )
        return TraitChanged(
            seq=entry.seq,
            action="remove",
            character=character.name,
            trait=trait_view(trait),
            cp_total=character.cp_total,
        )

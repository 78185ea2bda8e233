"""Missing characters, searchers and the reunion check (docs/rules.md "Missing and
reunion check"), as pure rules.

The maths: at the end of every scenario each missing character's player rolls
1d(faces) (faces 6 unless the GM set another number for that disappearance); the
check succeeds when the roll <= 1 + the number of active searchers.

The eligibility rules take small frozen "facts" that a service reads from the database
and raise `RuleRefused` with one English line when a rule forbids the request. They
never look anything up themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from campaign.core.dice_source import DiceSource, roll_dice
from campaign.errors import N_, BadInput, RuleRefused, Words

DEFAULT_FACES = 6

CharacterId = int | str


# --------------------------------------------------------------------------- maths


def _check_faces(faces: int) -> None:
    if isinstance(faces, bool) or not isinstance(faces, int) or faces < 1:
        raise BadInput(N_("a reunion die needs at least 1 face, not {faces!r}"), faces=faces)


def reunion_threshold(searchers: int) -> int:
    """Highest roll that succeeds: 1 + the number of active searchers."""
    if isinstance(searchers, bool) or not isinstance(searchers, int) or searchers < 0:
        raise BadInput(N_("the number of searchers must be 0 or more, not {searchers!r}"), searchers=searchers)
    return 1 + searchers


def reunion_chance(faces: int, searchers: int) -> Fraction:
    """Exact probability that the reunion check succeeds."""
    _check_faces(faces)
    return min(Fraction(1), Fraction(reunion_threshold(searchers), faces))


def _percent(chance: Fraction) -> str:
    """Whole percent, rounded half up, never claiming 0% or 100% unless exact."""
    if chance in (0, 1):
        return f"{int(chance * 100)}%"
    value = int(chance * 100 + Fraction(1, 2))
    if value <= 0:
        return "<1%"
    if value >= 100:
        return ">99%"
    return f"{value}%"


def reunion_odds_text(faces: int, searchers: int) -> str:
    """For humans: 'needs <= 3 on 1d6 (50%)'; the number shown never exceeds faces."""
    chance = reunion_chance(faces, searchers)
    shown = min(reunion_threshold(searchers), faces)
    return f"needs <= {shown} on 1d{faces} ({_percent(chance)})"


@dataclass(frozen=True)
class ReunionRoll:
    """One reunion check: `roll` on 1d`faces` against `threshold` (= 1 + searchers)."""

    faces: int
    roll: int
    threshold: int
    success: bool
    searchers: int

    def to_detail(self) -> dict[str, Any]:
        return {
            "expression": f"1d{self.faces}",
            "faces": self.faces,
            "roll": self.roll,
            "dice": [self.roll],
            "threshold": self.threshold,
            "searchers": self.searchers,
            "success": self.success,
        }


def reunion_check(faces: int, searchers: int, source: DiceSource) -> ReunionRoll:
    """Roll the reunion die (one `source.roll(faces)`) and judge it."""
    _check_faces(faces)
    threshold = reunion_threshold(searchers)
    (roll,) = roll_dice(source, 1, faces, Words(N_("the reunion check")))
    return ReunionRoll(faces=faces, roll=roll, threshold=threshold, success=roll <= threshold, searchers=searchers)


# --------------------------------------------------------------------------- facts


@dataclass(frozen=True)
class CharacterRef:
    """Enough to name a character in a message and compare it by id."""

    id: CharacterId
    name: str


@dataclass(frozen=True)
class CharacterFacts:
    """What the rules need to know about a character that might search or join.

    player: the owning player's name (None for a GM-run NPC).
    searching_for: the missing character it is out searching for, if any.
    related_to: ids of characters it has a recorded relationship with.
    """

    id: CharacterId
    name: str
    is_pc: bool
    player: str | None = None
    missing: bool = False
    searching_for: CharacterRef | None = None
    related_to: frozenset[CharacterId] = frozenset()


@dataclass(frozen=True)
class SearcherFacts:
    """A character currently searching for a given missing character."""

    id: CharacterId
    name: str
    player: str


@dataclass(frozen=True)
class MissingFacts:
    """An open disappearance (the character is missing right now).

    player: the missing character's owning player (None for a GM-run NPC; for a
        summoned NPC pass its summoner's player, who plays it).
    summoner_id: for an NPC, the PC that summoned it (召喚者), if any.
    searchers: who is searching for it now.
    """

    id: CharacterId
    name: str
    is_pc: bool
    player: str | None = None
    summoner_id: CharacterId | None = None
    searchers: tuple[SearcherFacts, ...] = ()


# --------------------------------------------------------------------------- eligibility


def is_related(searcher: CharacterFacts, target: MissingFacts) -> bool:
    """A recorded relationship, or the searcher is the missing NPC's summoner."""
    return target.id in searcher.related_to or (
        not target.is_pc and target.summoner_id is not None and searcher.id == target.summoner_id
    )


def check_can_search(searcher: CharacterFacts, target: MissingFacts, *, at_scenario_start: bool) -> None:
    """Raise RuleRefused unless `searcher` may start searching for `target` now.

    The sending player is the searcher's owner. Rules, checked in this order:
    searchers are sent only at the start of a scenario; only PCs search; a missing
    character cannot search; a searcher looks for one missing character at a time;
    a missing PC's own player cannot send their characters (a missing NPC bars no
    player: whoever plays it, through its summoner or otherwise, may send a related
    PC); the searcher must be related to the missing character (a missing NPC's
    summoner always is); a player has at most one character searching for a given
    missing character.
    """
    if not at_scenario_start:
        raise RuleRefused(N_("searchers for {target} can only be sent at the start of a scenario"), target=target.name)
    if not searcher.is_pc:
        raise RuleRefused(
            N_("{searcher} is an NPC; only PCs can search for missing characters"), searcher=searcher.name
        )
    if searcher.missing or searcher.id == target.id:
        raise RuleRefused(N_("{searcher} is missing and cannot search for anyone"), searcher=searcher.name)
    if searcher.searching_for is not None:
        if searcher.searching_for.id == target.id:
            raise RuleRefused(
                N_("{searcher} is already searching for {target}"), searcher=searcher.name, target=target.name
            )
        raise RuleRefused(
            N_("{searcher} is already searching for {target}; a searcher looks for one missing character at a time"),
            searcher=searcher.name,
            target=searcher.searching_for.name,
        )
    # docs/rules.md "Missing and reunion check": only a missing PC's own player is barred;
    # when the missing character
    # is an NPC nobody is, and its summoner counts as related (see is_related).
    if target.is_pc and target.player is not None and searcher.player == target.player:
        raise RuleRefused(
            N_("{player} plays the missing {target} and cannot send their own characters to search for it"),
            player=searcher.player,
            target=target.name,
        )
    if not is_related(searcher, target):
        raise RuleRefused(
            N_(
                "{searcher} has no recorded relationship with {target}; record one first (the GM may do so on the spot)"
            ),
            searcher=searcher.name,
            target=target.name,
        )
    for other in target.searchers:
        if other.player == searcher.player:
            raise RuleRefused(
                N_(
                    "{player} already has {other} searching for {target}; "
                    "a player may have only one searcher out for each missing character"
                ),
                player=searcher.player,
                other=other.name,
                target=target.name,
            )


def check_can_join_scenario(character: CharacterFacts) -> None:
    """Raise RuleRefused if the character is missing or out searching."""
    if character.missing:
        raise RuleRefused(
            N_("{name} is missing and cannot join a scenario until its reunion check succeeds"), name=character.name
        )
    if character.searching_for is not None:
        raise RuleRefused(
            N_("{name} is searching for {target} and cannot join a scenario until that reunion check succeeds"),
            name=character.name,
            target=character.searching_for.name,
        )


def check_can_roll_reunion(target: MissingFacts, *, already_rolled_this_scenario: bool) -> None:
    """One reunion check per missing character per scenario end."""
    if already_rolled_this_scenario:
        raise RuleRefused(N_("{target}'s reunion check for this scenario has already been rolled"), target=target.name)


def reunion_actor(target: MissingFacts, gm: str = "GM") -> str:
    """Who makes the reunion roll (docs/rules.md "Missing and reunion check"): the missing
    character's player (the GM for its own NPCs). The ledger's actor is whoever typed the
    command; services record this player as the entry's `on_behalf_of`."""
    return target.player if target.player is not None else gm

"""A line from the table page (a palette button or the free box) read as the command it
stands for, then run through that command's service.

A GURPS palette writes a fright check as `3D6<=13 恐怖判定` (Will filled in, `-4` and
（強い恐怖症） for a severe phobia: campaign.bridges.ccfolia_piece) and the fright table
as BCDice's `FEAR+5`. Rolled as plain dice they would record a number and apply
nothing; read here, they run `campaign fright` (the Will roll, then the table, its
conditions and traits written onto the character) and the fright table applied
(services.bridges.ccfolia_fright's applier). Every other line is `campaign roll`'s.

`line_command` is pure (tested with plain values); `run_line` is what the page's write
calls, with the page's dice source and the seat's actor.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from campaign.core.derived import stat_value
from campaign.core.dice_source import DiceSource, about
from campaign.errors import BadInput
from campaign.i18n import _
from campaign.seeds import stat_names_for

if TYPE_CHECKING:
    from campaign.db.database import Database

FRIGHT_WORDS = ("恐怖判定", "fright")
SEVERE_WORDS = ("強い恐怖症", "severe phobia")
SEVERE_PHOBIA = -4  # docs/rules.md "Fright check": the object of a severe phobia

_CHECK = re.compile(r"\s*3D6\s*<=\s*(?P<will>\d{1,3})(?P<mods>(?:\s*[+-]\s*\d{1,3})*)\s+(?P<comment>\S.*)", re.I | re.S)
_FEAR = re.compile(r"\s*FEAR\s*(?P<mod>[+-]?\s*\d{1,3})?(?:\s+(?P<comment>\S.*))?\s*", re.I | re.S)


@dataclass(frozen=True, slots=True)
class FrightLine:
    """`3D6<=T[±n] 恐怖判定…`: a fright check against T±n; `written_will` is T, the Will
    the line was written with, `severe` when its words name a severe phobia (whose -4
    then is the rule's, not an extra modifier)."""

    written_will: int
    modifier: int
    severe: bool
    comment: str


@dataclass(frozen=True, slots=True)
class FearLine:
    """`FEAR+n`: the fright table with +n (the Will roll's margin of failure)."""

    modifier: int
    comment: str | None


def line_command(text: str) -> FrightLine | FearLine | None:
    """What a table line means, when it is more than dice: a fright check or the fright
    table; None for any other line (a plain `roll`). Full-width signs and digits count."""
    line, starts = _folded(text)

    def comment(match: re.Match[str]) -> str | None:  # as typed, not folded: it is recorded
        return text[starts[match.start("comment")] :].strip() or None if match["comment"] else None

    check = _CHECK.fullmatch(line)
    if check is not None and any(word in check["comment"].casefold() for word in FRIGHT_WORDS):
        mods = sum(int(part.replace(" ", "")) for part in re.findall(r"[+-]\s*\d+", check["mods"]))
        severe = any(word in check["comment"].casefold() for word in SEVERE_WORDS)
        return FrightLine(
            written_will=int(check["will"]),
            modifier=mods - SEVERE_PHOBIA if severe else mods,
            severe=severe,
            comment=comment(check) or "",
        )
    fear = _FEAR.fullmatch(line)
    if fear is not None:
        mod = int((fear["mod"] or "0").replace(" ", ""))
        return FearLine(modifier=mod, comment=comment(fear))
    return None


def _folded(text: str) -> tuple[str, list[int]]:
    """`text` NFKC-folded a character at a time (＜＝ is <=, ３ is 3, ｰ is no minus), and
    where each folded character came from, so the comment is kept as typed."""
    folded, starts = [], []
    for index, char in enumerate(text):
        part = unicodedata.normalize("NFKC", char)
        folded.append(part)
        starts.extend([index] * len(part))
    starts.append(len(text))
    return "".join(folded), starts


def run_line(
    db: Database, campaign_name: str | None, actor: str, text: str, source: DiceSource, *, character: str | None
) -> dict[str, Any]:
    """Run one table line; the entry it wrote first (the parent), as `history` shows it."""
    from campaign.services.checks.rolls import roll, secret_prefix

    secret, _rest = secret_prefix(text)
    meant = None if secret or not character else line_command(text)
    if meant is None:
        return roll(db, campaign_name, actor, text, source, character=character)
    assert character is not None  # line_command is asked only with one
    if isinstance(meant, FrightLine):
        return _fright_check(db, campaign_name, actor, character, meant, source)
    return _fear(db, campaign_name, actor, character, meant, source)


def _fright_check(
    db: Database, campaign_name: str | None, actor: str, character: str, line: FrightLine, source: DiceSource
) -> dict[str, Any]:
    """`campaign fright CHAR --mod M [--severe-phobia]`: M is what the line adds to the
    Will it was written with, plus any difference between that Will and today's (a
    palette written before the sheet changed rolls against the number it shows)."""
    from campaign.services.checks.fright import fright_check
    from campaign.services.common import campaign_named, character_named
    from campaign.services.ledger.history import show_entry

    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        row = character_named(session, campaign, character)
        will = stat_value(row.stats, "Will", stat_names_for(campaign.ruleset).aliases)
        today = will.value if will is not None else line.written_will  # no Will: the service says so
    done = fright_check(
        db,
        campaign_name,
        actor,
        character,
        source,
        modifier=line.modifier + line.written_will - today,
        severe_phobia=line.severe,
        reason=line.comment,
    )
    return show_entry(db, campaign_name, done.seq)


def _fear(
    db: Database, campaign_name: str | None, actor: str, character: str, line: FearLine, source: DiceSource
) -> dict[str, Any]:
    """`FEAR+n` for a character: 3d6 + n on the fright table, its entry applied."""
    from campaign.services.bridges.ccfolia_fright import apply_fright
    from campaign.services.characters.presence import check_presence
    from campaign.services.common import campaign_transaction, character_named
    from campaign.services.ledger.history import show_entry

    if abs(line.modifier) > 100:
        raise BadInput(_("FEAR{modifier:+d}: the modifier is out of range").format(modifier=line.modifier))
    with campaign_transaction(db, campaign_name) as (session, campaign):
        row = character_named(session, campaign, character)
        check_presence(session, [row], "fright")
        with about(source, row.name):
            dice = [source.roll(6) for _face in range(3)]
        applied = apply_fright(
            session, campaign, actor, row, sum(dice) + line.modifier, line.modifier, source, None, None, dice=dice
        )
        source.ensure_all_used()
        seq = applied.seq
    return show_entry(db, campaign_name, seq)

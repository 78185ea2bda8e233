"""Is a character in play? A roll or check for one who is not is usually a slip at the table.

Issue 14 (plot overrides): catch the slip without getting in the story's way. The
decision, per command and status (documented in README's tour):

| status              | roll, table, ref (a lookup) | fright, 2d6 checks (need presence) |
|---------------------|-----------------------------|------------------------------------|
| dead, retired       | warned                      | refused                            |
| missing             | warned                      | refused; `--anyway` warns instead  |
| searching           | warned                      | warned                             |

Dead and retired characters are out of the game: a check for them changes or records
nothing meaningful, so it is refused outright. A missing character is away from the
party, but the story may bring it on stage (a vision, a letter): `--anyway` says so.
A searcher is off looking for someone, plausibly still rolling. A warning is one line;
the command is logged all the same, and the JSON result carries it under "warnings".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar, overload

from sqlalchemy.orm import Session

from campaign.db.models import Character
from campaign.errors import RuleRefused, Words
from campaign.i18n import N_, _
from campaign.labels import status_label

_Result = TypeVar("_Result")  # a result dataclass with a `warnings` field


def _absence(session: Session, character: Character) -> tuple[str, str | None]:
    from campaign.services.characters.roster import status_of

    return status_of(session, character)


#: The checks that need their characters present, as a refusal names them (the code each
#: service passes to check_presence and check_records.refuse_duplicates).
CHECK_NAMES = {
    "fright": N_("a fright check"),
    "ability": N_("an ability check"),
    "skill": N_("a skill check"),
    "cooperative": N_("a cooperative check"),
    "opposed": N_("an opposed check"),
    "danger": N_("a danger sense check"),
    "hide": N_("a hide check"),
}
# A warning is whole sentence per status (never a status code put into a sentence).
_NOT_IN_PLAY = {
    "dead": N_("{name} is dead and not in play"),
    "retired": N_("{name} is retired and not in play"),
    "missing": N_("{name} is missing and not in play"),
    "searching": N_("{name} is searching and not in play"),
}


def _phrase(name: str, status: str, target: str | None) -> str:
    """The warning as English Words (a result's "warnings" in --json stay English);
    campaign.cli.presence shows it in the output's language."""
    if status == "searching" and target:
        return Words(N_("{name} is searching for {target} and not in play"), name=name, target=target)
    if status in _NOT_IN_PLAY:
        return Words(_NOT_IN_PLAY[status], name=name)
    return Words(N_("{name} is {status} and not in play"), name=name, status=status)


def roll_warnings(session: Session, characters: Iterable[Character]) -> list[str]:
    """Rolls and table lookups: every character out of play is a warning, nothing refused."""
    warnings = []
    for character in characters:
        status, target = _absence(session, character)
        if status != "active":
            warnings.append(_phrase(character.name, status, target))
    return warnings


def check_presence(session: Session, characters: Iterable[Character], check: str, *, anyway: bool = False) -> list[str]:
    """Checks that need the character present (`check`: a code of CHECK_NAMES): refuse the
    dead, the retired and (unless `anyway`) the missing; warn for searchers and `--anyway`."""
    what = _(CHECK_NAMES[check])
    warnings = []
    for character in characters:
        status, target = _absence(session, character)
        if status in ("dead", "retired"):
            raise RuleRefused(
                _("{name} is {status}: {what} is not for a character out of the game").format(
                    name=character.name, status=status_label(status), what=what
                )
            )
        if status == "missing" and not anyway:
            raise RuleRefused(
                _(
                    "{name} is missing and not in play: {what} needs the character present (--anyway if the story "
                    "brings them on stage)"
                ).format(name=character.name, what=what)
            )
        if status != "active":
            warnings.append(_phrase(character.name, status, target))
    return warnings


@overload
def with_warnings(view: dict[str, object], warnings: list[str]) -> dict[str, object]: ...
@overload
def with_warnings(view: _Result, warnings: list[str]) -> _Result: ...
def with_warnings(view: Any, warnings: list[str]) -> Any:
    """The result with its "warnings" (in JSON only when there are some): a result
    dataclass gets its `warnings` field, a record-shaped dict the key."""
    if not warnings:
        return view
    if isinstance(view, dict):
        return {**view, "warnings": warnings}
    from dataclasses import replace

    return replace(view, warnings=tuple(warnings))

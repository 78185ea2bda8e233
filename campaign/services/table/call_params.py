"""What a call asks for: one typed value per kind of call, checked when the call is made.

A call's row stores as_json of its parameters (a JSON column) and call_params reads them
back, so services.table.calls dispatches a roll on the type, never on a dict's keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from campaign.errors import BadInput
from campaign.i18n import _
from campaign.services.results import omitted_when_none

CHECKS = ("ability", "skill", "danger", "success")
NAME_LIMIT = 50
_LIMIT = 100


@dataclass(frozen=True, slots=True, kw_only=True)
class FrightCall:
    """A fright check's call (docs/rules.md "Fright check"): the GM's modifier, and
    whether the object is the character's severe phobia."""

    modifier: int = 0
    severe_phobia: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class SuccessCall:
    """A GURPS success roll against a skill or stat the sheet names (回避, DX ...)."""

    check: Literal["success"] = "success"
    roll: str
    modifier: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckCall:
    """A 2d6 check (docs/rules.md "2d6 checks"): an ability or skill check against a
    target, danger sense against a difficulty."""

    check: Literal["ability", "skill", "danger"]
    stat: str
    difficulty: int | None = omitted_when_none()  # danger sense
    target: int | None = omitted_when_none()  # ability and skill checks
    skill: int | None = omitted_when_none()  # a skill check
    modifier: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class ReunionCall:
    """`scenario end --call`: its award and elapsed time, who gets the award, and (once
    made) the scenario it ends and its missing characters."""

    award: int | None = None
    elapsed: str | None = None
    searchers: bool = False
    npcs: bool = False
    scenario: int | None = omitted_when_none()
    characters: tuple[str, ...] | None = omitted_when_none()


#: What a call asks for, one shape per kind; its row stores as_json of it (a JSON column).
CallParams = FrightCall | SuccessCall | CheckCall | ReunionCall


def call_params(kind: str, stored: Mapping[str, Any] | None) -> CallParams:
    """A call's parameters as its row stores them (check_params made them), read back."""
    stored = stored or {}
    if kind == "fright":
        return FrightCall(modifier=stored.get("modifier", 0), severe_phobia=bool(stored.get("severe_phobia", False)))
    if kind == "check" and stored.get("check") == "success":
        return SuccessCall(roll=str(stored.get("roll")), modifier=stored.get("modifier", 0))
    if kind == "check":
        return CheckCall(
            check=stored["check"],
            stat=str(stored.get("stat")),
            difficulty=stored.get("difficulty"),
            target=stored.get("target"),
            skill=stored.get("skill"),
            modifier=stored.get("modifier", 0),
        )
    characters = stored.get("characters")
    return ReunionCall(
        award=stored.get("award"),
        elapsed=stored.get("elapsed"),
        searchers=bool(stored.get("searchers")),
        npcs=bool(stored.get("npcs")),
        scenario=stored.get("scenario"),
        characters=None if characters is None else tuple(characters),
    )


def check_of(params: CallParams) -> str | None:
    """The check a call asks for (success, ability, skill, danger); None for the others."""
    return params.check if isinstance(params, (SuccessCall, CheckCall)) else None


def _bounded(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > _LIMIT:
        raise BadInput(_("{what} must be a whole number within ±{LIMIT}").format(what=what, LIMIT=_LIMIT))
    return value


def check_params(kind: str, params: Mapping[str, Any]) -> CallParams:
    """The parameters a call stores, checked now so a bad call is refused when made
    (`params` as a request or the CLI gives them: any JSON object)."""
    if kind == "fright":
        return FrightCall(
            modifier=_bounded(params.get("modifier", 0), "--mod"),
            severe_phobia=bool(params.get("severe_phobia", False)),
        )
    if kind == "check":
        check = params.get("check")
        if check not in CHECKS:
            raise BadInput(_("CHECK must be one of {value}").format(value=", ".join(f"`{name}`" for name in CHECKS)))
        if check == "success":
            name = params.get("roll")
            if not isinstance(name, str) or not name.strip() or len(name.strip()) > NAME_LIMIT:
                raise BadInput(_("success roll: the skill or stat to roll against (回避, DX ...)"))
            return SuccessCall(roll=name.strip(), modifier=_bounded(params.get("modifier", 0), "--mod"))
        stat = params.get("stat") or ("感" if check == "danger" else None)
        if not isinstance(stat, str) or not stat.strip() or len(stat) > 50:
            raise BadInput(_("check: the stat to use (心, 技, 体 ...)"))
        danger = check == "danger"
        return CheckCall(
            check=check,
            stat=stat.strip(),
            difficulty=_bounded(params.get("difficulty"), "--difficulty") if danger else None,
            target=None if danger else _bounded(params.get("target"), "--target"),
            skill=_bounded(params.get("skill"), "--skill") if check == "skill" else None,
            modifier=_bounded(params.get("modifier", 0), "--mod"),
        )
    if kind == "reunion":
        award = params.get("award")
        elapsed = params.get("elapsed")
        if award is not None:
            from campaign.services.characters.lifecycle import check_award

            award = check_award(award)
        if elapsed is not None:
            from campaign.core.gametime import parse_span

            parse_span(elapsed, "--elapsed")
        searchers, npcs = bool(params.get("searchers")), bool(params.get("npcs"))
        if (searchers or npcs) and award is None:
            raise BadInput(_("--searchers and --npcs say who gets the award: give it with --award N"))
        return ReunionCall(award=award, elapsed=elapsed, searchers=searchers, npcs=npcs)
    raise BadInput(_("call kind: fright, check or reunion, not {kind!r}").format(kind=kind))

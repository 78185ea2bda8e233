"""`--physical`: ask for each die at the table, as it is needed.

`--dice` wants every face up front, but a fright check only needs the table's 3d6 when
the Will roll fails, and a table's reroll only when the entry says so. On a terminal
the GM can instead answer one prompt per die ("3d6 for the fright table, die 1 of 3: ")
and one question per conditional reroll. The faces are recorded as `manual`, like
--dice. An empty answer or Ctrl-D aborts: services roll inside their transaction before
anything is written, so an abort leaves the database as it was. The price: the
campaign's write lock is held while the GM answers (SQLite's BEGIN IMMEDIATE, the
PostgreSQL row lock), so another writer waits (and may time out) until the dice are in.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated, Any, TextIO

import typer

from campaign.errors import BadInput, CampaignError
from campaign.i18n import _, pick

PhysicalOption = Annotated[
    bool,
    typer.Option(
        "--physical",
        help="On a terminal: ask for each physical die as it is needed "
        "(and whether a conditional reroll applies), instead of --dice.",
    ),
]

_YES = {"y", "yes", "はい"}
_NO = {"n", "no", "いいえ"}


class Aborted(CampaignError):
    """The GM stopped answering: nothing was rolled for real, nothing is recorded."""


def refuse_off_terminal(manual: str | None, stdin: TextIO | None = None) -> None:
    """--physical needs someone to answer; a script must give --dice instead."""
    if manual is not None:
        raise BadInput("--physical asks for each die; with --dice the faces are already given: use one of them")
    stdin = stdin or sys.stdin
    if not stdin.isatty():
        raise BadInput(
            "--physical needs a terminal to ask for each die; off a terminal, give the faces "
            "with --dice (e.g. --dice '3 5 6')"
        )


class _Asker:
    def __init__(self, read: TextIO | None = None, write: TextIO | None = None) -> None:
        self._in = read or sys.stdin
        self._out = write or sys.stderr

    def _answer(self, prompt: str) -> str:
        self._out.write(prompt)
        self._out.flush()
        line = self._in.readline()
        if not line.strip():  # "" is end of input (Ctrl-D), "\n" an empty answer
            if not line:
                self._out.write("\n")
            raise Aborted(_("aborted: no answer given, nothing was recorded"))
        return line.strip()


class PromptDice(_Asker):
    """A dice source that asks for each face (see the module notes)."""

    kind = "prompted"  # recorded as its own source: `stats` tells asked-for dice from typed ones

    def __init__(self, read: TextIO | None = None, write: TextIO | None = None) -> None:
        super().__init__(read, write)
        self.subject: str | None = None

    def roll(self, sides: int) -> int:
        return self.take(1, sides, f"a d{sides}")[0]

    def take(self, count: int, sides: int, purpose: str) -> list[int]:
        from campaign.core.dice_source import describe_request
        from campaign.refusal_words import words_text

        label = words_text(describe_request(count, sides, purpose, self.subject))
        faces = []
        for number in range(1, count + 1):
            while True:
                text = self._answer(
                    _("{request}, die {number} of {count}: ").format(request=label, number=number, count=count)
                )
                try:
                    face = int(text.translate(_FULL_WIDTH_DIGITS))
                except ValueError:
                    face = 0
                if 1 <= face <= sides:
                    faces.append(face)
                    break
                self._out.write(
                    "  "
                    + _("{text!r}: a d{sides} shows a whole number 1..{sides}; again").format(text=text, sides=sides)
                    + "\n"
                )
        return faces

    def ensure_all_used(self) -> None:
        return None

    def reroll_question(self) -> Callable[[Any, Any, Any], bool | None]:
        """The core's `ask` for conditional rerolls: a yes/no question per reroll."""

        def ask(table: Any, entry: Any, reroll: Any) -> bool | None:
            if reroll.gm_choice:
                question = _("reroll? the GM's choice ({condition})").format(
                    condition=pick(reroll.only_if_ja, reroll.only_if_en)
                    if reroll.only_if_en
                    else _("the text leaves it to the GM")
                )
            else:
                question = _("reroll only if {condition}: does that hold?").format(
                    condition=pick(reroll.only_if_ja or reroll.only_if_en, reroll.only_if_en)
                )
            while True:
                text = self._answer(f"{table.command} {entry.label}: {question} [y/n] ").lower()
                if text in _YES:
                    return True
                if text in _NO:
                    return False
                self._out.write("  " + _("answer y or n") + "\n")

        return ask


_FULL_WIDTH_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")


def stated_conditions(
    weapon: str | None = None, grenade: bool | None = None, gm_reroll: bool | None = None
) -> Callable[[Any, Any, Any], bool | None]:
    """The core's `ask` from flags: --weapon crushing|impaling|other, --grenade/--no-grenade,
    --reroll/--no-reroll. A fact not stated answers None (the table's default)."""
    facts: dict[str, bool] = {}
    if weapon is not None:
        facts["crushing"] = weapon == "crushing"
        facts["impaling"] = weapon == "impaling"
    if grenade is not None:
        facts["grenade"] = grenade

    def ask(table: Any, entry: Any, reroll: Any) -> bool | None:
        if reroll.gm_choice:
            return gm_reroll
        return facts.get(reroll.condition) if reroll.condition else None

    return ask


def reroll_asker(
    source: Any, weapon: str | None, grenade: bool | None, gm_reroll: bool | None
) -> Callable[[Any, Any, Any], bool | None]:
    """Flags first; what they leave open is asked when the dice are asked for (--physical)."""
    stated = stated_conditions(weapon, grenade, gm_reroll)
    if not isinstance(source, PromptDice):
        return stated
    question = source.reroll_question()

    def ask(table: Any, entry: Any, reroll: Any) -> bool | None:
        answer = stated(table, entry, reroll)
        return question(table, entry, reroll) if answer is None else answer

    return ask

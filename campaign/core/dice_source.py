"""Where die faces come from.

A roll's fairness is only provable if we know how its faces were produced, so every
source carries a `kind` that the ledger records: `rng` (OS randomness), `manual`
(physical dice typed in with --dice), `seeded` (a fixed seed, for demos and tests) or
`server` (OS randomness drawn by the table server at the moment a player tapped).
"""

from __future__ import annotations

import random
import re
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from campaign.errors import N_, DiceError, Words


class DiceSource(Protocol):
    kind: str

    def roll(self, sides: int) -> int:
        """One face in 1..sides."""
        ...

    def ensure_all_used(self) -> None:
        """Called by services after rolling, before they write anything."""
        ...


def roll_dice(source: DiceSource, count: int, sides: int, purpose: str) -> tuple[int, ...]:
    """`count` dice of `sides` faces for one stated purpose ("the fright table").

    Sources that deal with people (typed faces, prompts) implement `take` so a shortage
    or a prompt can name the request ("need 3 more: 3d6 for the fright table"); any other
    source (the OS, a seed, a test's fixed faces) just rolls die by die.
    """
    take = getattr(source, "take", None)
    if take is not None:
        return tuple(take(count, sides, purpose))
    return tuple(source.roll(sides) for _ in range(count))


def describe_request(count: int, sides: int, purpose: str, subject: str | None) -> Words:
    """`3d6 for the fright table of 鈴音`: how a request reads in errors and prompts."""
    if subject and " of " not in purpose:
        return Words(
            N_("{count}d{sides} for {purpose} of {subject}"), count=count, sides=sides, purpose=purpose, subject=subject
        )
    return Words(N_("{count}d{sides} for {purpose}"), count=count, sides=sides, purpose=purpose)


@contextmanager
def about(source: DiceSource, subject: str | None) -> Iterator[None]:
    """Name whose roll this is (a character) while a service rolls, so requests read
    "the reunion check of 鈴音". Sources without a `subject` attribute ignore it."""
    if subject is None or not hasattr(source, "subject"):
        yield
        return
    previous = getattr(source, "subject")  # noqa: B009 - hasattr above: a source with a subject
    setattr(source, "subject", subject)  # noqa: B010
    try:
        yield
    finally:
        setattr(source, "subject", previous)  # noqa: B010


class _Generated:
    """Sources that produce faces on demand never have leftovers."""

    def ensure_all_used(self) -> None:
        return None


class SystemDice(_Generated):
    """OS randomness: the default for real play."""

    kind = "rng"

    def __init__(self) -> None:
        self._rng = secrets.SystemRandom()

    def roll(self, sides: int) -> int:
        return self._rng.randint(1, sides)


class ServerDice(SystemDice):
    """The table server's dice for a signed-in player's roll: the same `secrets` RNG as
    `rng`, recorded apart so the ledger says the roll happened at the server when the
    player tapped, not at the GM's keyboard."""

    kind = "server"


class SeededDice(_Generated):
    """Reproducible faces from a fixed seed; never used for real play."""

    kind = "seeded"

    def __init__(self, seed: int | str) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def roll(self, sides: int) -> int:
        return self._rng.randint(1, sides)


class ManualDice:
    """Faces typed in by the players, consumed in the order the dice came up.

    Too few faces, or a face that the die cannot show, is a DiceError: the command
    fails before anything is written because services roll before they commit.
    """

    kind = "manual"

    def __init__(self, faces: list[int]) -> None:
        self.faces = list(faces)
        self.used = 0
        self.subject: str | None = None

    @classmethod
    def parse(cls, text: str) -> ManualDice:
        """Parse `3,5,6`, `3 5 6` or `3, 5, 6` into a source (the order the dice came up)."""
        faces: list[int] = []
        stripped = text.strip()
        parts = re.split(r"\s*,\s*|\s+", stripped) if stripped else [""]
        for position, part in enumerate(parts, start=1):
            try:
                faces.append(int(part))
            except ValueError:
                raise DiceError(
                    N_("--dice: face {position} ({part!r}) is not a whole number"), position=position, part=part
                ) from None
        return cls(faces)

    def roll(self, sides: int) -> int:
        return self.take(1, sides, f"a d{sides}")[0]

    def take(self, count: int, sides: int, purpose: str) -> list[int]:
        """The next `count` faces; a shortage says how many more this request needs."""
        available = self.faces[self.used : self.used + count]
        for offset, face in enumerate(available):
            if not 1 <= face <= sides:
                raise DiceError(
                    N_("--dice: face {position} is {face}, outside 1..{sides} for {request}"),
                    position=self.used + offset + 1,
                    face=face,
                    sides=sides,
                    request=describe_request(count, sides, purpose, self.subject),
                )
        if len(available) < count:
            raise DiceError(
                N_("--dice: not enough faces, need {more} more: {request}"),
                more=count - len(available),
                request=describe_request(count, sides, purpose, self.subject),
            )
        self.used += count
        return available

    @property
    def remaining(self) -> int:
        return len(self.faces) - self.used

    def ensure_all_used(self) -> None:
        """Refuse leftover faces: a surplus usually means a typo in --dice."""
        if self.remaining:
            raise DiceError(
                N_("--dice: {given} faces given but only {used} used; remove the extra ones"),
                given=len(self.faces),
                used=self.used,
            )


class DealtFaces(ManualDice):
    """The faces `campaign serve --dice` was started with (tests of the table page through a
    real server): each roll the server makes, for any request, takes the next faces of the
    one list. Recorded as `manual`, as --dice is everywhere: typed faces, never the
    server's own nor a fair seed's (services.fair.seeds derives only `server` dice), so no
    entry it makes is shown as provable. The source is its own factory (create_app's
    `dice`): every request shares it."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(faces)
        self._lock = threading.Lock()

    def __call__(self) -> DealtFaces:
        return self

    def take(self, count: int, sides: int, purpose: str) -> list[int]:
        with self._lock:  # requests roll in worker threads: each face is dealt once
            return super().take(count, sides, purpose)

    def ensure_all_used(self) -> None:
        """Faces left over belong to the next request."""
        return None

"""Where die faces come from.

A roll's fairness is only provable if we know how its faces were produced, so every
source carries a `kind` that the ledger records: `rng` (OS randomness), `manual`
(physical dice typed in with --dice) or `seeded` (a fixed seed, for demos and tests).
"""

from __future__ import annotations

import random
import secrets
from typing import Protocol

from campaign.errors import DiceError


class DiceSource(Protocol):
    kind: str

    def roll(self, sides: int) -> int:
        """One face in 1..sides."""
        ...

    def ensure_all_used(self) -> None:
        """Called by services after rolling, before they write anything."""
        ...


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

    @classmethod
    def parse(cls, text: str) -> "ManualDice":
        """Parse `3,5,6` (spaces allowed) into a source."""
        faces: list[int] = []
        for position, part in enumerate(text.split(","), start=1):
            part = part.strip()
            try:
                faces.append(int(part))
            except ValueError:
                raise DiceError(f"--dice: face {position} ({part!r}) is not a whole number") from None
        return cls(faces)

    def roll(self, sides: int) -> int:
        if self.used >= len(self.faces):
            raise DiceError(
                f"--dice: not enough faces: {len(self.faces)} given, more needed (next die is a d{sides})"
            )
        face = self.faces[self.used]
        if not 1 <= face <= sides:
            raise DiceError(f"--dice: face {self.used + 1} is {face}, outside 1..{sides} for a d{sides}")
        self.used += 1
        return face

    @property
    def remaining(self) -> int:
        return len(self.faces) - self.used

    def ensure_all_used(self) -> None:
        """Refuse leftover faces: a surplus usually means a typo in --dice."""
        if self.remaining:
            raise DiceError(
                f"--dice: {len(self.faces)} faces given but only {self.used} used; remove the extra ones"
            )

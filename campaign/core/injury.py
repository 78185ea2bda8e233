"""What GURPS (third edition) says happens as hit points fall: pure thresholds.

At 0 HP or below a character must roll HT at the start of each turn to stay conscious;
at −HT, and again at each further multiple (−2×HT, −3×HT, −4×HT), an HT roll or die;
at −5×HT death, no roll. `char damage` records which of these a loss crossed, as codes
(the record never holds the sentence); the words are the CLI's. HT is the sheet's HT
(on a third-edition sheet it is also the HP maximum).
"""

from __future__ import annotations

from dataclasses import dataclass

DEATH_MULTIPLE = 5  # at -5 x HT: dead


@dataclass(frozen=True, slots=True)
class Threshold:
    """One line crossed: `code` is "unconscious_rolls" (0 HP), "death_roll" (−k×HT,
    `multiple` k from 1 to 4) or "dead" (−5×HT); `at` the HP value of the line."""

    code: str
    at: int
    multiple: int = 0


def crossed(before: int, after: int, ht: int) -> list[Threshold]:
    """The thresholds an HP loss from `before` to `after` went through (none for a gain)."""
    if after >= before or ht < 1:
        return []
    lines = []
    if before > 0 >= after:
        lines.append(Threshold("unconscious_rolls", 0))
    for multiple in range(1, DEATH_MULTIPLE):
        at = -multiple * ht
        if before > at >= after:
            lines.append(Threshold("death_roll", at, multiple))
    at = -DEATH_MULTIPLE * ht
    if before > at >= after:
        lines.append(Threshold("dead", at, DEATH_MULTIPLE))
    return lines

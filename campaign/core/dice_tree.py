"""A parsed dice expression as an immutable tree, and the limits every tree obeys.

The parser (core.dice_grammar) builds these nodes; core.dice rolls them and core.luck
computes their odds. Limits are checked while parsing, so a tree that exists is one
that can be rolled without running out of bounds halfway.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_DICE_PER_TERM = 1000
MAX_SIDES = 1000
MAX_NESTING = 32
MAX_REPEAT = 100
MAX_TOTAL_DICE = 10_000
MAX_EXPRESSION_LENGTH = 1000
DEFAULT_SIDES = 6

COMPARISONS = ("<=", ">=", "<", ">", "=", "!=")

DIGITS = frozenset("0123456789")
REPEAT_WORDS = ("REPEAT", "REP", "X")


class ExpressionProblem(Exception):
    """A fault at a position in the normalised text, not yet mapped to a user column.

    Internal only: the public functions convert it to DiceError with the column the
    user can see in what they typed.
    """

    def __init__(
        self,
        message: str,
        position: int,
        *,
        names_character: bool = False,
        names_word: bool = False,
        params: dict[str, object] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message  # an English template (N_), its values in `params`
        self.params = params or {}
        self.position = position
        self.names_character = names_character or names_word
        self.names_word = names_word


# --- the tree -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Number:
    value: int


@dataclass(frozen=True, slots=True)
class DiceTerm:
    """`NdM`, optionally keeping the highest/lowest few (`KH`/`KL`)."""

    count: int
    sides: int
    keep: str | None  # "KH" or "KL"
    keep_count: int | None
    position: int


@dataclass(frozen=True, slots=True)
class D66Term:
    """Two d6 read as tens and ones; never sorted, since some tables are not symmetric."""

    position: int


@dataclass(frozen=True, slots=True)
class Negation:
    operand: Node


@dataclass(frozen=True, slots=True)
class Sum:
    """Flat rather than nested, so a long `1+1+...` cannot exhaust the recursion limit."""

    terms: tuple[tuple[int, Node], ...]  # (sign +1/-1, term)


@dataclass(frozen=True, slots=True)
class Product:
    first: Node
    rest: tuple[tuple[str, Node, int], ...]  # (operator, operand, operator position)


Node = Number | DiceTerm | D66Term | Negation | Sum | Product


@dataclass(frozen=True, slots=True)
class ArithmeticRoll:
    expression: Node
    comparison: str | None
    target: int | None
    # Set when the shape is `3D6[+-k]<=N`, the only shape a GURPS success roll
    # judges (docs/rules.md "Success roll").
    success_roll_modifier: int | None


@dataclass(frozen=True, slots=True)
class BarabaraTerm:
    count: int
    sides: int
    position: int


@dataclass(frozen=True, slots=True)
class BarabaraRoll:
    """`nBm[+nBm...]`: dice judged one by one instead of summed."""

    terms: tuple[BarabaraTerm, ...]
    comparison: str | None
    target: int | None


@dataclass(frozen=True, slots=True)
class ParsedExpression:
    text: str  # normalised, e.g. "X3 2D6<=7"
    body_text: str  # the same without the repeat prefix
    roll: ArithmeticRoll | BarabaraRoll
    repeat: int | None
    dice_count: int  # every die the whole expression will roll, repeats included

"""Reading a dice expression into an immutable tree, before any die is rolled.

Everything that can be known from the text alone is checked here (syntax, limits,
division by a literal zero), so a bad command fails without consuming faces typed in
with --dice and without writing to the ledger. Dice counts, sides, keep counts,
repeat counts and comparison targets must be fixed numbers, which lets every limit
be enforced at parse time rather than halfway through a roll.

Positions inside the parser are 0-based offsets into the *normalised* text; they are
turned into 1-based columns of the text the user typed only when an error is raised,
because the same normalised text (and so the same cached tree) can come from
differently typed input, e.g. full-width and ASCII digits.
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass
from typing import NoReturn, Union

from campaign.errors import DiceError

MAX_DICE_PER_TERM = 1000
MAX_SIDES = 1000
MAX_NESTING = 32
MAX_REPEAT = 100
MAX_TOTAL_DICE = 10_000
MAX_EXPRESSION_LENGTH = 1000
DEFAULT_SIDES = 6

COMPARISONS = ("<=", ">=", "<", ">", "=", "!=")

_DIGITS = frozenset("0123456789")
_REPEAT_WORDS = ("REPEAT", "REP", "X")

# Symbols Japanese IMEs produce that NFKC leaves alone but every player means as ASCII.
_SYMBOL_SPELLINGS = str.maketrans(
    {
        "≦": "<=",
        "≤": "<=",
        "≧": ">=",
        "≥": ">=",
        "≠": "!=",
        "×": "*",
        "÷": "/",
        "−": "-",
    }
)


class ExpressionProblem(Exception):
    """A fault at a position in the normalised text, not yet mapped to a user column.

    Internal only: the public functions convert it to DiceError with the column the
    user can see in what they typed.
    """

    def __init__(self, message: str, position: int, *, names_character: bool = False, names_word: bool = False):
        super().__init__(message)
        self.message = message
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
    operand: "Node"


@dataclass(frozen=True, slots=True)
class Sum:
    """Flat rather than nested, so a long `1+1+...` cannot exhaust the recursion limit."""

    terms: tuple[tuple[int, "Node"], ...]  # (sign +1/-1, term)


@dataclass(frozen=True, slots=True)
class Product:
    first: "Node"
    rest: tuple[tuple[str, "Node", int], ...]  # (operator, operand, operator position)


Node = Union[Number, DiceTerm, D66Term, Negation, Sum, Product]


@dataclass(frozen=True, slots=True)
class ArithmeticRoll:
    expression: Node
    comparison: str | None
    target: int | None
    # Set when the shape is `3D6[+-k]<=N`, the only shape GURPS rules R1 judge.
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


# --- where the expression is and how it reads once normalised -----------------------


def _normalize_char(char: str) -> str:
    return unicodedata.normalize("NFKC", char).translate(_SYMBOL_SPELLINGS).upper()


def _normalize_segment(segment: str) -> str:
    if segment.isascii():
        return segment.upper()
    # Per character, so each normalised character can be traced back to a column.
    return "".join(_normalize_char(char) for char in segment)


def _is_repeat_prefix(token: str) -> bool:
    if not token or token[0] not in "xXrRｘＸｒＲ":
        return False
    normalized = _normalize_segment(token)
    for word in _REPEAT_WORDS:
        if normalized.startswith(word):
            count = normalized[len(word) :]
            return bool(count) and all(char in _DIGITS for char in count)
    return False


class LocatedExpression:
    """The expression part of a typed line, its comment, and how to map columns back."""

    __slots__ = ("text", "segments", "comment", "normalized")

    def __init__(self, text: str):
        # str.split()/strip() treat whitespace exactly as str.isspace() does, U+3000 included.
        self.text = text
        self.segments: list[tuple[int, int]] = []
        self.comment: str | None = None
        stripped = text.lstrip()
        if not stripped:
            self.normalized = ""
            return
        start = len(text) - len(stripped)
        token = stripped.split(None, 1)[0]
        end = start + len(token)
        self.segments.append((start, end))
        rest = text[end:]
        normalized = _normalize_segment(token)
        if _is_repeat_prefix(token):
            body = rest.lstrip()
            if body:
                body_start = len(text) - len(body)
                body_token = body.split(None, 1)[0]
                body_end = body_start + len(body_token)
                self.segments.append((body_start, body_end))
                rest = text[body_end:]
                normalized = f"{normalized} {_normalize_segment(body_token)}"
        self.normalized = normalized
        self.comment = rest.strip() or None

    @property
    def expression(self) -> str:
        if not self.segments:
            return ""
        return self.text[self.segments[0][0] : self.segments[-1][1]]

    def column(self, position: int) -> int:
        """1-based column in the typed text of a position in the normalised text."""
        columns: list[int] = []
        for index, (start, end) in enumerate(self.segments):
            if index:
                columns.append(self.segments[0][1] + 1)
            for offset in range(start, end):
                columns.extend([offset + 1] * len(_normalize_char(self.text[offset])))
        if position < len(columns):
            return columns[position]
        return self.segments[-1][1] + 1 if self.segments else 1

    def error(self, problem: ExpressionProblem) -> DiceError:
        column = self.column(problem.position)
        message = problem.message
        if problem.names_character:
            end = column
            if problem.names_word:  # the whole word typed there, e.g. 'abc' of 3D6<=abc
                while end < len(self.text) and not self.text[end].isspace() and self.text[end].isalnum():
                    end += 1
            message = f"{message} {self.text[column - 1:end]!r}"
        return DiceError(message, column=column)


def split_comment(text: str) -> tuple[str, str | None]:
    """Separate `2D6>=7 SAN check` into the expression and the comment.

    Chat-style dice bots treat everything after the first space as a remark, and
    players type it that way out of habit; the CLI stores the remark as the reason.
    A repeat prefix (`x3 2D6`) keeps its own space.
    """
    located = LocatedExpression(text)
    return located.expression, located.comment


def normalize_expression(text: str) -> str:
    """The canonical spelling of the expression part, as stored in the ledger."""
    return LocatedExpression(text).normalized


def parse(text: str) -> ParsedExpression:
    """Parse (and fully validate) the expression part of `text`; rolls nothing."""
    located = LocatedExpression(text)
    try:
        return parse_normalized(located.normalized)
    except ExpressionProblem as problem:
        raise located.error(problem) from None


@functools.lru_cache(maxsize=1024)
def parse_normalized(text: str) -> ParsedExpression:
    """Cached on the normalised text: players repeat the same few expressions all night."""
    return _Parser(text).parse_expression()


# --- the parser ---------------------------------------------------------------------


class _Parser:
    __slots__ = ("text", "length", "pos", "depth", "repeat", "dice_count")

    def __init__(self, text: str):
        self.text = text
        self.length = len(text)
        self.pos = 0
        self.depth = 0
        self.repeat = 1
        self.dice_count = 0

    def fail(self, message: str, position: int | None = None) -> NoReturn:
        raise ExpressionProblem(message, self.pos if position is None else position)

    def fail_here(self) -> NoReturn:
        if self.pos >= self.length:
            self.fail("unexpected end of expression")
        raise ExpressionProblem("unexpected character", self.pos, names_character=True)

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < self.length else ""

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            self.fail(f"nested more than {MAX_NESTING} levels deep")

    def parse_expression(self) -> ParsedExpression:
        if not self.length:
            self.fail("empty dice expression", 0)
        if self.length > MAX_EXPRESSION_LENGTH:
            self.fail(f"expression longer than {MAX_EXPRESSION_LENGTH} characters", MAX_EXPRESSION_LENGTH)
        repeat = self.parse_repeat_prefix()
        body_start = self.pos
        roll: ArithmeticRoll | BarabaraRoll
        # Only the left side decides: `3D6<=ABC` is a bad target, not a barabara roll.
        left = self.text[body_start:]
        for index, char in enumerate(left):
            if char in "<>=!":
                left = left[:index]
                break
        if "B" in left:
            roll = self.parse_barabara()
        else:
            roll = self.parse_arithmetic_roll()
        if self.pos < self.length:
            self.fail_here()
        return ParsedExpression(
            text=self.text,
            body_text=self.text[body_start:],
            roll=roll,
            repeat=repeat,
            dice_count=self.dice_count * self.repeat,
        )

    def parse_repeat_prefix(self) -> int | None:
        text = self.text
        for word in _REPEAT_WORDS:
            if text.startswith(word) and self.length > len(word) and text[len(word)] in _DIGITS:
                break
        else:
            return None
        self.pos = digits_start = len(word)
        repeat = self.parse_integer()
        if not 1 <= repeat <= MAX_REPEAT:
            self.fail(f"repeat count must be 1..{MAX_REPEAT}, not {repeat}", digits_start)
        if self.pos >= self.length:
            self.fail(f"expected a roll after {text[: self.pos]}")
        if text[self.pos] != " ":
            self.fail(f"expected a space after {text[: self.pos]}")
        self.pos += 1
        self.repeat = repeat
        return repeat

    def parse_integer(self) -> int:
        start = self.pos
        while self.pos < self.length and self.text[self.pos] in _DIGITS:
            self.pos += 1
        return int(self.text[start : self.pos])

    def add_dice(self, count: int, position: int) -> None:
        self.dice_count += count
        if self.dice_count * self.repeat > MAX_TOTAL_DICE:
            self.fail(f"more than {MAX_TOTAL_DICE} dice in one expression", position)

    def check_dice(self, count: int, count_position: int, sides: int, sides_position: int) -> None:
        if count < 1:
            self.fail(f"roll at least one die, not {count}", count_position)
        if count > MAX_DICE_PER_TERM:
            self.fail(f"at most {MAX_DICE_PER_TERM} dice in one term, not {count}", count_position)
        if sides < 1:
            self.fail(f"a die needs at least one side, not {sides}", sides_position)
        if sides > MAX_SIDES:
            self.fail(f"a die may have at most {MAX_SIDES} sides, not {sides}", sides_position)
        self.add_dice(count, count_position)

    def parse_comparison(self) -> str | None:
        char = self.peek()
        following = self.text[self.pos + 1] if self.pos + 1 < self.length else ""
        if char == "<":
            if following == "=":
                operator, width = "<=", 2
            elif following == ">":
                operator, width = "!=", 2
            else:
                operator, width = "<", 1
        elif char == ">":
            operator, width = (">=", 2) if following == "=" else (">", 1)
        elif char == "=":
            operator, width = "=", 1
        elif char == "!":
            if following != "=":
                self.pos += 1
                self.fail("expected '=' after '!'")
            operator, width = "!=", 2
        else:
            return None
        self.pos += width
        return operator

    def parse_target(self) -> int:
        start = self.pos
        if self.peek().isalpha():
            raise ExpressionProblem("the target must be a number, as in 3D6<=12, not", self.pos, names_word=True)
        target = self.parse_sum()
        if not isinstance(target, Number):
            self.fail("the target must be a fixed number, not a roll", start)
        return target.value

    def parse_arithmetic_roll(self) -> ArithmeticRoll:
        start = self.pos
        expression = self.parse_sum()
        if isinstance(expression, Number):
            if self.pos < self.length and self.peek() not in "<>=!":
                self.fail_here()
            self.fail("the expression rolls no dice", start)
        comparison = self.parse_comparison()
        target = self.parse_target() if comparison else None
        modifier = _success_roll_modifier(expression) if comparison == "<=" else None
        return ArithmeticRoll(expression, comparison, target, modifier)

    def parse_barabara(self) -> BarabaraRoll:
        terms: list[BarabaraTerm] = []
        while True:
            start = self.pos
            if self.peek() not in _DIGITS and self.peek() != "(":
                self.fail_here()
            count = self.parse_fixed_operand("the number of dice")
            if self.peek() != "B":
                if self.pos >= self.length:
                    self.fail_here()
                self.fail("expected B: a barabara roll (nBm) cannot be mixed with other terms")
            self.pos += 1
            sides_start = self.pos
            sides = DEFAULT_SIDES
            if self.peek() in _DIGITS or self.peek() == "(":
                sides = self.parse_fixed_operand("the number of sides")
            self.check_dice(count, start, sides, sides_start)
            terms.append(BarabaraTerm(count, sides, start))
            if self.peek() != "+":
                break
            self.pos += 1
        comparison = self.parse_comparison()
        target = self.parse_target() if comparison else None
        return BarabaraRoll(tuple(terms), comparison, target)

    def parse_sum(self) -> Node:
        first = self.parse_product()
        if self.peek() not in ("+", "-"):
            return first
        terms: list[tuple[int, Node]] = [(1, first)]
        while (char := self.peek()) in ("+", "-"):
            self.pos += 1
            terms.append((1 if char == "+" else -1, self.parse_product()))
        if all(isinstance(term, Number) for _, term in terms):
            return Number(sum(sign * term.value for sign, term in terms))  # type: ignore[union-attr]
        return Sum(tuple(terms))

    def parse_product(self) -> Node:
        first = self.parse_unary()
        if self.peek() not in ("*", "/"):
            return first
        rest: list[tuple[str, Node, int]] = []
        while (char := self.peek()) in ("*", "/"):
            operator_position = self.pos
            self.pos += 1
            operand = self.parse_unary()
            if char == "/" and isinstance(operand, Number) and operand.value == 0:
                self.fail("division by zero", operator_position)
            rest.append((char, operand, operator_position))
        if isinstance(first, Number) and all(isinstance(operand, Number) for _, operand, _ in rest):
            value = first.value
            for operator, operand, _ in rest:
                value = value * operand.value if operator == "*" else value // operand.value  # type: ignore[union-attr]
            return Number(value)
        return Product(first, tuple(rest))

    def parse_unary(self) -> Node:
        char = self.peek()
        if char != "-" and char != "+":
            return self.parse_dice_or_atom()
        self.enter()
        self.pos += 1
        operand = self.parse_unary()
        self.depth -= 1
        if char == "+":
            return operand
        if isinstance(operand, Number):
            return Number(-operand.value)
        return Negation(operand)

    def parse_dice_or_atom(self) -> Node:
        start = self.pos
        if self.peek() == "D":
            return self.parse_dice(None, start)
        atom = self.parse_atom()
        if self.peek() != "D":
            return atom
        if not isinstance(atom, Number):
            self.fail("the number of dice must be a fixed number, not a roll", start)
        return self.parse_dice(atom.value, start)

    def parse_dice(self, count: int | None, count_position: int) -> Node:
        d_position = self.pos
        self.pos += 1
        text = self.text
        if (
            count is None
            and text.startswith("66", self.pos)
            and (self.pos + 2 >= self.length or text[self.pos + 2] not in _DIGITS)
        ):
            self.pos += 2
            self.add_dice(2, d_position)
            return D66Term(d_position)
        sides_position = self.pos
        if self.peek() in _DIGITS or self.peek() == "(":
            sides = self.parse_fixed_operand("the number of sides")
        elif count is None:
            self.fail("a bare D needs sides, e.g. D6 or 1D6", d_position)
        else:
            sides = DEFAULT_SIDES
            sides_position = d_position
        if count is None:
            count = 1
            count_position = d_position
        self.check_dice(count, count_position, sides, sides_position)
        keep, keep_count = self.parse_keep(count)
        return DiceTerm(count, sides, keep, keep_count, count_position)

    def parse_keep(self, count: int) -> tuple[str | None, int | None]:
        if self.peek() != "K":
            return None, None
        keep_position = self.pos
        self.pos += 1
        mode = self.peek()
        if mode != "H" and mode != "L":
            self.fail("expected KH (keep highest) or KL (keep lowest)")
        self.pos += 1
        keep_count = 1
        if self.peek() in _DIGITS or self.peek() == "(":
            keep_position = self.pos
            keep_count = self.parse_fixed_operand("the number of dice to keep")
        if keep_count < 1:
            self.fail(f"keep at least one die, not {keep_count}", keep_position)
        if keep_count > count:
            self.fail(f"cannot keep {keep_count} of {count} dice", keep_position)
        return "K" + mode, keep_count

    def parse_fixed_operand(self, what: str) -> int:
        start = self.pos
        if self.peek() in _DIGITS:
            return self.parse_integer()
        if self.peek() != "(":
            self.fail_here()
        node = self.parse_atom()
        if not isinstance(node, Number):
            self.fail(f"{what} must be a fixed number, not a roll", start)
        return node.value

    def parse_atom(self) -> Node:
        char = self.peek()
        if char in _DIGITS and char:
            return Number(self.parse_integer())
        if char != "(":
            self.fail_here()
        self.enter()
        self.pos += 1
        inner = self.parse_sum()
        if self.peek() != ")":
            if self.pos >= self.length:
                self.fail("missing ')'")
            self.fail_here()
        self.pos += 1
        self.depth -= 1
        return inner


def _success_roll_modifier(expression: Node) -> int | None:
    """The modifier k of `3D6+k`, or None when the left side is any other shape."""
    if isinstance(expression, DiceTerm):
        dice, modifier = expression, 0
    elif isinstance(expression, Sum):
        dice = None
        modifier = 0
        for sign, term in expression.terms:
            if isinstance(term, Number):
                modifier += sign * term.value
            elif isinstance(term, DiceTerm) and sign == 1 and dice is None:
                dice = term
            else:
                return None
        if dice is None:
            return None
    else:
        return None
    if dice.count != 3 or dice.sides != 6 or dice.keep is not None:
        return None
    return modifier


_OPERATOR_START = frozenset("<>=!+-*/≦≤≧≥≠×÷−＜＞＝！＋－＊／")
_EXPRESSION_CHARS = frozenset("0123456789DKHLB+-*/()<>=!")


def spaced_expression_hint(text: str) -> str | None:
    """`3D6 <= 12`: chat bots read everything after the first space as a comment, so this
    would roll a bare 3D6 with the comment "<= 12". Return the spelling meant (`3D6<=12`)
    when the comment starts with an operator or the expression ends with one, else None.
    """
    located = LocatedExpression(text)
    expression, comment = located.expression, located.comment
    if not expression or comment is None:
        return None
    if comment[0] not in _OPERATOR_START and expression[-1] not in _OPERATOR_START:
        return None
    glued = expression
    for word in comment.split():
        if not all(char in _EXPRESSION_CHARS for char in _normalize_segment(word)):
            break
        glued += word
    return glued

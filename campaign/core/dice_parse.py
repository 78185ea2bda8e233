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

import unicodedata

from campaign.core.dice_grammar import parse_normalized
from campaign.core.dice_tree import (
    COMPARISONS,
    DEFAULT_SIDES,
    DIGITS,
    MAX_DICE_PER_TERM,
    MAX_EXPRESSION_LENGTH,
    MAX_NESTING,
    MAX_REPEAT,
    MAX_SIDES,
    MAX_TOTAL_DICE,
    REPEAT_WORDS,
    ArithmeticRoll,
    BarabaraRoll,
    BarabaraTerm,
    D66Term,
    DiceTerm,
    ExpressionProblem,
    Negation,
    Node,
    Number,
    ParsedExpression,
    Product,
    Sum,
)
from campaign.errors import DiceError

# The tree (core.dice_tree) and the grammar (core.dice_grammar) are re-exported: callers
# import everything about reading an expression from here.
__all__ = [
    "COMPARISONS",
    "DEFAULT_SIDES",
    "MAX_DICE_PER_TERM",
    "MAX_EXPRESSION_LENGTH",
    "MAX_NESTING",
    "MAX_REPEAT",
    "MAX_SIDES",
    "MAX_TOTAL_DICE",
    "ArithmeticRoll",
    "BarabaraRoll",
    "BarabaraTerm",
    "D66Term",
    "DiceTerm",
    "ExpressionProblem",
    "LocatedExpression",
    "Negation",
    "Node",
    "Number",
    "ParsedExpression",
    "Product",
    "Sum",
    "normalize_expression",
    "parse",
    "parse_normalized",
    "spaced_expression_hint",
    "split_comment",
]

# Symbols Japanese IMEs produce that NFKC leaves alone but every player means as ASCII.
_SYMBOL_SPELLINGS = str.maketrans({"≦": "<=", "≤": "<=", "≧": ">=", "≥": ">=", "≠": "!=", "×": "*", "÷": "/", "−": "-"})


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
    for word in REPEAT_WORDS:
        if normalized.startswith(word):
            count = normalized[len(word) :]
            return bool(count) and all(char in DIGITS for char in count)
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
        params = dict(problem.params)
        if problem.names_character:
            end = column
            if problem.names_word:  # the whole word typed there, e.g. 'abc' of 3D6<=abc
                while end < len(self.text) and not self.text[end].isspace() and self.text[end].isalnum():
                    end += 1
            params["typed"] = self.text[column - 1 : end]
        return DiceError(problem.message, column=column, **params)


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

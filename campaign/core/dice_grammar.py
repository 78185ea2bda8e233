"""The dice expression grammar: normalised text in, a checked tree (core.dice_tree) out.

A hand-written recursive-descent parser. Positions are 0-based offsets into the
*normalised* text (core.dice_parse maps them back to the columns the user typed).
The result is cached on the normalised text, since players repeat the same few
expressions all night.
"""

from __future__ import annotations

import functools
import re
from typing import NoReturn

from campaign.core.dice_tree import (
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
from campaign.errors import N_


@functools.lru_cache(maxsize=1024)
def parse_normalized(text: str) -> ParsedExpression:
    """Cached on the normalised text: players repeat the same few expressions all night."""
    return ExpressionParser(text).parse_expression()


class ExpressionParser:
    __slots__ = ("text", "length", "pos", "depth", "repeat", "dice_count")

    def __init__(self, text: str):
        self.text = text
        self.length = len(text)
        self.pos = 0
        self.depth = 0
        self.repeat = 1
        self.dice_count = 0

    def fail(self, message: str, position: int | None = None, **params: object) -> NoReturn:
        """`message` is an English template (N_) with `params` by name: translated where shown."""
        raise ExpressionProblem(message, self.pos if position is None else position, params=params)

    def fail_here(self) -> NoReturn:
        if self.pos >= self.length:
            self.fail(N_("unexpected end of expression"))
        raise ExpressionProblem(N_("unexpected character {typed!r}"), self.pos, names_character=True)

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < self.length else ""

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            self.fail(N_("nested more than {limit} levels deep"), limit=MAX_NESTING)

    def parse_expression(self) -> ParsedExpression:
        if not self.length:
            self.fail(N_("empty dice expression"), 0)
        if self.length > MAX_EXPRESSION_LENGTH:
            self.fail(
                N_("expression longer than {limit} characters"), MAX_EXPRESSION_LENGTH, limit=MAX_EXPRESSION_LENGTH
            )
        repeat = self.parse_repeat_prefix()
        body_start = self.pos
        roll: ArithmeticRoll | BarabaraRoll
        # Only the left side decides: `3D6<=ABC` is a bad target, not a barabara roll.
        left = self.text[body_start:]
        for index, char in enumerate(left):
            if char in "<>=!":
                left = left[:index]
                break
        roll = self.parse_barabara() if "B" in left else self.parse_arithmetic_roll()
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
        for word in REPEAT_WORDS:
            if text.startswith(word) and self.length > len(word) and text[len(word)] in DIGITS:
                break
        else:
            return None
        self.pos = digits_start = len(word)
        repeat = self.parse_integer()
        if not 1 <= repeat <= MAX_REPEAT:
            self.fail(
                N_("repeat count must be 1..{limit}, not {repeat}"), digits_start, limit=MAX_REPEAT, repeat=repeat
            )
        if self.pos >= self.length:
            self.fail(N_("expected a roll after {prefix}"), prefix=text[: self.pos])
        if text[self.pos] != " ":
            self.fail(N_("expected a space after {prefix}"), prefix=text[: self.pos])
        self.pos += 1
        self.repeat = repeat
        return repeat

    def parse_integer(self) -> int:
        start = self.pos
        while self.pos < self.length and self.text[self.pos] in DIGITS:
            self.pos += 1
        return int(self.text[start : self.pos])

    def add_dice(self, count: int, position: int) -> None:
        self.dice_count += count
        if self.dice_count * self.repeat > MAX_TOTAL_DICE:
            self.fail(N_("more than {limit} dice in one expression"), position, limit=MAX_TOTAL_DICE)

    def check_dice(self, count: int, count_position: int, sides: int, sides_position: int) -> None:
        if count < 1:
            self.fail(N_("roll at least one die, not {count}"), count_position, count=count)
        if count > MAX_DICE_PER_TERM:
            self.fail(
                N_("at most {limit} dice in one term, not {count}"),
                count_position,
                limit=MAX_DICE_PER_TERM,
                count=count,
            )
        if sides < 1:
            self.fail(N_("a die needs at least one side, not {sides}"), sides_position, sides=sides)
        if sides > MAX_SIDES:
            self.fail(
                N_("a die may have at most {limit} sides, not {sides}"), sides_position, limit=MAX_SIDES, sides=sides
            )
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
        elif char == "=":  # BCDice also takes `=<` and `=>`
            operator, width = {"<": ("<=", 2), ">": (">=", 2)}.get(following, ("=", 1))
        elif char == "!":
            if following != "=":
                self.pos += 1
                self.fail(N_("expected '=' after '!'"))
            operator, width = "!=", 2
        else:
            return None
        self.pos += width
        return operator

    def parse_target(self) -> int:
        start = self.pos
        if self.peek().isalpha():
            raise ExpressionProblem(
                N_("the target must be a number, as in 3D6<=12, not {typed!r}"), self.pos, names_word=True
            )
        target = self.parse_sum()
        if not isinstance(target, Number):
            self.fail(N_("the target must be a fixed number, not a roll"), start)
        return target.value

    def parse_arithmetic_roll(self) -> ArithmeticRoll:
        start = self.pos
        expression = self.parse_sum()
        if isinstance(expression, Number):
            if self.pos < self.length and self.peek() not in "<>=!":
                self.fail_here()
            self.fail(N_("the expression rolls no dice"), start)
        comparison = self.parse_comparison()
        target = self.parse_target() if comparison else None
        modifier = success_roll_modifier(expression) if comparison == "<=" else None
        return ArithmeticRoll(expression, comparison, target, modifier)

    def parse_barabara(self) -> BarabaraRoll:
        terms: list[BarabaraTerm] = []
        while True:
            start = self.pos
            if self.peek() not in DIGITS and self.peek() != "(":
                self.fail_here()
            count = self.parse_fixed_operand(N_("the number of dice must be a fixed number, not a roll"))
            if self.peek() != "B":
                if self.pos >= self.length:
                    self.fail_here()
                self.fail(N_("expected B: a barabara roll (nBm) cannot be mixed with other terms"))
            self.pos += 1
            sides_start = self.pos
            sides = DEFAULT_SIDES
            if self.peek() in DIGITS or self.peek() == "(":
                sides = self.parse_fixed_operand(N_("the number of sides must be a fixed number, not a roll"))
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
        numbers = [(sign, term) for sign, term in terms if isinstance(term, Number)]
        if len(numbers) == len(terms):
            return Number(sum(sign * term.value for sign, term in numbers))
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
                self.fail(N_("division by zero"), operator_position)
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
            self.fail(N_("the number of dice must be a fixed number, not a roll"), start)
        return self.parse_dice(atom.value, start)

    def parse_dice(self, count: int | None, count_position: int) -> Node:
        d_position = self.pos
        self.pos += 1
        text = self.text
        if (
            count is None
            and text.startswith("66", self.pos)
            and (self.pos + 2 >= self.length or text[self.pos + 2] not in DIGITS)
        ):
            self.pos += 2
            self.add_dice(2, d_position)
            return D66Term(d_position)
        sides_position = self.pos
        if self.peek() in DIGITS or self.peek() == "(":
            sides = self.parse_fixed_operand(N_("the number of sides must be a fixed number, not a roll"))
        elif count is None:
            self.fail(N_("a bare D needs sides, e.g. D6 or 1D6"), d_position)
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
            self.fail(N_("expected KH (keep highest) or KL (keep lowest)"))
        self.pos += 1
        keep_count = 1
        if self.peek() in DIGITS or self.peek() == "(":
            keep_position = self.pos
            keep_count = self.parse_fixed_operand(N_("the number of dice to keep must be a fixed number, not a roll"))
        if keep_count < 1:
            self.fail(N_("keep at least one die, not {count}"), keep_position, count=keep_count)
        if keep_count > count:
            self.fail(N_("cannot keep {keep} of {count} dice"), keep_position, keep=keep_count, count=count)
        return "K" + mode, keep_count

    def parse_fixed_operand(self, refusal: str) -> int:
        """An integer, or a parenthesised one; `refusal` (an N_ template) when it rolls dice."""
        start = self.pos
        if self.peek() in DIGITS:
            return self.parse_integer()
        if self.peek() != "(":
            self.fail_here()
        node = self.parse_atom()
        if not isinstance(node, Number):
            self.fail(refusal, start)
        return node.value

    def parse_atom(self) -> Node:
        char = self.peek()
        if char in DIGITS and char:
            return Number(self.parse_integer())
        if char != "(":
            self.fail_here()
        self.enter()
        self.pos += 1
        inner = self.parse_sum()
        if self.peek() != ")":
            if self.pos >= self.length:
                self.fail(N_("missing ')'"))
            self.fail_here()
        self.pos += 1
        self.depth -= 1
        return inner


def success_roll_modifier(expression: Node) -> int | None:
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
    if dice is None or dice.count != 3 or dice.sides != 6 or dice.keep is not None:
        return None
    return modifier


# BCDice GURPS's target-first success roll: `12-3D6` is `3D6<=12`, `12-3D6+1` is
# `3D6+1<=12`; the target may be a sum (`10+2-3D6`, `17-1-3D6`), `3D` means `3D6`, and
# a sign before the target or after the modifier changes nothing (`+12-3D6+`).
_TARGET_FIRST = re.compile(r"([+-]?\d+(?:[+-]\d+)*)-3D6?((?:[+-]\d+)*)[+-]?")
_SIGNED = re.compile(r"[+-]?\d+")


def target_first(text: str) -> str | None:
    """The `3D6[+k]<=T` spelling of a normalised `T-3D6[+k]`, or None for any other text.

    Only a GURPS campaign reads it so (docs/rules.md, "Success roll"); elsewhere `12-3D6`
    stays arithmetic. The parts are digits joined by + and -, so the rewritten text
    always parses.
    """
    match = _TARGET_FIRST.fullmatch(text)
    if match is None:
        return None
    target = sum(int(term) for term in _SIGNED.findall(match.group(1)))
    modifier = sum(int(term) for term in _SIGNED.findall(match.group(2)))
    return f"3D6{modifier:+d}<={target}" if modifier else f"3D6<={target}"


def fold_constant(text: str) -> int | None:
    """The value of a dice-free expression (`(9+1)`, `12+2`), as a comparison's target
    is folded; None when `text` is not one."""
    parser = ExpressionParser(text)
    try:
        node = parser.parse_sum()
    except ExpressionProblem:
        return None
    return node.value if isinstance(node, Number) and parser.pos == parser.length else None

"""What one chat message says about dice, as BCDice wrote it in ココフォリア's chat.

ココフォリア shows the command as typed, then BCDice's answer, parts separated by " ＞ ":

    3d6<=12 回避 (3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)       GURPS success roll
    2d6+3 (2D6+3) ＞ 7[3,4]+3 ＞ 10                                  plain sum
    2D6>=7 (2D6>=7) ＞ 9[4,5] ＞ 9 ＞ 成功                            comparison
    1d100 (1D100) ＞ 42                                              one die: no brackets
    FEAR+5 恐怖表(23)：...                                           a table: its result, no dice

`classify` sorts a message into roll / table / secret / other_system / unreadable /
chat. Only rolls and tables this ruleset knows are read: the expression in brackets
must parse with our own dice grammar (core.dice_parse), and the faces, replayed through
our own dice engine, must give the total the log shows; anything else that looks like
a dice bot's answer (CCB<=50, K20, REACT ...) is another system's. Full-width forms
(＜＝, ０-９, （）) are folded with NFKC, part by part, after splitting on the
separator, so a full-width "＞" inside an expression is never taken for one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from campaign.core.dice import roll_parsed
from campaign.core.dice_parse import ArithmeticRoll, DiceTerm, parse
from campaign.core.dice_source import ManualDice
from campaign.core.table_model import Table
from campaign.core.table_roll import table_for_command
from campaign.errors import CampaignError

SECRET_MARKS = ("secret dice", "シークレットダイス")
_SEPARATOR = re.compile(r"\s+[＞>]\s+")
_FACES = re.compile(r"\[([0-9,\s]+)\]")
_INTEGER = re.compile(r"^-?[0-9]+$")
_DEGREE = re.compile(r"^(.*?)\s*\((?:成功度|失敗度)\s*:\s*(-?[0-9]+)\)\s*$")
_TABLE_RESULT = re.compile(r"(\S*?表)\s*[(（]\s*([0-9０-９]+)\s*[)）]")
_COMMAND_LIKE = re.compile(r"^[A-Z0-9][A-Z0-9+\-*/()<>=!?@#.,\[\]:$]*$")

OUTCOME_WORDS = {
    "成功": "success",
    "自動成功": "success",
    "失敗": "failure",
    "自動失敗": "failure",
    "クリティカル": "critical_success",
    "決定的成功": "critical_success",
    "大成功": "critical_success",
    "ファンブル": "critical_failure",
    "致命的失敗": "critical_failure",
    "大失敗": "critical_failure",
}
# BCDice's GURPS table names, beside the names of our own seed tables.
BCDICE_TABLE_NAMES = {
    "クリティカル表": "CRT",
    "ファンブル表": "FMB",
    "頭部打撃クリティカル表": "HCRT",
    "妖魔夜行スペシャルクリティカル表": "YSCRT",
    "妖魔夜行スペシャルファンブル表": "YSFMB",
    "妖術ファンブル表": "YFMB",
    "恐怖表": "FEAR",
}


@dataclass(frozen=True, slots=True)
class RollLine:
    expression: str  # as BCDice normalised it, e.g. "3D6<=12"
    faces: tuple[int, ...] | None  # None when the log does not show them
    total: int
    comparison: str | None
    target: int | None
    outcome: str | None  # success / failure / critical_success / critical_failure
    outcome_text: str | None  # the log's word, e.g. "成功(成功度:1)"
    margin: int | None
    command: str | None  # the echo of what was typed
    comment: str | None
    rules_outcome: str | None  # our own judgement of the same faces (R1 for 3D6<=N)


@dataclass(frozen=True, slots=True)
class TableLine:
    command: str  # our seed command, e.g. "FEAR"
    modifier: int
    result: int  # the number the log shows, after the modifier
    name: str  # the table's name as the log shows it
    comment: str | None


@dataclass(frozen=True, slots=True)
class Classified:
    kind: str  # roll | table | secret | other_system | unreadable | chat
    line: RollLine | TableLine | None = None
    why: str | None = None  # for other_system / unreadable


CHAT = Classified("chat")


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip()


def _command_like(word: str) -> bool:
    return bool(word) and bool(_COMMAND_LIKE.match(_nfkc(word).upper()))


def _parses(word: str) -> bool:
    try:
        parse(_nfkc(word))
    except CampaignError:
        return False
    return True


def _trailing_group(head: str) -> tuple[str, str] | None:
    """Split `3d6<=12 回避 (3D6<=12)` into the text before and the bracketed expression,
    whose own brackets may nest: `((2D6+1D4)*2)`."""
    head = head.rstrip()
    if not head or head[-1] not in ")）":
        return None
    depth = 0
    for position in range(len(head) - 1, -1, -1):
        char = head[position]
        if char in ")）":
            depth += 1
        elif char in "(（":
            depth -= 1
            if depth == 0:
                return head[:position].strip(), head[position + 1:-1].strip()
    return None


def _echo(before: str) -> tuple[str | None, str | None]:
    words = before.split(None, 1)
    if not words:
        return None, None
    return words[0], (words[1].strip() if len(words) > 1 else None) or None


def _table(text: str, tables: Mapping[str, Table]) -> Classified | None:
    first = text.split(None, 1)[0]
    found = table_for_command(_nfkc(first), tables)
    result = _TABLE_RESULT.search(text)
    if found is None:
        if result is None:
            return None
        name = result.group(1)
        command = BCDICE_TABLE_NAMES.get(name) or next(
            (t.command for t in tables.values() if t.name == name), None)
        if command is None or command not in tables or not text.startswith(name):
            return Classified("other_system", why=f"table {name}") if _command_like(first) or \
                text.startswith(name) else None
        table, modifier, comment = tables[command], 0, None
    else:
        if result is None:
            return None  # the bot did not answer: a table command typed as chat
        (table, modifier), comment = found, text[len(first):result.start()].strip() or None
        name = result.group(1)
    return Classified("table", TableLine(command=table.command, modifier=modifier,
                                         result=int(_nfkc(result.group(2))), name=name, comment=comment))


def _outcome(word: str) -> tuple[str | None, int | None] | None:
    """The outcome and the log's own margin (成功度/失敗度), or None for a word this
    ruleset does not use (スペシャル, レギュラー成功 ...)."""
    margin = None
    degree = _DEGREE.match(word)
    if degree:
        word, margin = degree.group(1).strip(), int(degree.group(2))
    outcome = OUTCOME_WORDS.get(word)
    return None if outcome is None else (outcome, margin)


def _faces(display: list[str], parsed, total: int) -> tuple[int, ...] | None:
    faces = [int(face) for group in _FACES.findall(" ".join(display))
             for face in group.replace(" ", "").split(",") if face]
    if faces:
        return tuple(faces)
    spec = parsed.roll
    if not display and isinstance(spec.expression, DiceTerm) and spec.expression.count == 1:
        return (total,)  # BCDice writes a lone die as its total alone
    return None


def _roll(text: str, gurps: bool) -> Classified:
    first_line = text.split("\n", 1)[0]
    parts = _SEPARATOR.split(first_line)
    if len(parts) < 2:
        return CHAT
    group = _trailing_group(parts[0])
    command_word = first_line.split(None, 1)[0]
    if group is None:
        return Classified("other_system", why="no bracketed expression") if _command_like(command_word) else CHAT
    before, inner = group
    command, comment = _echo(before)
    if command is not None and _nfkc(command).upper().startswith("S") and _parses(_nfkc(command)[1:]):
        return Classified("secret")
    expression = _nfkc(inner).upper()
    if not _parses(expression) or (command is not None and not _parses(command)):
        # BCDice echoes a command it ran in the brackets (`choice[a,b] (choice[a,b])`).
        echoed = command is not None and _nfkc(command).upper() == expression
        looks = echoed or _command_like(expression) or (command is not None and _command_like(command))
        return Classified("other_system", why=f"not a dice expression of this ruleset: {expression}") if looks \
            else CHAT
    parsed = parse(expression)
    spec = parsed.roll
    if parsed.repeat is not None or not isinstance(spec, ArithmeticRoll):
        return Classified("other_system", why=f"unsupported shape: {expression}")
    rest = [_nfkc(part) for part in parts[1:]]
    outcome_text = outcome = margin = None
    if not _INTEGER.match(rest[-1]):
        outcome_text = rest.pop()
        judged = _outcome(outcome_text)
        if judged is None:
            return Classified("other_system", why=f"outcome {outcome_text!r}")
        outcome, margin = judged
        if not rest or spec.comparison is None:
            return Classified("unreadable", why="an outcome without a comparison")
    if not _INTEGER.match(rest[-1]):
        return Classified("unreadable", why=f"total {rest[-1]!r} is not a number")
    total = int(rest.pop())
    faces = _faces(rest, parsed, total)
    rules_outcome = None
    if faces is not None:
        if len(faces) != parsed.dice_count:
            return Classified("unreadable", why=f"{len(faces)} faces for {parsed.dice_count} dice")
        try:
            replay = roll_parsed(parsed, ManualDice(list(faces)), gurps=gurps)
        except CampaignError as exc:
            return Classified("unreadable", why=str(exc))
        if replay.total != total:
            return Classified("unreadable", why=f"faces {list(faces)} do not make {total}")
        rules_outcome = replay.outcome
    if spec.comparison is not None and outcome is None:
        return Classified("unreadable", why="a comparison without an outcome")
    if margin is None and spec.comparison is not None:
        margin = spec.target - total if spec.comparison in ("<=", "<") else \
            total - spec.target if spec.comparison in (">=", ">") else None
    return Classified("roll", RollLine(
        expression=parsed.text, faces=faces, total=total, comparison=spec.comparison, target=spec.target,
        outcome=outcome, outcome_text=outcome_text, margin=margin, command=command, comment=comment,
        rules_outcome=rules_outcome,
    ))


def classify(text: str, tables: Mapping[str, Table], *, gurps: bool = False) -> Classified:
    """Sort one message's text; never raises on odd input."""
    text = text.strip()
    if not text:
        return CHAT
    folded = text.casefold()
    if any(mark in folded for mark in SECRET_MARKS):
        return Classified("secret")
    if "表" not in text and "＞" not in text and ">" not in text:
        return CHAT  # most of a log is talk: no bot answer without one of these
    table = _table(text, tables)
    if table is not None:
        return table
    return _roll(text, gurps)

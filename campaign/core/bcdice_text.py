"""What BCDice would answer: the `text` and flags of a BCDice-API roll, from our record.

Dice bots print BCDice-API's `text` verbatim, so for success rolls and plain dice the
text here is BCDice 3.x's, character for character (`(3D6<=12) ＞ 10[2,3,5] ＞ 10 ＞
成功(成功度：2)`); tests/web/test_bcdice_parity.py holds it to answers of the `bcdice`
npm package for the same dice. Everything is computed from what the ledger recorded
(the expression, the faces, the total, the outcome the campaign's rules gave): the
words follow our judgement, never a second one made here. Table rolls keep BCDice's
frame (`クリティカル表(13) ＞ `, the same entry number for the same dice) and then say
the seed entry in the project's own summary words: BCDice's and the books' table texts
are not ours to copy.

Pure: plain values in, a frozen dataclass out; the web layer (campaign.web.routes_bcdice)
does the I/O.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: The game systems we answer for: id -> (name, sort_key). DiceBot and GURPS are
#: BCDice's own ids and names (clients match them); Campaign2D6 is ours, for the
#: campaign's 2d6 homebrew (心/技/体 checks), which BCDice does not know.
GAME_SYSTEMS: dict[str, tuple[str, str]] = {
    "DiceBot": ("DiceBot", "*たいすほつと"),
    "GURPS": ("ガープス", "かあふす"),
    "Campaign2D6": ("2d6ハウスルール（campaign）", "にていいろくはうするうる"),
}

#: BCDice's names of the GURPS tables, for the frame `名前(出目) ＞ `. Only the names:
#: the entries' texts are the seeds' own summaries.
TABLE_NAMES: dict[str, str] = {
    "CRT": "クリティカル表",
    "FMB": "ファンブル表",
    "HCRT": "頭部打撃クリティカル表",
    "YSCRT": "妖魔夜行スペシャルクリティカル表",
    "YSFMB": "妖魔夜行スペシャルファンブル表",
    "YFMB": "妖術ファンブル表",
    "FEAR": "恐怖表",
    "HIT": "命中部位表",
    "REACT": "反応表",
    "GFMB": "銃器ファンブル表",
}

# Dice commands: sums of NdM and numbers, optionally compared with a number. The
# engine accepts more (keep-high, barabara, repeats); those are rolled and recorded
# the same, and their text is ours (`(EXPR) ＞ total`), since BCDice's differs by shape.
_DICE = r"\d*D\d+"
_TERM = rf"(?:{_DICE}|\d+)"
_COMPARE = r"(?:<=|>=|<>|=<|=>|<|>|=)"
_SIMPLE = re.compile(rf"^(?P<sum>{_TERM}(?:[+-]{_TERM})*)(?:(?P<op>{_COMPARE})(?P<target>-?\d+))?$")
_SUCCESS_WORDS = {
    "critical_success": "クリティカル",
    "success": "成功",
    "failure": "失敗",
    "critical_failure": "ファンブル",
}
_TARGET_FIRST = re.compile(r"^(\d{1,3})-3D6$")  # BCDice's `12-3D6` = `3D6<=12`

# What a client's chat line must look like to be sent to us (BCDice-API's
# command_pattern, used case-insensitively): optional repeat or secret prefix, then a
# dice expression or one of the table commands. Ordinary chat ("こんにちは", "3 people",
# "D&D") does not match: a command starts with a die, a number followed by D or by
# `-3D6`, or a table name as a whole word.
_PATTERN_DICE = r"\d*D\d+[\d+\-*/()D<>=!HLKRUBS?]*"
_PATTERN_TARGET = r"\d{1,3}-3D6"


def command_pattern(system: str, tables: Sequence[str] = ()) -> str:
    """The regular expression of the commands `system` takes, as BCDice-API gives it."""
    alternatives = [_PATTERN_DICE]
    if system == "GURPS":
        alternatives.append(_PATTERN_TARGET)
        names = sorted({*tables}, key=lambda name: (-len(name), name))
        if names:
            alternatives.append(rf"(?:{'|'.join(names)})(?:[+-]\d+)?(?=\s|$)")
    return rf"^(S)?(?:{'|'.join(alternatives)})"


def prepared(system: str, command: str) -> tuple[bool, str, str | None]:
    """(secret, the command as the ledger's engine takes it, the trailing words):
    BCDice's `S` prefix; GURPS's `12-3D6` (effective skill first), which BCDice itself
    reads as `3D6<=12`; and everything after the first space, which BCDice ignores and
    we record as the roll's reason (`3D6<=12 回避`)."""
    text = unicodedata.normalize("NFKC", command).strip()
    secret = len(text) > 1 and text[0] in "Ss" and (text[1].isdigit() or text[1] in "Dd(")
    if secret:
        text = text[1:]
    head, _, rest = text.partition(" ")
    if system == "GURPS":
        target_first = _TARGET_FIRST.match(head.upper())
        if target_first:
            head = f"3D6<={target_first.group(1)}"
    return secret, ("S" if secret else "") + head, rest.strip() or None


@dataclass(frozen=True, slots=True)
class Answer:
    """The fields of a BCDice-API roll answer that depend on the dice."""

    text: str
    success: bool
    failure: bool
    critical: bool
    fumble: bool


def dice_answer(
    system: str,
    expression: str,
    faces: Sequence[int],
    total: int | None,
    target: int | None,
    outcome: str | None,
    margin: int | None,
) -> Answer:
    """A dice roll as BCDice answers it under `system`, from the recorded roll (the
    words and flags follow the outcome our rules recorded)."""
    expression = expression.upper()
    middle = _middle(expression, faces)
    parts = [f"({expression})"]
    if middle is not None and middle != str(total):
        parts.append(middle)
    if total is not None:
        parts.append(str(total))
    compared = target is not None and outcome is not None
    success = compared and outcome in ("success", "critical_success")
    failure = compared and not success
    critical = fumble = False
    if compared:
        if system == "GURPS":
            word = _SUCCESS_WORDS.get(outcome or "", "失敗")
            if outcome == "failure" and sum(faces[:3]) >= 17:
                word = "自動失敗"  # 17 or 18 fails whatever the skill (docs/rules.md "Success roll")
            label = "成功度" if success else "失敗度"
            parts.append(f"{word}({label}：{margin if margin is not None else 0})")
            critical, fumble = outcome == "critical_success", outcome == "critical_failure"
        else:
            special = {"critical_success": "大成功", "critical_failure": "大失敗"}.get(outcome or "")
            parts.append(special if system == "Campaign2D6" and special else ("成功" if success else "失敗"))
            if system == "Campaign2D6":
                critical, fumble = outcome == "critical_success", outcome == "critical_failure"
    return Answer(text=" ＞ ".join(parts), success=success, failure=failure, critical=critical, fumble=fumble)


def _middle(expression: str, faces: Sequence[int]) -> str | None:
    """`10[2,3,5]+1`: each die term's sum and faces, numbers as written; None when the
    expression is not a plain sum (its faces are not shown term by term)."""
    match = _SIMPLE.match(expression)
    if match is None:
        return None
    terms = re.findall(rf"[+-]?{_TERM}", match.group("sum"))
    shown, used, dice_terms = [], 0, 0
    for term in terms:
        sign, body = (term[0], term[1:]) if term[0] in "+-" else ("", term)
        if "D" in body:
            count = int(body.split("D")[0] or 1)
            rolled = list(faces[used : used + count])
            used += count
            dice_terms += 1
            shown.append(f"{sign}{sum(rolled)}[{','.join(map(str, rolled))}]")
        else:
            shown.append(f"{sign}{body}")
    if used != len(faces):
        return None
    if dice_terms == 1 and len(terms) == 1 and used == 1:
        return None  # BCDice shows a single die without a bracket: `(1D20) ＞ 4`
    return "".join(shown)


def table_answer(command: str, raw: int, summary: str, sub_rolls: Sequence[tuple[str, int, str]] = ()) -> str:
    """`クリティカル表(13) ＞ <our summary>`; the extra rolls an entry called for follow,
    each in the same frame, so a bot's line shows every roll the ledger holds."""
    pieces = [f"{_table_name(command)}({raw}) ＞ {summary}"]
    pieces += [f"{_table_name(sub)}({sub_raw}) ＞ {sub_summary}" for sub, sub_raw, sub_summary in sub_rolls]
    return " ／ ".join(pieces)


def _table_name(command: str) -> str:
    return TABLE_NAMES.get(command.upper(), f"{command.upper()}表")


def original_table_answer(title: str, value: int, faces: Sequence[int], words: str) -> str:
    """An original table's line as BCDice gives it: `title(value) ＞ words` (D66: the
    two faces read as tens and ones, `T(52)`)."""
    return f"{title}({value}) ＞ {words}"


def rands(groups: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """BCDice-API's `rands` from (sides, faces) groups: one {"kind","sides","value"} a die."""
    return [
        {"kind": "normal", "sides": int(group["sides"]), "value": int(face)}
        for group in groups
        for face in group["faces"]
    ]

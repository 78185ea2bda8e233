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

import operator
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
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
    "MFMB": "呪文ファンブル表",
    "HCRT": "頭部打撃クリティカル表",
    "YSCRT": "妖魔夜行スペシャルクリティカル表",
    "YSFMB": "妖魔夜行スペシャルファンブル表",
    "YFMB": "妖術ファンブル表",
    "FEAR": "恐怖表",
    "HIT": "命中部位表",
    "REACT": "反応表",
    "GFMB": "銃器ファンブル表",
}

# What a client's chat line must look like to be sent to us (BCDice-API's
# command_pattern, used case-insensitively): optional secret and repeat prefixes, then
# a dice expression or one of the table commands. Ordinary chat ("こんにちは", "3 people",
# "D&D") does not match: a command starts with a die, a number followed by D or B, a
# target-first success roll (`12+2-3D`), or a table name as a whole word.
_PATTERN_REPEAT = r"(?:(?:X|REPEAT|REP)\d+\s+S?)?"
_PATTERN_DICE = r"[-(\d]*D\d+[\d+\-*/()D<>=!HLKRUBS?]*|\d+B\d+"
_PATTERN_TARGET = r"[+\-]?[\d+\-]*\d-3D"


def command_pattern(system: str, tables: Sequence[str] = ()) -> str:
    """The regular expression of the commands `system` takes, as BCDice-API gives it."""
    alternatives = [_PATTERN_DICE]
    if system == "GURPS":
        alternatives.append(_PATTERN_TARGET)
        names = sorted({*tables}, key=lambda name: (-len(name), name))
        if names:
            alternatives.append(rf"(?:{'|'.join(names)})(?:[+-]\d+)?(?=\s|$)")
    return rf"^(S)?{_PATTERN_REPEAT}(?:{'|'.join(alternatives)})"


def prepared(system: str, command: str) -> tuple[bool, str, str | None]:
    """(secret, the command as the ledger's engine takes it, the trailing words):
    BCDice's `S` prefix; GURPS's target-first success roll (`12-3D6`, `17-1-3D`,
    `14-3D6-1`), which BCDice itself reads as `3D6[+k]<=T`; and everything after the
    first space, which BCDice ignores and we record as the roll's reason (`3D6<=12 回避`)."""
    from campaign.core.dice_grammar import target_first

    text = unicodedata.normalize("NFKC", command).strip()
    secret = len(text) > 1 and text[0] in "Ss" and (text[1].isdigit() or text[1] in "Dd(")
    if secret:
        text = text[1:]
    head, _, rest = text.partition(" ")
    if system == "GURPS":
        head = target_first(head.upper()) or head
    return secret, ("S" if secret else "") + head, rest.strip() or None


_REPEAT = re.compile(r"^(S?)(?:X|REPEAT|REP)(\d+)\s+(S(?=[\dD(]))?(\S.*)$", re.IGNORECASE)
# discord-bcdicebot's own shorthand, `3 3D6<=12`, which the bot sends as `repeat3 3D6<=12`.
_COUNT_FIRST = re.compile(r"^(\d+)\s+(S(?=[\dD(]))?(\S.*)$", re.IGNORECASE)
#: BCDice's own limit and refusal for a repeat count (its text, as clients show it).
REPEAT_LIMIT = 100
REPEAT_REFUSAL = "繰り返し回数は1以上、100以下としてください"


def repeat_of(command: str, *, count_first: bool = False) -> tuple[int, bool, str] | None:
    """`x3 3D6<=12` (also `rep3`, `repeat3`, a secret `S` before or after the prefix):
    (count, secret, the repeated command); None when `command` is no repeat. With
    `count_first`, also the dice bots' `3 3D6<=12`, which BCDice itself does not read:
    our own surfaces (the CLI, the shell, the table page) take it, the BCDice-API
    endpoint does not (docs/bcdice-compat.md). The one reader of a repeat for all of
    them; the count is not checked here (REPEAT_LIMIT): each surface refuses in its words."""
    text = unicodedata.normalize("NFKC", command).strip()
    match = _REPEAT.match(text)
    if match is not None:
        return int(match.group(2)), bool(match.group(1) or match.group(3)), match.group(4)
    match = _COUNT_FIRST.match(text) if count_first else None
    if match is not None:
        return int(match.group(1)), bool(match.group(2)), match.group(3)
    return None


def repeat_text(texts: Sequence[str]) -> str:
    """BCDice's layout of a repeat: `#1`, the first result, a blank line, `#2`, ..."""
    return "\n\n".join(f"#{index}\n{text}" for index, text in enumerate(texts, 1))


def system_of(ruleset: str) -> str:
    """The BCDice game system whose words match a campaign's own judgement of a roll."""
    return "GURPS" if ruleset == "gurps3-ja" else "Campaign2D6"


_COMPARE = re.compile(r"(<=|>=|=<|=>|<>|!=|<|>|=)")
_OPERATOR_SHOWN = {"=<": "<=", "=>": ">=", "!=": "<>"}
_DICE_TERM = re.compile(r"(?<![\dA-Z)])(\d*)D(\d+)(K[HL]\d*)?")
_BARE_DIE = re.compile(r"(?<![\d)])D(?!66(?!\d))(?=\d)")
_SIGNED = re.compile(r"[+-]?\d+")
_SUCCESS_WORDS = {
    "critical_success": "クリティカル",
    "success": "成功",
    "failure": "失敗",
    "critical_failure": "ファンブル",
}


def shown_expression(expression: str) -> str:
    """The expression as BCDice prints it: `D6` as `1D6`, `=<` as `<=`, an arithmetic
    target worked out (`3D6<=(9+1)` → `3D6<=10`)."""
    left, compare, target = _split(expression.upper())
    left = _BARE_DIE.sub("1D", left)
    if compare is None:
        return left
    return f"{left}{_OPERATOR_SHOWN.get(compare, compare)}{_target_value(target)}"


def _split(expression: str) -> tuple[str, str | None, str]:
    parts = _COMPARE.split(expression, maxsplit=1)
    if len(parts) == 1:
        return expression, None, ""
    return parts[0], parts[1], parts[2]


def _target_value(target: str) -> str:
    """A fixed target's value: sums and products of whole numbers in brackets, as the
    grammar accepts them (core.dice_grammar folds them the same way)."""
    from campaign.core.dice_grammar import fold_constant

    value = fold_constant(target)
    return target if value is None else str(value)


def dice_list(expression: str, faces: Sequence[int]) -> str | None:
    """`12[3,4,5]*2`: the left side with each die term replaced by its sum and faces,
    everything else as written; None when BCDice shows no list (one die alone, or
    faces that do not fit the expression)."""
    left = _split(expression.upper())[0]
    left = _BARE_DIE.sub("1D", left)
    remaining = list(faces)
    terms = short = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal terms, short
        terms += 1
        count_text, sides, keep = match.group(1), match.group(2), match.group(3)
        if not count_text and sides == "66":
            short += max(0, 2 - len(remaining))
            taken = remaining[:2]
            del remaining[:2]
            return "".join(map(str, taken))
        count = int(count_text or 1)
        short += max(0, count - len(remaining))
        taken = remaining[:count]
        del remaining[:count]
        kept = sorted(taken, reverse=keep is None or keep.startswith("KH"))
        if keep is not None:
            kept = kept[: int(keep[2:] or 1)]
        shown = taken if keep is None else sorted(taken)  # BCDice sorts a keep's faces
        return f"{sum(kept)}[{','.join(map(str, shown))}]"

    shown = _DICE_TERM.sub(replace, left)
    if remaining or short or terms == 0:
        return None
    lone = _DICE_TERM.fullmatch(left)
    if lone is not None and lone.group(3) is None and (int(lone.group(1) or 1) == 1 or lone.group(2) == "66"):
        return None  # BCDice shows one die alone without a list: `(1D20) ＞ 4`
    return shown


def _gurps_roll(expression: str, faces: Sequence[int]) -> bool:
    """BCDice's GURPS system words a roll its own way (成功度, 自動失敗...) only when it
    compares with `<=` and rolled exactly three six-sided dice, whatever the shape."""
    left, compare, _ = _split(expression.upper())
    if compare not in ("<=", "=<") or len(faces) != 3:
        return False
    terms = _DICE_TERM.findall(_BARE_DIE.sub("1D", left))
    return all(sides == "6" for _, sides, _ in terms) and sum(int(count or 1) for count, _, _ in terms) == 3


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
    if _BARABARA.match(expression):
        return _barabara_answer(expression, faces)
    parts = [f"({shown_expression(expression)})"]
    middle = dice_list(expression, faces)
    if middle is not None and middle != str(total):
        parts.append(middle)
    if total is not None:
        parts.append(str(total))
    compared = target is not None and outcome is not None
    success = compared and outcome in ("success", "critical_success")
    failure = compared and not success
    critical = fumble = False
    if compared:
        if system == "GURPS" and _gurps_roll(expression, faces):
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


_BARABARA = re.compile(r"^\d+B\d+(?:\+\d+B\d+)*(?:(<=|>=|<>|=<|=>|!=|<|>|=)-?\d+)?$")
_HOLDS: dict[str, Callable[[int, int], bool]] = {
    "<=": operator.le,
    ">=": operator.ge,
    "<": operator.lt,
    ">": operator.gt,
    "=": operator.eq,
    "<>": operator.ne,
}


def _barabara_answer(expression: str, faces: Sequence[int]) -> Answer:
    """`(3B6>=4) ＞ 3,4,5 ＞ 成功数2`: BCDice lists each die and counts the successes."""
    _, compare, target = _split(expression)
    parts = [f"({shown_expression(expression)})", ",".join(map(str, faces))]
    if compare is not None:
        holds = _HOLDS[_OPERATOR_SHOWN.get(compare, compare)]
        parts.append(f"成功数{sum(1 for face in faces if holds(face, int(target)))}")
    return Answer(text=" ＞ ".join(parts), success=False, failure=False, critical=False, fumble=False)


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


def entry_answer(system: str, view: Mapping[str, Any]) -> Answer:
    """A recorded entry (as `history show` has it: a dice roll, a seed table with its
    extra rolls, or a reference table) as BCDice answers it under `system`."""
    detail = view.get("detail") or {}
    if view["kind"] != "table":
        return dice_answer(
            system,
            view["expression"],
            view.get("dice") or [],
            view.get("total"),
            view.get("target"),
            view.get("outcome"),
            view.get("margin"),
        )
    shown = view.get("detail_shown") or {}
    subs = [
        (
            (sub.get("detail") or {}).get("table", ""),
            (sub.get("detail") or {}).get("raw", sub.get("total")),
            (sub.get("detail_shown") or {}).get("text_ja", ""),
        )
        for sub in view.get("sub_entries") or []
        if (sub.get("detail") or {}).get("table") and "text_roll" not in (sub.get("detail") or {})
    ]
    text = table_answer(
        detail.get("table", view["expression"]),
        detail.get("raw", view["total"]),
        shown.get("text_ja") or _reference_words(shown),
        subs,
    )
    return Answer(text=text, success=False, failure=False, critical=False, fumble=False)


def _reference_words(shown: Mapping[str, Any]) -> str:
    """A reference table's row (HIT: 命中部位) in the words `history show` gives it:
    the part, its modifier and what a hit there does."""
    row = shown.get("row") or {}
    cell = row.get("part", "")  # BCDice answers in Japanese; older records held "ja / en"
    part = cell["ja"] if isinstance(cell, dict) else str(cell).split(" / ")[0]
    return " ".join(str(piece) for piece in (part, row.get("mod", ""), row.get("effect", "")) if piece)


def rands(groups: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """BCDice-API's `rands` from (sides, faces) groups: one {"kind","sides","value"} a die."""
    return [
        {"kind": "normal", "sides": int(group["sides"]), "value": int(face)}
        for group in groups
        for face in group["faces"]
    ]

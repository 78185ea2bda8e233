"""What one chat message says about dice, as BCDice wrote it in ココフォリア's chat.

ココフォリア shows the command as typed, then BCDice's answer (on the same line in old
exports, on the next line or in a field of its own in newer ones), parts separated by " ＞ ":

    3d6<=12 回避 (3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)       GURPS success roll
    12-3d6 回避 (3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)        the same, typed T-3D6
    2d6+3 (2D6+3) ＞ 7[3,4]+3 ＞ 10                                  plain sum
    1d100 (1D100) ＞ 42                                              one die: no brackets
    x3 3d6<=12 回避  #1 (3D6<=12) ＞ ... #2 ... #3 ...               a repeat: N answers
    s3d6<=10 (3D6<=10) ＞ 9[1,4,4] ＞ 9 ＞ 成功(成功度：1)            a secret roll, revealed
    FEAR+5 恐怖表(23)：...                                           a table (bcdice_tables)

`read_message` sorts a message into the lines to record (kind "dice") or the reason it
is not recorded: secret (dice the log does not show), other_system, unreadable,
contradictory (bcdice_judge), chat; a reason is a `Why` (bcdice_why: a code and its
values, worded in the reader's language where import-log shows it). Only what this
ruleset knows is read: the bracketed expression must parse with our own dice grammar
(core.dice_parse), and the faces, replayed through our own dice engine, must give the
total the log shows. Full-width forms (＜＝, ０-９, （）) are folded with NFKC part by
part, after splitting on the separator, so a full-width "＞" inside an expression is
never taken for one; a spaced " ＞ " inside a typed comment is not taken for the answer,
which starts at the first `(EXPR) ＞`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from campaign.bridges.bcdice_judge import shown_sums_agree, value_range, word_agrees
from campaign.bridges.bcdice_tables import TableLine, read_table
from campaign.bridges.bcdice_why import Why, refused
from campaign.core.dice import roll_parsed
from campaign.core.dice_parse import ArithmeticRoll, DiceTerm, ParsedExpression, parse
from campaign.core.dice_source import ManualDice
from campaign.core.success import judge_success
from campaign.errors import N_, CampaignError

SECRET_MARKS = ("secret dice", "シークレットダイス")
_SEPARATOR = re.compile(r"\s+[＞>]\s+")
_FACES = re.compile(r"\[([0-9,\s]+)\]")
_INTEGER = re.compile(r"^-?[0-9]+$")
_DEGREE = re.compile(r"^(.*?)\s*\((?:成功度|失敗度)\s*:\s*(-?[0-9]+)\)\s*$")
_COMMAND_LIKE = re.compile(r"^[A-Z0-9][A-Z0-9+\-*/()<>=!?@#.,\[\]:$]*$")
_REPEAT = re.compile(r"^(S)?(?:X|REP|REPEAT)([0-9]+)$")
_REPEAT_MARK = re.compile(r"(?:^|\s)#([0-9]+)(?=\s|\(|$)")
_T3D6 = re.compile(r"^[0-9+\-]*[0-9]-3D6?([+\-][0-9]+)*$")
MAX_REPEAT = 100  # BCDice's own limit

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


@dataclass(frozen=True, slots=True)
class RollLine:
    expression: str  # as BCDice normalised it, e.g. "3D6<=12"
    faces: tuple[int, ...] | None  # None when the log does not show them
    total: int
    comparison: str | None
    target: int | None
    outcome: str | None  # the log's: success / failure / critical_success / critical_failure
    outcome_text: str | None  # the log's word, e.g. "成功(成功度:1)"
    margin: int | None  # one convention: negative on failure (target - total for <=)
    command: str | None  # the echo of what was typed
    comment: str | None
    rules_outcome: str | None  # our own judgement of the same dice (docs/rules.md "Success roll" for 3D6<=N)
    detail: dict[str, Any] | None = None  # the record `roll` would write (with "gurps" for a success roll)
    secret: bool = False  # rolled as BCDice's secret dice, shown in the log
    log_degree: int | None = None  # the 成功度/失敗度 number the log printed


@dataclass(frozen=True, slots=True)
class Reading:
    kind: str  # dice | secret | other_system | unreadable | contradictory | chat
    lines: tuple[RollLine | TableLine, ...] = ()
    why: Why | None = None  # the reason, for kinds other than dice (shown translated)
    repeat: int | None = None  # N of an xN repeat
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def line(self) -> RollLine | TableLine | None:  # the first (for one-result messages, the only) line
        return self.lines[0] if self.lines else None


CHAT = Reading("chat")
KIND_WORDS = {"chat": N_("chat")}  # the one reading of a repeat's answer that has no reason of its own


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


def _typed_ok(command: str) -> tuple[bool, bool]:
    """(a command of this ruleset, rolled secretly) for the echo of what was typed."""
    folded = _nfkc(command).upper()
    if _parses(folded) or _T3D6.match(folded):
        return True, False
    if folded.startswith("S") and (_parses(folded[1:]) or _T3D6.match(folded[1:])):
        return True, True
    return False, False


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
                return head[:position].strip(), head[position + 1 : -1].strip()
    return None


def _answer(text: str) -> tuple[str, str, list[str]] | None | str:
    """(text before, bracketed expression, the parts after it) of the first `(EXPR) ＞`
    whose EXPR parses; the bracketed text of the first that does not (a string) when
    there is no such answer; None when nothing looks like one."""
    unparsed = None
    for match in _SEPARATOR.finditer(text):
        group = _trailing_group(text[: match.start()])
        if group is None:
            continue
        before, inner = group
        if _parses(_nfkc(inner).upper()):
            rest = text[match.end() :].split("\n", 1)[0]
            return before, inner, _SEPARATOR.split(rest)
        unparsed = unparsed or inner
    return unparsed


def _echo(before: str) -> tuple[str | None, str | None]:
    first = before.split("\n", 1)[0]
    words = first.split(None, 1)
    if not words:
        return None, None
    return words[0], (words[1].strip() if len(words) > 1 else None) or None


def _outcome(word: str) -> tuple[str, int | None] | None:
    """The outcome and the log's own degree (成功度/失敗度), or None for a word this
    ruleset does not use (スペシャル, レギュラー成功 ...)."""
    degree = None
    found = _DEGREE.match(word)
    if found:
        word, degree = found.group(1).strip(), int(found.group(2))
    outcome = OUTCOME_WORDS.get(word)
    return None if outcome is None else (outcome, degree)


def _faces(display: list[str], parsed: ParsedExpression, total: int) -> tuple[int, ...] | None:
    faces = [
        int(face) for group in _FACES.findall(" ".join(display)) for face in group.replace(" ", "").split(",") if face
    ]
    if faces:
        return tuple(faces)
    spec = parsed.roll
    if (
        not display
        and isinstance(spec, ArithmeticRoll)
        and isinstance(spec.expression, DiceTerm)
        and spec.expression.count == 1
    ):
        return (total,)  # BCDice writes a lone die as its total alone
    return None


def _margin(comparison: str | None, target: int | None, total: int) -> int | None:
    if target is None:  # a comparison always has its target
        return None
    if comparison in ("<=", "<"):
        return target - total
    if comparison in (">=", ">"):
        return total - target
    return None


def read_roll(  # noqa: C901 - BCDice answer is checked piece by piece in reading order; split, each piece would need the whole parse passed along
    inner: str, parts: list[str], command: str | None, comment: str | None, gurps: bool, secret: bool = False
) -> Reading:
    """One BCDice answer `(inner) ＞ parts...`, checked against itself and our dice engine."""
    expression = _nfkc(inner).upper()
    parsed = parse(expression)
    spec = parsed.roll
    if parsed.repeat is not None or not isinstance(spec, ArithmeticRoll):
        return Reading(
            "other_system", why=Why("unsupported_shape", N_("unsupported shape: {expression}"), expression=expression)
        )
    rest = [_nfkc(part) for part in parts]
    outcome_text = outcome = degree = None
    if rest and not _INTEGER.match(rest[-1]):
        outcome_text = rest.pop()
        judged = _outcome(outcome_text)
        if judged is None:
            return Reading("other_system", why=Why("outcome_word", N_("outcome '{word}'"), word=outcome_text))
        outcome, degree = judged
        if not rest or spec.comparison is None:
            return Reading("unreadable", why=Why("outcome_without_comparison", N_("an outcome without a comparison")))
    if not rest or not _INTEGER.match(rest[-1]):
        shown = rest[-1] if rest else ""
        return Reading("unreadable", why=Why("total_not_number", N_("total '{total}' is not a number"), total=shown))
    total = int(rest.pop())
    if spec.comparison is not None and outcome is None:
        return Reading("unreadable", why=Why("comparison_without_outcome", N_("a comparison without an outcome")))
    wrong = shown_sums_agree(" ".join(rest))
    if wrong:
        return Reading("contradictory", why=wrong)
    faces = _faces(rest, parsed, total)
    modifier = spec.success_roll_modifier
    detail = None
    raw = None
    rules_outcome = None
    if faces is not None:
        if len(faces) != parsed.dice_count:
            return Reading(
                "contradictory",
                why=Why("face_count", N_("{faces} faces for {dice} dice"), faces=len(faces), dice=parsed.dice_count),
            )
        try:
            replay = roll_parsed(parsed, ManualDice(list(faces)), gurps=gurps)
        except CampaignError as exc:
            return Reading("contradictory", why=refused(exc))
        if replay.total != total:
            return Reading(
                "contradictory",
                why=Why("faces_total", N_("faces {faces} do not make {total}"), faces=list(faces), total=total),
            )
        detail, rules_outcome = replay.to_detail(), replay.outcome
        raw = sum(faces) if modifier is not None else None
    else:
        bounds = value_range(spec.expression)
        if bounds is not None and not bounds[0] <= total <= bounds[1]:
            return Reading(
                "contradictory",
                why=Why(
                    "out_of_range", N_("{expression} cannot make {total}"), expression=parsed.body_text, total=total
                ),
            )
        if modifier is not None:
            raw = total - modifier
            if gurps and 3 <= raw <= 18 and spec.target is not None:  # a modifier comes with `<=` and its target
                judgement = judge_success(raw, total, spec.target)
                rules_outcome = judgement.outcome
                detail = {
                    "expression": parsed.text,
                    "total": total,
                    "faces": [],
                    "groups": [],
                    "comparison": spec.comparison,
                    "target": spec.target,
                    "gurps": judgement.to_detail(),
                }
    if outcome is not None:
        wrong = word_agrees(
            outcome,
            degree,
            comparison=spec.comparison,
            target=spec.target,
            total=total,
            raw=raw,
            gurps_roll=modifier is not None and parsed.dice_count == 3,
        )
        if wrong:
            return Reading("contradictory", why=wrong)
    margin = _margin(spec.comparison, spec.target, total)
    if detail is not None:
        detail = {**detail, "outcome": outcome, "margin": margin, "comment": comment, "source": "ccfolia"}
    return Reading(
        "dice",
        (
            RollLine(
                expression=parsed.text,
                faces=faces,
                total=total,
                comparison=spec.comparison,
                target=spec.target,
                outcome=outcome,
                outcome_text=outcome_text,
                margin=margin,
                command=command,
                comment=comment,
                rules_outcome=rules_outcome,
                detail=detail,
                secret=secret,
                log_degree=degree,
            ),
        ),
    )


def _single(
    text: str,
    tables: Mapping[str, Any],
    gurps: bool,
    typed: str | None = None,
    comment: str | None = None,
    secret: bool = False,
) -> Reading:
    """One answer: a table's or a roll's. `typed` is the command when the text holds only
    the answer (a repeat's `#k` part)."""
    if "表" in text:
        table = read_table(text if typed is None else f"{typed} {text}", tables)
        if table is not None:
            if table.kind != "table":
                return Reading(table.kind, why=table.why)
            line = table.line
            assert line is not None  # a reading of kind "table" holds its line
            if secret or comment is not None:
                from dataclasses import replace

                line = replace(line, secret=line.secret or secret, comment=line.comment or comment)
            return Reading("dice", (line,))
    found = _answer(text)
    first_word = text.split(None, 1)[0] if text.split() else ""
    if found is None or isinstance(found, str):
        if found is not None:
            echoed = _nfkc(first_word).upper() == _nfkc(found).upper()
            if echoed or _command_like(found) or _command_like(first_word):
                return Reading(
                    "other_system",
                    why=Why("not_expression", N_("not a dice expression of this ruleset: {text}"), text=_nfkc(found)),
                )
        elif _SEPARATOR.search(text) and _command_like(first_word) and typed is None:
            return Reading("other_system", why=Why("no_expression", N_("no bracketed expression")))
        return CHAT
    before, inner, parts = found
    command, said = _echo(before) if typed is None else (typed, comment)
    if command is not None and typed is None:
        known, rolled_secretly = _typed_ok(command)
        if not known:
            return (
                Reading(
                    "other_system",
                    why=Why("not_command", N_("not a command of this ruleset: {command}"), command=_nfkc(command)),
                )
                if _command_like(command)
                else CHAT
            )
        secret = secret or rolled_secretly
    return read_roll(inner, parts, command, said, gurps, secret)


def _repeated_command_ok(command: str, tables: Mapping[str, Any]) -> bool:
    """A repeat's command is this ruleset's: a dice expression or success roll it reads,
    or a table command (BCDice's or a seed's, `FEAR+3`, secret `S` too)."""
    from campaign.bridges.bcdice_tables import BCDICE_TABLES

    if _typed_ok(command)[0]:
        return True
    folded = re.sub(r"[+-][0-9]+$", "", _nfkc(command).upper())
    return any(name in BCDICE_TABLES or name in tables for name in (folded, folded[1:] if folded[:1] == "S" else ""))


def _repeat(
    count: int, command: str, comment: str | None, text: str, tables: Mapping[str, Any], gurps: bool, secret: bool
) -> Reading:
    if not _repeated_command_ok(command, tables):
        # Another system's repeat (`x10 CCB<=50`) is one unit: the whole message is
        # another system's line, never some of its answers recorded and some not.
        if _command_like(command):
            why = Why("not_command", N_("not a command of this ruleset: {command}"), command=_nfkc(command))
            return Reading("other_system", why=why, repeat=count)
        return CHAT
    marks = list(_REPEAT_MARK.finditer(text))
    if not marks:
        return Reading("unreadable", why=Why("repeat_unanswered", N_("x{count}: no #1 ... answers"), count=count))
    lines: list[RollLine | TableLine] = []
    for number, mark in enumerate(marks, start=1):
        if int(mark.group(1)) != number:
            return Reading(
                "contradictory",
                why=Why(
                    "repeat_order",
                    N_("answer #{found} where #{number} belongs"),
                    found=int(mark.group(1)),
                    number=number,
                ),
            )
        end = marks[number].start() if number < len(marks) else len(text)
        part = text[mark.end() : end].strip()
        reading = _single(part, tables, gurps, typed=command, comment=comment, secret=secret)
        if reading.kind != "dice":
            inner = reading.why or Why(reading.kind, KIND_WORDS.get(reading.kind, reading.kind))
            return Reading(
                reading.kind, why=Why("repeat_answer", N_("#{number}: {why}"), number=number, why=inner), repeat=count
            )
        lines.extend(reading.lines)
    if len(lines) != count:
        return Reading(
            "contradictory",
            why=Why("repeat_count", N_("x{count} shows {shown} answers"), count=count, shown=len(lines)),
            repeat=count,
        )
    return Reading("dice", tuple(lines), repeat=count)


def read_message(
    text: str, tables: Mapping[str, Any], *, gurps: bool = False, result: str | None = None, secret: bool = False
) -> Reading:
    """Sort one message (typed text, and BCDice's answer when the export keeps it apart);
    never raises on odd input."""
    text = (text or "").strip()
    if result and any(mark in text.casefold() for mark in SECRET_MARKS):
        text, secret = "", True  # the export shows what the secret dice said: only the answer is read
    if result:
        text = f"{text}\n{result.strip()}" if text else result.strip()
    if not text:
        return CHAT
    if any(mark in text.casefold() for mark in SECRET_MARKS) and not result:
        return Reading("secret")
    if "表" not in text and "＞" not in text and ">" not in text:
        return CHAT  # most of a log is talk: no bot answer without one of these
    words = text.split(None, 2)
    repeat = _REPEAT.match(_nfkc(words[0]).upper()) if len(words) >= 2 else None
    if repeat is not None:
        count = int(repeat.group(2))
        if not 1 <= count <= MAX_REPEAT:
            return Reading("unreadable", why=Why("repeat_size", N_("a repeat of {count}"), count=count))
        first_line = text.split("\n", 1)[0].split(None, 2)
        comment_part = first_line[2] if len(first_line) > 2 else ""
        comment = _REPEAT_MARK.split(comment_part, 1)[0].strip() or None
        return _repeat(
            count,
            words[1],
            comment,
            text[len(words[0]) :].strip()[len(words[1]) :],
            tables,
            gurps,
            secret or bool(repeat.group(1)),
        )
    return _single(text, tables, gurps, secret=secret)


def classify(text: str, tables: Mapping[str, Any], *, gurps: bool = False) -> Reading:
    """read_message for a message whose answer is inside its text (the `<p>` exports)."""
    return read_message(text, tables, gurps=gurps)

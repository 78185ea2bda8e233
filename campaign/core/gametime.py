"""Campaign time (the in-game clock) and spans of it: "6h", "3day", "2turns", "1day6h".

The clock is a whole number of seconds since the campaign began (day 1, 00:00). GURPS
counts a combat turn as one second, so a turn is a second here too: `time advance 6h`
ends a 4-turn stun along with everything else that runs out within those six hours,
and `time advance 3turns` moves the clock three seconds. A GM who runs combat without
the clock simply clears turn-long conditions by hand (`condition clear`).

No unit reads as dice: at a dice table "1d6h" is 1d6 hours and "3d" is 3d6, so a day
is `day` (or 日), never `d`, and a span that looks like dice is refused with the spelling
it probably meant. Pure: text in, numbers and text out. Unknown units and zero spans
are BadInput.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from campaign.errors import N_, BadInput

SECOND, MINUTE, HOUR, DAY, WEEK = 1, 60, 3600, 86400, 7 * 86400
UNIT_SECONDS = {"turn": SECOND, "second": SECOND, "minute": MINUTE, "hour": HOUR, "day": DAY, "week": WEEK}
UNIT_NAMES = {
    "turn": ("t", "turn", "turns", "ターン"),
    "second": ("s", "sec", "secs", "second", "seconds", "秒"),
    "minute": ("m", "min", "mins", "minute", "minutes", "分"),
    "hour": ("h", "hr", "hrs", "hour", "hours", "時間"),
    "day": ("day", "days", "日", "日間"),  # not "d": 1d6h and 3d are dice
    "week": ("w", "week", "weeks", "週", "週間"),
}
_UNIT_OF = {alias.casefold(): unit for unit, aliases in UNIT_NAMES.items() for alias in aliases}
UNIT_JA = {"turn": "ターン", "second": "秒", "minute": "分", "hour": "時間", "day": "日", "week": "週間"}
# A clock fits a 32-bit column like every other number here: about 68 years of play.
CLOCK_LIMIT = 2**31 - 1
_PART = re.compile(r"(\d+)\s*([^\d\s]+)")
SPAN_EXAMPLES = "6h, 30min, 3day, 2turns, 1day6h, 3日"
_DICE = re.compile(r"(\d*)\s*[dD]\s*(\d*)\s*(.*)")


@dataclass(frozen=True, slots=True)
class Span:
    """A length of campaign time as typed ("1day6h") and in seconds."""

    seconds: int
    parts: tuple[tuple[int, str], ...]  # ((1, "day"), (6, "hour"))

    @property
    def text(self) -> str:
        return " ".join(f"{n} {unit}" + ("" if n == 1 else "s") for n, unit in self.parts)

    @property
    def text_ja(self) -> str:
        return "".join(f"{n}{UNIT_JA[unit]}" for n, unit in self.parts)


def parse_span(text: str, option: str = "duration") -> Span:
    """ "6h" -> 6 hours. Several parts add up ("1day6h"); full-width digits are fine."""
    cleaned = unicodedata.normalize("NFKC", text or "").strip()
    _refuse_dice(cleaned, text, option)
    parts: list[tuple[int, str]] = []
    position = 0
    for match in _PART.finditer(cleaned):
        if cleaned[position : match.start()].strip():
            break
        unit = _UNIT_OF.get(match.group(2).casefold())
        if unit is None:
            raise BadInput(
                N_(
                    "{option}: unknown unit {unit!r} in {text!r} "
                    "(turn, s, min, h, day, week, ターン, 秒, 分, 時間, 日, 週; e.g. {examples})"
                ),
                option=option,
                unit=match.group(2),
                text=text,
                examples=SPAN_EXAMPLES,
            )
        parts.append((int(match.group(1)), unit))
        position = match.end()
    if not parts or cleaned[position:].strip():
        raise BadInput(
            N_("{option}: {text!r} is not a span of time (e.g. {examples})"),
            option=option,
            text=text,
            examples=SPAN_EXAMPLES,
        )
    seconds = sum(n * UNIT_SECONDS[unit] for n, unit in parts)
    if seconds <= 0:
        raise BadInput(N_("{option}: {text!r} is no time at all"), option=option, text=text)
    if seconds > CLOCK_LIMIT:
        raise BadInput(
            N_("{option}: {text!r} is longer than the clock can count (about 68 years)"), option=option, text=text
        )
    return Span(seconds, tuple(parts))


def _refuse_dice(cleaned: str, text: str, option: str) -> None:
    """`1d6h`, `3d`, `2D`: what a dice table reads as dice is not a span; say what to write."""
    dice = _DICE.fullmatch(cleaned)
    if dice is None or not dice.group(1) or (dice.group(3) and _UNIT_OF.get(dice.group(3).casefold()) is None):
        return
    count, faces, unit = dice.group(1), dice.group(2), dice.group(3)
    if faces and unit:
        raise BadInput(
            N_(
                "{option}: {text!r} reads as dice: did you mean {count}d{faces} {unit}? roll it first "
                "(campaign roll {count}D{faces}) and give what it shows, e.g. 4{unit}; "
                "for {days} and {faces}{unit} write {count}day{faces}{unit}"
            ),
            option=option,
            text=text,
            count=count,
            faces=faces,
            unit=unit,
            days=f"{count} day{'s' if count != '1' else ''}",
        )
    if faces and not unit:
        raise BadInput(
            N_(
                "{option}: {text!r} is dice, not a span: roll it first (campaign roll {count}D{faces}) and "
                "give what it shows with a unit, e.g. 4h"
            ),
            option=option,
            text=text,
            count=count,
            faces=faces,
        )
    if not faces and not unit:
        raise BadInput(
            N_("{option}: {text!r} reads as dice ({count}D); for days write {count}day or {count}日"),
            option=option,
            text=text,
            count=count,
        )


def unit_seconds(unit: str) -> int:
    return UNIT_SECONDS[unit]


def span_of(amount: int, unit: str) -> Span:
    """The span "amount units" (a rolled duration: 4 turns, 3 days)."""
    return Span(amount * UNIT_SECONDS[unit], ((amount, unit),))


def span_text(seconds: int) -> tuple[str, str]:
    """("1 day 6 hours", "1日6時間") for a number of seconds, largest units first."""
    parts = []
    rest = seconds
    for unit in ("day", "hour", "minute", "second"):
        size = UNIT_SECONDS[unit]
        if rest >= size:
            parts.append((rest // size, unit))
            rest %= size
    if not parts:
        return "0 seconds", "0秒"
    span = Span(seconds, tuple(parts))
    return span.text, span.text_ja


def clock_text(clock: int) -> tuple[str, str]:
    """("day 2 06:00", "2日目 06:00"); seconds are shown only when there are some."""
    day, rest = divmod(clock, DAY)
    hours, rest = divmod(rest, HOUR)
    minutes, seconds = divmod(rest, MINUTE)
    time = f"{hours:02d}:{minutes:02d}" + (f":{seconds:02d}" if seconds else "")
    return f"day {day + 1} {time}", f"{day + 1}日目 {time}"


def whole_units(seconds: int, unit: str) -> int:
    """How many whole units, rounding up (a catatonia of 30 hours lasted 2 days)."""
    size = UNIT_SECONDS[unit]
    return -(-seconds // size)

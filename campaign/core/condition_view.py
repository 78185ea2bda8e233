"""A condition as it stands (or stood when it ended): the one shape `condition list`,
`condition add/clear/recover`, `time advance/show` and the table's GM tools carry.

Codes and numbers only: clocks are campaign seconds (campaign.core.gametime), the length
is the row's own codes. campaign.effect_words makes the `--json` document of it (the
words that document has always carried beside the codes, in both languages) and
campaign.labels the words a reader sees, so a view never holds a word it was not given.

`record()` is the object a ledger entry keeps of a condition (condition add and clear,
a recovery roll, the end of a follow-up penalty); `from_record()` reads one back, an
older record's too (it kept clock readings with their words and, beside them, words the
codes give again).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: A row's `detail`: the codes its source gave it (a fright table entry's length and
#: recovery roll, the GM's `--for` span and follow-up penalty, a follow-up's terms, or an
#: older row's own words). JSON by nature, and each source gives different keys.
ConditionDetail = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ConditionView:
    """One condition of one character. `until` is set for a timed condition (it runs out
    with `time advance`); `recovery_due` for one whose recovery roll is due from then;
    `remaining_seconds` when read against the campaign clock; `lasted_seconds` when it
    ended. `character` is given where a listing or an entry spans several characters."""

    name: str
    detail: ConditionDetail | None
    source_seq: int | None
    origin: str | None
    since: int
    until: int | None = None
    recovery_due: int | None = None
    duration: str | None = None  # the length words an older row kept (rows now keep codes)
    remaining_seconds: int | None = None
    character: str | None = None
    lasted_seconds: int | None = None

    @property
    def timed(self) -> bool:
        return self.until is not None

    @property
    def recorded_label_ja(self) -> str | None:
        """The Japanese name an older row kept beside its code (a name the GM gave has none)."""
        label = (self.detail or {}).get("label_ja")
        return label if isinstance(label, str) else None

    def record(self) -> dict[str, Any]:
        """The condition as a ledger entry records it, keys in their recorded order."""
        codes: dict[str, Any] = {} if self.character is None else {"character": self.character}
        codes["name"] = self.name
        if self.duration is not None:
            codes["duration"] = self.duration
        codes.update(
            detail=None if self.detail is None else dict(self.detail),
            source_seq=self.source_seq,
            origin=self.origin,
            timed=self.timed,
            since={"clock": self.since},
            until=_clock_code(self.until),
            recovery_due=_clock_code(self.recovery_due),
        )
        if self.remaining_seconds is not None:
            codes["remaining_seconds"] = self.remaining_seconds
        if self.lasted_seconds is not None:
            codes["lasted_seconds"] = self.lasted_seconds
        return codes

    @classmethod
    def from_record(cls, codes: Mapping[str, Any]) -> ConditionView:
        """A condition as an entry recorded it (`record()`, or an older record's shape)."""
        detail = codes.get("detail")
        return cls(
            name=str(codes["name"]),
            detail=detail if isinstance(detail, Mapping) else None,
            source_seq=_int(codes.get("source_seq")),
            origin=_str(codes.get("origin")),
            since=_clock(codes.get("since")) or 0,
            until=_clock(codes.get("until")),
            recovery_due=_clock(codes.get("recovery_due")),
            duration=_str(codes.get("duration")),
            remaining_seconds=_int(codes.get("remaining_seconds")),
            character=_str(codes.get("character")),
            lasted_seconds=_int(codes.get("lasted_seconds")),
        )


def _clock_code(clock: int | None) -> dict[str, int] | None:
    return None if clock is None else {"clock": clock}


def _clock(reading: Any) -> int | None:
    """{"clock": n} (an older record's reading also holds its words) -> n."""
    if isinstance(reading, Mapping) and isinstance(reading.get("clock"), int):
        return int(reading["clock"])
    return None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None

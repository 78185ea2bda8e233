"""Which message of which session a log line is: the fingerprints of imported entries.

A message is known by what the export says of it, so importing a log twice, or a longer
export of the same room, adds only what is new:
- where the export has times (v1.37+ HTML, JSON), by speaker, text, answer and the
  second it was sent (and --session, when given);
- where it has none (the `<p>` export), by the *log identity* (the first OPENING
  messages' hash, shown to the GM; `--session NAME` overrides it) with tab, speaker and
  text;
- in both, the N-th identical message of a log is told apart by N, and the k-th answer
  of a repeat by k.
A log shorter than OPENING messages is matched against an imported log whose identity
was taken over exactly as many messages (a cut-off export and its complete one).

Entries imported before log identities hold `sha256(tab, speaker, text, N)` with N
counted among the dice messages, and the message's position as that reader numbered
it: a `<p>` log's message matching both is that entry, so re-importing an old log adds
nothing and the stored fingerprints stay valid. The records are never rewritten.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from campaign.bridges.ccfolia_log import Message
from campaign.db.models import LedgerEntry

SOURCE = "ccfolia"
OPENING = 10
NO_NAME = "(no name)"


def speaker_name(raw: str) -> str:
    """The name a speaker is mapped and counted by: NFC, whitespace runs (full-width too)
    made one space; an empty speaker is "(no name)"."""
    name = " ".join(unicodedata.normalize("NFC", raw).split())
    return name or NO_NAME


def speaker_key(name: str) -> str:
    """What two names must share to be one speaker: the name without any whitespace
    (ココフォリア users write "すずね", "すずね " and "す ず ね" for one person)."""
    return "".join(unicodedata.normalize("NFC", name).split())


def _sha(*parts: object) -> str:
    return hashlib.sha256("\t".join("" if p is None else str(p) for p in parts).encode("utf-8")).hexdigest()


def legacy_fingerprint(message: Message, ordinal: int) -> str:
    """The fingerprint the reader before log identities stored (tab, speaker, text, N)."""
    return _sha(message.tab or "", message.speaker, message.text, ordinal)


def opening_ids(messages: Iterable[Message]) -> list[str]:
    """The log identity over the first k complete messages, for k = 1 .. OPENING."""
    digest = hashlib.sha256(b"ccfolia-log")
    ids = []
    for message in messages:
        if message.incomplete:
            break
        digest.update(_sha(message.tab, speaker_name(message.speaker), message.text, message.result).encode())
        ids.append("log:" + digest.copy().hexdigest()[:16])
        if len(ids) == OPENING:
            break
    return ids


class Known:
    """Every fingerprint imported into the campaign before: one pass over its roll and
    table entries (the kind index), reading only those whose record says ccfolia."""

    def __init__(self, session: Session, campaign_id: int) -> None:
        self.marks: set[str] = set()
        self.legacy: dict[str, int | None] = {}  # old fingerprint -> the message position it held
        self.logs: set[tuple[str, int]] = set()  # (log identity, messages it was taken over)
        query = (
            select(LedgerEntry.record)
            .where(
                LedgerEntry.campaign_id == campaign_id,
                LedgerEntry.kind.in_(("roll", "table")),
                LedgerEntry.record.like('%"source":"ccfolia"%'),
            )
            .execution_options(yield_per=2000)
        )
        for (record,) in session.execute(query):
            mark = (json.loads(record).get("detail") or {}).get(SOURCE) or {}
            fingerprint = mark.get("fingerprint")
            if not fingerprint:
                continue
            self.marks.add(fingerprint)
            if "scheme" not in mark:
                self.legacy[fingerprint] = mark.get("message")
            if isinstance(mark.get("log"), str) and isinstance(mark.get("opening"), int):
                self.logs.add((mark["log"], mark["opening"]))

    def log_identity(self, ids: list[str]) -> tuple[str | None, int]:
        """The identity of a log without times: a shorter log imported before whose opening
        this log starts with, else this log's own over its first OPENING messages."""
        for k in range(len(ids), 0, -1):
            if (ids[k - 1], k) in self.logs:
                return ids[k - 1], k
        return (ids[-1], len(ids)) if ids else (None, 0)

    def legacy_match(self, message: Message, ordinal: int) -> bool:
        if message.legacy_index is None or not self.legacy:
            return False
        mark = legacy_fingerprint(message, ordinal)
        return mark in self.legacy and self.legacy[mark] == message.legacy_index


class LogIdentity:
    """Fingerprints for the messages of one log, in order."""

    def __init__(self, log: str | None, opening: int, session_name: str | None) -> None:
        self.log, self.opening, self.session_name = log, opening, session_name
        self._ordinals: dict[str, int] = {}
        self.used_log = False  # some message had no time, so the log identity names it
        self._legacy_ordinals: dict[str, int] = {}

    def fingerprint(self, message: Message) -> tuple[str, dict[str, object]]:
        """The message's fingerprint and what the record keeps of its identity."""
        speaker = speaker_name(message.speaker)
        where: dict[str, object]
        if message.timestamp is not None:
            key = _sha("t", self.session_name, speaker, message.text, message.result, message.timestamp)
            where = {"timestamp": message.timestamp}
        else:
            self.used_log = True
            key = _sha("l", self.session_name or self.log, message.tab, speaker, message.text, message.result)
            where = {
                "log": self.log if self.session_name is None else f"session:{self.session_name}",
                "opening": self.opening if self.session_name is None else 0,
            }
        ordinal = self._ordinals.get(key, 0)
        self._ordinals[key] = ordinal + 1
        return _sha("ccfolia/2", key, ordinal), {"scheme": 2, **where}

    def legacy_ordinal(self, message: Message) -> int:
        """N of the old fingerprint: this message among identical dice messages so far."""
        key = _sha(message.tab or "", message.speaker, message.text)
        ordinal = self._legacy_ordinals.get(key, 0)
        self._legacy_ordinals[key] = ordinal + 1
        return ordinal


def answer_mark(fingerprint: str, k: int) -> str:
    """The k-th answer of a message (a repeat's #k); the first is the message's own."""
    return fingerprint if k == 1 else _sha(fingerprint, f"#{k}")

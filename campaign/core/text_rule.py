"""The one rule for text people type: what a name may hold, what free text may hold, and
what output shows as an escape instead of letting a terminal obey it.

Every path that takes a name or a reason uses it: the services (`char add`, `trait add`),
op parsing (a ledger read from an export or replayed by `history verify`) and every
output (terminal lines, table cells, JSON, CSV). Before there was one rule, an export
could carry an NPC named "A\\u2028B" that import accepted and `char add` refused.

The functions here return the fault as words (or None) and never raise: the caller
knows whether a fault is malformed input (BadInput) or a malformed ledger (BadOp).
"""

from __future__ import annotations

import re
import unicodedata

from campaign.errors import N_

NAME_LIMIT = 200
TEXT_LIMIT = 2000

# Characters a name must not hold: controls (C0, DEL, C1: a terminal obeys them, so a name
# could move the cursor or recolour the screen), format characters (zero-width spaces and
# joiners, bidi overrides: two names that look identical), line and paragraph separators
# (U+2028/2029 end a line in JavaScript and in some editors), surrogates and unassigned
# code points.
_NAME_REFUSED = frozenset({"Cc", "Cf", "Cs", "Cn", "Zl", "Zp"})
# Free text (reasons, notes) may span lines and hold tabs, nothing else of C0/C1.
_TEXT_ALLOWED_CONTROLS = frozenset("\t\n")

# What output never passes through as it is: C0 controls and DEL (ESC starts the escape
# sequences that move the cursor, recolour, retitle the window), C1 controls (0x9B is a
# one-byte CSI on some terminals), the bidi controls that reorder what is displayed, and
# the line and paragraph separators (a one-line message must stay one line).
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
SEPARATORS = "\u2028\u2029"
_UNSAFE = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f{BIDI_CONTROLS}{SEPARATORS}]")
_UNSAFE_IN_LINES = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{BIDI_CONTROLS}{SEPARATORS}]")


def normal_name(value: str) -> str:
    """NFC, without surrounding space: "が" typed two ways is one name."""
    return unicodedata.normalize("NFC", value).strip()


def is_normal_name(value: str) -> bool:
    return normal_name(value) == value


#: The actor the ledger records for the GM (the CLI's default `--as`, the GM's seats).
GM_ACTOR = "GM"


def name_key(value: str) -> str:
    """What two names are compared by when one must not pass for the other: NFKC
    (full-width ＧＭ is GM), case-folded (gm is GM), without surrounding space. The one
    normalisation of "reads as the same name"; names themselves keep their spelling."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", value).casefold())
    return folded.strip()


def is_reserved_name(name: str) -> bool:
    """A name no player, character or bot token may take: it reads as the GM's actor,
    whose entries and void requests are the GM's (docs/web.md "Seats and names")."""
    return name_key(name) == name_key(GM_ACTOR)


#: A fault: an English template (N_, translated where it is shown) and its values.
Fault = tuple[str, dict[str, object]]


def name_problem(name: str, limit: int = NAME_LIMIT) -> Fault | None:
    """Why `name` (already normal_name'd) cannot be a name, as the words after
    "<what> name ...", or None when it can."""
    if not name:
        return N_("must not be empty"), {}
    if len(name) > limit:
        return N_("is too long ({length} characters, at most {limit})"), {"length": len(name), "limit": limit}
    for ch in name:
        category = unicodedata.category(ch)
        if category in _NAME_REFUSED:
            code = f"{ord(ch):04X}"
            if category == "Cc":
                return N_("must not contain control characters (U+{code})"), {"code": code}
            return N_("must not contain invisible or format characters (U+{code})"), {"code": code}
    return None


def text_problem(value: str, limit: int = TEXT_LIMIT) -> Fault | None:
    """Why `value` cannot be free text (a reason, a note), as the words after "<what> ...",
    or None. Tabs and newlines are fine; no other control character (an escape sequence
    in a reason would run in every terminal that shows it), nor half a surrogate pair."""
    if "\x00" in value:
        return N_("must not contain NUL characters"), {}
    if len(value) > limit:
        return N_("is too long ({length} characters, at most {limit})"), {"length": len(value), "limit": limit}
    for ch in value:
        if ch not in _TEXT_ALLOWED_CONTROLS and unicodedata.category(ch) in ("Cc", "Cs"):
            code = f"{ord(ch):04X}"
            return N_("must not contain control characters (U+{code}); tabs and line breaks are fine"), {"code": code}
    return None


def _words(fault: Fault | None) -> str | None:
    return None if fault is None else fault[0].format(**fault[1])


def name_fault(name: str, limit: int = NAME_LIMIT) -> str | None:
    """name_problem in English words (a ledger's op checks, logs)."""
    return _words(name_problem(name, limit))


def text_fault(value: str, limit: int = TEXT_LIMIT) -> str | None:
    """text_problem in English words."""
    return _words(text_problem(value, limit))


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, keep_lines: bool = True) -> str:
    """`text` with every unsafe character shown as an escape (\\x1b, \\u2028), so it is
    seen rather than obeyed. Tabs and newlines stay unless the text must be one line."""
    return (_UNSAFE_IN_LINES if keep_lines else _UNSAFE).sub(_escape, text)


def visible_in_json(document: str) -> str:
    """A JSON document with the unsafe characters as \\uXXXX (inside a JSON document they can
    only occur in strings, where the escape means the same character)."""
    return _UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", document)


# What a spreadsheet (Excel, LibreOffice, Google Sheets) reads as a formula when a cell
# starts with it; a tab or carriage return in front hides one from the eye.
FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?\d+(\.\d+)?")


def _needs_guard(text: str) -> bool:
    if text[:1] in FORMULA_LEADS:
        return not _PLAIN_NUMBER.fullmatch(text)  # "-10", "+3" are numbers, not formulas
    # a cell that already starts with the guard would lose it when read back: guard it too
    return text[:1] == "'" and _needs_guard(text[1:])


def spreadsheet_safe(text: str) -> str:
    """A CSV cell a spreadsheet shows as data and never runs: a leading apostrophe, the
    spreadsheets' own "this is text" mark, in front of anything they would run.
    spreadsheet_value takes it off again, so text -> cell -> text is the identity."""
    return "'" + text if _needs_guard(text) else text


def spreadsheet_value(cell: str) -> str:
    """The text a spreadsheet_safe cell was made from."""
    return cell[1:] if cell[:1] == "'" and _needs_guard(cell[1:]) else cell

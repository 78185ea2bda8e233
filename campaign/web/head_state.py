"""What every open page shows alike, computed once per ledger head and language.

The feed's `state` event (the overview's partials and the table pages' shared JSON) and
`GET /api/table` both start from it; a page's own part (its calls, its `mine` marks) is
added per request (campaign.web.table_state.table_state). Reading every character's
sheet is most of the cost (20 sheets: tens of milliseconds of a core), and with twenty
players rolling it used to be paid at each new head, and again per /api/table: under
that load it took more of the server than the rolls themselves. So the sheets part is
kept with the head it was read at, and read again only when an entry since then may
have changed it (campaign.web.head_state.leaves_sheets); a plain roll changes only the
latest entries, read at each head (one index range of LATEST rows).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from campaign.db.database import Database
    from campaign.projection.views import CharacterSheet

SINCE_LIMIT = 500  # entries since the sheets were read worth checking rather than reading them again
# Kinds that change the void requests or undo ops their record does not list.
_SHEET_KINDS = frozenset({"void", "void_request", "void_refusal"})


def leaves_sheets(entry: dict[str, Any]) -> bool:
    """Whether an entry leaves the characters, the missing board and the open void
    requests as they were. Every state change is an op of its entry (DESIGN "State is a
    projection of the ledger"), except a void, which undoes the ops of another entry,
    and the void requests, which are entries themselves."""
    return not entry.get("ops") and entry.get("kind") not in _SHEET_KINDS


@dataclass
class _Sheets:
    seq: int  # the head read just before the sheets: they hold at least every entry up to it
    read_at: int  # ... and that head as it was when they were read (seq moves on as entries are checked)
    parts: dict[str, Any]  # the overview's partials and the table's characters, missing, void requests
    cp: dict[str, int]  # each character's CP total, for the latest entries' CP lines


class HeadState:
    """The shared state at the ledger's head (one per served campaign), safe to ask from
    any worker thread: concurrent askers at one head wait for one computation."""

    def __init__(
        self,
        db: Database,
        campaign_id: int,
        campaign_name: str,
        overview: Callable[[list[CharacterSheet]], dict[str, str]],
    ) -> None:
        self._db, self._campaign_id, self._name = db, campaign_id, campaign_name
        self._overview = overview  # the overview's partials from the sheets (campaign.web.app)
        self._lock = threading.Lock()
        self._sheets: dict[tuple[str, str | None], _Sheets] = {}
        self._made: dict[tuple[str, str | None], tuple[int, dict[str, Any]]] = {}

    def at_head(self) -> tuple[int, dict[str, Any]]:
        """(head seq, state) as the ledger is now, in this request's language and zone.
        The state is shared: callers copy what they change."""
        from campaign.services.ledger.browse import head_seq
        from campaign.web.feed import page_words

        head, words = head_seq(self._db, self._campaign_id), page_words()
        made = self._made.get(words)
        if made is not None and made[0] >= head:
            return made
        with self._lock:
            made = self._made.get(words)
            if made is None or made[0] < head:
                made = self._made[words] = self._compute(words)
        return made

    def _compute(self, words: tuple[str, str | None]) -> tuple[int, dict[str, Any]]:
        from campaign.services.ledger.browse import history_page
        from campaign.services.ledger.history import HistoryFilter
        from campaign.web.table_state import LATEST, latest_items

        latest = list(history_page(self._db, self._name, HistoryFilter(), size=LATEST).entries)
        head = latest[0]["seq"] if latest else 0
        sheets = self._sheets.get(words)
        if sheets is None or not self._unchanged(sheets.seq, latest):
            sheets = self._sheets[words] = self._read_sheets()
        else:
            sheets.seq = max(sheets.seq, head)  # checked up to here: the next check starts after it
        table = {**sheets.parts["table"], "latest": latest_items(latest, sheets.cp), "head": head}
        parts = {k: v for k, v in sheets.parts.items() if k != "table"}
        # `sheets_at`: which read of the sheets this is (the feed sends a state event when it changes)
        return head, {**parts, "table": table, "sheets_at": sheets.read_at}

    def _unchanged(self, since: int, latest: list[dict[str, Any]]) -> bool:
        """Whether no entry after `since` changed the sheets: the newest entries (newest
        first, contiguous) when they reach back to it, else those after it read now (a
        burst; more than SINCE_LIMIT of them: read the sheets again)."""
        from campaign.services.ledger.browse import entries_after

        newer = [entry for entry in latest if entry["seq"] > since]
        if newer and newer[-1]["seq"] != since + 1:
            newer = entries_after(self._db, self._campaign_id, since, limit=SINCE_LIMIT)
            if len(newer) >= SINCE_LIMIT:
                return False
        return all(leaves_sheets(entry) for entry in newer)

    def _read_sheets(self) -> _Sheets:
        from campaign.services.characters.roster import list_characters
        from campaign.services.ledger.browse import head_seq
        from campaign.web.table_state import sheets_state

        seq = head_seq(self._db, self._campaign_id)
        characters = list_characters(self._db, self._name, include_gone=True)
        in_play = [sheet for sheet in characters if sheet.status not in ("dead", "retired")]
        table, cp = sheets_state(self._db, self._name, in_play)
        return _Sheets(seq, seq, {**self._overview(characters), "table": table}, cp)

"""Writes that come through the table server: who, how, and at most once.

Three things every write of a signed-in seat needs, whatever service it calls:

- **Who.** The actor is the session's player (SeatActor), never a field of the request;
  the entry records how it came (detail.via: the session's id, the call it answers).
- **Whose character.** A player acts on their own characters only; the check runs in
  the write transaction itself, under the campaign's append lock, so a character moved
  to another player between two requests cannot slip through.
- **At most once.** A phone on a bad connection retries, a thumb taps twice. Each write
  carries an idempotency key; the key is stored (web_requests) in the same transaction
  as the entries it produced, and a second request with the key finds the row and gets
  the same entries back (Replayed) instead of rolling again.

The services themselves (rolls, fright, checks) stay as the CLI uses them: they receive
a GuardedDatabase, a Database whose first write transaction runs the checks above after
taking the campaign lock and records the request before it commits.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.core.dice_source import DiceSource
from campaign.db.database import Database
from campaign.db.models_table import WebRequest
from campaign.errors import BadInput, RuleRefused
from campaign.i18n import _
from campaign.labels import kind_label, reason_label
from campaign.services.common import campaign_by_id
from campaign.services.table.invites import Seat

if TYPE_CHECKING:
    from campaign.db.models import Character

COMMAND_LIMIT = 200
REQUESTABLE = ("roll", "check", "fright", "table")  # what a void request may name (as approval checks)
_KEY = re.compile(r"[A-Za-z0-9_\-]{8,100}")


class SeatActor(str):
    """The player's name as the ledger's actor, carrying `via` for the entry's detail."""

    via: dict[str, Any]

    def __new__(cls, name: str, via: dict[str, Any]) -> SeatActor:
        made = super().__new__(cls, name)
        made.via = via
        return made


def seat_actor(db: Database, name: str, via: dict[str, Any]) -> SeatActor:
    """The actor to record for `name` (the seat's player) coming through the server.

    The entry is the player's, on every backend: in group mode the server signs in as
    the GM's role, and the actor trigger (migration 0016) lets that role record a
    player's name only for an entry whose detail.via names a live session of theirs."""
    return SeatActor(name, via)


def made_by(record: dict[str, Any], player: str) -> bool:
    """Whether `player` made the entry: its actor, or the one the GM's role acted for."""
    return record.get("actor") == player or (record.get("detail") or {}).get("on_behalf_of") == player


class Replayed(Exception):
    """The idempotency key was used before: these are the entries it produced."""

    def __init__(self, first_seq: int, last_seq: int) -> None:
        super().__init__(f"already done: #{first_seq}")
        self.first_seq, self.last_seq = first_seq, last_seq


class NotYours(RuleRefused):
    """A seat asked to act on a character that is not its player's."""


class KeyReused(RuleRefused):
    """An idempotency key spent on another route (or another call): not a retry of this
    request, so neither its entries nor a new write answer it."""


def idempotency_key(value: Any) -> str:
    if not isinstance(value, str) or not _KEY.fullmatch(value):
        raise BadInput(_("idempotency_key: 8 to 100 letters, digits, - or _"))
    return value


# The idempotency key's two statements, built once and run in Core: every write of the
# table server asks whether its key was spent and spends it, and neither needs the ORM's
# unit of work (no object of the row is kept).
_KEY_SPENT = select(WebRequest.route, WebRequest.first_seq, WebRequest.last_seq).where(
    WebRequest.session_id == bindparam("session_id"), WebRequest.key == bindparam("key")
)
_SPEND_KEY = WebRequest.__table__.insert()


class GuardedDatabase(Database):
    """`db` for one request: its first write() locks the campaign, runs `before` (refusals,
    replays), lets the service write, then runs `after(session, first_seq, last_seq)`
    and records the idempotency key, all in the service's own transaction. Without a
    seat and key (the GM's CLI) only `before` and `after` run.

    A Database by type so every service takes it; it does not open an engine of its
    own (no super().__init__): everything but write() and read() is the wrapped one's."""

    def __init__(
        self,
        db: Database,
        campaign_id: int,
        seat: Seat | None,
        key: str | None,
        before: Callable[[Session], None] | None = None,
        after: Callable[[Session, int, int], None] | None = None,
        *,
        route: str | None = None,
    ) -> None:
        """`route`: what the key is spent on; a keyed request must name it."""
        assert key is None or route is not None, "a keyed request names its route"
        self._db, self._campaign_id, self._seat, self._key, self._route = db, campaign_id, seat, key, route
        self._before, self._after = before, after
        self._used = False
        self.span: tuple[int, int] | None = None  # (first, last) seq the write appended, once it has
        # What the write appended, read back in its own transaction (the answer needs no read of its own)
        self.written: tuple[dict[str, Any], ...] = ()
        self.abandoned: frozenset[int] = frozenset()  # the commitments abandoned when it wrote

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)

    @contextmanager
    def read(self) -> Iterator[Session]:
        with self._db.read() as session:
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        if self._used:  # every service this wraps writes in one transaction
            raise RuntimeError("a guarded request writes once")
        self._used = True
        with self._db.write() as session:
            ledger.lock_campaign(session, self._campaign_id)
            campaign_by_id(session, self._campaign_id)
            keyed = self._seat is not None and self._key is not None
            done = (
                session.execute(_KEY_SPENT, {"session_id": self._seat.session_id, "key": self._key}).first()
                if keyed and self._seat is not None
                else None
            )
            if done is not None and done.route != self._route:
                raise KeyReused(
                    _("idempotency_key {key} was used for another request ({route}); send a new key").format(
                        key=self._key, route=done.route or "?"
                    )
                )
            if done is not None:
                raise Replayed(done.first_seq, done.last_seq)
            if self._before is not None:
                self._before(session)
            first = ledger.head(session, self._campaign_id)[0] + 1
            yield session
            session.flush()
            last = ledger.head(session, self._campaign_id)[0]
            if last < first:
                return
            self.span = (first, last)
            if self._after is not None:
                self._after(session, first, last)
            if keyed and self._seat is not None:
                session.execute(
                    _SPEND_KEY,
                    {
                        "session_id": self._seat.session_id,
                        "key": self._key,
                        "route": self._route,
                        "first_seq": first,
                        "last_seq": last,
                        "created_at": ledger.utc_now(),
                    },
                )
            from campaign.services.fair.seeds import abandoned_commitments

            self.written = tuple(
                json.loads(raw)
                for campaign_id, seq, raw in session.info.get(ledger.APPENDED, ())
                if campaign_id == self._campaign_id and first <= seq <= last
            )
            if any(isinstance((record.get("detail") or {}).get("fair"), dict) for record in self.written):
                self.abandoned = abandoned_commitments(session, self._campaign_id)  # only derived dice ask


def owned_character(session: Session, campaign_name: str, seat: Seat, name: str | None) -> Character | None:
    """The character `name` if the seat may act for it (the GM: any; a player: their own)."""
    from campaign.services.common import campaign_named, character_named

    if name is None:
        return None
    campaign = campaign_named(session, campaign_name)  # the request's, read under its lock
    character = character_named(session, campaign, name)
    if not seat.gm and (character.player_id is None or character.player_id != seat.player_id):
        raise NotYours(_("{name} is not a character of {player}").format(name=character.name, player=seat.player))
    return character


@dataclass(frozen=True, slots=True)
class SeatRoll:
    """POST /api/rolls: the entry as a player's page shows it (the hidden result of a
    secret roll only to its roller and the GM, who are the only ones who get this)."""

    seq: int
    actor: str
    character: str | None
    kind: str
    expression: str | None
    dice: list[int] | None
    total: int | None
    target: int | None
    outcome: str | None
    source: str | None
    reason: str | None
    secret: bool
    replayed: bool
    fairness: str | None = None
    share: str | None = None  # the share the entries record (the page compares it with the one it sent)
    entries: tuple[EntryEcho, ...] = ()  # every entry the request wrote, for the player's receipt
    rolled_by: str | None = None  # who tapped, when the entry's actor is another (a reunion: the GM's)
    sheet: str | None = None  # the skill or stat a success roll was read from: 聞き耳 12 (skill_rolls.skill_label)


@dataclass(frozen=True, slots=True)
class EntryEcho:
    """One entry a request wrote, as the player's receipt keeps it: its dice, what they
    made, and detail.fair (the share, the index run and the draws) to recompute them."""

    seq: int
    dice: list[int] | None
    total: int | None
    outcome: str | None
    fair: dict[str, Any] | None


def _records(session: Session, campaign_id: int, first: int, last: int) -> list[dict[str, Any]]:
    """The ledger records first..last, in order."""
    import json

    from sqlalchemy import text

    rows = session.execute(
        text("SELECT record FROM ledger WHERE campaign_id = :c AND seq BETWEEN :f AND :l ORDER BY seq"),
        {"c": campaign_id, "f": first, "l": last},
    )
    return [json.loads(raw) for (raw,) in rows]


def request_echo(db: Database, campaign_id: int, first: int, last: int) -> tuple[str | None, tuple[EntryEcho, ...]]:
    """(the share the request's entries record, each entry first..last) as the ledger has them."""
    with db.read() as session:
        return _echoes(_records(session, campaign_id, first, last))


def _echoes(records: list[dict[str, Any]]) -> tuple[str | None, tuple[EntryEcho, ...]]:
    echoes = []
    for record in records:
        fair = (record.get("detail") or {}).get("fair")
        fair = fair if isinstance(fair, dict) else None
        echoes.append(EntryEcho(record["seq"], record.get("dice"), record.get("total"), record.get("outcome"), fair))
    share = next((e.fair.get("share") for e in echoes if e.fair is not None), None)
    return share, tuple(echoes)


def seat_roll(
    db: Database,
    campaign_id: int,
    campaign_name: str,
    seat: Seat,
    command: Any,
    character: Any,
    key: Any,
    source: DiceSource,
    share: Any = None,
) -> SeatRoll:
    """Run `command` (a palette line or the free box's: services.checks.palette_lines, so a
    fright line runs the fright check) for `character` with the server's dice, as the
    seat's player (derived from the committed seed and the player's `share` while one
    is open)."""
    from campaign.services.checks.palette_lines import run_line
    from campaign.services.checks.rolls import is_secret
    from campaign.services.fair.seeds import fair_request

    key = idempotency_key(key)
    if not isinstance(command, str) or not command.strip():
        raise BadInput(_("command: a dice command such as 3D6<=12"))
    if len(command) > COMMAND_LIMIT:
        raise BadInput(
            _("command is too long ({count} characters, at most {COMMAND_LIMIT})").format(
                count=len(command), COMMAND_LIMIT=COMMAND_LIMIT
            )
        )
    if character is not None and not isinstance(character, str):
        raise BadInput(_("character: a name"))

    def owned(session: Session) -> None:
        owned_character(session, campaign_name, seat, character)

    actor = seat_actor(db, seat.player, {"session": seat.session_id})
    before = owned
    if not is_secret(command):  # a secret roll's dice must not be recomputable after the reveal
        source, before = fair_request(source, share, actor, campaign_id, before)
    guarded = GuardedDatabase(db, campaign_id, seat, key, before=before, route="rolls")
    try:
        view = run_line(guarded, campaign_name, actor, command, source, character=character)
    except Replayed as done:
        return entry_roll(db, campaign_name, seat, done.first_seq, replayed=True, span=(campaign_id, done.last_seq))
    fresh = written_roll(guarded, view["seq"])
    if fresh is not None:
        return fresh
    last = guarded.span[1] if guarded.span is not None else view["seq"]
    return entry_roll(db, campaign_name, seat, view["seq"], replayed=False, span=(campaign_id, last))


def written_roll(guarded: GuardedDatabase, seq: int) -> SeatRoll | None:
    """Entry `seq` as a SeatRoll from what the guarded write read back in its own
    transaction: the answer to a roll costs no further read (under a table's load those
    reads were a third of a roll's time: docs/performance-notes.md). None for a secret
    roll (its hidden result is peeked by entry_roll) or an entry the write did not append."""
    from campaign.services.checks.secret_rolls import secret_of
    from campaign.services.ledger.history import entry_view

    records = [record for record in guarded.written if record["seq"] >= seq]
    if not records or records[0]["seq"] != seq or secret_of(records[0]) is not None:
        return None
    view = entry_view(records[0], "", "", None, guarded.abandoned)
    share, entries = _echoes(records)
    return SeatRoll(
        seq=seq,
        actor=view["actor"],
        character=view["character"],
        kind=view["kind"],
        expression=view["expression"],
        dice=view["dice"],
        total=view["total"],
        target=view["target"],
        outcome=view["outcome"],
        source=view["source"],
        reason=view["reason"],
        secret=False,
        replayed=False,
        fairness=view.get("fairness"),
        share=share,
        entries=entries,
        sheet=_sheet(view),
    )


def entry_roll(
    db: Database, campaign_name: str, seat: Seat, seq: int, *, replayed: bool, span: tuple[int, int] | None = None
) -> SeatRoll:
    """Entry `seq` as a SeatRoll; a secret roll's hidden result for its roller or the GM.
    With `span` (the campaign's id, the request's last seq), the echo of every entry
    from `seq` to there and the share they record."""
    from campaign.services.checks.secret_rolls import GM, peek, secret_of
    from campaign.services.ledger.history import show_entry

    view = show_entry(db, campaign_name, seq)
    secret = secret_of(view) is not None
    shown = dict(view)
    if secret and (seat.gm or made_by(view, seat.player)):
        hidden = peek(db, campaign_name, seq, actor=GM if seat.gm else seat.player)
        shown.update(
            {name: hidden.get(name) for name in ("expression", "dice", "total", "target", "outcome", "reason")}
        )
    return SeatRoll(
        seq=view["seq"],
        actor=view["actor"],
        character=view["character"],
        kind=view["kind"],
        expression=shown["expression"],
        dice=shown["dice"],
        total=shown["total"],
        target=shown["target"],
        outcome=shown["outcome"],
        source=view["source"],
        reason=reason_label(shown["reason"]),  # a service's default in the page's language
        secret=secret,
        replayed=replayed,
        fairness=view.get("fairness"),
        sheet=None if secret else _sheet(view),
        **_echo(db, seq, span),
    )


def _sheet(view: dict[str, Any]) -> str | None:
    from campaign.services.checks.skill_rolls import skill_label

    found = (view.get("detail") or {}).get("from_sheet")
    return skill_label(found) if isinstance(found, dict) else None


def reunion_roll(
    db: Database, campaign_id: int, campaign_name: str, seat: Seat, seq: int, last: int, *, replayed: bool
) -> SeatRoll:
    """A tapped reunion call as the tapping player's page shows it: not the scenario's
    end (entry `seq`, the GM's act) but the reunion roll of theirs it made (their missing
    character's die, target and outcome; the first of them when they had several), named
    as theirs although the entry's actor is the GM (docs/rules.md "Missing and reunion
    check"). The echo still covers every entry from `seq` to `last`."""
    from dataclasses import replace

    from campaign.services.ledger.history import show_entry

    chosen = None
    for each in range(seq + 1, last + 1):
        view = show_entry(db, campaign_name, each)
        if view["kind"] != "reunion":
            continue
        theirs = (view.get("detail") or {}).get("on_behalf_of") == seat.player
        if chosen is None or theirs:
            chosen = view["seq"]
        if theirs:
            break
    shown = entry_roll(db, campaign_name, seat, chosen or seq, replayed=replayed)
    return replace(shown, rolled_by=seat.player, **_echo(db, seq, (campaign_id, last)))


def _echo(db: Database, first: int, span: tuple[int, int] | None) -> dict[str, Any]:
    if span is None:
        return {}
    share, entries = request_echo(db, span[0], first, max(first, span[1]))
    return {"share": share, "entries": entries}


@dataclass(frozen=True, slots=True)
class VoidAsked:
    """POST /api/void-requests: the `void_request` entry the GM approves with
    `campaign history approve SEQ` (or the GM's page)."""

    seq: int
    requested_void: int
    reason: str | None
    replayed: bool


def request_own_void(
    db: Database, campaign_id: int, campaign_name: str, seat: Seat, seq: Any, reason: Any, key: Any
) -> VoidAsked:
    """Ask for a void of an entry the seat's player made (the GM may ask for any)."""
    import json

    from sqlalchemy import text

    from campaign.errors import NotFound
    from campaign.services.disputes.answers import requests_service

    key = idempotency_key(key)
    if isinstance(seq, bool) or not isinstance(seq, int) or not 1 <= seq <= 2**31 - 1:
        raise BadInput(_("seq: the number of the entry to void"))
    if not isinstance(reason, str) or not reason.strip():
        raise BadInput(_("reason: why the entry should be voided"))

    def before(session: Session) -> None:
        row = session.execute(
            text("SELECT record FROM ledger WHERE campaign_id = :c AND seq = :s"), {"c": campaign_id, "s": seq}
        ).first()
        if row is None:
            raise NotFound(_("no entry #{seq}").format(seq=seq))
        record = json.loads(row.record)
        if not seat.gm and not made_by(record, seat.player):
            raise NotYours(
                _("entry #{seq} was made by {value}, not by {player}").format(
                    seq=seq, value=record.get("actor"), player=seat.player
                )
            )
        # what the GM's approval takes back (services.disputes.requests): a player's own
        # top-level roll, check, fright check or table roll; anything else is refused now
        if record.get("parent_seq") is not None or record.get("kind") not in REQUESTABLE:
            refusal = (
                _("entry #{seq} is a {kind} sub-entry: only the GM takes it back")
                if record.get("parent_seq") is not None
                else _("entry #{seq} is a {kind}: only the GM takes it back")
            )
            raise RuleRefused(refusal.format(seq=seq, kind=kind_label(str(record.get("kind")))))

    guarded = GuardedDatabase(db, campaign_id, seat, key, before=before, route="void-requests")
    try:
        made = requests_service().request_void(
            guarded, campaign_name, seat_actor(db, seat.player, {"session": seat.session_id}), seq, reason
        )
    except Replayed as done:
        with db.read() as session:
            record = json.loads(
                session.execute(
                    text("SELECT record FROM ledger WHERE campaign_id = :c AND seq = :s"),
                    {"c": campaign_id, "s": done.first_seq},
                ).scalar_one()
            )
        return VoidAsked(
            seq=done.first_seq,
            requested_void=record["detail"]["requested_void"],
            reason=record["reason"],
            replayed=True,
        )
    return VoidAsked(seq=made.seq, requested_void=made.requested_void, reason=made.reason, replayed=False)


def ruleset_of(db: Database, campaign_name: str | None) -> str:
    """The campaign's ruleset (the table page fills the palette by it)."""
    from campaign.services.common import campaign_named

    with db.read() as session:
        return campaign_named(session, campaign_name).ruleset

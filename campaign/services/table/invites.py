"""Seats at the table: one-time invites that become session cookies, and their revocation.

Why invites and not passwords: players join from a link the GM drops into the group's
chat; nobody has to choose, remember or type a password on a phone. An invite is 256
random bits (`secrets.token_urlsafe(32)`), good once, until it expires; opening it asks
for a confirmation (a link preview bot that fetches the page consumes nothing), and
confirming trades it for a session token of 256 bits more, set as an HttpOnly cookie.

Only SHA-256 digests of codes and tokens are stored (campaign.db.models_table), so the
database, a backup or a stolen copy of it opens no seat. Revoking a player ends every
session of theirs at once: each request looks its session up (one indexed row), there
is no cache to outlive a revocation.

The CSRF token of a session is derived from its token (SHA-256 over a label and the
token), so it needs no column and no server secret: only a holder of the cookie, or a
page the server gave it to (GET /api/session), knows it.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, bindparam, func, or_, select, update
from sqlalchemy.orm import Session

from campaign.core.text_rule import is_reserved_name
from campaign.db.database import Database
from campaign.db.models import Campaign, Player
from campaign.db.models_table import WebInvite, WebSession
from campaign.errors import BadInput, NotFound, RuleRefused
from campaign.i18n import _
from campaign.services.common import campaign_named, clean_name, player_named

CODE_BYTES = 32  # 256 random bits per invite code and per session token
DEFAULT_EXPIRY = 7 * 86400
DEVICE_EXPIRY = 10 * 60  # a device link is opened on the phone in the player's other hand
MAX_EXPIRY = 90 * 86400
JOIN_PREFIX = "/join/"
_STAMP = "%Y-%m-%dT%H:%M:%S.%fZ"


MAX_URL = 300


def clean_public_url(text: str, what: str) -> str:
    """The address players open, as `http(s)://host[:port][/path]/` with one trailing
    slash, so an invite's path appends to it (`.../join/CODE`). BadInput names `what`
    (the option or setting) when it is no such address."""
    from urllib.parse import urlsplit

    from campaign.errors import BadInput

    given = text.strip()
    try:
        parts = urlsplit(given)
        port = parts.port  # ValueError when not a number in 0..65535
    except ValueError:
        parts, port = None, None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.username is not None
        or parts.query
        or parts.fragment
        or len(given) > MAX_URL
        or any(ch.isspace() for ch in given)
    ):
        raise BadInput(
            _("{what}: {url!r} is not an http:// or https:// address such as https://table.example/").format(
                what=what, url=given
            )
        )
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}{'' if port is None else f':{port}'}{parts.path.rstrip('/')}/"


def join_link(public_url: str | None, join_path: str) -> str:
    """The whole link to send when the players' address is known, else the path."""
    return join_path if public_url is None else public_url + join_path.lstrip("/")


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def csrf_token(session_token: str) -> str:
    return hashlib.sha256(b"campaign-csrf\x00" + session_token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Invited:
    """`campaign invite PLAYER`: the link to share (shown once: only its hash is kept)."""

    player: str
    join_path: str
    expires: str
    gm: bool


@dataclass(frozen=True, slots=True)
class InviteRow:
    player: str
    gm: bool
    state: str  # pending | used | expired | revoked
    created: str
    expires: str


@dataclass(frozen=True, slots=True)
class SessionRow:
    id: int
    player: str
    gm: bool
    created: str
    revoked: str | None


@dataclass(frozen=True, slots=True)
class InviteList:
    invites: tuple[InviteRow, ...]
    sessions: tuple[SessionRow, ...]


@dataclass(frozen=True, slots=True)
class Revoked:
    player: str
    invites: int
    sessions: int


@dataclass(frozen=True, slots=True)
class Seat:
    """Who a request comes from: the session's row id, the actor it records (the
    player's name today, or the GM's seat's name), GM or not, and the player's id."""

    session_id: int
    player: str
    gm: bool
    player_id: int | None = None


@dataclass(frozen=True, slots=True)
class Joined:
    """A consumed invite: the new session token (for the cookie, never stored) and seat."""

    token: str
    seat: Seat


def _now() -> datetime:
    return datetime.now(UTC)


def _stamp(moment: datetime) -> str:
    return moment.strftime(_STAMP)


def invite(
    db: Database, campaign_name: str | None, player: str, *, gm: bool = False, expires_in: int = DEFAULT_EXPIRY
) -> Invited:
    """A one-time invite for `player` (a player of the campaign; with `gm`, any name the
    ledger should record for the GM's seat, usually "GM")."""
    if isinstance(expires_in, bool) or not 60 <= expires_in <= MAX_EXPIRY:
        raise BadInput(_("--expires must be between 1 minute and {value} days").format(value=MAX_EXPIRY // 86400))
    with db.write() as session:
        campaign = campaign_named(session, campaign_name)
        if gm:
            return issue_invite(session, campaign, clean_name(player, "player"), gm=True, expires_in=expires_in)
        return issue_invite(session, campaign, player_named(session, campaign, player), expires_in=expires_in)


def issue_invite(
    session: Session, campaign: Campaign, who: str | Player, *, gm: bool = False, expires_in: int = DEFAULT_EXPIRY
) -> Invited:
    """The invite row, in the caller's transaction (group mode's migrate-players issues
    one per former player role in the transaction that drops the role's mapping). `who`
    is the player, or with `gm` the name the GM's seat records."""
    code = secrets.token_urlsafe(CODE_BYTES)
    now = _now()
    name = who if isinstance(who, str) else who.name
    row = WebInvite(
        campaign_id=campaign.id,
        player_id=None if isinstance(who, str) else who.id,
        player=name,
        is_gm=gm,
        code_hash=digest(code),
        created_at=_stamp(now),
        expires_at=_stamp(now + timedelta(seconds=expires_in)),
    )
    session.add(row)
    session.flush()
    return Invited(player=name, join_path=JOIN_PREFIX + code, expires=row.expires_at, gm=gm)


def device_link(db: Database, campaign_id: int, seat: Seat, *, expires_in: int = DEVICE_EXPIRY) -> Invited:
    """A one-time link that signs another device of the same person into the same seat:
    an invite bound to the seat's player (the GM's seat: its name, with the GM's rights),
    good for minutes, not days. The seat must still be live in this transaction (a seat
    revoked since the request's look-up makes none), and revoking the player cancels it
    with their other unused invites (`revoke`)."""
    with db.write() as session:
        live = session.scalar(
            select(WebSession).where(
                WebSession.id == seat.session_id, WebSession.campaign_id == campaign_id, WebSession.revoked_at.is_(None)
            )
        )
        if live is None:
            raise RuleRefused(_("this seat was revoked: ask the GM for a new invite"))
        campaign = session.get_one(Campaign, campaign_id)
        if live.is_gm:
            return issue_invite(session, campaign, live.player, gm=True, expires_in=expires_in)
        if live.player_id is None:
            raise RuleRefused(_("this seat belongs to no player"))
        return issue_invite(session, campaign, session.get_one(Player, live.player_id), expires_in=expires_in)


def _state(row: WebInvite, now: str) -> str:
    if row.revoked_at is not None:
        return "revoked"
    if row.used_at is not None:
        return "used"
    return "expired" if row.expires_at <= now else "pending"


def list_invites(db: Database, campaign_name: str | None) -> InviteList:
    now = _stamp(_now())
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        invites = session.scalars(
            select(WebInvite).where(WebInvite.campaign_id == campaign.id).order_by(WebInvite.id)
        ).all()
        sessions = session.scalars(
            select(WebSession).where(WebSession.campaign_id == campaign.id).order_by(WebSession.id)
        ).all()
        rows = session.execute(select(Player.id, Player.name).where(Player.campaign_id == campaign.id))
        today: dict[int | None, str] = {row[0]: row[1] for row in rows}
        return InviteList(
            invites=tuple(
                InviteRow(
                    player=today.get(r.player_id, r.player) if r.player_id else r.player,
                    gm=r.is_gm,
                    state=_state(r, now),
                    created=r.created_at,
                    expires=r.expires_at,
                )
                for r in invites
            ),
            sessions=tuple(
                SessionRow(
                    id=r.id,
                    player=today.get(r.player_id, r.player) if r.player_id else r.player,
                    gm=r.is_gm,
                    created=r.created_at,
                    revoked=r.revoked_at,
                )
                for r in sessions
            ),
        )


def _seats_named(session: Session, campaign: Campaign, name: str, table: type[WebInvite] | type[WebSession]) -> Any:
    """Which seat rows `name` means today: the seats of the player now called `name`
    (whatever they were called when invited), or the GM's seats recorded as `name`."""
    player_id = session.scalar(select(Player.id).where(Player.campaign_id == campaign.id, Player.name == name))
    gm_seat = and_(table.is_gm.is_(True), table.player == name)
    return or_(table.player_id == player_id, gm_seat) if player_id is not None else gm_seat


def revoke(db: Database, campaign_name: str | None, player: str) -> Revoked:
    """End every session of `player` (by today's name) and cancel their unused invites, at once."""
    name = clean_name(player, "player")
    now = _stamp(_now())
    with db.write() as session:
        campaign = campaign_named(session, campaign_name)
        # Session.execute is typed Result; an UPDATE's result is a CursorResult (rowcount)
        invites = session.execute(  # type: ignore[attr-defined]
            update(WebInvite)
            .where(
                WebInvite.campaign_id == campaign.id,
                _seats_named(session, campaign, name, WebInvite),
                WebInvite.used_at.is_(None),
                WebInvite.revoked_at.is_(None),
            )
            .values(revoked_at=now)
        ).rowcount
        sessions = session.execute(  # type: ignore[attr-defined]
            update(WebSession)
            .where(
                WebSession.campaign_id == campaign.id,
                _seats_named(session, campaign, name, WebSession),
                WebSession.revoked_at.is_(None),
            )
            .values(revoked_at=now)
        ).rowcount
        if not invites and not sessions:
            raise NotFound(
                _("{name!r} has no open invite or session in campaign {name2!r}").format(name=name, name2=campaign.name)
            )
        return Revoked(player=name, invites=invites, sessions=sessions)


def _code_ok(code: str) -> bool:
    return 16 <= len(code) <= 100 and code.isascii() and all(ch.isalnum() or ch in "-_" for ch in code)


#: An invite code's length: token_urlsafe(CODE_BYTES) spells 32 bytes in 43 characters.
CODE_LENGTH = -(-CODE_BYTES * 4 // 3)
_CODE_RUN = re.compile(r"[A-Za-z0-9_-]+")


def code_in(text: str) -> str:
    """The invite code in a link as a chat passed it on: full-width letters folded (NFKC),
    and whatever was glued after the code dropped, punctuation (`。`, `)`) or words
    (`よろしく`, or letters: a code has a fixed length). "" when nothing code-like is there."""
    run = _CODE_RUN.match(unicodedata.normalize("NFKC", text))
    return run.group(0)[:CODE_LENGTH] if run else ""


def opened_invite(db: Database, campaign_id: int, code: str) -> tuple[WebInvite | None, str]:
    """(the invite a code opens, its state): pending, used, expired, revoked, or unknown
    with no invite, so the confirm page can say which. Consumes nothing."""
    if not _code_ok(code):
        return None, "unknown"
    with db.read() as session:
        row = session.scalar(
            select(WebInvite).where(WebInvite.code_hash == digest(code), WebInvite.campaign_id == campaign_id)
        )
        return (None, "unknown") if row is None else (row, _state(row, _stamp(_now())))


def join(db: Database, campaign_id: int, code: str) -> Joined:
    """Consume the invite and open a session. The consuming UPDATE names the invite's
    unused state in its WHERE, so of two confirmations racing, exactly one wins."""
    if not _code_ok(code):
        raise NotFound(_("this invite does not exist"))
    now = _stamp(_now())
    token = secrets.token_urlsafe(CODE_BYTES)
    with db.write() as session:
        row = session.scalar(
            select(WebInvite).where(WebInvite.code_hash == digest(code), WebInvite.campaign_id == campaign_id)
        )
        if row is None:
            raise NotFound(_("this invite does not exist"))
        state = _state(row, now)
        if state != "pending":
            words = {
                "used": lambda: _("this invite has been used already"),
                "revoked": lambda: _("this invite was revoked"),
                "expired": lambda: _("this invite has expired"),
            }
            raise RuleRefused(words[state]())
        won = session.execute(  # type: ignore[attr-defined]  # a CursorResult, as above
            update(WebInvite).where(WebInvite.id == row.id, WebInvite.used_at.is_(None)).values(used_at=now)
        ).rowcount
        if won != 1:
            raise RuleRefused(_("this invite is used"))
        seat = WebSession(
            campaign_id=campaign_id,
            player_id=row.player_id,
            player=row.player,
            is_gm=row.is_gm,
            token_hash=digest(token),
            invite_id=row.id,
            created_at=now,
        )
        session.add(seat)
        session.flush()
        name = session.get_one(Player, row.player_id).name if row.player_id is not None else seat.player
        return Joined(token=token, seat=Seat(session_id=seat.id, player=name, gm=seat.is_gm, player_id=seat.player_id))


def invite_campaign(db: Database, code: str) -> int | None:
    """The campaign an invite code was made for (whatever its state), else None: a
    server of several campaigns sends `/join/<code>`, as `invite` prints it, to that
    campaign's own path."""
    if not _code_ok(code):
        return None
    with db.read() as session:
        found: int | None = session.scalar(select(WebInvite.campaign_id).where(WebInvite.code_hash == digest(code)))
    return found


def session_campaign(db: Database, token: str | None) -> int | None:
    """The campaign a live session's cookie token belongs to, else None. A server of
    several campaigns (`serve --all`) tells a session carried to another campaign (403)
    from no session at all (401)."""
    if not token or not _code_ok(token):
        return None
    with db.read() as session:
        found: int | None = session.scalar(
            select(WebSession.campaign_id).where(
                WebSession.token_hash == digest(token), WebSession.revoked_at.is_(None)
            )
        )
    return found


# seat_for's statement, built once: every request of a signed-in page asks it, and one
# statement object keeps SQLAlchemy's cache key instead of working it out per request.
_SEAT = (
    select(WebSession.id, func.coalesce(Player.name, WebSession.player), WebSession.is_gm, WebSession.player_id)
    .outerjoin(Player, Player.id == WebSession.player_id)
    .where(
        WebSession.token_hash == bindparam("token_hash"),
        WebSession.campaign_id == bindparam("campaign_id"),
        WebSession.revoked_at.is_(None),
    )
)


def seat_for(db: Database, campaign_id: int, token: str | None) -> Seat | None:
    """The live session a cookie token belongs to, else None (unknown, revoked, malformed)."""
    if not token or not _code_ok(token):
        return None
    with db.read() as session:
        return read_seat(session, campaign_id, token)


def read_seat(session: Session, campaign_id: int, token: str) -> Seat | None:
    """seat_for in a transaction of the caller's (the table server's guard reads the
    page's facts in the same one)."""
    if not _code_ok(token):
        return None
    row = session.execute(_SEAT, {"token_hash": digest(token), "campaign_id": campaign_id}).first()
    if row is None or (not row[2] and row[3] is None):  # a player's seat of no player: no one's
        return None
    if not row[2] and is_reserved_name(row[1]):  # a player named like the GM before the rule: `db check`
        return None
    return Seat(session_id=row[0], player=row[1], gm=bool(row[2]), player_id=row[3])

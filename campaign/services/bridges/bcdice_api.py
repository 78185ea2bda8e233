"""BCDice-API tokens and the rolls dice bots make through them.

Dice bots and VTT add-ons send a chat line's command to a BCDice-API server and show
its answer; they never say who typed it. So the GM makes one token per bot (or per
player's add-on): `campaign invite NAME --bcdice [--player P] [--character C]`. The
token is 256 random bits, shown once, stored as its SHA-256 digest, and ended by
`invite revoke NAME`. Every roll through it is rolled here, by the server's OS RNG, at
the moment the request arrives, and recorded like any roll with source `bcdice-api`,
actor the token's player (else the token's name, marked `integration` in detail.via)
and the token's character. What that proves, and what it does not: docs/bcdice-api.md.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from sqlalchemy import select, update

from campaign.core.dice_source import DiceSource, SystemDice
from campaign.core.text_rule import is_reserved_name
from campaign.db.database import Database
from campaign.db.models import Player
from campaign.errors import BadInput, NotFound, RuleRefused
from campaign.i18n import _
from campaign.services.common import campaign_named, character_named, clean_name, clean_person_name, player_named

TOKEN_BYTES = 32
BASE_PREFIX = "/bcdice/"
SOURCE = "bcdice-api"
_STAMP = "%Y-%m-%dT%H:%M:%S.%fZ"


def _digest(token: str) -> str:
    return hashlib.sha256(b"campaign-bcdice\x00" + token.encode("utf-8")).hexdigest()


def _now() -> str:
    from datetime import datetime

    return datetime.now(UTC).strftime(_STAMP)


class BcdiceDice(SystemDice):
    """The OS RNG, recorded as `bcdice-api`: rolled by the server for a token's request."""

    kind = SOURCE


class AsBcdice:
    """Any dice source (a test's fixed faces) recorded as `bcdice-api`."""

    kind = SOURCE

    def __init__(self, inner: DiceSource) -> None:
        self._inner = inner

    def roll(self, sides: int) -> int:
        return self._inner.roll(sides)

    def ensure_all_used(self) -> None:
        return None  # a test's queue may hold the next request's faces


@dataclass(frozen=True, slots=True)
class BcdiceInvited:
    """`invite NAME --bcdice`: the base path for the bot's server URL (shown once)."""

    name: str
    player: str | None
    character: str | None
    base_path: str
    created: str


@dataclass(frozen=True, slots=True)
class Holder:
    """Whom a token's rolls are for: its row id (rate limit), name, player, character."""

    token_id: int
    name: str
    player: str | None
    character: str | None

    @property
    def actor(self) -> str:
        return self.player or self.name

    @property
    def via(self) -> dict[str, Any]:
        return {"bcdice_token": self.token_id, "token_name": self.name, "integration": self.player is None}


@dataclass(frozen=True, slots=True)
class BcdiceTokenRow:
    name: str
    player: str | None
    character: str | None
    created: str
    revoked: str | None


def make_token(
    db: Database, campaign_name: str | None, name: str, *, player: str | None = None, character: str | None = None
) -> BcdiceInvited:
    """A new token named `name`; `player` must be a player of the campaign and
    `character` a character (of that player, when both are given)."""
    name = clean_person_name(name, "token")
    token = secrets.token_urlsafe(TOKEN_BYTES)
    now = _now()
    with db.write() as session:
        campaign = campaign_named(session, campaign_name)
        owner_row = player_named(session, campaign, player) if player is not None else None
        player_name = owner_row.name if owner_row is not None else None
        character_name = None
        if character is not None:
            row = character_named(session, campaign, character)
            owner = row.player.name if row.player is not None else None
            if player_name is not None and owner != player_name:
                raise RuleRefused(
                    _("{name} is not a character of {player_name}").format(name=row.name, player_name=player_name)
                )
            character_name = row.name
        from campaign.db.models_bcdice import BcdiceToken

        session.add(
            BcdiceToken(
                campaign_id=campaign.id,
                name=name,
                player_id=owner_row.id if owner_row is not None else None,
                player=player_name,
                character=character_name,
                token_hash=_digest(token),
                created_at=now,
            )
        )
        session.flush()
    return BcdiceInvited(
        name=name, player=player_name, character=character_name, base_path=f"{BASE_PREFIX}{token}/", created=now
    )


def list_tokens(db: Database, campaign_name: str | None) -> tuple[BcdiceTokenRow, ...]:
    from campaign.db.models_bcdice import BcdiceToken

    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        rows = session.execute(
            select(BcdiceToken, Player.name)
            .outerjoin(Player, Player.id == BcdiceToken.player_id)
            .where(BcdiceToken.campaign_id == campaign.id)
            .order_by(BcdiceToken.id)
        ).all()
        return tuple(
            BcdiceTokenRow(
                name=r.name,
                player=today if r.player_id is not None else r.player,
                character=r.character,
                created=r.created_at,
                revoked=r.revoked_at,
            )
            for r, today in rows
        )


def revoke_tokens(db: Database, campaign_name: str | None, name: str) -> int:
    """End every live token named `name` at once; how many (0: none of that name).
    `invite revoke NAME` calls it before ending seats of the same name."""
    from campaign.db.models_bcdice import BcdiceToken

    name = clean_name(name, "token name")
    with db.write() as session:
        campaign = campaign_named(session, campaign_name)
        # Session.execute is typed Result; an UPDATE's result is a CursorResult (rowcount)
        return session.execute(  # type: ignore[attr-defined,no-any-return]
            update(BcdiceToken)
            .where(BcdiceToken.campaign_id == campaign.id, BcdiceToken.name == name, BcdiceToken.revoked_at.is_(None))
            .values(revoked_at=_now())
        ).rowcount


def rotate_token(db: Database, campaign_name: str | None, name: str) -> BcdiceInvited:
    """End the live token(s) named `name` and make its successor, for the same player and
    character, in one transaction: a leaked URL stops working the moment the new one
    exists, and there is no moment without a working token to paste into the bot."""
    from campaign.db.models_bcdice import BcdiceToken

    name = clean_name(name, "token")
    token, now = secrets.token_urlsafe(TOKEN_BYTES), _now()
    with db.write() as session:
        campaign = campaign_named(session, campaign_name)
        live = session.scalars(
            select(BcdiceToken)
            .where(BcdiceToken.campaign_id == campaign.id, BcdiceToken.name == name, BcdiceToken.revoked_at.is_(None))
            .order_by(BcdiceToken.id)
        ).all()
        if not live:
            raise NotFound(_("no live BCDice-API token named {name!r}").format(name=name))
        for row in live:
            row.revoked_at = now
        newest = live[-1]
        session.add(
            BcdiceToken(
                campaign_id=campaign.id,
                name=newest.name,
                player_id=newest.player_id,
                player=newest.player,
                character=newest.character,
                token_hash=_digest(token),
                created_at=now,
            )
        )
        session.flush()
        today = session.get(Player, newest.player_id) if newest.player_id is not None else None
        return BcdiceInvited(
            name=newest.name,
            player=today.name if today is not None else None,
            character=newest.character,
            base_path=f"{BASE_PREFIX}{token}/",
            created=now,
        )


def token_campaign(db: Database, token: str) -> int | None:
    """The campaign a live bot token belongs to, else None: a server of several
    campaigns answers `/bcdice/<token>/`, as `invite bot` prints it, as that campaign."""
    from campaign.db.models_bcdice import BcdiceToken

    if not 16 <= len(token) <= 100 or not token.isascii() or not all(ch.isalnum() or ch in "-_" for ch in token):
        return None
    with db.read() as session:
        found: int | None = session.scalar(
            select(BcdiceToken.campaign_id).where(
                BcdiceToken.token_hash == _digest(token), BcdiceToken.revoked_at.is_(None)
            )
        )
    return found


def holder_for(db: Database, campaign_id: int, token: str) -> Holder | None:
    """The live token's holder, else None (unknown, revoked, malformed)."""
    from campaign.db.models_bcdice import BcdiceToken

    if not 16 <= len(token) <= 100 or not token.isascii() or not all(ch.isalnum() or ch in "-_" for ch in token):
        return None
    with db.read() as session:
        row = session.execute(
            select(BcdiceToken.id, BcdiceToken.name, Player.name, BcdiceToken.character)
            .outerjoin(Player, Player.id == BcdiceToken.player_id)
            .where(
                BcdiceToken.token_hash == _digest(token),
                BcdiceToken.campaign_id == campaign_id,
                BcdiceToken.revoked_at.is_(None),
            )
        ).first()
    if row is None or is_reserved_name(row[2] or row[1]):  # its actor would read as the GM's: `db check`
        return None
    # the player's name today (a rename carries the token); None: an integration's token
    return Holder(token_id=row[0], name=row[1], player=row[2], character=row[3])


class _Actor(str):
    """The holder's actor name carrying `via` (campaign.ledger puts it in detail.via)."""

    via: dict[str, Any]

    def __new__(cls, holder: Holder) -> _Actor:
        made = super().__new__(cls, holder.actor)
        made.via = holder.via
        return made


def api_roll(
    db: Database,
    campaign_name: str,
    holder: Holder,
    command: str,
    comment: str | None,
    source: DiceSource,
    *,
    share: Any = None,
) -> dict[str, Any]:
    """Roll `command` for the holder and return the entry as `history show` has it (a
    secret roll's hidden result included: its roller is the one asking). A repeat
    (`x3 3D6<=12`) is services.checks.rolls' repeat, its entries each shown so.

    While a seed is committed the dice are derived from it and the request's `share`
    (docs/fair-dice.md): `provable` with a share, `server` without one; a secret roll's
    dice never are (its reveal would let anyone recompute them early). A repeat is one
    request: the share makes every one of its rolls."""
    from campaign.services.checks.rolls import is_secret, roll
    from campaign.services.fair.seeds import fair_request
    from campaign.services.ledger.browse import campaign_identity
    from campaign.services.table.writes import GuardedDatabase

    dice: DiceSource
    actor, dice = _Actor(holder), AsBcdice(source)
    writer: Database = db
    if not is_secret(command):
        campaign_id = campaign_identity(db, campaign_name)[0]
        dice, before = fair_request(dice, share, actor, campaign_id)
        writer = GuardedDatabase(db, campaign_id, None, None, before=before)
    view = roll(writer, campaign_name, actor, command, dice, character=holder.character, reason=comment)
    if view["kind"] == "repeat":
        return {**view, "entries": [_as_asked(db, campaign_name, holder, entry) for entry in view["entries"]]}
    return _as_asked(db, campaign_name, holder, view)


def _as_asked(db: Database, campaign_name: str, holder: Holder, view: dict[str, Any]) -> dict[str, Any]:
    """The entry with a secret roll's hidden result, for its roller, who asked."""
    from campaign.services.checks.secret_rolls import peek, secret_of

    if secret_of(view) is None:
        return view
    hidden = peek(db, campaign_name, view["seq"], actor=holder.actor)
    return {
        **view,
        **{
            key: hidden.get(key)
            for key in ("expression", "dice", "total", "target", "outcome", "margin", "reason", "detail")
            if key in hidden
        },
    }


@dataclass(frozen=True, slots=True)
class OriginalTable:
    title: str
    dice: str  # 2D6, 1D100, D66
    rows: dict[int, str]


def parse_original_table(text: str) -> OriginalTable:
    """BCDice's original-table text: a title line, a dice line (NdM or D66), then
    `value:words` lines. Malformed text is BadInput (the API's unsupported command)."""
    import re

    lines = [line.strip() for line in text.replace("\r\n", "\n").split("\n") if line.strip()]
    if len(lines) < 3:
        raise BadInput(_("an original table needs a title, a dice line and rows"))
    title, dice = lines[0], lines[1].upper()
    if not re.fullmatch(r"(?:[1-9]\d?D(?:[1-9]\d{0,2})|D66)", dice):
        raise BadInput(_("original table: {value!r} is not a dice line such as 2D6 or D66").format(value=lines[1]))
    rows: dict[int, str] = {}
    for line in lines[2:]:
        key, sep, words = line.partition(":")
        if not sep or not key.strip().isdigit():
            raise BadInput(_("original table: {value!r} is not a `value:text` row").format(value=line[:40]))
        rows[int(key)] = words.strip()
    return OriginalTable(title=title[:100], dice=dice, rows=rows)


def roll_original_table(
    db: Database, campaign_name: str, holder: Holder, text: str, source: DiceSource, *, share: Any = None
) -> dict[str, Any]:
    """Roll an original table and record it as a table roll (kind `table`) that holds
    its own words: the table is the group's text, not a seed, so the record keeps the
    row it landed on and the SHA-256 of the whole table it was sent. Its dice are
    derived from a committed seed and `share` like a roll's (api_roll)."""
    from campaign import ledger
    from campaign.services.common import campaign_transaction
    from campaign.services.fair.seeds import fair_request

    table = parse_original_table(text)
    actor = _Actor(holder)
    with campaign_transaction(db, campaign_name) as (session, campaign):
        dice, arm = fair_request(AsBcdice(source), share, actor, campaign.id)
        if arm is not None:
            arm(session)  # the campaign is locked: the entry's seq is the next one
        if table.dice == "D66":
            faces = [dice.roll(6), dice.roll(6)]
            value, sides = faces[0] * 10 + faces[1], 6
        else:
            count, sides = map(int, table.dice.split("D"))
            faces = [dice.roll(sides) for _ in range(count)]
            value = sum(faces)
        if value not in table.rows:
            raise BadInput(_("original table: no row for {value}").format(value=value))
        words = table.rows[value]
        who = character_named(session, campaign, holder.character).name if holder.character else None
        appended = ledger.append(
            session,
            campaign,
            actor,
            ledger.NewEntry(
                kind="table",
                character=who,
                expression=table.dice,
                dice=faces,
                total=value,
                source=SOURCE,
                reason=table.title,
                detail={
                    "name": table.title,
                    "lines": [f"{value}: {words}"],
                    "original_table": {
                        "dice": table.dice,
                        "sides": sides,
                        "value": value,
                        "sha256": hashlib.sha256(text.encode()).hexdigest(),
                    },
                },
            ),
        )
    return {"seq": appended.seq, "title": table.title, "value": value, "faces": faces, "sides": sides, "words": words}

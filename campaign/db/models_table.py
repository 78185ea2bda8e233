"""The table server's own rows: invites, sessions, idempotent requests, GM calls.

These are server credentials and bookkeeping, not campaign state. None of them is a
projection of the ledger, none is exported: an invite or a session cookie copied into
a campaign file would hand a seat at the table to whoever reads the file, and a call
is only a question the GM asked ("roll your fright check") until a roll answers it;
the answer is an ordinary ledger entry that names the call (detail.via.call).

Secrets (invite codes, session tokens) are stored only as SHA-256 hex digests: reading
the database gives nobody a working link or cookie.
"""

from __future__ import annotations

from typing import Any, ClassVar

from sqlalchemy import JSON, Boolean, CheckConstraint, ForeignKey, Index, Integer, String, Table, Text
from sqlalchemy.orm import Mapped, mapped_column

from campaign.db.models import Base


class WebInvite(Base):
    __tablename__ = "web_invites"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), index=True)
    # The seat's player (NULL for the GM's seat): the seat follows the person, so a
    # rename carries it and a new player with an old name gets none of it.
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    # The name when the invite was made (a label for listings); for the GM's seat, the
    # name the ledger records as its actor.
    player: Mapped[str] = mapped_column(String(200))
    is_gm: Mapped[bool] = mapped_column(Boolean, default=False)
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[str] = mapped_column(String(32))
    expires_at: Mapped[str] = mapped_column(String(32))
    used_at: Mapped[str | None] = mapped_column(String(32))
    revoked_at: Mapped[str | None] = mapped_column(String(32))


class WebSession(Base):
    __tablename__ = "web_sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), index=True)
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))  # as WebInvite's
    player: Mapped[str] = mapped_column(String(200))
    is_gm: Mapped[bool] = mapped_column(Boolean, default=False)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    invite_id: Mapped[int | None] = mapped_column(ForeignKey("web_invites.id"))
    created_at: Mapped[str] = mapped_column(String(32))
    revoked_at: Mapped[str | None] = mapped_column(String(32))


class WebRequest(Base):
    """One idempotency key of one session, and the entries its request appended: a
    retried or double-tapped POST finds this row (written in the transaction of the
    entries) and gets the same entry back instead of a second roll."""

    __tablename__ = "web_requests"
    __table__: ClassVar[Table]  # declared by its columns: a Table (written through its Core insert)

    session_id: Mapped[int] = mapped_column(ForeignKey("web_sessions.id"), primary_key=True)
    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    # What the key was spent on (`rolls`, `calls/7/roll`, `void-requests`): the same key
    # on another route is another request, refused (409), never answered with this one's
    # entries. NULL: a key from before the column, which matches no route.
    route: Mapped[str | None] = mapped_column(String(100))
    first_seq: Mapped[int] = mapped_column(Integer)
    last_seq: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[str] = mapped_column(String(32))


class TableCall(Base):
    """A roll the GM asked for and a player (or the GM, for an absent one) answers once."""

    __tablename__ = "table_calls"
    __table_args__ = (
        CheckConstraint("kind IN ('fright', 'check', 'reunion')", name="kind"),
        CheckConstraint("state IN ('pending', 'rolled', 'cancelled')", name="state"),
        Index("ix_table_calls_campaign_state", "campaign_id", "state"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    kind: Mapped[str] = mapped_column(String(10))
    character: Mapped[str] = mapped_column(String(200))
    # Who is to roll: the character's player when the call was made (None: the GM's NPC),
    # by id (whom the call is for) and by the name they had then (a label).
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    player: Mapped[str | None] = mapped_column(String(200))
    # What the service is called with (modifier, check kind and target ...), as JSON.
    params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    reason: Mapped[str | None] = mapped_column(Text)
    created_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[str] = mapped_column(String(32))
    state: Mapped[str] = mapped_column(String(10), default="pending")
    result_seq: Mapped[int | None] = mapped_column(Integer)
    resolved_by: Mapped[str | None] = mapped_column(String(200))
    resolved_at: Mapped[str | None] = mapped_column(String(32))

"""The BCDice-API tokens: one row per dice bot or VTT add-on the GM let roll.

A token is a credential of the server like a session (campaign.db.models_table says
why these rows are neither state nor exported); it is kept apart from web_sessions
because it is no browser seat: it opens only the /bcdice/<token>/ routes, never a
page or a write of the table API, and it carries the character its rolls are for.
Only the SHA-256 digest of the token is stored.
"""

from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from campaign.db.models import Base


class BcdiceToken(Base):
    __tablename__ = "bcdice_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), index=True)
    # The token's name (what `invite revoke NAME` names); the actor when no player.
    name: Mapped[str] = mapped_column(String(200))
    # Whose rolls these are, by id (a rename carries the token); `player` is the name
    # they had when the token was made, a label.
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    player: Mapped[str | None] = mapped_column(String(200))
    character: Mapped[str | None] = mapped_column(String(200))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[str] = mapped_column(String(32))
    revoked_at: Mapped[str | None] = mapped_column(String(32))

"""Group mode's one table: which PostgreSQL login role is which player (or the GM).

Role names are ASCII slugs made from ids (player names may be Japanese); this table is
how the database itself turns `session_user` back into a player, in the ledger's actor
trigger and the row-level security policies (migration 0007). SQLite databases carry
the table too (one schema for both backends) but never use it.
"""

from __future__ import annotations

from sqlalchemy import Boolean, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from campaign.db.models import Base


class GroupRole(Base):
    __tablename__ = "group_roles"

    role_name: Mapped[str] = mapped_column(String(63), primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), index=True)
    # NULL for the GM's role.
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    # The name the ledger records: the player's name, or "GM".
    player_name: Mapped[str] = mapped_column(String(200))
    is_gm: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[str] = mapped_column(String(32))
    revoked_at: Mapped[str | None] = mapped_column(String(32))

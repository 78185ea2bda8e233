"""The seeds of provably fair dice (campaign.core.fair_dice), GM only until revealed.

A `seed_commit` entry holds only SHA-256 of the seed; the seed itself waits here, like a
secret roll's hidden result (models_state.SecretRoll), out of the ledger, the feed, the
pages and exports, until `scenario end` or `history reveal-seed` appends it in a
`seed_reveal` entry. Not state (no replay makes it): it is data the chain commits to.
"""

from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from campaign.db.models import Base


class FairSeed(Base):
    __tablename__ = "fair_seeds"

    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), primary_key=True)
    # The seq of the seed_commit entry that commits to it.
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    seed: Mapped[str] = mapped_column(String(64))


class FairShare(Base):
    """Every share a request derived dice from, once per commitment.

    A share used twice under one seed gives the same dice twice, so a server that
    replays a share it saw (or a request sent again with another key) would choose
    among known outcomes. The write path adds the row in the entries' own transaction;
    the primary key makes the database itself refuse a second use, whatever code runs.
    Rebuilt from the ledger on import (services.ledger.transfer), like the rest of the state."""

    __tablename__ = "fair_shares"

    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), primary_key=True)
    # The seq of the seed_commit entry whose seed the dice came from.
    commit_seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    share: Mapped[str] = mapped_column(String(64), primary_key=True)
    # The first entry the request wrote (its first die is index 0 of the share's run).
    seq: Mapped[int] = mapped_column(Integer)

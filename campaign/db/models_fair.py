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

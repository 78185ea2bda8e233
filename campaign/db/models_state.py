"""The state tables: relationships, traits, conditions, scenarios, disappearances,
searches and reunion checks (see campaign.db.models for why they live apart).

Import them from campaign.db.models like the others; that module loads this one on first use.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Boolean, CheckConstraint, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from campaign.db.models import Base


class Relationship(Base):
    """A tie between two characters; treated as symmetric by the rules."""

    __tablename__ = "relationships"
    __table_args__ = (
        UniqueConstraint("from_id", "to_id", name="uq_relationships_pair"),
        CheckConstraint("from_id <> to_id", name="not_self"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    from_id: Mapped[int] = mapped_column(ForeignKey("characters.id"))
    to_id: Mapped[int] = mapped_column(ForeignKey("characters.id"))
    note: Mapped[str | None] = mapped_column(Text)


class Trait(Base):
    """An advantage, disadvantage or quirk. Removal is soft so a void can restore it."""

    __tablename__ = "traits"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    character_id: Mapped[int] = mapped_column(ForeignKey("characters.id"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    category: Mapped[str] = mapped_column(String(50))
    cp: Mapped[int] = mapped_column(Integer)
    # Fright-check disadvantages lower the CP total but do not count toward the limit.
    counts_toward_limit: Mapped[bool] = mapped_column(Boolean, default=True)
    # The part of `cp` outside the disadvantage limit (docs/rules.md "Fright check"): all of a fright-check trait's
    # CP; for a GM's mild phobia that a fright check made severe, only the added part.
    unlimited_cp: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # "<seq>.<n>": the n-th trait made by ledger entry <seq>; stable across export/import.
    origin: Mapped[str] = mapped_column(String(40))
    source_seq: Mapped[int | None] = mapped_column(Integer)
    removed_seq: Mapped[int | None] = mapped_column(Integer)


class Condition(Base):
    """A temporary state (stunned, unconscious ...) with its rolled duration."""

    __tablename__ = "conditions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    character_id: Mapped[int] = mapped_column(ForeignKey("characters.id"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    duration: Mapped[str | None] = mapped_column(String(100))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    origin: Mapped[str] = mapped_column(String(40))
    source_seq: Mapped[int | None] = mapped_column(Integer)
    cleared_seq: Mapped[int | None] = mapped_column(Integer)
    # Campaign time (campaign.core.gametime) it began, and for a timed one when it runs out.
    since_clock: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    until_clock: Mapped[int | None] = mapped_column(Integer)


class Scenario(Base):
    __tablename__ = "scenarios"
    __table_args__ = (UniqueConstraint("campaign_id", "number", name="uq_scenarios_campaign_number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    number: Mapped[int] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(String(200))
    started_seq: Mapped[int] = mapped_column(Integer)
    ended_seq: Mapped[int | None] = mapped_column(Integer)
    started_at: Mapped[str] = mapped_column(String(32))
    ended_at: Mapped[str | None] = mapped_column(String(32))


class ScenarioParticipant(Base):
    __tablename__ = "scenario_participants"

    scenario_id: Mapped[int] = mapped_column(ForeignKey("scenarios.id"), primary_key=True)
    character_id: Mapped[int] = mapped_column(ForeignKey("characters.id"), primary_key=True)


class Disappearance(Base):
    """A character gone missing (行方不明) until a reunion check succeeds."""

    __tablename__ = "disappearances"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    character_id: Mapped[int] = mapped_column(ForeignKey("characters.id"), index=True)
    faces: Mapped[int] = mapped_column(Integer, default=6)
    reason: Mapped[str | None] = mapped_column(Text)
    since_seq: Mapped[int] = mapped_column(Integer)
    since_at: Mapped[str] = mapped_column(String(32))
    since_scenario_id: Mapped[int | None] = mapped_column(ForeignKey("scenarios.id"))
    reunited_seq: Mapped[int | None] = mapped_column(Integer)


class Search(Base):
    """One PC out searching (捜索) for one missing character."""

    __tablename__ = "searches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    disappearance_id: Mapped[int] = mapped_column(ForeignKey("disappearances.id"), index=True)
    searcher_id: Mapped[int] = mapped_column(ForeignKey("characters.id"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    started_seq: Mapped[int] = mapped_column(Integer)
    scenario_id: Mapped[int | None] = mapped_column(ForeignKey("scenarios.id"))
    ended_seq: Mapped[int | None] = mapped_column(Integer)


class ReunionCheck(Base):
    """At most one reunion check per disappearance per scenario end."""

    __tablename__ = "reunion_checks"
    __table_args__ = (UniqueConstraint("disappearance_id", "scenario_id", name="uq_reunion_checks_once"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    disappearance_id: Mapped[int] = mapped_column(ForeignKey("disappearances.id"))
    scenario_id: Mapped[int] = mapped_column(ForeignKey("scenarios.id"))
    seq: Mapped[int] = mapped_column(Integer)
    roll: Mapped[int] = mapped_column(Integer)
    threshold: Mapped[int] = mapped_column(Integer)
    success: Mapped[bool] = mapped_column(Boolean)


class SealHead(Base):
    """The head hash each `history seal` printed, kept beside the chain.

    `history verify --head` looks a pasted hash (or a prefix of it) up here: a hash that
    is no seal at all is a typo, and only a seal whose entry no longer carries it in the
    chain means the history was rewritten. Import rebuilds it from the seal entries.
    """

    __tablename__ = "seal_heads"

    # Keyed by hash: a seal at a seq whose first seal was cut off by a truncation is a new row.
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), primary_key=True)
    hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer)


class SecretRoll(Base):
    """The hidden half of a secret roll (GM only): the result and the salt.

    The ledger entry holds only SHA-256(salt + canonical result), the commitment; a
    `reveal` entry later discloses both, and `history verify` checks the pair against
    the commitment. Not state (no replay makes it): it is data the chain commits to.
    """

    __tablename__ = "secret_rolls"

    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    salt: Mapped[str] = mapped_column(String(64))
    result: Mapped[str] = mapped_column(Text)  # canonical JSON, exactly as committed

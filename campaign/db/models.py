"""The schema, as SQLAlchemy 2 typed models.

Characters keep their present state (stats, CP, traits, conditions, pools); the ledger
keeps how they got there. Every state row that a ledger entry created or ended points
back at that entry's seq, which is what lets a `void` entry reverse it exactly.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Campaign(Base):
    __tablename__ = "campaigns"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    ruleset: Mapped[str] = mapped_column(String(50))
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[str] = mapped_column(String(32))


class Player(Base):
    __tablename__ = "players"
    __table_args__ = (UniqueConstraint("campaign_id", "name", name="uq_players_campaign_name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    name: Mapped[str] = mapped_column(String(200))


class Character(Base):
    __tablename__ = "characters"
    __table_args__ = (
        UniqueConstraint("campaign_id", "name", name="uq_characters_campaign_name"),
        CheckConstraint("kind IN ('pc', 'npc')", name="kind"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"))
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(3))
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    summoner_id: Mapped[int | None] = mapped_column(ForeignKey("characters.id"))
    # Stat name -> integer. Any names, Japanese included (心/技/体).
    stats: Mapped[dict[str, int]] = mapped_column(JSON, default=dict)
    cp_total: Mapped[int] = mapped_column(Integer, default=0)
    # Current value of depletable pools (FP, HP); the maximum is the stat of that name.
    pools: Mapped[dict[str, int]] = mapped_column(JSON, default=dict)

    player: Mapped[Player | None] = relationship(lazy="joined")
    summoner: Mapped[Character | None] = relationship(remote_side="Character.id", lazy="joined")


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
    __table_args__ = (
        UniqueConstraint("disappearance_id", "scenario_id", name="uq_reunion_checks_once"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    disappearance_id: Mapped[int] = mapped_column(ForeignKey("disappearances.id"))
    scenario_id: Mapped[int] = mapped_column(ForeignKey("scenarios.id"))
    seq: Mapped[int] = mapped_column(Integer)
    roll: Mapped[int] = mapped_column(Integer)
    threshold: Mapped[int] = mapped_column(Integer)
    success: Mapped[bool] = mapped_column(Boolean)


class LedgerEntry(Base):
    """One link of a campaign's hash chain.

    `record` is the canonical JSON that the hash covers. The other columns (actor, kind,
    character, scenario, outcome, parent_seq, voids_seq, at) are copies kept for indexing;
    `history verify` checks each against the record, so editing any column is detected.
    Triggers created by the migration refuse UPDATE and DELETE.
    """

    __tablename__ = "ledger"
    __table_args__ = (
        Index("ix_ledger_campaign_kind", "campaign_id", "kind", "seq"),
        Index("ix_ledger_campaign_character", "campaign_id", "character", "kind", "seq"),
        Index("ix_ledger_campaign_scenario", "campaign_id", "scenario", "seq"),
        Index("ix_ledger_campaign_outcome", "campaign_id", "outcome", "seq"),
        Index("ix_ledger_campaign_at", "campaign_id", "at"),
        Index("ix_ledger_campaign_parent", "campaign_id", "parent_seq"),
        Index("ix_ledger_campaign_voids", "campaign_id", "voids_seq"),
        Index("ix_ledger_campaign_actor", "campaign_id", "actor", "seq"),
    )

    campaign_id: Mapped[int] = mapped_column(ForeignKey("campaigns.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    at: Mapped[str] = mapped_column(String(32))
    actor: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(20))
    character: Mapped[str | None] = mapped_column(String(200))
    scenario: Mapped[int | None] = mapped_column(Integer)
    outcome: Mapped[str | None] = mapped_column(String(20))
    parent_seq: Mapped[int | None] = mapped_column(Integer)
    voids_seq: Mapped[int | None] = mapped_column(Integer)
    record: Mapped[str] = mapped_column(Text)
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))

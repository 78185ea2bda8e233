"""The schema, as SQLAlchemy 2 typed models.

Characters keep their present state (stats, CP, traits, conditions, pools); the ledger
keeps how they got there. Every state row that a ledger entry created or ended points
back at that entry's seq, which is what lets a `void` entry reverse it exactly.

Mapping a class costs SQLAlchemy about 1.5 ms per process, so the classes every command
needs (campaigns, players, characters, the ledger) live here and the state tables in
campaign.db.models_state, imported on first use of one of their names: `campaign roll`
and `campaign history` never map them. Anything that needs the whole schema (Alembic)
calls load_all().
"""

from __future__ import annotations

from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
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
    # Campaign time: seconds since day 1, 00:00 (campaign.core.gametime); moved by `time advance`.
    clock: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # The name the ledger records carry when it differs from `name` (an import renamed
    # the campaign, `import --as-name`); None: the chain carries `name`. See ledger_name.
    chain_name: Mapped[str | None] = mapped_column(String(200), nullable=True)

    @property
    def ledger_name(self) -> str:
        """The campaign name inside every hashed record of this campaign's chain.

        Why a stored name rather than "whatever the first entry says": the records are
        hashed, so a renamed campaign cannot rewrite them, and its chain must keep
        verifying (`history verify`, proof bundles, export and re-import). The row says
        which name its chain is written under; entries appended after a rename carry
        that same name, so one chain never mixes two. Reading it from the first entry
        would let a forged first entry decide what every later entry is checked
        against; a column is one explicit fact, set only by import."""
        return self.chain_name or self.name


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
        CheckConstraint("status IN ('active', 'dead', 'retired')", name="status"),
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
    # Current value of depletable pools (FP, HP); the maximum is the stat of that name, or
    # on a 3rd-edition sheet without one, ST (FP) or HT (HP): campaign.core.derived.
    pools: Mapped[dict[str, int]] = mapped_column(JSON, default=dict)
    # Lifecycle: a dead or retired character stays in the campaign (and its history) but
    # takes part in no scenario and no search.
    status: Mapped[str] = mapped_column(String(10), default="active", server_default="active")
    # CP given by awards (scenario end --award, `award`), already included in cp_total.
    cp_awarded: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # The sheet as players write it (projection.ops_sheet): skill name -> {"level", "attr",
    # "difficulty"}, and note / equipment lines. NULL: none (rows older than revision 0015).
    skills: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    notes: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    items: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    # How the name is read, in kana (`char add 鈴音 --reading すずね`): listings sort by it and
    # "did you mean" matches it (campaign.core.suggest). NULL: none recorded (revision 0018).
    reading: Mapped[str | None] = mapped_column(String(200), nullable=True)

    player: Mapped[Player | None] = relationship(lazy="joined")
    summoner: Mapped[Character | None] = relationship(remote_side="Character.id", lazy="joined")


class LedgerEntry(Base):
    """One link of a campaign's hash chain.

    `record` is the canonical JSON that the hash covers. The other columns (actor, kind,
    character, scenario, outcome, parent_seq, voids_seq, at) are copies kept for indexing;
    `history verify` checks each against the record, so editing any column is detected.
    Triggers created by the migration refuse UPDATE and DELETE.
    """

    __table__: ClassVar[Table]  # declared by its columns: a Table (written through its Core insert)
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


_STATE_MODELS = frozenset(
    {
        "Relationship",
        "Trait",
        "Condition",
        "Scenario",
        "ScenarioParticipant",
        "Disappearance",
        "Search",
        "ReunionCheck",
        "SealHead",
        "SecretRoll",
    }
)


def load_all() -> None:
    """Map every table (Base.metadata is then the whole schema)."""
    import campaign.db.models_bcdice  # noqa: F401
    import campaign.db.models_fair  # noqa: F401
    import campaign.db.models_group  # noqa: F401
    import campaign.db.models_state  # noqa: F401
    import campaign.db.models_table  # noqa: F401


def __getattr__(name: str) -> Any:
    if name in _STATE_MODELS:
        from campaign.db import models_state

        return getattr(models_state, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

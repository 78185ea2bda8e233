"""BCDice-API tokens (dice bots and VTT add-ons rolling through the ledger)

Revision ID: 0013
Revises: 0011
Create Date: 2026-12-01 21:00:00

One small table beside 0011's: a token opens only /bcdice/<token>/, names the player
and character its rolls are for, and is stored as a SHA-256 digest
(campaign.db.models_bcdice says why it is not a web session).
"""
import sqlalchemy as sa
from alembic import op


revision = '0013'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bcdice_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("player", sa.String(length=200), nullable=True),
        sa.Column("character", sa.String(length=200), nullable=True),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("revoked_at", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"],
                                name=op.f("fk_bcdice_tokens_campaign_id_campaigns")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bcdice_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_bcdice_tokens_token_hash")),
    )
    op.create_index(op.f("ix_bcdice_tokens_campaign_id"), "bcdice_tokens", ["campaign_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_bcdice_tokens_campaign_id"), table_name="bcdice_tokens")
    op.drop_table("bcdice_tokens")

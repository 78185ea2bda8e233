"""fair_seeds: the seeds provably fair dice derive from, GM only until revealed

Revision ID: 0014
Revises: 0011
Create Date: 2026-12-01 21:00:00

The ledger's seed_commit entry holds SHA-256 of the seed; the seed waits in this table
until a seed_reveal entry discloses it (campaign.db.models_fair says why it is not
exported).
"""
import sqlalchemy as sa
from alembic import op


revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fair_seeds",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("seed", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], name=op.f("fk_fair_seeds_campaign_id_campaigns")),
        sa.PrimaryKeyConstraint("campaign_id", "seq", name=op.f("pk_fair_seeds")),
    )


def downgrade() -> None:
    op.drop_table("fair_seeds")

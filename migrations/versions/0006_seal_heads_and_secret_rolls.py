"""seal heads kept for `verify --head`; the hidden half of secret rolls

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 03:20:00

seal_heads: the hash every seal printed, so a pasted head (or a prefix of it) can be
told apart: a typo matches no seal, a rewritten history has a seal the chain no longer
leads to. Filled here from the seal entries already in the ledger.
secret_rolls: result and salt of secret rolls, which the ledger only commits to.
"""
import sqlalchemy as sa
from alembic import op


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seal_heads",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], name=op.f("fk_seal_heads_campaign_id_campaigns")),
        sa.PrimaryKeyConstraint("campaign_id", "hash", name=op.f("pk_seal_heads")),
    )
    op.create_table(
        "secret_rolls",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("salt", sa.String(length=64), nullable=False),
        sa.Column("result", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], name=op.f("fk_secret_rolls_campaign_id_campaigns")),
        sa.PrimaryKeyConstraint("campaign_id", "seq", name=op.f("pk_secret_rolls")),
    )
    op.execute("INSERT INTO seal_heads (campaign_id, seq, hash) SELECT campaign_id, seq, hash FROM ledger "
               "WHERE kind = 'seal'")


def downgrade() -> None:
    op.drop_table("secret_rolls")
    op.drop_table("seal_heads")

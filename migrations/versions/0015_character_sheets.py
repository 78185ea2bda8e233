"""characters: skills, notes and equipment lines (issue 27)

Revision ID: 0015
Revises: 0010
Create Date: 2026-12-01 21:00:00

All three are state (the projection of the ledger), written only by the ops of
campaign.projection.ops_sheet: `skills` maps a skill's name to its level, the stat it is
based on and its difficulty; `notes` and `items` are lists of lines. NULL is an empty
sheet, which is what replaying a ledger written before this revision gives.
"""
import sqlalchemy as sa
from alembic import op


revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('characters', schema=None) as batch_op:
        batch_op.add_column(sa.Column('skills', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('notes', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('items', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('characters', schema=None) as batch_op:
        batch_op.drop_column('items')
        batch_op.drop_column('notes')
        batch_op.drop_column('skills')

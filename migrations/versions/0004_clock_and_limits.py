"""campaign clock, timed conditions, the part of a trait's CP outside the limit

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02 10:00:00

campaigns.clock is campaign time in seconds (`time advance`); conditions gain the
campaign time they began and, for a timed one, when it runs out; traits gain
unlimited_cp, the part of their CP outside the disadvantage limit (R2.5). The values
come from the ledger: upgrading past this revision rebuilds every campaign's state
from its ledger (campaign.db.migrate.PROJECTION_REVISION), which fills them in.
"""
from alembic import op
import sqlalchemy as sa


revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('campaigns', schema=None) as batch_op:
        batch_op.add_column(sa.Column('clock', sa.Integer(), server_default='0', nullable=False))
    with op.batch_alter_table('traits', schema=None) as batch_op:
        batch_op.add_column(sa.Column('unlimited_cp', sa.Integer(), server_default='0', nullable=False))
    with op.batch_alter_table('conditions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('since_clock', sa.Integer(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('until_clock', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('conditions', schema=None) as batch_op:
        batch_op.drop_column('until_clock')
        batch_op.drop_column('since_clock')
    with op.batch_alter_table('traits', schema=None) as batch_op:
        batch_op.drop_column('unlimited_cp')
    with op.batch_alter_table('campaigns', schema=None) as batch_op:
        batch_op.drop_column('clock')

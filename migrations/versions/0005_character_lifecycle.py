"""characters: lifecycle status (active/dead/retired) and awarded CP

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 03:20:00

Both columns are state (the projection of the ledger): `status` is set by
`char kill` / `char retire` (op character_status), `cp_awarded` by awards (op
cp_awarded). Existing rows start active with nothing awarded, which is what
replaying a ledger written before this revision gives.
"""
import sqlalchemy as sa
from alembic import op


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('characters', schema=None) as batch_op:
        batch_op.add_column(sa.Column('status', sa.String(length=10), server_default='active', nullable=False))
        batch_op.add_column(sa.Column('cp_awarded', sa.Integer(), server_default='0', nullable=False))
        batch_op.create_check_constraint('status', "status IN ('active', 'dead', 'retired')")


def downgrade() -> None:
    with op.batch_alter_table('characters', schema=None) as batch_op:
        batch_op.drop_constraint('status', type_='check')
        batch_op.drop_column('cp_awarded')
        batch_op.drop_column('status')

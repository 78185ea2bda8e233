"""characters: the reading of a name (issue 32)

Revision ID: 0018
Revises: 0015
Create Date: 2026-12-02 00:25:00

How a character's name is read, in kana (鈴音: すずね), as `char add --reading` records it
in the character_added op: listings sort by it, "did you mean" matches it. State, the
projection of the ledger; NULL where none was recorded (every character before this).
"""
import sqlalchemy as sa
from alembic import op


revision = '0018'
down_revision = '0016'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('characters', schema=None) as batch_op:
        batch_op.add_column(sa.Column('reading', sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('characters', schema=None) as batch_op:
        batch_op.drop_column('reading')

"""campaigns: chain_name, the name the campaign's ledger records carry

Revision ID: 0009
Revises: 0007
Create Date: 2026-12-01 06:00:00

Every hashed ledger record names its campaign. `import --as-name NEW` renames a
campaign on its way in without touching those records (they are hashed), so the row
keeps the name its chain was written under; NULL (every campaign never renamed) means
the chain carries `name` itself. See campaign.db.models.Campaign.ledger_name.
"""
import sqlalchemy as sa
from alembic import op


revision = '0009'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('campaigns', schema=None) as batch_op:
        batch_op.add_column(sa.Column('chain_name', sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('campaigns', schema=None) as batch_op:
        batch_op.drop_column('chain_name')

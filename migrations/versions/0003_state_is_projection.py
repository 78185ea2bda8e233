"""state tables become the ledger's projection

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 03:00:00

No schema change. From this revision on, the state tables equal the replay of the
ledger's ops (campaign.projection). Round-1 voids left soft-deleted rows behind and
could leave a wrong FP/CP value (the bugs this round fixes), so after upgrading past
this revision the migration runner rebuilds every campaign's state from its ledger
(campaign.db.migrate.rebuild_projections), with the models of the code that runs it.
"""

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass

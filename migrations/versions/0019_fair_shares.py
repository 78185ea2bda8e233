"""fair_shares: each share is used once per commitment, refused by the database

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-04 18:30:00

Fair dice version 2 derive from the seed, the player's share and the die's index only;
a share used twice under one seed would give the same dice twice. The primary key over
(campaign, commitment, share) refuses a second use on both backends (models_fair.FairShare).
Rows are filled from the ledger's version-2 entries (none exist before this revision).
"""
import sqlalchemy as sa
from alembic import op


revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fair_shares",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("commit_seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("share", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], name=op.f("fk_fair_shares_campaign_id_campaigns")),
        sa.PrimaryKeyConstraint("campaign_id", "commit_seq", "share", name=op.f("pk_fair_shares")),
    )
    _grant_gms()


def _grant_gms() -> None:
    """A group's GM role (the table server's login) writes the new table, as `group setup` grants."""
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    from campaign.services.campaigns.group import gm_grant_statements, group_role_names

    database, schema = bind.exec_driver_sql("SELECT current_database(), current_schema()").one()
    gms = group_role_names(database)["gms"]
    if not bind.exec_driver_sql("SELECT 1 FROM pg_roles WHERE rolname = %(r)s", {"r": gms}).first():
        return
    with bind.connection.dbapi_connection.cursor() as cursor:
        for statement in gm_grant_statements(database, schema, ["fair_shares"], gms):
            cursor.execute(statement)


def downgrade() -> None:
    op.drop_table("fair_shares")

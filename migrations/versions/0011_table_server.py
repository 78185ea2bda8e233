"""the table server's rows: invites, sessions, idempotent requests, GM calls

Revision ID: 0011
Revises: 0009
Create Date: 2026-12-01 20:30:00

Server credentials and bookkeeping, outside the ledger projection and never exported
(campaign.db.models_table says why). Invite codes and session tokens are stored only as
SHA-256 digests.
"""
import sqlalchemy as sa
from alembic import op


revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_invites",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("player", sa.String(length=200), nullable=False),
        sa.Column("is_gm", sa.Boolean(), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("expires_at", sa.String(length=32), nullable=False),
        sa.Column("used_at", sa.String(length=32), nullable=True),
        sa.Column("revoked_at", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], name=op.f("fk_web_invites_campaign_id_campaigns")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_web_invites")),
        sa.UniqueConstraint("code_hash", name=op.f("uq_web_invites_code_hash")),
    )
    op.create_index(op.f("ix_web_invites_campaign_id"), "web_invites", ["campaign_id"], unique=False)
    op.create_table(
        "web_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("player", sa.String(length=200), nullable=False),
        sa.Column("is_gm", sa.Boolean(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("invite_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("revoked_at", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], name=op.f("fk_web_sessions_campaign_id_campaigns")),
        sa.ForeignKeyConstraint(["invite_id"], ["web_invites.id"], name=op.f("fk_web_sessions_invite_id_web_invites")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_web_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_web_sessions_token_hash")),
    )
    op.create_index(op.f("ix_web_sessions_campaign_id"), "web_sessions", ["campaign_id"], unique=False)
    op.create_table(
        "web_requests",
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=100), nullable=False),
        sa.Column("first_seq", sa.Integer(), nullable=False),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(["session_id"], ["web_sessions.id"],
                                name=op.f("fk_web_requests_session_id_web_sessions")),
        sa.PrimaryKeyConstraint("session_id", "key", name=op.f("pk_web_requests")),
    )
    op.create_table(
        "table_calls",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("character", sa.String(length=200), nullable=False),
        sa.Column("player", sa.String(length=200), nullable=True),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("created_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("state", sa.String(length=10), nullable=False),
        sa.Column("result_seq", sa.Integer(), nullable=True),
        sa.Column("resolved_by", sa.String(length=200), nullable=True),
        sa.Column("resolved_at", sa.String(length=32), nullable=True),
        sa.CheckConstraint("kind IN ('fright', 'check', 'reunion')", name=op.f("ck_table_calls_kind")),
        sa.CheckConstraint("state IN ('pending', 'rolled', 'cancelled')", name=op.f("ck_table_calls_state")),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], name=op.f("fk_table_calls_campaign_id_campaigns")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_table_calls")),
    )
    op.create_index("ix_table_calls_campaign_state", "table_calls", ["campaign_id", "state"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_table_calls_campaign_state", table_name="table_calls")
    op.drop_table("table_calls")
    op.drop_table("web_requests")
    op.drop_index(op.f("ix_web_sessions_campaign_id"), table_name="web_sessions")
    op.drop_table("web_sessions")
    op.drop_index(op.f("ix_web_invites_campaign_id"), table_name="web_invites")
    op.drop_table("web_invites")

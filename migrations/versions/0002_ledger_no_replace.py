"""ledger: refuse INSERT OR REPLACE on SQLite

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 19:30:00

SQLite's REPLACE conflict resolution deletes the conflicting row without firing DELETE
triggers (unless PRAGMA recursive_triggers is on), so `INSERT OR REPLACE INTO ledger`
could overwrite an entry despite ledger_no_update / ledger_no_delete. An insert may
therefore not land on an existing (campaign_id, seq). PostgreSQL needs nothing: its
ON CONFLICT DO UPDATE fires the UPDATE trigger, and a plain INSERT cannot replace.
"""
from alembic import op


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            """CREATE TRIGGER ledger_no_replace BEFORE INSERT ON ledger
               WHEN EXISTS (SELECT 1 FROM ledger WHERE campaign_id = NEW.campaign_id AND seq = NEW.seq)
               BEGIN SELECT RAISE(ABORT, 'ledger is append-only: REPLACE refused'); END"""
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS ledger_no_replace")

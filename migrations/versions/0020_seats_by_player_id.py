"""seats by player id: invites, sessions, bot tokens and calls name the player by id;
idempotency keys name their route; feed notifications carry nothing

Revision ID: 0020
Revises: 0018
Create Date: 2026-12-04 18:30:00

A seat followed the player's name: after `player rename Aki Akira` and a new player
named Aki, the old Aki's cookie acted for the new Aki. Each seat row now holds the
player's id (NULL for the GM's seat and for a bot token of no player); the name column
stays as a label. Server bookkeeping, not state: the ledger is not touched, so a
campaign verifies the same before and after.

Existing rows are matched by name within their campaign. A name that some rename in the
campaign's ledger moved away from (`detail.player_from`) cannot say whose seat it was
(the renamed player's or a later player's of that name), and a player seat whose name
matches no player belongs to no one: both are revoked (the GM invites again) rather
than guessed. Pending calls in those cases keep no player: the GM rolls or cancels them.

PostgreSQL: the feed's NOTIFY (0016) said 'CAMPAIGN_ID:SEQ', and any login of the cluster
may LISTEN, so any of them learnt every campaign's head as it moved. It now says nothing
(an empty payload): a listener learns only that something changed, then reads what its
role may read (campaign.web.feed_listen).
"""
import json
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op


revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None

# (table, the column naming the player, the condition of a row that names a player)
_SEATS = (
    ("web_invites", "player", "NOT is_gm"),
    ("web_sessions", "player", "NOT is_gm"),
    ("bcdice_tokens", "player", "player IS NOT NULL"),
    ("table_calls", "player", "player IS NOT NULL"),
)


def upgrade() -> None:
    # an idempotency key answers only on the route it was spent on (campaign.db.models_table)
    with op.batch_alter_table('web_requests', schema=None) as batch_op:
        batch_op.add_column(sa.Column('route', sa.String(length=100), nullable=True))
    for table, _column, _which in _SEATS:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column('player_id', sa.Integer(), nullable=True))
            batch_op.create_foreign_key(op.f(f'fk_{table}_player_id_players'), 'players', ['player_id'], ['id'])
    _convert(op.get_bind())
    if op.get_bind().dialect.name == "postgresql":
        for name in ("campaign_feed_entry", "campaign_feed_calls"):
            op.execute(_NOTIFY_NOTHING.format(name=name))


# A trigger function whose notification says only "something changed".
_NOTIFY_NOTHING = """CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql
   SET search_path = pg_catalog, pg_temp AS $$
   BEGIN
     PERFORM pg_notify('campaign_feed', '');
     RETURN NULL;
   END $$"""


def _renamed_from(conn: sa.Connection) -> set[tuple[int, str]]:
    """(campaign id, name) of every name a rename moved a player away from."""
    found = set()
    rows = conn.execute(sa.text("SELECT campaign_id, record FROM ledger WHERE kind = 'rename'"))
    for campaign_id, record in rows:
        detail = (json.loads(record).get("detail") or {})
        if isinstance(detail.get("player_from"), str):
            found.add((campaign_id, detail["player_from"]))
    return found


def _convert(conn: sa.Connection) -> None:
    players = {(c, n): i for i, c, n in conn.execute(sa.text("SELECT id, campaign_id, name FROM players"))}
    ambiguous = _renamed_from(conn)
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    for table, column, which in _SEATS:
        rows = conn.execute(sa.text(f"SELECT id, campaign_id, {column} FROM {table} WHERE {which}")).all()
        for row_id, campaign_id, name in rows:
            player_id = players.get((campaign_id, name))
            if player_id is not None and (campaign_id, name) not in ambiguous:
                conn.execute(sa.text(f"UPDATE {table} SET player_id = :p WHERE id = :i"), {"p": player_id, "i": row_id})
            elif table == "table_calls":
                conn.execute(
                    sa.text("UPDATE table_calls SET player = NULL WHERE id = :i AND state = 'pending'"), {"i": row_id}
                )
            elif table == "web_invites":
                conn.execute(
                    sa.text("UPDATE web_invites SET revoked_at = :t WHERE id = :i AND revoked_at IS NULL "
                            "AND used_at IS NULL"),
                    {"t": now, "i": row_id},
                )
            else:
                conn.execute(
                    sa.text(f"UPDATE {table} SET revoked_at = :t WHERE id = :i AND revoked_at IS NULL"),
                    {"t": now, "i": row_id},
                )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":  # 0016's payloads again
        schema = op.get_bind().exec_driver_sql("SELECT current_schema()").scalar()
        op.execute(
            f"""CREATE OR REPLACE FUNCTION campaign_feed_entry() RETURNS trigger LANGUAGE plpgsql
               SET search_path = {schema}, pg_temp AS $$
               BEGIN
                 PERFORM pg_notify('campaign_feed', NEW.campaign_id || ':' || NEW.seq);
                 RETURN NULL;
               END $$"""
        )
        op.execute(
            f"""CREATE OR REPLACE FUNCTION campaign_feed_calls() RETURNS trigger LANGUAGE plpgsql
               SET search_path = {schema}, pg_temp AS $$
               DECLARE
                 changed record;
                 campaign integer;
               BEGIN
                 IF TG_OP = 'DELETE' THEN changed := OLD; ELSE changed := NEW; END IF;
                 IF TG_TABLE_NAME = 'web_requests' THEN
                   SELECT w.campaign_id INTO campaign FROM {schema}.web_sessions w WHERE w.id = changed.session_id;
                 ELSE
                   campaign := changed.campaign_id;
                 END IF;
                 PERFORM pg_notify('campaign_feed', coalesce(campaign::text, '') || ':' || 'calls');
                 RETURN NULL;
               END $$"""
        )
    for table, _column, _which in reversed(_SEATS):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_constraint(op.f(f'fk_{table}_player_id_players'), type_='foreignkey')
            batch_op.drop_column('player_id')
    with op.batch_alter_table('web_requests', schema=None) as batch_op:
        batch_op.drop_column('route')

"""group mode without players' database roles; the feed is woken by NOTIFY

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02 00:00:00

Players reach the database only through the table server now (issue 29 item 7): the
server signs in as the GM's role, checks the session and records the seat's player.
On PostgreSQL this revision removes what group mode made for players:

* every player's login role and the players' group role (their grants are revoked
  first, so DROP ROLE succeeds; the owner has CREATEROLE, as `group setup` required);
* row-level security and its policies (with no player roles, grants alone decide what
  the GM's role and the owner may do), and the helpers only the policies used;
* the actor trigger refuses any mapped role but the GM's, which records actor GM, or a
  player's name only for an entry that names a live table-server session of that
  player (detail.via.session), or a live BCDice-API token of theirs
  (detail.via.bcdice_token): the server writes what a seat or a bot did in its name.

Access is never lost silently: a player whose role was live keeps their `group_roles`
row as an invite owed to them, and `campaign group setup` (or `group migrate-players`)
turns each into a one-time `campaign invite` link, printed once. Roles revoked before
this revision were out already; their rows go. The upgrade says so on stderr.

The GM's group role, where one exists, is granted every table as `group setup` does now
(the table server's tables of 0011, 0013 and 0014 included: a group set up before them
lacks them, and the server signs in as the GM's role).

The live feed (issue 29 item 5): AFTER INSERT on ledger, and after any change of
table_calls or web_requests, a trigger sends NOTIFY campaign_feed with the campaign id
and the new seq (or "calls"), in the same transaction as the write, so it is delivered
at its commit and never for a write rolled back. SQLite keeps polling: nothing changes
there.
"""
import sys

from alembic import op

revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None

FEED_CHANNEL = "campaign_feed"
RLS_TABLES = ("campaigns", "players", "characters", "ledger", "relationships", "traits", "conditions", "scenarios",
              "scenario_participants", "disappearances", "searches", "reunion_checks")
PLAYER_HELPERS = ("campaign_group_owns_name(integer, text)", "campaign_group_owns(integer)",
                  "campaign_group_campaign()", "campaign_group_kind()")


def _actor_function(s: str) -> str:
    """0010's actor trigger, for a group that has only the GM's (the server's) role."""
    return f"""CREATE OR REPLACE FUNCTION ledger_check_actor() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
       SET search_path = {s}, pg_temp AS $$
       DECLARE
         r {s}.group_roles%ROWTYPE;
         recorded text;
         via_session text;
         via_token text;
       BEGIN
         SELECT * INTO r FROM {s}.group_roles WHERE role_name = session_user;
         IF NOT FOUND THEN
           RETURN NEW;  -- not a group-mode role: the owner or single-GM mode, grants alone decide
         END IF;
         IF r.revoked_at IS NOT NULL THEN
           RAISE EXCEPTION 'group mode: role % was revoked', session_user USING ERRCODE = 'insufficient_privilege';
         END IF;
         IF NOT r.is_gm THEN
           RAISE EXCEPTION 'group mode: players have no database role (migration 0016); they play through the server'
             USING ERRCODE = 'insufficient_privilege';
         END IF;
         IF NEW.campaign_id <> r.campaign_id THEN
           RAISE EXCEPTION 'group mode: role % belongs to another campaign', session_user
             USING ERRCODE = 'insufficient_privilege';
         END IF;
         recorded := NEW.record::jsonb ->> 'actor';
         IF recorded IS DISTINCT FROM NEW.actor THEN
           RAISE EXCEPTION 'group mode: the actor column (%) differs from the record''s actor (%)', NEW.actor,
             recorded USING ERRCODE = 'insufficient_privilege';
         END IF;
         -- The GM's role records actor GM; a seat's player only for an entry that came through
         -- a live session of that player (detail.via.session, written by the table server),
         -- a dice bot's holder through its live BCDice-API token (detail.via.bcdice_token),
         -- and a reunion roll in the missing character's player's name as ledgers before
         -- issue 14 hold them.
         via_session := NEW.record::jsonb #>> '{{detail,via,session}}';
         via_token := NEW.record::jsonb #>> '{{detail,via,bcdice_token}}';
         IF NEW.actor <> 'GM' AND NOT EXISTS (
               SELECT 1 FROM {s}.web_sessions w WHERE w.campaign_id = NEW.campaign_id AND w.player = NEW.actor
                 AND w.revoked_at IS NULL
                 AND w.id = CASE WHEN via_session ~ '^[0-9]{{1,9}}$' THEN via_session::integer END)
             AND NOT EXISTS (
               SELECT 1 FROM {s}.bcdice_tokens b WHERE b.campaign_id = NEW.campaign_id
                 AND coalesce(b.player, b.name) = NEW.actor AND b.revoked_at IS NULL
                 AND b.id = CASE WHEN via_token ~ '^[0-9]{{1,9}}$' THEN via_token::integer END)
             AND NOT (NEW.kind = 'reunion' AND EXISTS (
               SELECT 1 FROM {s}.players p WHERE p.campaign_id = NEW.campaign_id AND p.name = NEW.actor)) THEN
           RAISE EXCEPTION 'group mode: the GM''s role records actor GM, or a player through their session, not %',
             NEW.actor USING ERRCODE = 'insufficient_privilege';
         END IF;
         RETURN NEW;
       END $$"""


def _notify_functions(s: str) -> list[str]:
    return [
        f"""CREATE OR REPLACE FUNCTION campaign_feed_entry() RETURNS trigger LANGUAGE plpgsql
           SET search_path = {s}, pg_temp AS $$
           BEGIN
             PERFORM pg_notify('{FEED_CHANNEL}', NEW.campaign_id || ':' || NEW.seq);
             RETURN NULL;
           END $$""",
        f"""CREATE OR REPLACE FUNCTION campaign_feed_calls() RETURNS trigger LANGUAGE plpgsql
           SET search_path = {s}, pg_temp AS $$
           DECLARE
             changed record;
             campaign integer;
           BEGIN
             IF TG_OP = 'DELETE' THEN changed := OLD; ELSE changed := NEW; END IF;
             IF TG_TABLE_NAME = 'web_requests' THEN
               SELECT w.campaign_id INTO campaign FROM {s}.web_sessions w WHERE w.id = changed.session_id;
             ELSE
               campaign := changed.campaign_id;
             END IF;
             PERFORM pg_notify('{FEED_CHANNEL}', coalesce(campaign::text, '') || ':' || 'calls');
             RETURN NULL;
           END $$""",
        "CREATE TRIGGER ledger_feed_notify AFTER INSERT ON ledger FOR EACH ROW EXECUTE FUNCTION campaign_feed_entry()",
        """CREATE TRIGGER table_calls_feed_notify AFTER INSERT OR UPDATE OR DELETE ON table_calls
           FOR EACH ROW EXECUTE FUNCTION campaign_feed_calls()""",
        """CREATE TRIGGER web_requests_feed_notify AFTER INSERT OR UPDATE OR DELETE ON web_requests
           FOR EACH ROW EXECUTE FUNCTION campaign_feed_calls()""",
    ]


def _drop_player_roles(bind) -> int:
    """Players' roles go; returns how many players are owed an invite."""
    from psycopg import sql  # group mode exists only on PostgreSQL, which ships with psycopg

    from campaign.services.campaigns.group import group_role_names

    database, schema = bind.exec_driver_sql("SELECT current_database(), current_schema()").one()
    rows = bind.exec_driver_sql("SELECT role_name, revoked_at FROM group_roles WHERE NOT is_gm").all()
    players = group_role_names(database)["players"]
    raw = bind.connection.dbapi_connection
    with raw.cursor() as cursor:
        for role, _ in rows:
            cursor.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))
        if cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (players,)).fetchone():
            group, schema_id = sql.Identifier(players), sql.Identifier(schema)
            for statement in ("REVOKE ALL ON ALL TABLES IN SCHEMA {s} FROM {g}",
                              "REVOKE ALL ON ALL SEQUENCES IN SCHEMA {s} FROM {g}",
                              "REVOKE ALL ON SCHEMA {s} FROM {g}", "REVOKE ALL ON DATABASE {d} FROM {g}",
                              "DROP ROLE {g}"):
                cursor.execute(sql.SQL(statement).format(s=schema_id, g=group, d=sql.Identifier(database)))
    bind.exec_driver_sql("DELETE FROM group_roles WHERE NOT is_gm AND revoked_at IS NOT NULL")
    return sum(1 for _, revoked in rows if revoked is None)


def _grant_gms(bind) -> None:
    """A group set up before the table server's tables (0011, 0013, 0014): its GM's role,
    which the server now signs in as, gets them (what `group setup` grants today)."""
    from campaign.services.campaigns.group import gm_grant_statements, group_role_names

    database, schema = bind.exec_driver_sql("SELECT current_database(), current_schema()").one()
    gms = group_role_names(database)["gms"]
    if not bind.exec_driver_sql("SELECT 1 FROM pg_roles WHERE rolname = %(r)s", {"r": gms}).first():
        return
    tables = [name for (name,) in bind.exec_driver_sql(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename").all()]
    with bind.connection.dbapi_connection.cursor() as cursor:
        for statement in gm_grant_statements(database, schema, tables, gms):
            cursor.execute(statement)


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    schema = bind.exec_driver_sql("SELECT quote_ident(current_schema())").scalar()
    for table in RLS_TABLES:
        for (policy,) in bind.exec_driver_sql(
                "SELECT quote_ident(policyname) FROM pg_policies WHERE schemaname = current_schema() "
                "AND tablename = %(t)s", {"t": table}).all():
            op.execute(f"DROP POLICY {policy} ON {table}")
        op.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
    op.execute(_actor_function(schema))
    for helper in PLAYER_HELPERS:
        op.execute(f"DROP FUNCTION IF EXISTS {helper}")
    owed = _drop_player_roles(bind)
    _grant_gms(bind)
    for statement in _notify_functions(schema):
        op.execute(statement)
    if owed:
        sys.stderr.write(f"migration 0016: {owed} player database role(s) removed; players now join through the "
                         "table server: run `campaign group migrate-players` for their invite links\n")


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    for trigger, table in (("ledger_feed_notify", "ledger"), ("table_calls_feed_notify", "table_calls"),
                           ("web_requests_feed_notify", "web_requests")):
        op.execute(f"DROP TRIGGER IF EXISTS {trigger} ON {table}")
    op.execute("DROP FUNCTION IF EXISTS campaign_feed_entry()")
    op.execute("DROP FUNCTION IF EXISTS campaign_feed_calls()")
    # Players' roles and their row-level security do not come back (0010 made them read-only already).

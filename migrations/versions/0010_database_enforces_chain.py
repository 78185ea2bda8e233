"""ledger: the database enforces the chain; group mode: pinned search_path, players read-only

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 20:30:00

Until now the chain was only checked after the fact (`history verify`): anyone allowed
to INSERT into ledger could append a row at any seq, with any hash, carrying ops the
row-level security never looked at. From here on the database refuses such a row
itself, for every role, the owner's included:

* PostgreSQL: a BEFORE INSERT trigger (ledger_check_chain) refuses a row unless its
  seq is the head's + 1 (1 for the first), its prev_hash the head's hash (the genesis
  hash for the first), its hash SHA-256(prev_hash || record) computed here, its record
  a JSON object whose campaign, seq, at, actor, kind, character, scenario, outcome,
  parent_seq and voids_seq equal the row's (campaign: the name the chain is written
  under), and its time of the fixed format, not before the head's and not more than
  CLOCK_SKEW ahead of the database's clock.
* SQLite: a trigger refuses a row whose seq or prev_hash does not follow the head
  (the file's owner can drop it; it stops a stray row from bricking later writes).

Group mode (0007) is hardened where it let a player forge:

* Every SECURITY DEFINER function runs with search_path pinned to the schema it was
  made in, pg_temp last: a player's `CREATE TEMP TABLE group_roles` no longer changes
  who the functions think is signed in.
* Players' write policies go (the table server of issue 29 replaces player roles); a
  player's role reads. The grants of an existing group are narrowed to match here, and
  TEMPORARY on the database is revoked from PUBLIC; `campaign group setup` does both
  for new groups (campaign.services.campaigns.group).
"""
from alembic import op


revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None

GENESIS_HASH = "0" * 64
CLOCK_SKEW = "5 minutes"
AT_FORMAT = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{6}Z$"
# The row's columns that copy record fields (campaign.ledger_scan.INDEXED_FIELDS).
COPIED = ("seq", "at", "actor", "kind", "character", "scenario", "outcome", "parent_seq", "voids_seq")

SQLITE_TRIGGER = f"""CREATE TRIGGER ledger_append_follows_head BEFORE INSERT ON ledger
   WHEN NEW.seq IS NOT (SELECT coalesce(max(seq), 0) + 1 FROM ledger WHERE campaign_id = NEW.campaign_id)
     OR NEW.prev_hash IS NOT coalesce((SELECT hash FROM ledger WHERE campaign_id = NEW.campaign_id
                                       ORDER BY seq DESC LIMIT 1), '{GENESIS_HASH}')
   BEGIN SELECT RAISE(ABORT, 'ledger chain: an entry must follow the head (seq head+1, prev_hash the head''s hash)');
   END"""


def _chain_function(schema: str) -> str:
    columns = ", ".join(f"'{name}', NEW.{name}" for name in COPIED)
    picked = ", ".join(f"'{name}', rec -> '{name}'" for name in ("campaign", *COPIED))
    return f"""CREATE OR REPLACE FUNCTION ledger_check_chain() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
       SET search_path = {schema}, pg_temp AS $$
       DECLARE
         head_seq bigint;
         head_hash text;
         head_at text;
         chain text;
         rec jsonb;
         copied jsonb;
         field text;
         at_time timestamptz;
       BEGIN
         SELECT l.seq, l.hash, l.at INTO head_seq, head_hash, head_at FROM {schema}.ledger l
           WHERE l.campaign_id = NEW.campaign_id ORDER BY l.seq DESC LIMIT 1;
         IF NOT FOUND THEN
           head_seq := 0; head_hash := '{GENESIS_HASH}'; head_at := NULL;
         END IF;
         IF NEW.seq IS DISTINCT FROM head_seq + 1 THEN
           RAISE EXCEPTION 'ledger chain: entry % refused, the next entry is #%', NEW.seq, head_seq + 1
             USING ERRCODE = 'insufficient_privilege';
         END IF;
         IF NEW.prev_hash IS DISTINCT FROM head_hash THEN
           RAISE EXCEPTION 'ledger chain: entry %: prev_hash is not the hash of %', NEW.seq,
             CASE WHEN head_seq = 0 THEN 'the genesis' ELSE 'entry #' || head_seq END
             USING ERRCODE = 'insufficient_privilege';
         END IF;
         IF NEW.record IS NULL OR NEW.hash IS DISTINCT FROM
             encode(sha256(convert_to(NEW.prev_hash || NEW.record, 'UTF8')), 'hex') THEN
           RAISE EXCEPTION 'ledger chain: entry %: hash is not SHA-256(prev_hash || record)', NEW.seq
             USING ERRCODE = 'insufficient_privilege';
         END IF;
         -- No EXCEPTION block (it would start a subtransaction for every row inserted): text
         -- that is not JSON, or not a date, is refused by the cast's own error instead.
         rec := NEW.record::jsonb;
         IF jsonb_typeof(rec) <> 'object' THEN
           RAISE EXCEPTION 'ledger chain: entry %: the record is not a JSON object', NEW.seq
             USING ERRCODE = 'insufficient_privilege';
         END IF;
         SELECT coalesce(c.chain_name, c.name) INTO chain FROM {schema}.campaigns c WHERE c.id = NEW.campaign_id;
         copied := jsonb_build_object('campaign', chain, {columns});
         -- One comparison (a field the record lacks reads as null, as json.loads' get does);
         -- the loop only names the field once something differs.
         IF jsonb_build_object({picked}) IS DISTINCT FROM copied THEN
           FOR field IN SELECT jsonb_object_keys(copied) LOOP
             IF coalesce(rec -> field, 'null'::jsonb) IS DISTINCT FROM copied -> field THEN
               RAISE EXCEPTION 'ledger chain: entry %: the record''s % differs from the row''s', NEW.seq, field
                 USING ERRCODE = 'insufficient_privilege';
             END IF;
           END LOOP;
         END IF;
         IF NEW.at IS NULL OR NEW.at !~ '{AT_FORMAT}' THEN
           RAISE EXCEPTION 'ledger chain: entry %: time % is not YYYY-MM-DDTHH:MM:SS.ffffffZ', NEW.seq, NEW.at
             USING ERRCODE = 'insufficient_privilege';
         END IF;
         at_time := NEW.at::timestamptz;
         IF head_at ~ '{AT_FORMAT}' AND NEW.at COLLATE "C" < head_at COLLATE "C" THEN
           RAISE EXCEPTION 'ledger chain: entry %: time % is before the head''s (%)', NEW.seq, NEW.at, head_at
             USING ERRCODE = 'insufficient_privilege';
         END IF;
         -- The head's own time is always allowed: a head already in the future (written before
         -- this trigger existed) must not stop every writer until the clock catches up.
         IF at_time > clock_timestamp() + interval '{CLOCK_SKEW}' AND NEW.at IS DISTINCT FROM head_at THEN
           RAISE EXCEPTION 'ledger chain: entry %: time % is in the future', NEW.seq, NEW.at
             USING ERRCODE = 'insufficient_privilege';
         END IF;
         RETURN NEW;
       END $$"""


def _pinned_functions(schema: str) -> list[str]:
    """0007's helpers again, with search_path pinned (pg_temp last) and every name qualified."""
    s = schema
    return [
        f"""CREATE OR REPLACE FUNCTION campaign_group_kind() RETURNS text LANGUAGE sql STABLE SECURITY DEFINER
           SET search_path = {s}, pg_temp AS $$
             SELECT CASE WHEN revoked_at IS NOT NULL THEN 'revoked' WHEN is_gm THEN 'gm' ELSE 'player' END
             FROM {s}.group_roles WHERE role_name = session_user $$""",
        f"""CREATE OR REPLACE FUNCTION campaign_group_campaign() RETURNS integer LANGUAGE sql STABLE
           SECURITY DEFINER SET search_path = {s}, pg_temp AS $$
             SELECT campaign_id FROM {s}.group_roles WHERE role_name = session_user AND revoked_at IS NULL $$""",
        f"""CREATE OR REPLACE FUNCTION campaign_group_owns(character_id integer) RETURNS boolean LANGUAGE sql
           STABLE SECURITY DEFINER SET search_path = {s}, pg_temp AS $$
             SELECT EXISTS (SELECT 1 FROM {s}.characters c JOIN {s}.group_roles g
                              ON g.player_id = c.player_id AND g.campaign_id = c.campaign_id
                            WHERE c.id = character_id AND g.role_name = session_user
                              AND g.revoked_at IS NULL AND NOT g.is_gm) $$""",
        f"""CREATE OR REPLACE FUNCTION campaign_group_owns_name(campaign integer, character_name text)
           RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER SET search_path = {s}, pg_temp AS $$
             SELECT EXISTS (SELECT 1 FROM {s}.characters c JOIN {s}.group_roles g
                              ON g.player_id = c.player_id AND g.campaign_id = c.campaign_id
                            WHERE c.campaign_id = campaign AND c.name = character_name
                              AND g.role_name = session_user AND g.revoked_at IS NULL AND NOT g.is_gm) $$""",
        f"""CREATE OR REPLACE FUNCTION ledger_check_actor() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
           SET search_path = {s}, pg_temp AS $$
           DECLARE
             r {s}.group_roles%ROWTYPE;
             recorded text;
           BEGIN
             SELECT * INTO r FROM {s}.group_roles WHERE role_name = session_user;
             IF NOT FOUND THEN
               RETURN NEW;  -- not a group-mode role: single-GM mode, grants alone decide
             END IF;
             IF r.revoked_at IS NOT NULL THEN
               RAISE EXCEPTION 'group mode: role % was revoked', session_user USING ERRCODE = 'insufficient_privilege';
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
             IF r.is_gm THEN
               IF NEW.actor <> 'GM' AND NOT (NEW.kind = 'reunion' AND EXISTS (
                     SELECT 1 FROM {s}.players p WHERE p.campaign_id = NEW.campaign_id AND p.name = NEW.actor)) THEN
                 RAISE EXCEPTION 'group mode: the GM''s role records actor GM, not %', NEW.actor
                   USING ERRCODE = 'insufficient_privilege';
               END IF;
             ELSIF NEW.actor <> r.player_name THEN
               RAISE EXCEPTION 'group mode: role % is player %, the entry says %', session_user, r.player_name,
                 NEW.actor USING ERRCODE = 'insufficient_privilege';
             END IF;
             RETURN NEW;
           END $$""",
    ]


# 0007's policies that let a player's role write; players read only from here on.
PLAYER_WRITE_POLICIES = (("ledger", "ledger_player_append"), ("characters", "characters_player_update"),
                         ("campaigns", "campaigns_player_lock"), ("traits", "traits_player_insert"),
                         ("traits", "traits_player_update"), ("conditions", "conditions_player_insert"),
                         ("conditions", "conditions_player_update"))


def _narrow_existing_group(bind) -> None:
    """A group set up before this revision: its players' role loses every write grant,
    and PUBLIC loses TEMPORARY on the database (what `group setup` now does)."""
    from psycopg import sql  # group mode exists only on PostgreSQL, which ships with psycopg

    from campaign.services.campaigns.group import group_role_names, narrowing_statements

    if not bind.exec_driver_sql("SELECT EXISTS (SELECT 1 FROM group_roles)").scalar():
        return
    database, schema = bind.exec_driver_sql("SELECT current_database(), current_schema()").one()
    names = group_role_names(database)
    exists = bind.exec_driver_sql("SELECT 1 FROM pg_roles WHERE rolname = %(r)s", {"r": names["players"]}).first()
    raw = bind.connection.dbapi_connection
    with raw.cursor() as cursor:
        for statement in narrowing_statements(database, schema, names["players"] if exists else None,
                                              gm_only=("secret_rolls",)):
            cursor.execute(statement if isinstance(statement, sql.Composable) else sql.SQL(statement))


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        op.execute(SQLITE_TRIGGER)
        return
    schema = bind.exec_driver_sql("SELECT quote_ident(current_schema())").scalar()
    for statement in _pinned_functions(schema):
        op.execute(statement)
    op.execute(_chain_function(schema))
    op.execute("""CREATE TRIGGER ledger_chain_holds BEFORE INSERT ON ledger
                  FOR EACH ROW EXECUTE FUNCTION ledger_check_chain()""")
    # ALWAYS: it fires even under session_replication_role = replica (a superuser's bulk load)
    op.execute("ALTER TABLE ledger ENABLE ALWAYS TRIGGER ledger_chain_holds")
    for table, policy in PLAYER_WRITE_POLICIES:
        op.execute(f"DROP POLICY IF EXISTS {policy} ON {table}")
    _narrow_existing_group(bind)


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS ledger_append_follows_head")
        return
    op.execute("DROP TRIGGER IF EXISTS ledger_chain_holds ON ledger")
    op.execute("DROP FUNCTION IF EXISTS ledger_check_chain()")
    # The pinned helpers stay (they are what 0007 meant); players' write policies do not come back.

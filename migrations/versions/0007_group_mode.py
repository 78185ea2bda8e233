"""group mode: role -> player mapping, the ledger actor trigger, row-level security

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 12:00:00

Both backends get the group_roles table (one schema). On PostgreSQL only:

* helper functions that turn `session_user` into its group-mode identity (none, the
  GM, a player, or a revoked role), SECURITY DEFINER so they see group_roles and
  characters whatever the caller may read;
* a BEFORE INSERT trigger on ledger that refuses an entry whose actor is not the
  signed-in role's player (the hash covers the record, so the client must write the
  right actor; the database checks it, it cannot be typed past);
* row-level security on every campaign table. Sessions of roles that group_roles does
  not know (the owner, single-GM installations connecting as a plain role) are
  governed by grants alone; the GM's role may write everything (grants still deny
  UPDATE/DELETE on ledger); a player's role may append its allowed kinds for its own
  characters and change its own characters' traits, conditions and pools. Which
  tables each role may touch at all is granted by `campaign group setup`.
"""
import sqlalchemy as sa
from alembic import op


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None

# Tables under row-level security (group_roles and alembic_version are not).
RLS_TABLES = ("campaigns", "players", "characters", "ledger", "relationships", "traits", "conditions", "scenarios",
              "scenario_participants", "disappearances", "searches", "reunion_checks")
# What a player's role may append: its own dice, checks and fright checks, and void requests.
PLAYER_KINDS = ("roll", "check", "fright", "table", "void_request")

FUNCTIONS = [
    """CREATE FUNCTION campaign_group_kind() RETURNS text LANGUAGE sql STABLE SECURITY DEFINER
       SET search_path FROM CURRENT AS $$
         SELECT CASE WHEN revoked_at IS NOT NULL THEN 'revoked' WHEN is_gm THEN 'gm' ELSE 'player' END
         FROM group_roles WHERE role_name = session_user $$""",
    """CREATE FUNCTION campaign_group_campaign() RETURNS integer LANGUAGE sql STABLE SECURITY DEFINER
       SET search_path FROM CURRENT AS $$
         SELECT campaign_id FROM group_roles WHERE role_name = session_user AND revoked_at IS NULL $$""",
    """CREATE FUNCTION campaign_group_owns(character_id integer) RETURNS boolean LANGUAGE sql STABLE
       SECURITY DEFINER SET search_path FROM CURRENT AS $$
         SELECT EXISTS (SELECT 1 FROM characters c JOIN group_roles g
                          ON g.player_id = c.player_id AND g.campaign_id = c.campaign_id
                        WHERE c.id = character_id AND g.role_name = session_user
                          AND g.revoked_at IS NULL AND NOT g.is_gm) $$""",
    """CREATE FUNCTION campaign_group_owns_name(campaign integer, character_name text) RETURNS boolean
       LANGUAGE sql STABLE SECURITY DEFINER SET search_path FROM CURRENT AS $$
         SELECT EXISTS (SELECT 1 FROM characters c JOIN group_roles g
                          ON g.player_id = c.player_id AND g.campaign_id = c.campaign_id
                        WHERE c.campaign_id = campaign AND c.name = character_name
                          AND g.role_name = session_user AND g.revoked_at IS NULL AND NOT g.is_gm) $$""",
    """CREATE FUNCTION ledger_check_actor() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
       SET search_path FROM CURRENT AS $$
       DECLARE
         r group_roles%ROWTYPE;
         recorded text;
       BEGIN
         SELECT * INTO r FROM group_roles WHERE role_name = session_user;
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
           RAISE EXCEPTION 'group mode: the actor column (%) differs from the record''s actor (%)', NEW.actor, recorded
             USING ERRCODE = 'insufficient_privilege';
         END IF;
         IF r.is_gm THEN
           -- The GM writes as "GM" (acting for someone: detail.on_behalf_of); a reunion roll
           -- is the missing character's player's (rule R4), written when the GM ends a scenario.
           IF NEW.actor <> 'GM' AND NOT (NEW.kind = 'reunion' AND EXISTS (
                 SELECT 1 FROM players p WHERE p.campaign_id = NEW.campaign_id AND p.name = NEW.actor)) THEN
             RAISE EXCEPTION 'group mode: the GM''s role records actor GM, not %', NEW.actor
               USING ERRCODE = 'insufficient_privilege';
           END IF;
         ELSIF NEW.actor <> r.player_name THEN
           RAISE EXCEPTION 'group mode: role % is player %, the entry says %', session_user, r.player_name, NEW.actor
             USING ERRCODE = 'insufficient_privilege';
         END IF;
         RETURN NEW;
       END $$""",
    """CREATE TRIGGER ledger_actor_is_signed_in_role BEFORE INSERT ON ledger
       FOR EACH ROW EXECUTE FUNCTION ledger_check_actor()""",
]


def _policies() -> list[str]:
    statements = []
    for table in RLS_TABLES:
        statements += [
            f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
            f"CREATE POLICY {table}_read ON {table} FOR SELECT USING (true)",
            f"CREATE POLICY {table}_single ON {table} FOR ALL USING (campaign_group_kind() IS NULL) "
            f"WITH CHECK (campaign_group_kind() IS NULL)",
            f"CREATE POLICY {table}_gm ON {table} FOR ALL USING (campaign_group_kind() = 'gm') "
            f"WITH CHECK (campaign_group_kind() = 'gm')",
        ]
    kinds = ", ".join(f"'{kind}'" for kind in PLAYER_KINDS)
    player = "campaign_group_kind() = 'player'"
    statements += [
        f"""CREATE POLICY ledger_player_append ON ledger FOR INSERT WITH CHECK ({player}
              AND kind IN ({kinds}) AND (character IS NULL OR campaign_group_owns_name(campaign_id, character)))""",
        f"""CREATE POLICY characters_player_update ON characters FOR UPDATE
              USING ({player} AND campaign_group_owns(id)) WITH CHECK ({player} AND campaign_group_owns(id))""",
        # The append lock is SELECT ... FOR UPDATE on the campaign row: it needs an UPDATE
        # policy whose USING passes; WITH CHECK false keeps any actual UPDATE refused.
        f"""CREATE POLICY campaigns_player_lock ON campaigns FOR UPDATE
              USING ({player} AND id = campaign_group_campaign()) WITH CHECK (false)""",
    ]
    for table in ("traits", "conditions"):
        own = f"{player} AND campaign_group_owns(character_id)"
        statements += [
            f"CREATE POLICY {table}_player_insert ON {table} FOR INSERT WITH CHECK ({own})",
            f"CREATE POLICY {table}_player_update ON {table} FOR UPDATE USING ({own}) WITH CHECK ({own})",
        ]
    return statements


def upgrade() -> None:
    op.create_table(
        'group_roles',
        sa.Column('role_name', sa.String(length=63), nullable=False),
        sa.Column('campaign_id', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=True),
        sa.Column('player_name', sa.String(length=200), nullable=False),
        sa.Column('is_gm', sa.Boolean(), nullable=False),
        sa.Column('created_at', sa.String(length=32), nullable=False),
        sa.Column('revoked_at', sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_group_roles_campaign_id_campaigns')),
        sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_group_roles_player_id_players')),
        sa.PrimaryKeyConstraint('role_name', name=op.f('pk_group_roles')),
    )
    with op.batch_alter_table('group_roles', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_group_roles_campaign_id'), ['campaign_id'], unique=False)
    if op.get_bind().dialect.name == "postgresql":
        for statement in FUNCTIONS + _policies():
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in RLS_TABLES:
            op.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
            for policy in ("read", "single", "gm", "player_append", "player_update", "player_lock", "player_insert"):
                op.execute(f"DROP POLICY IF EXISTS {table}_{policy} ON {table}")
        op.execute("DROP TRIGGER IF EXISTS ledger_actor_is_signed_in_role ON ledger")
        for function in ("ledger_check_actor()", "campaign_group_owns_name(integer, text)",
                         "campaign_group_owns(integer)", "campaign_group_campaign()", "campaign_group_kind()"):
            op.execute(f"DROP FUNCTION IF EXISTS {function}")
    with op.batch_alter_table('group_roles', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_group_roles_campaign_id'))
    op.drop_table('group_roles')

"""schema v1

Revision ID: 0001
Revises: 
Create Date: 2026-11-29 18:34:57.539159

Also creates the triggers that make the ledger append-only in the database itself.
"""
from alembic import op
import sqlalchemy as sa


revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('campaigns',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('ruleset', sa.String(length=50), nullable=False),
    sa.Column('settings', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.String(length=32), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_campaigns')),
    sa.UniqueConstraint('name', name=op.f('uq_campaigns_name'))
    )
    op.create_table('ledger',
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('seq', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('at', sa.String(length=32), nullable=False),
    sa.Column('actor', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('character', sa.String(length=200), nullable=True),
    sa.Column('scenario', sa.Integer(), nullable=True),
    sa.Column('outcome', sa.String(length=20), nullable=True),
    sa.Column('parent_seq', sa.Integer(), nullable=True),
    sa.Column('voids_seq', sa.Integer(), nullable=True),
    sa.Column('record', sa.Text(), nullable=False),
    sa.Column('prev_hash', sa.String(length=64), nullable=False),
    sa.Column('hash', sa.String(length=64), nullable=False),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_ledger_campaign_id_campaigns')),
    sa.PrimaryKeyConstraint('campaign_id', 'seq', name=op.f('pk_ledger'))
    )
    with op.batch_alter_table('ledger', schema=None) as batch_op:
        batch_op.create_index('ix_ledger_campaign_actor', ['campaign_id', 'actor', 'seq'], unique=False)
        batch_op.create_index('ix_ledger_campaign_at', ['campaign_id', 'at'], unique=False)
        batch_op.create_index('ix_ledger_campaign_character', ['campaign_id', 'character', 'kind', 'seq'], unique=False)
        batch_op.create_index('ix_ledger_campaign_kind', ['campaign_id', 'kind', 'seq'], unique=False)
        batch_op.create_index('ix_ledger_campaign_outcome', ['campaign_id', 'outcome', 'seq'], unique=False)
        batch_op.create_index('ix_ledger_campaign_parent', ['campaign_id', 'parent_seq'], unique=False)
        batch_op.create_index('ix_ledger_campaign_scenario', ['campaign_id', 'scenario', 'seq'], unique=False)
        batch_op.create_index('ix_ledger_campaign_voids', ['campaign_id', 'voids_seq'], unique=False)

    op.create_table('players',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_players_campaign_id_campaigns')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_players')),
    sa.UniqueConstraint('campaign_id', 'name', name='uq_players_campaign_name')
    )
    op.create_table('scenarios',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('title', sa.String(length=200), nullable=False),
    sa.Column('started_seq', sa.Integer(), nullable=False),
    sa.Column('ended_seq', sa.Integer(), nullable=True),
    sa.Column('started_at', sa.String(length=32), nullable=False),
    sa.Column('ended_at', sa.String(length=32), nullable=True),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_scenarios_campaign_id_campaigns')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_scenarios')),
    sa.UniqueConstraint('campaign_id', 'number', name='uq_scenarios_campaign_number')
    )
    op.create_table('characters',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=3), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=True),
    sa.Column('summoner_id', sa.Integer(), nullable=True),
    sa.Column('stats', sa.JSON(), nullable=False),
    sa.Column('cp_total', sa.Integer(), nullable=False),
    sa.Column('pools', sa.JSON(), nullable=False),
    sa.CheckConstraint("kind IN ('pc', 'npc')", name=op.f('ck_characters_kind')),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_characters_campaign_id_campaigns')),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_characters_player_id_players')),
    sa.ForeignKeyConstraint(['summoner_id'], ['characters.id'], name=op.f('fk_characters_summoner_id_characters')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_characters')),
    sa.UniqueConstraint('campaign_id', 'name', name='uq_characters_campaign_name')
    )
    op.create_table('conditions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('character_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('duration', sa.String(length=100), nullable=True),
    sa.Column('detail', sa.JSON(), nullable=False),
    sa.Column('origin', sa.String(length=40), nullable=False),
    sa.Column('source_seq', sa.Integer(), nullable=True),
    sa.Column('cleared_seq', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['character_id'], ['characters.id'], name=op.f('fk_conditions_character_id_characters')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_conditions'))
    )
    with op.batch_alter_table('conditions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_conditions_character_id'), ['character_id'], unique=False)

    op.create_table('disappearances',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('character_id', sa.Integer(), nullable=False),
    sa.Column('faces', sa.Integer(), nullable=False),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('since_seq', sa.Integer(), nullable=False),
    sa.Column('since_at', sa.String(length=32), nullable=False),
    sa.Column('since_scenario_id', sa.Integer(), nullable=True),
    sa.Column('reunited_seq', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_disappearances_campaign_id_campaigns')),
    sa.ForeignKeyConstraint(['character_id'], ['characters.id'], name=op.f('fk_disappearances_character_id_characters')),
    sa.ForeignKeyConstraint(['since_scenario_id'], ['scenarios.id'], name=op.f('fk_disappearances_since_scenario_id_scenarios')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_disappearances'))
    )
    with op.batch_alter_table('disappearances', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_disappearances_character_id'), ['character_id'], unique=False)

    op.create_table('relationships',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('from_id', sa.Integer(), nullable=False),
    sa.Column('to_id', sa.Integer(), nullable=False),
    sa.Column('note', sa.Text(), nullable=True),
    sa.CheckConstraint('from_id <> to_id', name=op.f('ck_relationships_not_self')),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_relationships_campaign_id_campaigns')),
    sa.ForeignKeyConstraint(['from_id'], ['characters.id'], name=op.f('fk_relationships_from_id_characters')),
    sa.ForeignKeyConstraint(['to_id'], ['characters.id'], name=op.f('fk_relationships_to_id_characters')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_relationships')),
    sa.UniqueConstraint('from_id', 'to_id', name='uq_relationships_pair')
    )
    op.create_table('scenario_participants',
    sa.Column('scenario_id', sa.Integer(), nullable=False),
    sa.Column('character_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['character_id'], ['characters.id'], name=op.f('fk_scenario_participants_character_id_characters')),
    sa.ForeignKeyConstraint(['scenario_id'], ['scenarios.id'], name=op.f('fk_scenario_participants_scenario_id_scenarios')),
    sa.PrimaryKeyConstraint('scenario_id', 'character_id', name=op.f('pk_scenario_participants'))
    )
    op.create_table('traits',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('character_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('category', sa.String(length=50), nullable=False),
    sa.Column('cp', sa.Integer(), nullable=False),
    sa.Column('counts_toward_limit', sa.Boolean(), nullable=False),
    sa.Column('origin', sa.String(length=40), nullable=False),
    sa.Column('source_seq', sa.Integer(), nullable=True),
    sa.Column('removed_seq', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['character_id'], ['characters.id'], name=op.f('fk_traits_character_id_characters')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_traits'))
    )
    with op.batch_alter_table('traits', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_traits_character_id'), ['character_id'], unique=False)

    op.create_table('reunion_checks',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('disappearance_id', sa.Integer(), nullable=False),
    sa.Column('scenario_id', sa.Integer(), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('roll', sa.Integer(), nullable=False),
    sa.Column('threshold', sa.Integer(), nullable=False),
    sa.Column('success', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['disappearance_id'], ['disappearances.id'], name=op.f('fk_reunion_checks_disappearance_id_disappearances')),
    sa.ForeignKeyConstraint(['scenario_id'], ['scenarios.id'], name=op.f('fk_reunion_checks_scenario_id_scenarios')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_reunion_checks')),
    sa.UniqueConstraint('disappearance_id', 'scenario_id', name='uq_reunion_checks_once')
    )
    op.create_table('searches',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('disappearance_id', sa.Integer(), nullable=False),
    sa.Column('searcher_id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('started_seq', sa.Integer(), nullable=False),
    sa.Column('scenario_id', sa.Integer(), nullable=True),
    sa.Column('ended_seq', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['disappearance_id'], ['disappearances.id'], name=op.f('fk_searches_disappearance_id_disappearances')),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_searches_player_id_players')),
    sa.ForeignKeyConstraint(['scenario_id'], ['scenarios.id'], name=op.f('fk_searches_scenario_id_scenarios')),
    sa.ForeignKeyConstraint(['searcher_id'], ['characters.id'], name=op.f('fk_searches_searcher_id_characters')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_searches'))
    )
    with op.batch_alter_table('searches', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_searches_disappearance_id'), ['disappearance_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_searches_searcher_id'), ['searcher_id'], unique=False)


    create_ledger_guards()

def downgrade() -> None:
    drop_ledger_guards()
    with op.batch_alter_table('searches', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_searches_searcher_id'))
        batch_op.drop_index(batch_op.f('ix_searches_disappearance_id'))

    op.drop_table('searches')
    op.drop_table('reunion_checks')
    with op.batch_alter_table('traits', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_traits_character_id'))

    op.drop_table('traits')
    op.drop_table('scenario_participants')
    op.drop_table('relationships')
    with op.batch_alter_table('disappearances', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_disappearances_character_id'))

    op.drop_table('disappearances')
    with op.batch_alter_table('conditions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_conditions_character_id'))

    op.drop_table('conditions')
    op.drop_table('characters')
    op.drop_table('scenarios')
    op.drop_table('players')
    with op.batch_alter_table('ledger', schema=None) as batch_op:
        batch_op.drop_index('ix_ledger_campaign_voids')
        batch_op.drop_index('ix_ledger_campaign_scenario')
        batch_op.drop_index('ix_ledger_campaign_parent')
        batch_op.drop_index('ix_ledger_campaign_outcome')
        batch_op.drop_index('ix_ledger_campaign_kind')
        batch_op.drop_index('ix_ledger_campaign_character')
        batch_op.drop_index('ix_ledger_campaign_at')
        batch_op.drop_index('ix_ledger_campaign_actor')

    op.drop_table('ledger')
    op.drop_table('campaigns')


SQLITE_GUARDS = [
    """CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
       BEGIN SELECT RAISE(ABORT, 'ledger is append-only: UPDATE refused'); END""",
    """CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
       BEGIN SELECT RAISE(ABORT, 'ledger is append-only: DELETE refused'); END""",
]

POSTGRES_GUARDS = [
    """CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION 'ledger is append-only: % refused', TG_OP; END $$""",
    """CREATE TRIGGER ledger_no_update_delete BEFORE UPDATE OR DELETE ON ledger
       FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()""",
    """CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON ledger
       FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()""",
]


def create_ledger_guards() -> None:
    dialect = op.get_bind().dialect.name
    for statement in SQLITE_GUARDS if dialect == "sqlite" else POSTGRES_GUARDS:
        op.execute(statement)


def drop_ledger_guards() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS ledger_no_update")
        op.execute("DROP TRIGGER IF EXISTS ledger_no_delete")
    else:
        op.execute("DROP TRIGGER IF EXISTS ledger_no_truncate ON ledger")
        op.execute("DROP TRIGGER IF EXISTS ledger_no_update_delete ON ledger")
        op.execute("DROP FUNCTION IF EXISTS ledger_refuse_change()")

"""The campaign (roster, bestiary, house rules, finished fights) and the table rules (groups, hidden combatants).

Revision ID: 466489402c1d
Revises: 4f0b9d2c7e15
Create Date: 2026-12-01 11:18:54.945437
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = '466489402c1d'
down_revision = '4f0b9d2c7e15'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('creatures',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('campaign_id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('side', sa.String(length=64), nullable=True),
    sa.Column('notes', sa.Text(), nullable=False),
    sa.Column('initiative', sa.Integer(), nullable=False),
    sa.Column('attack', sa.Integer(), nullable=False),
    sa.Column('defense', sa.Integer(), nullable=False),
    sa.Column('weapon', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=False),
    sa.Column('attacks_per_round', sa.Integer(), nullable=False),
    sa.Column('weapon_ready', sa.Boolean(), nullable=False),
    sa.Column('damage_bonus', sa.Integer(), nullable=False),
    sa.Column('armor', sa.Integer(), nullable=True),
    sa.Column('armor_name', sa.String(length=100), nullable=True),
    sa.Column('toughness', sa.Integer(), nullable=False),
    sa.Column('vitality', sa.Integer(), nullable=False),
    sa.Column('blood', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('wounds', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=False),
    sa.Column('group', sa.String(length=64), nullable=True),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint('(armor IS NULL) <> (armor_name IS NULL)', name=op.f('ck_creatures_armor_points_or_name')),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_creatures_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_creatures'))
    )
    with op.batch_alter_table('creatures', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_creatures_campaign_id'), ['campaign_id'], unique=False)

    op.create_table('characters',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('campaign_id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('side', sa.String(length=64), nullable=True),
    sa.Column('notes', sa.Text(), nullable=False),
    sa.Column('initiative', sa.Integer(), nullable=False),
    sa.Column('attack', sa.Integer(), nullable=False),
    sa.Column('defense', sa.Integer(), nullable=False),
    sa.Column('weapon', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=False),
    sa.Column('attacks_per_round', sa.Integer(), nullable=False),
    sa.Column('weapon_ready', sa.Boolean(), nullable=False),
    sa.Column('damage_bonus', sa.Integer(), nullable=False),
    sa.Column('armor', sa.Integer(), nullable=True),
    sa.Column('armor_name', sa.String(length=100), nullable=True),
    sa.Column('toughness', sa.Integer(), nullable=False),
    sa.Column('vitality', sa.Integer(), nullable=False),
    sa.Column('blood', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('wounds', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=False),
    sa.Column('group', sa.String(length=64), nullable=True),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('encounter_id', sa.String(length=36), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint('(armor IS NULL) <> (armor_name IS NULL)', name=op.f('ck_characters_armor_points_or_name')),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_characters_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['encounter_id'], ['encounters.id'], name=op.f('fk_characters_encounter_id_encounters'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_characters'))
    )
    with op.batch_alter_table('characters', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_characters_campaign_id'), ['campaign_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_characters_encounter_id'), ['encounter_id'], unique=False)

    with op.batch_alter_table('campaigns', schema=None) as batch_op:
        batch_op.add_column(sa.Column('rules', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), server_default='{}', nullable=False))
        batch_op.add_column(sa.Column('version', sa.Integer(), server_default='1', nullable=False))

    with op.batch_alter_table('combatants', schema=None) as batch_op:
        batch_op.add_column(sa.Column('group', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('hidden', sa.Boolean(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('character_id', sa.String(length=36), nullable=True))
        batch_op.add_column(sa.Column('creature_id', sa.String(length=36), nullable=True))
        batch_op.create_index(batch_op.f('ix_combatants_character_id'), ['character_id'], unique=False)

    with op.batch_alter_table('encounters', schema=None) as batch_op:
        batch_op.add_column(sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('finish_state', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=True))



def downgrade() -> None:
    with op.batch_alter_table('encounters', schema=None) as batch_op:
        batch_op.drop_column('finish_state')
        batch_op.drop_column('finished_at')

    with op.batch_alter_table('combatants', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_combatants_character_id'))
        batch_op.drop_column('creature_id')
        batch_op.drop_column('character_id')
        batch_op.drop_column('hidden')
        batch_op.drop_column('group')

    with op.batch_alter_table('campaigns', schema=None) as batch_op:
        batch_op.drop_column('version')
        batch_op.drop_column('rules')

    with op.batch_alter_table('characters', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_characters_encounter_id'))
        batch_op.drop_index(batch_op.f('ix_characters_campaign_id'))

    op.drop_table('characters')
    with op.batch_alter_table('creatures', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_creatures_campaign_id'))

    op.drop_table('creatures')

"""Campaigns, their credentials (hashed keys and scoped tokens), and rate-limit counters.

Encounters made before campaigns existed go to one campaign named "Before campaigns"; it has
no key, so an operator hands it one (or deletes it).

Revision ID: c60899cbec7f
Revises: da89003a5fb1
Create Date: 2026-11-30 02:51:59.910685
"""
import uuid
from datetime import datetime, timezone

from alembic import op
import sqlalchemy as sa


revision = 'c60899cbec7f'
down_revision = 'da89003a5fb1'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('campaigns',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=100), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_campaigns'))
    )
    op.create_table('rate_counters',
    sa.Column('bucket', sa.String(length=120), nullable=False),
    sa.Column('window_start', sa.BigInteger(), nullable=False),
    sa.Column('count', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('bucket', 'window_start', name=op.f('pk_rate_counters'))
    )
    op.create_table('credentials',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('campaign_id', sa.String(length=36), nullable=False),
    sa.Column('secret_hash', sa.String(length=64), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('encounter_id', sa.String(length=36), nullable=True),
    sa.Column('combatant_id', sa.String(length=36), nullable=True),
    sa.Column('label', sa.String(length=100), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_credentials_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['encounter_id'], ['encounters.id'], name=op.f('fk_credentials_encounter_id_encounters'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_credentials')),
    sa.UniqueConstraint('secret_hash', name=op.f('uq_credentials_secret_hash'))
    )
    with op.batch_alter_table('credentials', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_credentials_campaign_id'), ['campaign_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_credentials_encounter_id'), ['encounter_id'], unique=False)

    with op.batch_alter_table('encounters', schema=None) as batch_op:
        batch_op.add_column(sa.Column('campaign_id', sa.String(length=36), nullable=True))
    connection = op.get_bind()
    if connection.execute(sa.text("SELECT COUNT(*) FROM encounters")).scalar():
        legacy = str(uuid.uuid4())
        connection.execute(sa.text("INSERT INTO campaigns (id, name, created_at) VALUES (:id, :name, :now)"),
                           {"id": legacy, "name": "Before campaigns", "now": datetime.now(timezone.utc)})
        connection.execute(sa.text("UPDATE encounters SET campaign_id = :id"), {"id": legacy})
    with op.batch_alter_table('encounters', schema=None) as batch_op:
        batch_op.alter_column('campaign_id', existing_type=sa.String(length=36), nullable=False)
        batch_op.create_index(batch_op.f('ix_encounters_campaign_id'), ['campaign_id'], unique=False)
        batch_op.create_foreign_key(batch_op.f('fk_encounters_campaign_id_campaigns'), 'campaigns', ['campaign_id'], ['id'], ondelete='CASCADE')



def downgrade() -> None:
    with op.batch_alter_table('encounters', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_encounters_campaign_id_campaigns'), type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_encounters_campaign_id'))
        batch_op.drop_column('campaign_id')

    with op.batch_alter_table('credentials', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_credentials_encounter_id'))
        batch_op.drop_index(batch_op.f('ix_credentials_campaign_id'))

    op.drop_table('credentials')
    op.drop_table('rate_counters')
    op.drop_table('campaigns')

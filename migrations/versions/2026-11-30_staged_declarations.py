"""Staged declarations: one per combatant, for the next round, until a round uses them.

Revision ID: 781d328d31c5
Revises: 3e1f7c0a9d11
Create Date: 2026-11-30 14:34:01.725562
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

revision = '781d328d31c5'
down_revision = '3e1f7c0a9d11'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('staged_declarations',
    sa.Column('combatant_id', sa.String(length=36), nullable=False),
    sa.Column('encounter_id', sa.String(length=36), nullable=False),
    sa.Column('declaration', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=False),
    sa.Column('dice', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=False),
    sa.Column('revision', sa.String(length=32), nullable=False),
    sa.Column('staged_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['combatant_id'], ['combatants.id'], name=op.f('fk_staged_declarations_combatant_id_combatants'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['encounter_id'], ['encounters.id'], name=op.f('fk_staged_declarations_encounter_id_encounters'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('combatant_id', name=op.f('pk_staged_declarations'))
    )
    with op.batch_alter_table('staged_declarations', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_staged_declarations_encounter_id'), ['encounter_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('staged_declarations', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_staged_declarations_encounter_id'))

    op.drop_table('staged_declarations')

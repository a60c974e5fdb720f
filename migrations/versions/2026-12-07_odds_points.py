"""The odds timeline's points, kept once computed; a point goes with the round it starts from.

Revision ID: 5d7e0c1a9b32
Revises: fc5969a1446f
Create Date: 2026-12-07 14:20:00.000000
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql


revision = '5d7e0c1a9b32'
down_revision = 'fc5969a1446f'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'odds_points',
        sa.Column('encounter_id', sa.String(length=36), nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('inputs', sa.String(length=64), nullable=False),
        sa.Column('round_id', sa.Integer(), nullable=False),
        sa.Column('fights', sa.Integer(), nullable=False),
        sa.Column('max_rounds', sa.Integer(), nullable=False),
        sa.Column('screened', sa.Boolean(), nullable=False),
        sa.Column('document', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['encounter_id'], ['encounters.id'], name=op.f('fk_odds_points_encounter_id_encounters'), ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['round_id'], ['rounds.id'], name=op.f('fk_odds_points_round_id_rounds'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('encounter_id', 'round', 'inputs', name=op.f('pk_odds_points')),
    )
    with op.batch_alter_table('odds_points', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_odds_points_round_id'), ['round_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('odds_points', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_odds_points_round_id'))
    op.drop_table('odds_points')

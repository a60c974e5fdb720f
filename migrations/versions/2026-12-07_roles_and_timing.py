"""Roles and timing at the table: companions and reinforcements on combatants, the declaration deadline on
encounters (CONTRACT.md, "Roles and timing at the table").

Revision ID: 3b7e1d2c9a40
Revises: 5d7e0c1a9b32
Create Date: 2026-12-07 14:30:00.000000
"""
from alembic import op
import sqlalchemy as sa


revision = '3b7e1d2c9a40'
down_revision = '5d7e0c1a9b32'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('combatants', schema=None) as batch_op:
        batch_op.add_column(sa.Column('companion_of', sa.String(length=36), nullable=True))
        batch_op.add_column(sa.Column('reveal_at_round', sa.Integer(), nullable=True))
    with op.batch_alter_table('encounters', schema=None) as batch_op:
        batch_op.add_column(sa.Column('declaration_seconds', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('auto_resolve', sa.Boolean(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('declarations_due_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(batch_op.f('ix_encounters_declarations_due_at'), ['declarations_due_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('encounters', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_encounters_declarations_due_at'))
        batch_op.drop_column('declarations_due_at')
        batch_op.drop_column('auto_resolve')
        batch_op.drop_column('declaration_seconds')
    with op.batch_alter_table('combatants', schema=None) as batch_op:
        batch_op.drop_column('reveal_at_round')
        batch_op.drop_column('companion_of')

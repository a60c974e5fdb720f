"""Combatants get a side (odds: who fights with whom); none: the combatant is its own side.

Revision ID: 5e1d0a7c93b2
Revises: 512862e3cdfd
Create Date: 2026-11-30 14:50:00
"""
from alembic import op
import sqlalchemy as sa

revision = '5e1d0a7c93b2'
down_revision = '512862e3cdfd'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('combatants', schema=None) as batch_op:
        batch_op.add_column(sa.Column('side', sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('combatants', schema=None) as batch_op:
        batch_op.drop_column('side')

"""Encounters count their stagings: every staging and withdrawal moves `staging` (never the version), so a
round resolved from a snapshot proves in its own compare-and-set that no declaration was staged since.

Revision ID: 8c2d4e6f1a35
Revises: 7b1e0c4d9a21
Create Date: 2026-12-07 21:10:00.000000
"""
from alembic import op
import sqlalchemy as sa


revision = '8c2d4e6f1a35'
down_revision = '7b1e0c4d9a21'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('encounters', schema=None) as batch_op:
        batch_op.add_column(sa.Column('staging', sa.Integer(), server_default='0', nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('encounters', schema=None) as batch_op:
        batch_op.drop_column('staging')

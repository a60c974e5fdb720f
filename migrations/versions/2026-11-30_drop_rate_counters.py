"""Drop the rate-limit counters: limits live in each worker's memory or in Redis now (app/ratelimit).

Revision ID: 5c1f2e7a9b30
Revises: c60899cbec7f
Create Date: 2026-11-30 14:40:00
"""
import sqlalchemy as sa
from alembic import op

revision = '5c1f2e7a9b30'
down_revision = 'c60899cbec7f'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_table('rate_counters')


def downgrade() -> None:
    op.create_table('rate_counters',
    sa.Column('bucket', sa.String(length=120), nullable=False),
    sa.Column('window_start', sa.BigInteger(), nullable=False),
    sa.Column('count', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('bucket', 'window_start', name=op.f('pk_rate_counters'))
    )

"""Combatants, characters and creatures may carry name_forms: the name's Polish forms for the chronicle.

Revision ID: 3c7a1f0e9b21
Revises: 3b7e1d2c9a40
Create Date: 2026-12-07 14:40:00.000000
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql


revision = '3c7a1f0e9b21'
down_revision = '3b7e1d2c9a40'
branch_labels = None
depends_on = None

TABLES = ('combatants', 'characters', 'creatures')


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            json = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql')
            batch_op.add_column(sa.Column('name_forms', json, nullable=True))


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column('name_forms')

"""Combatants carry effects (a JSON list) and a long action (a JSON object or null): RULES.md sections 12-13.

Revision ID: 3e1f7c0a9d11
Revises: 5c1f2e7a9b30
Create Date: 2026-11-30 16:00:00
"""
import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = '3e1f7c0a9d11'
down_revision = '5c1f2e7a9b30'
branch_labels = None
depends_on = None

JSON_DOCUMENT = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql')


def upgrade() -> None:
    # Existing combatants get no effects: the server default fills them, then goes (the model has none).
    with op.batch_alter_table('combatants', schema=None) as batch_op:
        batch_op.add_column(sa.Column('effects', JSON_DOCUMENT, nullable=False, server_default=sa.text("'[]'")))
        batch_op.add_column(sa.Column('long_action', JSON_DOCUMENT, nullable=True))
    with op.batch_alter_table('combatants', schema=None) as batch_op:
        batch_op.alter_column('effects', server_default=None)


def downgrade() -> None:
    with op.batch_alter_table('combatants', schema=None) as batch_op:
        batch_op.drop_column('long_action')
        batch_op.drop_column('effects')

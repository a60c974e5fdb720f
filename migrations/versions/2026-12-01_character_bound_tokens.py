"""A player token may be bound to a roster character (credentials.character_id): it follows the character into its fights.

Revision ID: fc5969a1446f
Revises: 466489402c1d
Create Date: 2026-12-01 11:57:10.064733
"""
from alembic import op
import sqlalchemy as sa


revision = 'fc5969a1446f'
down_revision = '466489402c1d'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('credentials', schema=None) as batch_op:
        batch_op.add_column(sa.Column('character_id', sa.String(length=36), nullable=True))
        batch_op.create_index(batch_op.f('ix_credentials_character_id'), ['character_id'], unique=False)
        batch_op.create_foreign_key(batch_op.f('fk_credentials_character_id_characters'), 'characters', ['character_id'], ['id'], ondelete='CASCADE')



def downgrade() -> None:
    with op.batch_alter_table('credentials', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_credentials_character_id_characters'), type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_credentials_character_id'))
        batch_op.drop_column('character_id')


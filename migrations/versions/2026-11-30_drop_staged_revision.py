"""Drop staged_declarations.revision: a round no longer compares the revisions it read with those it deleted,
it takes the staged declarations in one DELETE ... RETURNING after claiming the encounter's version.

Downgrade gives every declaration still staged a fresh revision, as a PUT would have.

Revision ID: 4f0b9d2c7e15
Revises: 9b4c2e71d0a6
Create Date: 2026-11-30 21:00:00
"""

import uuid

import sqlalchemy as sa
from alembic import op

revision = "4f0b9d2c7e15"
down_revision = "9b4c2e71d0a6"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("staged_declarations", schema=None) as batch_op:
        batch_op.drop_column("revision")


def downgrade() -> None:
    with op.batch_alter_table("staged_declarations", schema=None) as batch_op:
        batch_op.add_column(sa.Column("revision", sa.String(length=32), nullable=True))
    staged = sa.table("staged_declarations", sa.column("combatant_id", sa.String), sa.column("revision", sa.String))
    connection = op.get_bind()
    for (combatant_id,) in connection.execute(sa.select(staged.c.combatant_id)).all():
        connection.execute(
            staged.update().where(staged.c.combatant_id == combatant_id).values(revision=uuid.uuid4().hex)
        )
    with op.batch_alter_table("staged_declarations", schema=None) as batch_op:
        batch_op.alter_column("revision", existing_type=sa.String(length=32), nullable=False)

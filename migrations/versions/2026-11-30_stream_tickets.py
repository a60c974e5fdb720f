"""Stream tickets: single-use, hashed, 60 s stand-ins for a credential, for EventSource.

Revision ID: 512862e3cdfd
Revises: 781d328d31c5
Create Date: 2026-11-30 14:36:38.714667
"""
from alembic import op
import sqlalchemy as sa


revision = '512862e3cdfd'
down_revision = '781d328d31c5'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('stream_tickets',
    sa.Column('secret_hash', sa.String(length=64), nullable=False),
    sa.Column('credential_id', sa.String(length=36), nullable=False),
    sa.Column('encounter_id', sa.String(length=36), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['credential_id'], ['credentials.id'], name=op.f('fk_stream_tickets_credential_id_credentials'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['encounter_id'], ['encounters.id'], name=op.f('fk_stream_tickets_encounter_id_encounters'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('secret_hash', name=op.f('pk_stream_tickets'))
    )
    with op.batch_alter_table('stream_tickets', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_stream_tickets_credential_id'), ['credential_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_stream_tickets_encounter_id'), ['encounter_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_stream_tickets_expires_at'), ['expires_at'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('stream_tickets', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_stream_tickets_expires_at'))
        batch_op.drop_index(batch_op.f('ix_stream_tickets_encounter_id'))
        batch_op.drop_index(batch_op.f('ix_stream_tickets_credential_id'))

    op.drop_table('stream_tickets')

"""Webhooks: a campaign's subscriptions and the outbox of their events.

Revision ID: 7b1e0c4d9a21
Revises: 3c7a1f0e9b21
Create Date: 2026-12-07 14:20:00
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql


revision = '7b1e0c4d9a21'
down_revision = '3c7a1f0e9b21'
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql')


def upgrade() -> None:
    op.create_table(
        'webhook_subscriptions',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('campaign_id', sa.String(length=36), nullable=False),
        sa.Column('url', sa.String(length=2048), nullable=False),
        sa.Column('events', JSON, nullable=False),
        sa.Column('scope', sa.String(length=8), nullable=False),
        sa.Column('format', sa.String(length=8), nullable=False),
        sa.Column('lang', sa.String(length=2), nullable=False),
        sa.Column('encounter_id', sa.String(length=36), nullable=True),
        sa.Column('description', sa.String(length=200), nullable=True),
        sa.Column('secret', sa.String(length=64), nullable=True),
        sa.Column('enabled', sa.Boolean(), nullable=False),
        sa.Column('disabled_reason', sa.String(length=200), nullable=True),
        sa.Column('given_up_streak', sa.Integer(), nullable=False),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_webhook_subscriptions_campaign_id_campaigns'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_subscriptions')),
    )
    with op.batch_alter_table('webhook_subscriptions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_webhook_subscriptions_campaign_id'), ['campaign_id'], unique=False)
    op.create_table(
        'webhook_events',
        sa.Column('seq', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('id', sa.String(length=40), nullable=False),
        sa.Column('subscription_id', sa.String(length=36), nullable=False),
        sa.Column('encounter_id', sa.String(length=36), nullable=False),
        sa.Column('type', sa.String(length=32), nullable=False),
        sa.Column('round', sa.Integer(), nullable=True),
        sa.Column('data', JSON, nullable=False),
        sa.Column('status', sa.String(length=10), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('next_attempt_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('leased_until', sa.DateTime(timezone=True), nullable=True),
        sa.Column('last_attempt', JSON, nullable=True),
        sa.Column('discord_message', sa.String(length=32), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['subscription_id'], ['webhook_subscriptions.id'], name=op.f('fk_webhook_events_subscription_id_webhook_subscriptions'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('seq', name=op.f('pk_webhook_events')),
        sa.UniqueConstraint('id', name=op.f('uq_webhook_events_id')),
    )
    with op.batch_alter_table('webhook_events', schema=None) as batch_op:
        batch_op.create_index('ix_webhook_events_queue', ['subscription_id', 'encounter_id', 'status', 'seq'], unique=False)
        batch_op.create_index('ix_webhook_events_due', ['status', 'next_attempt_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('webhook_events', schema=None) as batch_op:
        batch_op.drop_index('ix_webhook_events_due')
        batch_op.drop_index('ix_webhook_events_queue')
    op.drop_table('webhook_events')
    with op.batch_alter_table('webhook_subscriptions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_webhook_subscriptions_campaign_id'))
    op.drop_table('webhook_subscriptions')

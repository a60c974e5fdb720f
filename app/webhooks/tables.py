"""A campaign's webhook subscriptions and the outbox of their events (one row per event and subscription).

An event row is written in the transaction of the change it reports (app/webhooks/outbox.py) and is its
own delivery: its id is the `webhook-id` on every attempt, its state (pending, delivered, given_up, the
attempts and the lease of the one attempt under way) lives here and nowhere else.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, ForeignKey, Index, Integer, String, Table

from app.platform.db import JSONDocument, UTCDateTime, metadata, utcnow

SUBSCRIPTIONS = Table(
    "webhook_subscriptions",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("campaign_id", ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("url", String(2048), nullable=False),
    Column("events", JSONDocument, nullable=False),  # the event types it takes
    Column("scope", String(8), nullable=False),  # gm | table
    Column("format", String(8), nullable=False),  # standard | discord
    Column("lang", String(2), nullable=False),
    # One encounter or all (null); named by string: the encounters table belongs to a domain beside this one.
    Column("encounter_id", String(36)),
    Column("description", String(200)),
    Column("secret", String(64)),  # whsec_…: standard only (Discord's URL is its secret)
    Column("enabled", Boolean, nullable=False, default=True),
    Column("disabled_reason", String(200)),
    Column("given_up_streak", Integer, nullable=False, default=0),  # events given up in a row
    Column("version", Integer, nullable=False, default=1),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    Column("updated_at", UTCDateTime, nullable=False, default=utcnow),
)

EVENTS = Table(
    "webhook_events",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),  # the order of the outbox
    Column("id", String(40), nullable=False, unique=True),  # the webhook-id
    Column("subscription_id", ForeignKey("webhook_subscriptions.id", ondelete="CASCADE"), nullable=False),
    Column("encounter_id", String(36), nullable=False),  # "" for none (ping): events are ordered per encounter
    Column("type", String(32), nullable=False),
    Column("round", Integer),
    Column("data", JSONDocument, nullable=False),  # what the event says, unscreened (screened when sent)
    Column("status", String(10), nullable=False, default="pending"),  # pending | delivered | given_up
    Column("attempts", Integer, nullable=False, default=0),
    Column("next_attempt_at", UTCDateTime, nullable=False),
    Column("leased_until", UTCDateTime),  # an attempt is under way until then (a dead worker's expires)
    Column("last_attempt", JSONDocument),  # {at, status_code or error, ms}
    Column("discord_message", String(32)),  # Discord: the message a round was posted as (edited on undo)
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    Column("finished_at", UTCDateTime),  # delivered or given up: pruned some time after
    Index("ix_webhook_events_queue", "subscription_id", "encounter_id", "status", "seq"),
    Index("ix_webhook_events_due", "status", "next_attempt_at"),
)

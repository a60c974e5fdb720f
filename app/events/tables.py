"""Stream tickets: single-use, short-lived stand-ins for a credential, for EventSource (which cannot
send an Authorization header). Stored hashed, like keys, so any worker can redeem one."""

from __future__ import annotations

from sqlalchemy import Column, ForeignKey, String, Table

from app.platform.db import UTCDateTime, metadata

STREAM_TICKETS = Table(
    "stream_tickets",
    metadata,
    Column("secret_hash", String(64), primary_key=True),
    Column("credential_id", ForeignKey("credentials.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("encounter_id", ForeignKey("encounters.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("expires_at", UTCDateTime, nullable=False, index=True),
)

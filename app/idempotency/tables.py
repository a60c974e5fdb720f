"""Idempotency keys: the first response to a POST, kept so that a retry returns it instead of acting twice."""

from __future__ import annotations

from sqlalchemy import Column, Integer, LargeBinary, String, Table

from app.platform.db import JSONDocument, UTCDateTime, metadata, utcnow

IDEMPOTENCY_KEYS = Table(
    "idempotency_keys",
    metadata,
    Column("scope", String(64), primary_key=True),  # whose key: keys never collide across callers
    Column("key", String(255), primary_key=True),
    Column("fingerprint", String(64), nullable=False),  # SHA-256 of method, path and body
    Column("state", String(16), nullable=False),  # in_progress | completed
    Column("lease", String(32), nullable=False),  # who holds an in_progress key: a random token
    Column("locked_at", UTCDateTime, nullable=False, default=utcnow),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow, index=True),
    Column("status_code", Integer),
    Column("headers", JSONDocument),
    Column("body", LargeBinary),
)

"""Idempotency keys: the first response to a POST, kept so that a retry returns it instead of acting twice."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import Integer, LargeBinary, String, Table
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, JSONDocument, UTCDateTime, utcnow


class IdempotencyKey(Base):
    __tablename__ = "idempotency_keys"

    scope: Mapped[str] = mapped_column(String(64), primary_key=True)  # whose key: keys never collide across callers
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))  # SHA-256 of method, path and body
    state: Mapped[str] = mapped_column(String(16))  # in_progress | completed
    lease: Mapped[str] = mapped_column(String(32))  # who holds an in_progress key: a random token
    locked_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    status_code: Mapped[int | None] = mapped_column(Integer)
    headers: Mapped[dict[str, Any] | None] = mapped_column(JSONDocument)
    body: Mapped[bytes | None] = mapped_column(LargeBinary)


IDEMPOTENCY_KEYS = cast(Table, IdempotencyKey.__table__)  # for Core statements (declarative types it as a FromClause)

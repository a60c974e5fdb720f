"""Stream tickets: single-use, short-lived stand-ins for a credential, for EventSource (which cannot
send an Authorization header). Stored hashed, like keys, so any worker can redeem one."""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import ForeignKey, String, Table
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, UTCDateTime


class StreamTicket(Base):
    __tablename__ = "stream_tickets"

    secret_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    credential_id: Mapped[str] = mapped_column(ForeignKey("credentials.id", ondelete="CASCADE"), index=True)
    encounter_id: Mapped[str] = mapped_column(ForeignKey("encounters.id", ondelete="CASCADE"), index=True)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)


STREAM_TICKETS = cast(Table, StreamTicket.__table__)  # for Core statements (declarative types it as a FromClause)

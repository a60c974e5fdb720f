"""Fixed-window request counters, shared by every worker and replica through the database."""

from __future__ import annotations

from sqlalchemy import BigInteger, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base


class RateCounter(Base):
    __tablename__ = "rate_counters"

    bucket: Mapped[str] = mapped_column(String(120), primary_key=True)  # "key:<credential>" or "ip:<address>:..."
    window_start: Mapped[int] = mapped_column(BigInteger, primary_key=True)  # epoch seconds
    count: Mapped[int] = mapped_column(Integer)

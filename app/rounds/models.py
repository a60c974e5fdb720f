"""The round history: each resolved round with everything needed to read, replay and undo it."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import ForeignKey, Integer, Table, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, JSONDocument, UTCDateTime, utcnow


class Round(Base):
    __tablename__ = "rounds"
    # The backstop against a round resolved twice: one row per (encounter, number).
    __table_args__ = (UniqueConstraint("encounter_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    encounter_id: Mapped[str] = mapped_column(ForeignKey("encounters.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    request: Mapped[dict[str, Any]] = mapped_column(JSONDocument)  # declarations, dice given, seed asked for
    document: Mapped[dict[str, Any]] = mapped_column(JSONDocument)  # exactly what POST returned
    state_before: Mapped[dict[str, Any]] = mapped_column(JSONDocument)  # encounter + combatants, for undo
    state_after: Mapped[list[dict[str, Any]]] = mapped_column(JSONDocument)  # every combatant, every field
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


ROUNDS = cast(Table, Round.__table__)  # for Core statements (declarative types __table__ as a FromClause)

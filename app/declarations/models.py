"""Staged declarations: what a combatant means to do in the next round, until a round uses it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, JSONDocument, UTCDateTime


class StagedDeclaration(Base):
    __tablename__ = "staged_declarations"

    # One per combatant: a second PUT replaces the first. Removing the combatant (or the encounter)
    # removes it; so does undo, which re-inserts the combatants it restores.
    combatant_id: Mapped[str] = mapped_column(ForeignKey("combatants.id", ondelete="CASCADE"), primary_key=True)
    encounter_id: Mapped[str] = mapped_column(ForeignKey("encounters.id", ondelete="CASCADE"), index=True)
    declaration: Mapped[dict[str, Any]] = mapped_column(JSONDocument)  # the body's stance/action/technical_actions
    dice: Mapped[dict[str, Any]] = mapped_column(JSONDocument)  # only this combatant's keys
    # New on every PUT: a round deletes exactly the revisions it read, so a declaration staged or
    # withdrawn while the round was being resolved is noticed instead of silently lost.
    revision: Mapped[str] = mapped_column(String(32))
    staged_at: Mapped[datetime] = mapped_column(UTCDateTime)


STAGED = StagedDeclaration.__table__  # for Core statements

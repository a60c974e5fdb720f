"""Encounters, their combatants and the declarations staged for them."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import CheckConstraint, ForeignKey, Integer, String, Table, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.db import Base, JSONDocument, UTCDateTime, utcnow


class Encounter(Base):
    __tablename__ = "encounters"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    campaign_id: Mapped[str] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    rules: Mapped[dict[str, Any]] = mapped_column(JSONDocument, default=dict)  # overrides of the default ruleset
    round: Mapped[int] = mapped_column(Integer, default=0)  # rounds resolved so far
    version: Mapped[int] = mapped_column(Integer, default=1)  # bumped by every change: the ETag
    next_position: Mapped[int] = mapped_column(Integer, default=0)  # order in which combatants were added
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    combatants: Mapped[list[Combatant]] = relationship(
        back_populates="encounter",
        order_by="Combatant.position",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )


class Combatant(Base):
    __tablename__ = "combatants"
    __table_args__ = (
        UniqueConstraint("encounter_id", "position"),
        CheckConstraint("(armor IS NULL) <> (armor_name IS NULL)", name="armor_points_or_name"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    encounter_id: Mapped[str] = mapped_column(ForeignKey("encounters.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str | None] = mapped_column(String(100))
    side: Mapped[str | None] = mapped_column(String(64))  # None: its own side
    initiative: Mapped[int] = mapped_column(Integer)
    attack: Mapped[int] = mapped_column(Integer)
    defense: Mapped[int] = mapped_column(Integer)
    weapon: Mapped[Any] = mapped_column(JSONDocument)  # an armory key (string) or an inline profile
    attacks_per_round: Mapped[int] = mapped_column(Integer, default=1)
    weapon_ready: Mapped[bool] = mapped_column(default=True)
    damage_bonus: Mapped[int] = mapped_column(Integer, default=0)
    # Armor as the client gave it (RULES.md section 2): points, or the name of a row of the ruleset's armor
    # table, looked up when a round is resolved. One of the two; app/encounters/store.py folds them into `armor`.
    armor: Mapped[int | None] = mapped_column(Integer)
    armor_name: Mapped[str | None] = mapped_column(String(100))
    toughness: Mapped[int] = mapped_column(Integer, default=0)
    vitality: Mapped[int] = mapped_column(Integer, default=10)
    blood: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="active")
    wounds: Mapped[list[dict[str, Any]]] = mapped_column(JSONDocument, default=list)
    effects: Mapped[list[dict[str, Any]]] = mapped_column(JSONDocument, default=list)  # RULES.md section 12
    long_action: Mapped[dict[str, Any] | None] = mapped_column(JSONDocument, default=None)  # section 13

    encounter: Mapped[Encounter] = relationship(back_populates="combatants")


class StagedDeclaration(Base):
    """A combatant's declaration for the next round, staged ahead of it (app/declarations; a round's use of
    them is app/rounds/staged.py). Here, beside the combatants, because removing one must withdraw it."""

    __tablename__ = "staged_declarations"

    # One per combatant: a second PUT replaces the first. Removing the combatant (or the encounter) removes it.
    combatant_id: Mapped[str] = mapped_column(ForeignKey("combatants.id", ondelete="CASCADE"), primary_key=True)
    encounter_id: Mapped[str] = mapped_column(ForeignKey("encounters.id", ondelete="CASCADE"), index=True)
    declaration: Mapped[dict[str, Any]] = mapped_column(JSONDocument)  # the body's stance/action/technical_actions
    dice: Mapped[dict[str, Any]] = mapped_column(JSONDocument)  # only this combatant's keys
    staged_at: Mapped[datetime] = mapped_column(UTCDateTime)


# The tables themselves, for Core statements (declarative types __table__ as a FromClause; it is a Table).
ENCOUNTERS = cast(Table, Encounter.__table__)
COMBATANTS = cast(Table, Combatant.__table__)
STAGED = cast(Table, StagedDeclaration.__table__)

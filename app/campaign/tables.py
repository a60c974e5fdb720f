"""The roster and the bestiary. A character and a creature carry a combatant's stat block (RULES.md
section 2, without effects and long actions: those end with a fight)."""

from __future__ import annotations

from sqlalchemy import Boolean, CheckConstraint, Column, ForeignKey, Integer, String, Table, Text

from app.platform.db import JSONDocument, UTCDateTime, metadata, utcnow


def _stat_block() -> list[Column]:  # type: ignore[type-arg]
    """A combatant's fields as columns, the same types as app/encounters/tables.py's COMBATANTS."""
    return [
        Column("initiative", Integer, nullable=False),
        Column("attack", Integer, nullable=False),
        Column("defense", Integer, nullable=False),
        Column("weapon", JSONDocument, nullable=False),
        Column("attacks_per_round", Integer, nullable=False, default=1),
        Column("weapon_ready", Boolean, nullable=False, default=True),
        Column("damage_bonus", Integer, nullable=False, default=0),
        Column("armor", Integer),
        Column("armor_name", String(100)),
        Column("toughness", Integer, nullable=False, default=0),
        Column("vitality", Integer, nullable=False, default=10),
        Column("blood", Integer, nullable=False),
        Column("status", String(16), nullable=False, default="active"),
        Column("wounds", JSONDocument, nullable=False, default=list),
        Column("group", String(64)),
        Column("name_forms", JSONDocument),  # the name's Polish forms for the chronicle, or null
    ]


CHARACTERS = Table(
    "characters",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("campaign_id", ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("name", String(100), nullable=False),
    Column("side", String(64)),
    Column("notes", Text, nullable=False, default=""),
    *_stat_block(),
    Column("version", Integer, nullable=False, default=1),
    # The unfinished encounter it is linked into, or null. Set by a guarded UPDATE (… WHERE encounter_id IS
    # NULL), so two fights racing for one character cannot both link it.
    Column("encounter_id", ForeignKey("encounters.id", ondelete="SET NULL"), index=True),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    Column("updated_at", UTCDateTime, nullable=False, default=utcnow),
    CheckConstraint("(armor IS NULL) <> (armor_name IS NULL)", name="armor_points_or_name"),
)

CREATURES = Table(
    "creatures",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("campaign_id", ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("name", String(100), nullable=False),
    Column("side", String(64)),
    Column("notes", Text, nullable=False, default=""),
    *_stat_block(),
    Column("version", Integer, nullable=False, default=1),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    Column("updated_at", UTCDateTime, nullable=False, default=utcnow),
    CheckConstraint("(armor IS NULL) <> (armor_name IS NULL)", name="armor_points_or_name"),
)

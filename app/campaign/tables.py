"""The roster and the bestiary. A character and a creature carry a combatant's stat block (without
effects and long actions: those end with a fight)."""

from __future__ import annotations

from sqlalchemy import Column, ForeignKey, Integer, String, Table, Text

from app.platform.db import UTCDateTime, metadata, utcnow
from app.vocabulary.columns import armor_points_or_name, group_column, stat_block_columns

CHARACTERS = Table(
    "characters",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("campaign_id", ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("name", String(100), nullable=False),
    Column("side", String(64)),
    Column("notes", Text, nullable=False, default=""),
    *stat_block_columns(),
    group_column(),
    Column("version", Integer, nullable=False, default=1),
    # The unfinished encounter it is linked into, or null. Set by a guarded UPDATE (… WHERE encounter_id IS
    # NULL), so two fights racing for one character cannot both link it.
    Column("encounter_id", ForeignKey("encounters.id", ondelete="SET NULL"), index=True),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    Column("updated_at", UTCDateTime, nullable=False, default=utcnow),
    armor_points_or_name(),
)

CREATURES = Table(
    "creatures",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("campaign_id", ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("name", String(100), nullable=False),
    Column("side", String(64)),
    Column("notes", Text, nullable=False, default=""),
    *stat_block_columns(),
    group_column(),
    Column("version", Integer, nullable=False, default=1),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    Column("updated_at", UTCDateTime, nullable=False, default=utcnow),
    armor_points_or_name(),
)

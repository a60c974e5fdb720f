"""The roster and the bestiary. A character and a creature carry a combatant's stat block (without
effects and long actions: those end with a fight)."""

from __future__ import annotations

from sqlalchemy import Column, ForeignKey, Integer, String, Table, Text

from app.platform.db import UTCDateTime, metadata, utcnow
from app.vocabulary.columns import armor_points_or_name, group_column, stat_block_columns


def _stat_block_table(name: str, *after_version: Column) -> Table:  # type: ignore[type-arg]
    """A table of stat blocks in a campaign: the roster's or the bestiary's (`after_version`: its own columns)."""
    return Table(
        name,
        metadata,
        Column("id", String(36), primary_key=True),
        Column("campaign_id", ForeignKey("campaigns.id", ondelete="CASCADE"), nullable=False, index=True),
        Column("name", String(100), nullable=False),
        Column("side", String(64)),
        Column("notes", Text, nullable=False, default=""),
        *stat_block_columns(),
        group_column(),
        Column("version", Integer, nullable=False, default=1),
        *after_version,
        Column("created_at", UTCDateTime, nullable=False, default=utcnow),
        Column("updated_at", UTCDateTime, nullable=False, default=utcnow),
        armor_points_or_name(),
    )


CHARACTERS = _stat_block_table(
    "characters",
    # The unfinished encounter it is linked into, or null. Set by a guarded UPDATE (… WHERE encounter_id IS
    # NULL), so two fights racing for one character cannot both link it.
    Column("encounter_id", ForeignKey("encounters.id", ondelete="SET NULL"), index=True),
)
CREATURES = _stat_block_table("creatures")

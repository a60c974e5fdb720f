"""The odds timeline's points, kept once computed (CONTRACT.md, "the odds timeline").

A point is the odds of the fight played forward from the state after round k. That state is a stored
round's (round k's state_after; round 1's state_before for k = 0), which never changes: so a point hangs
off that round's row, and undoing the round deletes its points with it (ON DELETE CASCADE), on every
worker and replica at once, with no statement of its own on the undo's path. `inputs` is a digest of
everything the point was played from (the combatants as played, their sides, the rules, fights,
max_rounds, the engine): a token's point (played without the hidden combatants) is another row.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, ForeignKey, Integer, String, Table

from app.platform.db import JSONDocument, UTCDateTime, metadata, utcnow

ODDS_POINTS = Table(
    "odds_points",
    metadata,
    Column("encounter_id", ForeignKey("encounters.id", ondelete="CASCADE"), primary_key=True),
    Column("round", Integer, primary_key=True),  # k
    Column("inputs", String(64), primary_key=True),
    # the stored round whose state the point starts from (round k, or round 1 for k = 0): undo drops it
    Column("round_id", ForeignKey("rounds.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("fights", Integer, nullable=False),
    Column("max_rounds", Integer, nullable=False),
    Column("screened", Boolean, nullable=False),  # played without the combatants hidden then
    Column("document", JSONDocument, nullable=False),  # the point as the timeline answers it
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
)

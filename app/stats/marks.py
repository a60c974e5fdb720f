"""What the chronicle reads to mark turning points: those of the owner's timeline as far as it has been
computed. Nothing is played here: a round is marked once its point and the one before it are kept."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from . import point_store
from .turning import TurningPoint, turning_points


async def stored_turning_points(session: AsyncSession, encounter_id: str) -> Mapping[int, TurningPoint]:
    """Round k -> its turning point (the side whose chance moved most, at least 0.20), from the kept points of
    the owner's timeline (not a token's); of several timelines (other `fights`), the one computed furthest,
    then with the most fights. Empty when none has been computed."""
    rows, documents = await point_store.owners_points(session, encounter_id)
    if not rows:
        return {}
    reach = Counter((row.fights, row.max_rounds) for row in rows)
    chosen = max(reach, key=lambda params: (reach[params], params))
    by_round: dict[int, Any] = {}
    for row in rows:  # newest first within a timeline: a round's latest point wins
        if (row.fights, row.max_rounds) == chosen:
            by_round.setdefault(row.round, row.document)
    marks: dict[int, TurningPoint] = {}
    for k in sorted(by_round):
        if k - 1 in by_round:
            for point in turning_points([by_round[k - 1], by_round[k]], documents):
                best = marks.get(k)
                if best is None or abs(point.after - point.before) > abs(best.after - best.before):
                    marks[k] = point
    return marks

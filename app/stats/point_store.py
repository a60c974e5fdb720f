"""The statements of the odds timeline: where each point starts (the stored rounds), the points kept."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.encounters.tables import ROUNDS
from app.platform.db import Database

from .tables import ODDS_POINTS

STARTS = (
    select(ROUNDS.c.id, ROUNDS.c.number, ROUNDS.c.state_before, ROUNDS.c.state_after, ROUNDS.c.document)
    .where(ROUNDS.c.encounter_id == bindparam("encounter_id"), ROUNDS.c.number <= bindparam("latest"))
    .order_by(ROUNDS.c.number)
)
KEPT = select(ODDS_POINTS.c.round, ODDS_POINTS.c.inputs, ODDS_POINTS.c.document).where(
    ODDS_POINTS.c.encounter_id == bindparam("encounter_id"),
    ODDS_POINTS.c.fights == bindparam("fights"),
    ODDS_POINTS.c.max_rounds == bindparam("max_rounds"),
)


async def starts(database: Database, encounter_id: str, latest: int) -> Sequence[Any]:
    """Rounds 1..latest: each one's row id, number, state before and after, and document."""
    return await database.rows(STARTS, {"encounter_id": encounter_id, "latest": latest})


async def kept(database: Database, encounter_id: str, fights: int, max_rounds: int) -> dict[tuple[int, str], Any]:
    rows = await database.rows(KEPT, {"encounter_id": encounter_id, "fights": fights, "max_rounds": max_rounds})
    return {(row.round, row.inputs): row.document for row in rows}


async def keep(database: Database, row: Mapping[str, Any]) -> None:
    """Keep a point, committed by itself; one already kept (another worker's, the same) stays. A point whose
    round was undone meanwhile is not kept: its round's row, which it hangs off, is gone."""
    insert = postgresql_insert if database.engine.dialect.name == "postgresql" else sqlite_insert
    statement = insert(ODDS_POINTS).values(**row).on_conflict_do_nothing().returning(ODDS_POINTS.c.round)
    try:
        await database.rows(statement, {})
    except IntegrityError:
        pass  # the round went (undo) while the point was played: nothing to keep


OWNERS_POINTS = (
    select(ODDS_POINTS.c.round, ODDS_POINTS.c.document, ODDS_POINTS.c.fights, ODDS_POINTS.c.max_rounds)
    .where(ODDS_POINTS.c.encounter_id == bindparam("encounter_id"), ODDS_POINTS.c.screened.is_(False))
    .order_by(ODDS_POINTS.c.fights.desc(), ODDS_POINTS.c.max_rounds.desc(), ODDS_POINTS.c.created_at.desc())
)
DOCUMENTS = select(ROUNDS.c.number, ROUNDS.c.document).where(ROUNDS.c.encounter_id == bindparam("encounter_id"))


async def owners_points(session: AsyncSession, encounter_id: str) -> tuple[Sequence[Any], dict[int, Any]]:
    """The owner's kept points of the encounter (most fights first) and its rounds' documents."""
    points = (await session.execute(OWNERS_POINTS, {"encounter_id": encounter_id})).all()
    documents = {row.number: row.document for row in await session.execute(DOCUMENTS, {"encounter_id": encounter_id})}
    return points, documents

"""The declarations staged for the next round: staged, withdrawn, taken by a round, listed."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, bindparam, delete, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.encounters.tables import COMBATANTS, ENCOUNTERS, STAGED
from app.platform.changefeed import Change, write_and_announce
from app.platform.db import Database


async def stage(
    session: AsyncSession,
    *,
    encounter_id: str,
    combatant_id: str,
    declaration: dict[str, Any],
    dice: dict[str, Any],
    staged_at: datetime,
    announced: Change,
) -> bool:
    """Stage (or replace) one declaration, announcing it; True when none was staged before."""
    replaced = await session.execute(delete(STAGED).where(STAGED.c.combatant_id == combatant_id))
    row = insert(STAGED).values(
        combatant_id=combatant_id, encounter_id=encounter_id, declaration=declaration, dice=dice, staged_at=staged_at
    )
    await write_and_announce(session, row, announced)
    return not replaced.rowcount  # type: ignore[attr-defined]


async def withdraw(session: AsyncSession, *, encounter_id: str, combatant_id: str) -> bool:
    """Withdraw one staged declaration; False when none was staged."""
    removed = await session.execute(
        delete(STAGED).where(STAGED.c.combatant_id == combatant_id, STAGED.c.encounter_id == encounter_id)
    )
    return bool(removed.rowcount)  # type: ignore[attr-defined]


TAKE_STAGED = (
    delete(STAGED)
    .where(STAGED.c.encounter_id == bindparam("encounter_id"))
    .returning(STAGED.c.combatant_id, STAGED.c.declaration, STAGED.c.dice)
)


async def take_staged(session: AsyncSession, encounter_id: str) -> Sequence[Any]:
    """Every staged declaration of the encounter, deleted and returned (combatant_id, declaration, dice)."""
    return (await session.execute(TAKE_STAGED, {"encounter_id": encounter_id})).all()


async def clear_staged(session: AsyncSession, where: ColumnElement[bool]) -> list[str]:
    """Withdraw the staged declarations `where` selects; the combatants they were for."""
    withdrawn = await session.execute(delete(STAGED).where(where).returning(STAGED.c.combatant_id))
    return list(withdrawn.scalars())


def staged_of_encounter(encounter_id: str) -> ColumnElement[bool]:
    return STAGED.c.encounter_id == encounter_id


def staged_of_combatant(combatant_id: str) -> ColumnElement[bool]:
    return STAGED.c.combatant_id == combatant_id


# The encounter's round beside each of its staged declarations, in combatant order, in one statement (one
# snapshot); the outer join keeps the encounter's row when nothing is staged.
STAGED_WITH_ROUND = (
    select(
        ENCOUNTERS.c.round,
        STAGED.c.combatant_id,
        STAGED.c.declaration,
        STAGED.c.dice,
        STAGED.c.staged_at,
        COMBATANTS.c.hidden,
    )
    .select_from(
        ENCOUNTERS.outerjoin(
            STAGED.join(COMBATANTS, COMBATANTS.c.id == STAGED.c.combatant_id),
            STAGED.c.encounter_id == ENCOUNTERS.c.id,
        )
    )
    .where(ENCOUNTERS.c.id == bindparam("encounter_id"), ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))
    .order_by(COMBATANTS.c.position)
)


async def list_staged(database: Database, *, campaign_id: str, encounter_id: str) -> Sequence[Any]:
    """The encounter's round beside each staged declaration; no rows: no such encounter."""
    return await database.rows(STAGED_WITH_ROUND, {"encounter_id": encounter_id, "campaign_id": campaign_id})

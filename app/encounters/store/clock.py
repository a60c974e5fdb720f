"""The declaration deadline's statements on the encounter aggregate's tables:
who has staged and who a player controls, the due time, and the encounters whose deadline has come."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.encounters.tables import ENCOUNTERS, STAGED
from app.platform.db import Database

# Who has staged, and who a player token controls (bound to the combatant, or to its linked character), in
# one statement. Tables of the access domain below, by name.
STAGED_AND_PLAYED = text(
    "SELECT 'staged' AS kind, combatant_id FROM staged_declarations WHERE encounter_id = :encounter_id "
    "UNION ALL SELECT 'played' AS kind, combatants.id FROM combatants JOIN credentials "
    "ON credentials.combatant_id = combatants.id "
    "OR (combatants.character_id IS NOT NULL AND credentials.character_id = combatants.character_id) "
    "WHERE combatants.encounter_id = :encounter_id AND credentials.role = 'player' "
    "AND credentials.revoked_at IS NULL"
)


async def staged_and_played(session: AsyncSession, encounter_id: str) -> tuple[set[str], set[str]]:
    """The combatants with a staged declaration, and those a player token is bound to."""
    found: dict[str, set[str]] = {"staged": set(), "played": set()}
    for row in await session.execute(STAGED_AND_PLAYED, {"encounter_id": encounter_id}):
        found[row.kind].add(row.combatant_id)
    return found["staged"], found["played"]


async def set_due(session: AsyncSession, encounter_id: str, due: datetime | None) -> None:
    """The deadline, written after the caller took the encounter's row (its version unchanged)."""
    await session.execute(update(ENCOUNTERS).where(ENCOUNTERS.c.id == encounter_id).values(declarations_due_at=due))


async def stop_clock(session: AsyncSession, encounter_id: str, version: int, due: datetime) -> bool:
    """Stop the clock of a deadline that passed, if it is still that deadline at that version: True for the
    one caller (of every worker) that did it."""
    stopped = await session.execute(
        update(ENCOUNTERS)
        .where(
            ENCOUNTERS.c.id == encounter_id,
            ENCOUNTERS.c.version == version,
            ENCOUNTERS.c.declarations_due_at == due,
        )
        .values(declarations_due_at=None, updated_at=ENCOUNTERS.c.updated_at)
    )
    return bool(stopped.rowcount)  # type: ignore[attr-defined]


async def count_staged(session: AsyncSession, encounter_id: str) -> int:
    return await session.scalar(select(func.count()).where(STAGED.c.encounter_id == encounter_id)) or 0


UNFINISHED = ENCOUNTERS.c.finished_at.is_(None)
DUE = (
    select(ENCOUNTERS.c.id, ENCOUNTERS.c.campaign_id)
    .where(ENCOUNTERS.c.declarations_due_at <= bindparam("now"), UNFINISHED)
    .order_by(ENCOUNTERS.c.declarations_due_at)
    .limit(bindparam("limit"))
)
NEXT_DUE = select(func.min(ENCOUNTERS.c.declarations_due_at)).where(UNFINISHED)


async def due_encounters(database: Database, now: datetime, limit: int) -> Sequence[Any]:
    """The unfinished encounters whose deadline has come (id, campaign_id), the earliest first."""
    return await database.rows(DUE, {"now": now, "limit": limit})


async def next_due(database: Database) -> datetime | None:
    rows = await database.rows(NEXT_DUE, {})
    found: datetime | None = rows[0][0] if rows else None
    return found

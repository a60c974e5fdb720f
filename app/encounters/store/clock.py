"""The declaration deadline's statements on the encounter aggregate's tables:
whether the declarations are complete, the due time, and the encounters whose deadline has come."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.encounters.tables import ENCOUNTERS, STAGED
from app.platform.db import Database

# The one definition of `declarations.complete` (CONTRACT.md): every active combatant a player token controls
# (bound to it, or to its linked character, and that one's companions), hidden ones aside (no player sees
# them), and how many of them have nothing staged; with the encounter's last round. Tables of the access
# domain below, by name.
DECLARATIONS = text(
    "WITH played AS (SELECT combatants.id FROM combatants JOIN credentials "
    "ON credentials.combatant_id = combatants.id "
    "OR (combatants.character_id IS NOT NULL AND credentials.character_id = combatants.character_id) "
    "WHERE combatants.encounter_id = :encounter_id AND credentials.role = 'player' "
    "AND credentials.revoked_at IS NULL) "
    "SELECT count(*) AS controlled, "
    "count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM staged_declarations AS staged "
    "WHERE staged.encounter_id = :encounter_id AND staged.combatant_id = combatants.id)) AS undeclared, "
    "(SELECT round FROM encounters WHERE id = :encounter_id) AS latest "
    "FROM combatants WHERE combatants.encounter_id = :encounter_id AND combatants.status = 'active' "
    "AND NOT combatants.hidden "
    "AND (combatants.id IN (SELECT id FROM played) OR combatants.companion_of IN (SELECT id FROM played))"
)


async def complete_round(session: AsyncSession, encounter_id: str) -> int | None:
    """The round whose declarations are complete (the next one), or None while one is missing or when no
    player controls anyone."""
    controlled, undeclared, latest = (await session.execute(DECLARATIONS, {"encounter_id": encounter_id})).one()
    return None if not controlled or undeclared or latest is None else int(latest) + 1


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

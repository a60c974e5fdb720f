"""The combatants' rows: inserted with their encounter or one by one, changed between rounds and by a
round, restored by an undo. Always inside a command that moved the encounter's version first."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import bindparam, delete, insert, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.encounters import convert
from app.encounters.convert import EncounterRecord
from app.encounters.tables import COMBATANTS


async def insert_combatants(session: AsyncSession, encounter_id: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """One executemany."""
    if rows:
        await session.execute(insert(COMBATANTS), [convert.combatant_columns(row) for row in rows])


async def update_combatant(session: AsyncSession, combatant_id: str, values: Mapping[str, Any]) -> None:
    await session.execute(
        update(COMBATANTS).where(COMBATANTS.c.id == combatant_id).values(**convert.combatant_columns(values))
    )


async def delete_combatant(session: AsyncSession, combatant_id: str) -> None:
    await session.execute(delete(COMBATANTS).where(COMBATANTS.c.id == combatant_id))


async def drop_long_actions(session: AsyncSession, combatant_ids: Collection[str]) -> None:
    await session.execute(update(COMBATANTS).where(COMBATANTS.c.id.in_(combatant_ids)).values(long_action=None))


async def write_effects(session: AsyncSession, combatant_id: str, effects: list[dict[str, Any]]) -> None:
    await session.execute(update(COMBATANTS).where(COMBATANTS.c.id == combatant_id).values(effects=effects))


UPDATE_STATE = (
    update(COMBATANTS)
    .where(COMBATANTS.c.id == bindparam("row_id"))
    .values({name: bindparam(name) for name in (*convert.ROUND_CHANGES, "hidden")})
)


async def write_round_states(session: AsyncSession, changes: list[dict[str, Any]]) -> None:
    """What a round changed on each combatant: one executemany by primary key."""
    if changes:
        await session.execute(UPDATE_STATE, [{"row_id": change.pop("id"), **change} for change in changes])


RESTORE_ROW = (
    update(COMBATANTS)
    .where(COMBATANTS.c.id == bindparam("row_id"))
    .values({name: bindparam(name) for name in COMBATANTS.c.keys() if name not in ("id", "encounter_id")})
)


def _restored_columns(row: dict[str, Any]) -> dict[str, Any]:
    """RESTORE_ROW's parameters: the row's columns but its id, which names the row to update."""
    return {name: value for name, value in convert.combatant_columns(row).items() if name != "id"} | {
        "row_id": row["id"]
    }


async def restore_combatants(
    session: AsyncSession, encounter: EncounterRecord, saved: Iterable[dict[str, Any]]
) -> None:
    """The combatants as the snapshot has them, each in its own row: the rows of those there throughout are
    updated in place (same ids, same positions), those added since are deleted, those removed since come back."""
    now_there = {row["id"] for row in encounter.combatants}
    rows = [convert.restored(c) for c in saved]
    added_since = now_there - {row["id"] for row in rows}
    if added_since:
        await session.execute(delete(COMBATANTS).where(COMBATANTS.c.id.in_(added_since)))
    kept = [row for row in rows if row["id"] in now_there]
    if kept:
        await session.execute(RESTORE_ROW, [_restored_columns(row) for row in kept])
    removed_since = [
        {**convert.combatant_columns(row), "encounter_id": encounter.id} for row in rows if row["id"] not in now_there
    ]
    if removed_since:
        await session.execute(insert(COMBATANTS), removed_since)

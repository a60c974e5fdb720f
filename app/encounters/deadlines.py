"""The declaration deadline (CONTRACT.md, "Roles and timing at the table"): what the use cases write and say
when the clock starts, stops or is met.

The due time lives in the encounter's row (`declarations_due_at`), so whichever worker is up acts on it
(app/encounters/deadline_job.py, on the worker's one background dispatcher). Every change of it wakes that
job on every worker at commit, so each sleeps until the earliest deadline. The clock starts after each
round (and undo), when the setting is made, and when a declaration is staged while it stands still; it
stops (null) when a deadline passes without a round, and at the finish: an empty table never plays alone.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.encounters import store
from app.encounters.convert import EncounterRecord
from app.platform import dispatcher
from app.platform.changefeed import Change

JOB = "declaration-deadlines"


def due_after(seconds: int | None, now: datetime) -> datetime | None:
    return None if seconds is None else now + timedelta(seconds=seconds)


def restarted(encounter: EncounterRecord, now: datetime) -> dict[str, Any]:
    """The column values that start the clock anew (or keep it still): nothing to write when there is no
    deadline and none was running (the hot path of an encounter without one pays nothing)."""
    due = due_after(encounter.declaration_seconds, now)
    if due is None and encounter.declarations_due_at is None:
        return {}
    return {"declarations_due_at": due}


def deadline_change(encounter_id: str, next_round: int, version: int, due: datetime | None) -> Change:
    """`deadline` on the stream: when the declarations for `next_round` are due (null: no clock)."""
    return Change.of_timing(encounter_id, "deadline", next_round, version, None if due is None else due.isoformat())


def clock_changes(encounter_id: str, values: dict[str, Any], next_round: int, version: int) -> list[Change]:
    """The `deadline` change to announce with a write of `values` (from `restarted`), if the clock moved."""
    if "declarations_due_at" not in values:
        return []
    return [deadline_change(encounter_id, next_round, version, values["declarations_due_at"])]


async def announce_clock(
    session: AsyncSession, encounter_id: str, values: dict[str, Any], next_round: int, version: int
) -> list[Change]:
    """Inside the transaction that wrote `values` (from `restarted`): the job is woken on every worker at
    commit, and the `deadline` change to announce with the write is returned."""
    changes = clock_changes(encounter_id, values, next_round, version)
    if changes:
        await wake_at_commit(session)
    return changes


async def wake_at_commit(session: AsyncSession) -> None:
    """The deadline job, on every worker, once this transaction commits (after the clock moved)."""
    await dispatcher.wake_at_commit(session, JOB)


async def on_staging(
    session: AsyncSession, encounter: EncounterRecord, *, combatant_id: str, created: bool, now: datetime
) -> list[Change]:
    """After a declaration is staged (the encounter's row held): announce `declarations.complete` when this
    one made every active combatant a player token controls declared (`store.complete_round`, the one
    definition, which the webhooks' outbox asks too), and with `auto_resolve` make the round due at once.
    Checked only where it can matter (a deadline or auto_resolve is set), so that staging in an encounter
    without either costs no statement more."""
    timed = encounter.declaration_seconds is not None or encounter.auto_resolve
    if not timed or not created:
        return []
    complete = await store.complete_round(session, encounter.id)
    if complete is None:
        return []
    changes = [Change.of_timing(encounter.id, "declarations.complete", complete, encounter.version)]
    if encounter.auto_resolve:
        await store.set_due(session, encounter.id, now)
        await wake_at_commit(session)
    return changes

"""The aggregate's load and change: one way to load an encounter (`read` outside a transaction, `load`
inside one: the same statement, one frozen record, the expected version checked) and one guarded version
update (`bump_version`, and `hold_version` which takes the row without moving the version: both the
platform's `compare_and_set`). Two requests that read the same version cannot both write: the loser gets a
409 and re-reads. The rounds' unique (encounter, number) constraint is the backstop behind it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from sqlalchemy import Row, bindparam, delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.encounters import convert
from app.encounters.convert import EncounterRecord
from app.encounters.store import combatant_rows
from app.encounters.tables import COMBATANTS, ENCOUNTERS, STAGED
from app.platform.db import Database
from app.platform.errors import NotFound
from app.platform.transactions import StaleSnapshot, changed_meanwhile
from app.platform.versions import ANY_VERSION, ExpectedVersion, compare_and_set, next_version

# The encounter's columns (labelled encounter__<name>) on each of its combatants' rows, in one
# statement: a consistent snapshot without a transaction, in one round trip.
ENCOUNTER_WITH_COMBATANTS = (
    select(*(column.label(f"encounter__{column.name}") for column in ENCOUNTERS.c), COMBATANTS)
    .outerjoin(COMBATANTS, COMBATANTS.c.encounter_id == ENCOUNTERS.c.id)
    .where(ENCOUNTERS.c.id == bindparam("encounter_id"), ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))
    .order_by(COMBATANTS.c.position)
)
# A round's snapshot: the same, with the declaration staged for each combatant beside it (one statement, so
# the round proves in its compare-and-set, version and staging counter, that all of it still holds).
ROUND_SNAPSHOT = (
    select(
        *(column.label(f"encounter__{column.name}") for column in ENCOUNTERS.c),
        COMBATANTS,
        STAGED.c.declaration.label("staged_declaration"),
        STAGED.c.dice.label("staged_dice"),
    )
    .select_from(
        ENCOUNTERS.outerjoin(COMBATANTS, COMBATANTS.c.encounter_id == ENCOUNTERS.c.id).outerjoin(
            STAGED, STAGED.c.combatant_id == COMBATANTS.c.id
        )
    )
    .where(ENCOUNTERS.c.id == bindparam("encounter_id"), ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))
    .order_by(COMBATANTS.c.position)
)
_COMBATANTS_AT = len(ENCOUNTERS.c)  # where a row's combatant columns start
_COMBATANT_ID_AT = _COMBATANTS_AT + convert.COMBATANT_COLUMNS.index("id")  # None: an encounter without combatants
_STAGED_AT = _COMBATANTS_AT + len(COMBATANTS.c)  # ROUND_SNAPSHOT: where the staged declaration's columns start


class StagedRow(NamedTuple):
    """A declaration staged for the next round, as a round takes it."""

    combatant_id: str
    declaration: dict[str, Any]
    dice: dict[str, Any]


def _record(rows: Sequence[Any], encounter_id: str) -> EncounterRecord:
    """The record read by ENCOUNTER_WITH_COMBATANTS; 404 when there were no rows. By position: the
    statement selects the encounter's columns, then the combatant's (a read's hot loop: a name lookup
    per column and row cost a tenth of a GET)."""
    if not rows:
        raise NotFound(f"There is no encounter {encounter_id}.")
    encounter = dict(zip(ENCOUNTERS.c.keys(), rows[0][:_COMBATANTS_AT]))
    combatants = tuple(
        convert.combatant_from_columns(row[_COMBATANTS_AT:_STAGED_AT])
        for row in rows
        if row[_COMBATANT_ID_AT] is not None
    )
    return EncounterRecord(**{name: encounter[name] for name in convert.ENCOUNTER_COLUMNS}, combatants=combatants)


async def read(
    database: Database, *, campaign_id: str, encounter_id: str, expected: ExpectedVersion = ANY_VERSION
) -> EncounterRecord:
    """Outside a transaction: one autocommitted statement (a consistent snapshot by itself). A change may
    read this way before its transaction: its `bump_version` then proves nothing changed since."""
    rows = await database.read(ENCOUNTER_WITH_COMBATANTS, {"encounter_id": encounter_id, "campaign_id": campaign_id})
    encounter = _record(rows, encounter_id)
    expected.check(encounter.version)
    return encounter


async def read_for_round(
    database: Database, *, campaign_id: str, encounter_id: str
) -> tuple[EncounterRecord, tuple[StagedRow, ...]]:
    """A round's snapshot, outside its transaction: the encounter (404 when there is none) and the declarations
    staged for its combatants, in their order."""
    rows = await database.read(ROUND_SNAPSHOT, {"encounter_id": encounter_id, "campaign_id": campaign_id})
    encounter = _record(rows, encounter_id)
    staged = tuple(
        StagedRow(row[_COMBATANT_ID_AT], row[_STAGED_AT], row[_STAGED_AT + 1])
        for row in rows
        if row[_STAGED_AT] is not None
    )
    return encounter, staged


async def load(
    session: AsyncSession, *, campaign_id: str, encounter_id: str, expected: ExpectedVersion = ANY_VERSION
) -> EncounterRecord:
    """Inside the command's transaction: the campaign's encounter, or 404 (another campaign's encounter
    does not exist for this caller); StaleVersion (412) when it is not at a version the caller expects."""
    keys = {"encounter_id": encounter_id, "campaign_id": campaign_id}
    encounter = _record((await session.execute(ENCOUNTER_WITH_COMBATANTS, keys)).all(), encounter_id)
    expected.check(encounter.version)
    return encounter


async def bump_version(session: AsyncSession, encounter_id: str, read_version: int, **changes: Any) -> int:
    """Move the encounter to its next version (with `changes`) if it is still the one read; else 409."""
    return await next_version(session, ENCOUNTERS, encounter_id, read_version, changed_meanwhile, **changes)


async def hold_version(session: AsyncSession, encounter_id: str, read_version: int, **clock: Any) -> None:
    """Take the encounter's row without changing its version (staging) if it is still at the version read;
    else re-run the use case against the new state. The staging counter moves, so that a round resolved
    from an older snapshot cannot take the declarations (`round_writes`). `clock`: the declaration
    deadline, started by staging."""
    unchanged = {"version": ENCOUNTERS.c.version, "updated_at": ENCOUNTERS.c.updated_at}  # not onupdate's now()
    values = {**unchanged, "staging": ENCOUNTERS.c.staging + 1, **clock}
    await compare_and_set(session, ENCOUNTERS, encounter_id, read_version, values, StaleSnapshot(read_version))


# --- encounters -------------------------------------------------------------------------------------


async def insert_encounter(session: AsyncSession, encounter: EncounterRecord) -> None:
    """The encounter's row (and its combatants, if the record has any)."""
    columns = {name: getattr(encounter, name) for name in convert.ENCOUNTER_COLUMNS}
    await session.execute(insert(ENCOUNTERS).values(**columns))
    await combatant_rows.insert_combatants(session, encounter.id, encounter.combatants)


async def list_encounters(
    session: AsyncSession, *, campaign_id: str, limit: int, offset: int
) -> tuple[list[Row[Any]], int]:
    mine = ENCOUNTERS.c.campaign_id == campaign_id
    total = await session.scalar(select(func.count()).select_from(ENCOUNTERS).where(mine))
    rows = await session.execute(
        select(ENCOUNTERS)
        .where(mine)
        .order_by(ENCOUNTERS.c.created_at.desc(), ENCOUNTERS.c.id.desc())
        .limit(limit)
        .offset(offset)
    )
    return list(rows), total or 0


async def set_finish_state(session: AsyncSession, encounter_id: str, finish_state: dict[str, Any] | None) -> None:
    """What reopen needs (or None), written after the version's update has taken the row."""
    await session.execute(update(ENCOUNTERS).where(ENCOUNTERS.c.id == encounter_id).values(finish_state=finish_state))


async def delete_encounter(session: AsyncSession, encounter_id: str) -> None:
    await session.execute(delete(ENCOUNTERS).where(ENCOUNTERS.c.id == encounter_id))  # the rest cascades

"""An encounter as read: one frozen record from one statement; and the version compare-and-set.

Every change reads the encounter, then bumps its version only if it is still the one read
(`claim_version`). Two requests that read the same version cannot both write: the loser gets a 409
and re-reads. The rounds' unique (encounter, number) constraint is the backstop behind it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import Database, utcnow
from app.encounters.models import COMBATANTS, ENCOUNTERS
from app.etags import check_if_match
from app.problems import NotFound
from app.transactions import StaleSnapshot, changed_meanwhile, first_read_version, is_sqlite_busy

CombatantRow = Mapping[str, Any]  # one combatant's columns, by name


@dataclass(frozen=True, slots=True)
class EncounterRecord:
    """The encounter's columns (a test checks they match the table) and its combatants, by position."""

    id: str
    campaign_id: str
    name: str
    rules: dict[str, Any]
    round: int
    version: int
    next_position: int
    created_at: datetime
    updated_at: datetime
    combatants: tuple[CombatantRow, ...]


ENCOUNTER_COLUMNS = tuple(f.name for f in fields(EncounterRecord) if f.name != "combatants")

# The encounter's columns (labelled encounter__<name>) on each of its combatants' rows, in one
# statement: a consistent snapshot without a transaction, in one round trip.
ENCOUNTER_WITH_COMBATANTS = (
    select(*(column.label(f"encounter__{column.name}") for column in ENCOUNTERS.c), COMBATANTS)
    .outerjoin(COMBATANTS, COMBATANTS.c.encounter_id == ENCOUNTERS.c.id)
    .where(ENCOUNTERS.c.id == bindparam("encounter_id"), ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))
    .order_by(COMBATANTS.c.position)
)
COMBATANT_COLUMNS = tuple(COMBATANTS.c.keys())
_COMBATANTS_AT = len(ENCOUNTERS.c)  # where a row's combatant columns start
_COMBATANT_ID_AT = _COMBATANTS_AT + COMBATANT_COLUMNS.index("id")  # None: an encounter without combatants


def combatant_from_columns(values: Sequence[Any]) -> dict[str, Any]:
    """A combatant row (its columns' values, in table order) as the services see it: `armor` as the client
    gave it, points or a name (a column has one type, so the table keeps a name in armor_name)."""
    row = dict(zip(COMBATANT_COLUMNS, values))
    armor_name = row.pop("armor_name")
    if armor_name is not None:
        row["armor"] = armor_name
    return row


def combatant_columns(row: Mapping[str, Any]) -> dict[str, Any]:
    """The other way: column values for a combatant row (or the part of one being changed)."""
    columns = dict(row)
    if "armor" in row:
        named = isinstance(row["armor"], str)
        columns["armor"], columns["armor_name"] = (None, row["armor"]) if named else (row["armor"], None)
    return columns


def encounter_from_rows(rows: Sequence[Any], encounter_id: str) -> EncounterRecord:
    """The record read by ENCOUNTER_WITH_COMBATANTS; 404 when there were no rows. By position: the
    statement selects the encounter's columns, then the combatant's (a read's hot loop: a name lookup
    per column and row cost a tenth of a GET)."""
    if not rows:
        raise NotFound(f"There is no encounter {encounter_id}.")
    encounter = dict(zip(ENCOUNTERS.c.keys(), rows[0][:_COMBATANTS_AT]))
    combatants = tuple(
        combatant_from_columns(row[_COMBATANTS_AT:]) for row in rows if row[_COMBATANT_ID_AT] is not None
    )
    return EncounterRecord(**{name: encounter[name] for name in ENCOUNTER_COLUMNS}, combatants=combatants)


async def read(database: Database, *, campaign_id: str, encounter_id: str) -> EncounterRecord:
    """Outside a transaction: one autocommitted statement."""
    rows = await database.rows(ENCOUNTER_WITH_COMBATANTS, {"encounter_id": encounter_id, "campaign_id": campaign_id})
    return encounter_from_rows(rows, encounter_id)


async def load_owned(
    session: AsyncSession, encounter_id: str, campaign_id: str, *, if_match: str | None = None
) -> EncounterRecord:
    """Inside the service's transaction: the campaign's encounter, or 404 (another campaign's encounter
    does not exist for this caller); 412 if the caller's If-Match is no longer its ETag."""
    keys = {"encounter_id": encounter_id, "campaign_id": campaign_id}
    encounter = encounter_from_rows((await session.execute(ENCOUNTER_WITH_COMBATANTS, keys)).all(), encounter_id)
    check_if_match(if_match, encounter.version)
    return encounter


async def claim_version(session: AsyncSession, encounter_id: str, read_version: int, **changes: Any) -> int:
    """Bump the encounter's version if it is still the one we read; else someone else won: 409."""
    first_read = first_read_version.get()
    if first_read is not None and first_read != read_version:
        raise changed_meanwhile()  # a retry after a stale snapshot found the encounter itself changed
    try:
        result = await session.execute(
            update(ENCOUNTERS)
            .where(ENCOUNTERS.c.id == encounter_id, ENCOUNTERS.c.version == read_version)
            .values(version=read_version + 1, updated_at=changes.pop("updated_at", None) or utcnow(), **changes)
        )
    except OperationalError as error:
        if is_sqlite_busy(error):
            raise StaleSnapshot(read_version) from error
        raise
    if result.rowcount != 1:  # type: ignore[attr-defined]  # an UPDATE's result is a CursorResult
        raise changed_meanwhile()
    return read_version + 1

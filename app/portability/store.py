"""Every statement of export and import, across the aggregates' tables: a dump reads and writes them
wholesale, in creation order and in batches, which no use case of one aggregate does.

Reads are keyset-paged (an encounter batch after the last (created_at, id); a round batch after the last
number) so that memory stays bounded by a batch, not by the campaign.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Table, and_, bindparam, func, insert, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.tables import CAMPAIGNS
from app.campaign.tables import CHARACTERS, CREATURES
from app.encounters import convert
from app.encounters.tables import COMBATANTS, ENCOUNTERS, ROUNDS, STAGED
from app.platform.db import Database
from app.vocabulary.columns import armor_folded, armor_split

ID_BATCH = 500  # ids per IN (...): well under SQLite's and PostgreSQL's parameter limits

# What a document leaves out of a row: whose it is (the import's campaign), when it last changed (the import
# sets it now), and the rounds' surrogate key.
LEFT_OUT = {"campaign_id", "updated_at", "encounter_id"}


def _plain(row: Any) -> dict[str, Any]:
    """A row as a dict with plain str keys (orjson refuses SQLAlchemy's quoted_name, a str subclass)."""
    return {str(name): value for name, value in row._mapping.items()}


async def campaign(session: AsyncSession, campaign_id: str) -> dict[str, Any] | None:
    row = (await session.execute(select(CAMPAIGNS).where(CAMPAIGNS.c.id == campaign_id))).first()
    return None if row is None else _plain(row)


async def roster(session: AsyncSession, table: Table, campaign_id: str) -> list[dict[str, Any]]:
    """The campaign's characters or creatures, oldest first, `armor` folded as the API reads it."""
    rows = await session.execute(
        select(table).where(table.c.campaign_id == campaign_id).order_by(table.c.created_at, table.c.id)
    )
    kept = []
    for row in rows:
        resource = armor_folded(_plain(row))
        linked = resource.pop("encounter_id", None)
        resource = {name: value for name, value in resource.items() if name not in LEFT_OUT}
        if table is CHARACTERS:
            resource["encounter_id"] = linked
        kept.append(resource)
    return kept


async def encounters_after(
    session: AsyncSession, campaign_id: str, after: tuple[Any, str] | None, limit: int
) -> list[dict[str, Any]]:
    """A batch of the campaign's encounters, oldest first, after (created_at, id)."""
    query = select(ENCOUNTERS).where(ENCOUNTERS.c.campaign_id == campaign_id)
    if after is not None:
        created_at, encounter_id = after
        query = query.where(
            or_(
                ENCOUNTERS.c.created_at > created_at,
                and_(ENCOUNTERS.c.created_at == created_at, ENCOUNTERS.c.id > encounter_id),
            )
        )
    rows = await session.execute(query.order_by(ENCOUNTERS.c.created_at, ENCOUNTERS.c.id).limit(limit))
    return [_plain(row) for row in rows]


async def combatants_of(session: AsyncSession, encounter_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Each encounter's combatants by position, as the services see them (armor folded)."""
    found: dict[str, list[dict[str, Any]]] = {e: [] for e in encounter_ids}
    rows = await session.execute(
        select(COMBATANTS)
        .where(COMBATANTS.c.encounter_id.in_(encounter_ids))
        .order_by(COMBATANTS.c.encounter_id, COMBATANTS.c.position)
    )
    for row in rows:
        combatant = {str(k): v for k, v in convert.combatant_from_columns(tuple(row)).items()}
        found[combatant.pop("encounter_id")].append(combatant)
    return found


async def staged_of(session: AsyncSession, encounter_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Each encounter's staged declarations, in its combatants' order."""
    found: dict[str, list[dict[str, Any]]] = {e: [] for e in encounter_ids}
    rows = await session.execute(
        select(STAGED.c.encounter_id, STAGED.c.combatant_id, STAGED.c.declaration, STAGED.c.dice, STAGED.c.staged_at)
        .join(COMBATANTS, COMBATANTS.c.id == STAGED.c.combatant_id)
        .where(STAGED.c.encounter_id.in_(encounter_ids))
        .order_by(STAGED.c.encounter_id, COMBATANTS.c.position)
    )
    for row in rows:
        staged = _plain(row)
        found[staged.pop("encounter_id")].append(staged)
    return found


ROUND_FIELDS = (
    ROUNDS.c.number,
    ROUNDS.c.request,
    ROUNDS.c.document,
    ROUNDS.c.state_before,
    ROUNDS.c.state_after,
    ROUNDS.c.created_at,
)


async def rounds_after(session: AsyncSession, encounter_id: str, after: int, limit: int) -> list[dict[str, Any]]:
    """A batch of the encounter's rounds, by number, after round `after`."""
    rows = await session.execute(
        select(*ROUND_FIELDS)
        .where(ROUNDS.c.encounter_id == encounter_id, ROUNDS.c.number > after)
        .order_by(ROUNDS.c.number)
        .limit(limit)
    )
    return [_plain(row) for row in rows]


# --- import ---------------------------------------------------------------------------------------------

EXISTING = {
    "character": CHARACTERS,
    "creature": CREATURES,
    "encounter": ENCOUNTERS,
    "combatant": COMBATANTS,
}


async def first_existing(session: AsyncSession, ids: Mapping[str, Iterable[str]]) -> tuple[str, str] | None:
    """The first (noun, id) of `ids` (by noun) that some row here already has."""
    for noun, wanted in ids.items():
        table = EXISTING[noun]
        listed = list(wanted)
        for start in range(0, len(listed), ID_BATCH):
            batch = listed[start : start + ID_BATCH]
            found = await session.scalar(select(table.c.id).where(table.c.id.in_(batch)).limit(1))
            if found is not None:
                return noun, found
    return None


async def insert_rows(session: AsyncSession, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
    """One executemany per batch."""
    for start in range(0, len(rows), ID_BATCH):
        batch = rows[start : start + ID_BATCH]
        if batch:
            await session.execute(insert(table), list(batch))


def roster_columns(resource: Mapping[str, Any]) -> dict[str, Any]:
    return armor_split(resource)


def combatant_columns(row: Mapping[str, Any]) -> dict[str, Any]:
    return convert.combatant_columns(row)


async def round_count(database: Database, campaign_id: str) -> int:
    rows = await database.rows(
        select(func.count())
        .select_from(ROUNDS.join(ENCOUNTERS, ENCOUNTERS.c.id == ROUNDS.c.encounter_id))
        .where(ENCOUNTERS.c.campaign_id == bindparam("campaign_id")),
        {"campaign_id": campaign_id},
    )
    return int(rows[0][0])

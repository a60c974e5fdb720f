"""The round history: a round stored with what replays and undoes it, deleted by undo, read page by page,
and the stream's reads (no campaign: the subscription was checked when it began)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, bindparam, delete, func, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.encounters.tables import COMBATANTS, ENCOUNTERS, ROUNDS
from app.platform.changefeed import Change, write_and_announce
from app.platform.db import Database, utcnow
from app.platform.errors import NotFound

INSERT_ROUND = insert(ROUNDS)


async def insert_round(
    session: AsyncSession, *, encounter_id: str, number: int, changes: Sequence[Change], **columns: Any
) -> None:
    """Store a round (request, document, state_before, state_after) and announce `changes` with it."""
    values = {"encounter_id": encounter_id, "number": number, "created_at": utcnow(), **columns}
    await write_and_announce(session, INSERT_ROUND, *changes, parameters=values)  # delivered at commit


async def first_snapshot(session: AsyncSession, encounter_id: str) -> dict[str, Any] | None:
    """Round 1's state_before (the fight as it started), or None before the first round."""
    state: dict[str, Any] | None = await session.scalar(
        select(ROUNDS.c.state_before).where(_this_round(encounter_id, 1))
    )
    return state


async def state_after(session: AsyncSession, encounter_id: str, number: int) -> list[dict[str, Any]]:
    """Every combatant's row as round `number` left it (the round must exist)."""
    state = await session.scalar(select(ROUNDS.c.state_after).where(_this_round(encounter_id, number)))
    return list(state or [])


def _this_round(encounter_id: str, number: int) -> ColumnElement[bool]:
    return (ROUNDS.c.encounter_id == encounter_id) & (ROUNDS.c.number == number)


def next_position_before(encounter_id: str, number: int) -> Any:
    """The encounter's next position as round `number`'s snapshot has it, for the version update to read."""
    this_round = _this_round(encounter_id, number)
    return select(ROUNDS.c.state_before["next_position"].as_integer()).where(this_round).scalar_subquery()


async def delete_round(
    session: AsyncSession, encounter_id: str, number: int, changes: Sequence[Change]
) -> dict[str, Any]:
    """Delete a round, announcing `changes`; its state_before."""
    undone = delete(ROUNDS).where(_this_round(encounter_id, number)).returning(ROUNDS.c.state_before)
    state_before: dict[str, Any] = (await write_and_announce(session, undone, *changes)).one().state_before
    return state_before


ROUND_WITH_VERSION = (
    select(ROUNDS.c.document, ENCOUNTERS.c.version)
    .join(ENCOUNTERS, ENCOUNTERS.c.id == ROUNDS.c.encounter_id)
    .where(
        ROUNDS.c.encounter_id == bindparam("encounter_id"),
        ROUNDS.c.number == bindparam("number"),
        ENCOUNTERS.c.campaign_id == bindparam("campaign_id"),
    )
)
# A page of the history with the encounter's version and the number of rounds, in one statement: the
# count is a window over every round (it is computed before LIMIT), the outer join keeps the encounter's
# row when it has no rounds yet.
ROUND_PAGE = (
    select(ENCOUNTERS.c.version, ROUNDS.c.document, func.count(ROUNDS.c.number).over().label("total"))
    .select_from(ENCOUNTERS.outerjoin(ROUNDS, ROUNDS.c.encounter_id == ENCOUNTERS.c.id))
    .where(ENCOUNTERS.c.id == bindparam("encounter_id"), ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))
    .order_by(ROUNDS.c.number)
    .limit(bindparam("limit"))
    .offset(bindparam("offset"))
)
# The version and the number of rounds; no row: no such encounter (for this campaign).
ROUND_COUNT = select(
    ENCOUNTERS.c.version,
    select(func.count()).where(ROUNDS.c.encounter_id == ENCOUNTERS.c.id).scalar_subquery().label("total"),
).where(ENCOUNTERS.c.id == bindparam("encounter_id"), ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))


async def round_page(
    database: Database, *, campaign_id: str, encounter_id: str, limit: int, offset: int
) -> tuple[list[dict[str, Any]], int, int]:
    """Oldest first (a history reads forward): the page's documents, the number of rounds, the version."""
    keys = {"encounter_id": encounter_id, "campaign_id": campaign_id}
    rows = await database.rows(ROUND_PAGE, {**keys, "limit": limit, "offset": offset})
    if not rows:  # past the last round, or no such encounter
        rows = await database.rows(ROUND_COUNT, keys)
        if not rows:
            raise NotFound(f"There is no encounter {encounter_id}.")
        return [], rows[0].total, rows[0].version
    return [row.document for row in rows if row.document is not None], rows[0].total, rows[0].version


async def round_document(
    database: Database, *, campaign_id: str, encounter_id: str, number: int
) -> tuple[dict[str, Any], int]:
    """One stored round's document and its encounter's version, in one statement."""
    keys = {"encounter_id": encounter_id, "campaign_id": campaign_id}
    found = await database.read(ROUND_WITH_VERSION, {**keys, "number": number})
    if found:
        document, version = found[0]
        return document, version
    if not await database.rows(ROUND_COUNT, keys):
        raise NotFound(f"There is no encounter {encounter_id}.")
    raise NotFound(f"Encounter {encounter_id} has no round {number}.")


HIDDEN = select(COMBATANTS.c.id).where(COMBATANTS.c.encounter_id == bindparam("encounter_id"), COMBATANTS.c.hidden)


async def hidden_ids(database: Database, encounter_id: str) -> frozenset[str]:
    """The encounter's hidden combatants now (a token's reads and streams screen them out)."""
    return frozenset(row.id for row in await database.rows(HIDDEN, {"encounter_id": encounter_id}))


# --- the stream's reads (no campaign: the subscription was checked when it began) -------------------

VERSION = select(ENCOUNTERS.c.version).where(ENCOUNTERS.c.id == bindparam("encounter_id"))
OWNED_VERSION = VERSION.where(ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))
STREAMED_ROUND = select(ROUNDS.c.document).where(
    ROUNDS.c.encounter_id == bindparam("encounter_id"), ROUNDS.c.number == bindparam("number")
)


async def owned_version(database: Database, *, campaign_id: str, encounter_id: str) -> int | None:
    """The encounter's version, or None when the campaign has no such encounter."""
    rows = await database.rows(OWNED_VERSION, {"encounter_id": encounter_id, "campaign_id": campaign_id})
    return rows[0].version if rows else None


async def version(database: Database, encounter_id: str) -> int | None:
    rows = await database.rows(VERSION, {"encounter_id": encounter_id})
    return rows[0].version if rows else None


async def streamed_round(database: Database, encounter_id: str, number: int) -> dict[str, Any] | None:
    rows = await database.rows(STREAMED_ROUND, {"encounter_id": encounter_id, "number": number})
    return rows[0].document if rows else None

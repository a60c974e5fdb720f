"""The chronicle's one read: the stored rounds of an encounter, with what telling them needs."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, select

from app.encounters.tables import ROUNDS
from app.platform.db import Database

STORED_ROUNDS = (
    select(ROUNDS.c.number, ROUNDS.c.document, ROUNDS.c.request, ROUNDS.c.state_before)
    .where(
        ROUNDS.c.encounter_id == bindparam("encounter_id"),
        ROUNDS.c.number >= bindparam("first"),
        ROUNDS.c.number <= bindparam("last"),
    )
    .order_by(ROUNDS.c.number)
)


async def stored_rounds(database: Database, encounter_id: str, first: int, last: int) -> list[Any]:
    """Rounds first..last, oldest first: each row's number, document, request and state_before."""
    return list(await database.rows(STORED_ROUNDS, {"encounter_id": encounter_id, "first": first, "last": last}))

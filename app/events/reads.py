"""The few reads the stream needs, each one statement (Database.rows: autocommitted, no transaction)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, select

from app.db import Database
from app.encounters.models import ENCOUNTERS
from app.rounds.models import ROUNDS

VERSION = select(ENCOUNTERS.c.version).where(ENCOUNTERS.c.id == bindparam("encounter_id"))
OWNED_VERSION = VERSION.where(ENCOUNTERS.c.campaign_id == bindparam("campaign_id"))
ROUND_DOCUMENT = select(ROUNDS.c.document).where(
    ROUNDS.c.encounter_id == bindparam("encounter_id"), ROUNDS.c.number == bindparam("number")
)


async def owned_version(database: Database, *, campaign_id: str, encounter_id: str) -> int | None:
    """The encounter's version, or None when the campaign has no such encounter."""
    rows = await database.rows(OWNED_VERSION, {"encounter_id": encounter_id, "campaign_id": campaign_id})
    return rows[0].version if rows else None


async def version(database: Database, encounter_id: str) -> int | None:
    rows = await database.rows(VERSION, {"encounter_id": encounter_id})
    return rows[0].version if rows else None


async def round_document(database: Database, encounter_id: str, number: int) -> dict[str, Any] | None:
    rows = await database.rows(ROUND_DOCUMENT, {"encounter_id": encounter_id, "number": number})
    return rows[0].document if rows else None

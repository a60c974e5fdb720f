"""GET /v1/campaign/export and `combat-admin export`: the campaign as one JSON document, streamed.

One read-only transaction (on PostgreSQL REPEATABLE READ: one snapshot for the whole document; SQLite's WAL
gives a transaction one snapshot too); encounters and their rounds read in batches and rendered by orjson
as they come, so memory holds a batch, never the whole campaign.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy.ext.asyncio import AsyncSession

from app.campaign.tables import CHARACTERS, CREATURES
from app.platform.db import Database, utcnow
from app.platform.errors import NotFound
from app.portability import store
from app.portability.schemas import FORMAT, FORMAT_VERSION

ENCOUNTER_BATCH = 50
SORTED = orjson.OPT_SORT_KEYS  # deterministic bytes: PostgreSQL's JSONB does not keep key order
ROUND_BATCH = 500
CAMPAIGN_FIELDS = ("id", "name", "rules", "created_at", "version")
ENCOUNTER_FIELDS = ("id", "name", "rules", "round", "version", "next_position", "created_at", "finished_at",
                    "finish_state", "declaration_seconds", "auto_resolve", "declarations_due_at")  # fmt: skip

Progress = Callable[[int], None]  # called with the number of rounds just written


async def _snapshot(session: AsyncSession, database: Database) -> None:
    if database.engine.dialect.name == "postgresql":
        await session.connection(execution_options={"isolation_level": "REPEATABLE READ"})


async def _rounds(session: AsyncSession, encounter_id: str, progress: Progress | None) -> AsyncIterator[bytes]:
    after, first = 0, True
    while True:
        batch = await store.rounds_after(session, encounter_id, after, ROUND_BATCH)
        if not batch:
            return
        rendered = b",".join(orjson.dumps(r, option=SORTED) for r in batch)
        yield rendered if first else b"," + rendered
        first, after = False, batch[-1]["number"]
        if progress is not None:
            progress(len(batch))


async def _encounters(session: AsyncSession, campaign_id: str, progress: Progress | None) -> AsyncIterator[bytes]:
    after: tuple[Any, str] | None = None
    first = True
    while True:
        batch = await store.encounters_after(session, campaign_id, after, ENCOUNTER_BATCH)
        if not batch:
            return
        ids = [e["id"] for e in batch]
        combatants = await store.combatants_of(session, ids)
        staged = await store.staged_of(session, ids)
        for encounter in batch:
            head = {name: encounter[name] for name in ENCOUNTER_FIELDS}
            head |= {"combatants": combatants[encounter["id"]], "staged": staged[encounter["id"]]}
            # the encounter's object, left open for its rounds
            yield (b"" if first else b",") + orjson.dumps(head, option=SORTED)[:-1] + b',"rounds":['
            first = False
            async for chunk in _rounds(session, encounter["id"], progress):
                yield chunk
            yield b"]}"
        after = (batch[-1]["created_at"], batch[-1]["id"])


async def document_chunks(
    database: Database, campaign_id: str, *, progress: Progress | None = None, now: datetime | None = None
) -> AsyncGenerator[bytes, None]:
    """The document in pieces (the campaign, its roster, then each encounter and its rounds in batches).
    NotFound is raised before the first piece when there is no such campaign."""
    async with database.sessions() as session, session.begin():
        await _snapshot(session, database)
        campaign = await store.campaign(session, campaign_id)
        if campaign is None:
            raise NotFound(f"There is no campaign {campaign_id}.")
        head = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "exported_at": now or utcnow(),
            "campaign": {name: campaign[name] for name in CAMPAIGN_FIELDS},
            "characters": await store.roster(session, CHARACTERS, campaign_id),
            "creatures": await store.roster(session, CREATURES, campaign_id),
        }
        yield orjson.dumps(head, option=SORTED)[:-1] + b',"encounters":['
        async for chunk in _encounters(session, campaign_id, progress):
            yield chunk
        yield b"]}"


async def stream(database: Database, campaign_id: str) -> AsyncIterator[bytes]:
    """The document's pieces, the first already read: a missing campaign is a 404 before anything is sent."""
    chunks = document_chunks(database, campaign_id)
    first = await anext(chunks)

    async def rest() -> AsyncIterator[bytes]:
        try:
            yield first
            async for chunk in chunks:
                yield chunk
        finally:
            await chunks.aclose()

    return rest()


async def totals(database: Database, campaign_id: str) -> int:
    """How many rounds the campaign holds (a progress bar's end)."""
    return await store.round_count(database, campaign_id)

"""Housekeeping: idempotency keys are kept at least idempotency_ttl_hours, then purged. Every worker
runs this loop; the DELETE is idempotent, so several replicas purging is harmless."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

from app.config import Settings
from app.idempotency.keys import purge
from app.platform.db import Database

log = logging.getLogger(__name__)


async def purge_once(database: Database, settings: Settings) -> int:
    return await purge(database.sessions, older_than=timedelta(hours=settings.idempotency_ttl_hours))


async def purge_idempotency_keys_forever(database: Database, settings: Settings) -> None:
    while True:
        await asyncio.sleep(settings.idempotency_purge_every_seconds)
        try:
            removed = await purge_once(database, settings)
            if removed:
                log.info("purged %d expired idempotency keys", removed)
        except Exception:  # the database may be down for a while: try again next time
            log.warning("could not purge idempotency keys", exc_info=True)

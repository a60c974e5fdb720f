"""Housekeeping: idempotency keys are kept at least idempotency_ttl_hours, then purged. Every worker
runs this loop; the DELETE is idempotent, so several replicas purging is harmless."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool

from app.idempotency.service import purge

log = logging.getLogger(__name__)


def purge_once(app: FastAPI) -> int:
    settings = app.state.settings
    with app.state.sessions() as session:
        removed = purge(session, older_than=timedelta(hours=settings.idempotency_ttl_hours))
    return removed


async def purge_idempotency_keys_forever(app: FastAPI) -> None:
    while True:
        await asyncio.sleep(app.state.settings.idempotency_purge_every_seconds)
        try:
            removed = await run_in_threadpool(purge_once, app)
            if removed:
                log.info("purged %d expired idempotency keys", removed)
        except Exception:  # the database may be down for a while: try again next time
            log.warning("could not purge idempotency keys", exc_info=True)

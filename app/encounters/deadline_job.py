"""The declaration deadlines' job on the worker's background dispatcher (app/platform/dispatcher.py).

Every worker runs it; the database decides who acts. For each encounter whose deadline has come:
- with `auto_resolve` and something staged, the next round is resolved as if posted by hand with no body
  (the staged declarations, server dice), guarded by the version read (as an If-Match): of every worker and
  replica racing for it, and of a round posted by hand meanwhile, the encounter's version compare-and-set
  lets exactly one through; the losers find the version moved and leave it (the winner set the next clock);
- otherwise (nothing staged, or no auto_resolve) it only announces `declarations.due`, and the clock stops
  until the next declaration is staged: the compare-and-set on the due time itself lets one worker say it.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from app.encounters import rounds, store
from app.encounters.convert import EncounterRecord
from app.encounters.schemas.round import RoundCreate
from app.platform.changefeed import Change, announce
from app.platform.db import Database, utcnow
from app.platform.errors import Conflict, NotFound, PreconditionFailed, ServiceError
from app.platform.transactions import retry_stale_snapshot, write_transaction
from app.platform.versions import ExpectedVersion

log = logging.getLogger(__name__)
BATCH = 50
IDLE = timedelta(seconds=1)  # a deadline it could not settle is looked at again after this, not in a spin


class _StagedMeanwhile(Exception):
    """A declaration was staged between the look and the stop: resolve after all."""


async def run(database: Database) -> datetime | None:
    """Settle every deadline that has come; when to run again (the earliest deadline ahead, or None)."""
    now = utcnow()
    while True:
        due = await store.due_encounters(database, now, BATCH)
        for row in due:
            await _settle(database, row.campaign_id, row.id, now)
        if len(due) < BATCH:
            break
    upcoming = await store.next_due(database)
    if upcoming is None:
        return None
    return max(upcoming, utcnow() + IDLE) if upcoming <= now else upcoming


async def _settle(database: Database, campaign_id: str, encounter_id: str, now: datetime) -> None:
    for _ in range(3):  # a declaration staged between the look and the stop: look again
        try:
            encounter = await store.read(database, campaign_id=campaign_id, encounter_id=encounter_id)
        except NotFound:
            return  # deleted meanwhile
        due = encounter.declarations_due_at
        if due is None or due > now or encounter.finished_at is not None:
            return  # another worker settled it, or a round or a change moved it on
        try:
            refused = False
            if encounter.auto_resolve and await _anything_staged(database, encounter_id):
                if await _resolve(database, encounter):
                    return
                refused = True  # what is staged makes no round: announce, and wait for the players
            await _announce_due(database, encounter, due, resolve_if_staged=encounter.auto_resolve and not refused)
            return
        except _StagedMeanwhile:
            continue


async def _anything_staged(database: Database, encounter_id: str) -> bool:
    async with database.sessions() as session, session.begin():
        return await store.count_staged(session, encounter_id) > 0


async def _resolve(database: Database, encounter: EncounterRecord) -> bool:
    """The next round, from the version read; True when it is resolved (by this worker or, it turns out,
    by someone else first), False when the staged declarations cannot make a round (it is announced)."""
    try:
        await _resolve_from(database, encounter)
    except (PreconditionFailed, Conflict):
        return True  # the version moved: another worker's round, a hand-posted one, or a change (its clock)
    except ServiceError as refused:  # a staged declaration the encounter changed under: the players are told
        log.info("encounter %s: the deadline's round was refused: %s", encounter.id, refused.detail)
        return False
    return True


@retry_stale_snapshot
async def _resolve_from(database: Database, encounter: EncounterRecord) -> None:
    """The next round as a hand-posted one with no body would be, from exactly the version read."""
    async with database.sessions() as session, write_transaction(session):
        await rounds.resolve_next_round(
            session,
            database=database,
            campaign_id=encounter.campaign_id,
            encounter_id=encounter.id,
            round_in=RoundCreate(),
            expected=ExpectedVersion(frozenset({encounter.version})),
        )


async def _announce_due(
    database: Database, encounter: EncounterRecord, due: datetime, *, resolve_if_staged: bool
) -> None:
    async with database.sessions() as session, write_transaction(session):
        if not await store.stop_clock(session, encounter.id, encounter.version, due):
            return  # another worker said it, or the encounter moved on
        if resolve_if_staged and await store.count_staged(session, encounter.id) > 0:
            raise _StagedMeanwhile  # rolls the stop back
        passed = Change.of_timing(encounter.id, "declarations.due", encounter.round + 1, encounter.version)
        await announce(session, passed)

"""The end of a fight and its undoing: finish writes every linked combatant's blood, status and wounds back
to its character and freezes the encounter; reopen puts the roster back exactly as it was before the finish.

Both are one transaction, guarded by the encounter's version like every change, and announced on the stream.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.campaign import repository
from app.encounters import deadlines, store
from app.encounters.convert import EncounterRecord
from app.encounters.errors import require_unfinished
from app.platform.changefeed import Change, announce
from app.platform.db import utcnow
from app.platform.errors import Conflict
from app.platform.versions import ANY_VERSION, ExpectedVersion


class EncounterNotFinished(Conflict):
    """Reopening an encounter that is not finished."""


async def finish(
    session: AsyncSession, *, campaign_id: str, encounter_id: str, expected: ExpectedVersion = ANY_VERSION
) -> EncounterRecord:
    encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id, expected=expected)
    require_unfinished(encounter)
    now = utcnow()
    # The version's update comes first: it holds the encounter's row, which orders this against a round.
    stopped: dict[str, Any] = {"declarations_due_at": None} if encounter.declarations_due_at is not None else {}
    version = await store.bump_version(session, encounter_id, encounter.version, finished_at=now, **stopped)
    written: dict[str, dict[str, Any]] = {}
    for row in encounter.combatants:
        character_id = row["character_id"]
        if character_id is None:
            continue
        before = await repository.character(session, campaign_id=campaign_id, character_id=character_id)
        after = await repository.write_back(session, character_id=character_id, encounter_id=encounter_id, state=row)
        if after is not None:  # a character deleted meanwhile is skipped
            kept = {name: before[name] for name in repository.WRITTEN_BACK}
            written[character_id] = {"before": kept, "version_after": after}
    finish_state = {"characters": written}
    await store.set_finish_state(session, encounter_id, finish_state)
    withdrawn = await store.clear_staged(session, store.staged_of_encounter(encounter_id))
    cleared = [Change.of_declaration(encounter_id, cid, False, version) for cid in withdrawn]
    await announce(session, Change.of_encounter(encounter_id, version, what="finished"), *cleared)
    return dataclasses.replace(
        encounter, version=version, finished_at=now, finish_state=finish_state, updated_at=now, **stopped
    )


async def reopen(
    session: AsyncSession, *, campaign_id: str, encounter_id: str, expected: ExpectedVersion = ANY_VERSION
) -> EncounterRecord:
    encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id, expected=expected)
    if encounter.finished_at is None:
        raise EncounterNotFinished(f"Encounter {encounter_id} is not finished: there is nothing to reopen.")
    now = utcnow()
    clock = deadlines.restarted(encounter, now)
    version = await store.bump_version(
        session, encounter_id, encounter.version, finished_at=None, updated_at=now, **clock
    )
    await store.set_finish_state(session, encounter_id, None)
    written = (encounter.finish_state or {}).get("characters", {})
    for character_id, saved in written.items():
        await repository.put_back(
            session,
            character_id=character_id,
            encounter_id=encounter_id,
            before=saved["before"],
            version_after=saved["version_after"],
        )
    timing = await deadlines.announce_clock(session, encounter_id, clock, encounter.round + 1, version)
    await announce(session, Change.of_encounter(encounter_id, version, what="reopened"), *timing)
    return dataclasses.replace(encounter, version=version, finished_at=None, finish_state=None, updated_at=now, **clock)

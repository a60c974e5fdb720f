"""Encounters: create, list, read, change, delete. One transaction per use case, opened here; results
returned, HTTP left to the router.

The pattern every change follows: `async with write_transaction(session)`, `store.load` the encounter
(one statement, a frozen record), decide, `store.bump_version` (the compare-and-set), write through the
store, announce, and record the reply with the Idempotency-Key in the same transaction.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.encounters import convert, store
from app.encounters.combatants import checked_values
from app.encounters.convert import EncounterRecord
from app.encounters.ids import new_id
from app.encounters.schemas.encounter import EncounterCreate, EncounterSummary, EncounterUpdate
from app.idempotency.keys import Claim, record
from app.platform.changefeed import Change, announce
from app.platform.db import Database, utcnow
from app.platform.errors import Unprocessable
from app.platform.transactions import retry_stale_snapshot, write_transaction
from app.resolver import InvalidRound, build_ruleset
from app.resolver.codec import weapon_from_json
from app.resolver.errors import Issues
from app.resolver.validate import check_armor, weapon_profile
from app.web.etags import etag
from app.web.responses import Reply


async def create(
    *, session: AsyncSession, campaign_id: str, data: EncounterCreate, claim: Claim | None = None
) -> Reply:
    ruleset = build_ruleset(data.rules)  # refuses bad overrides before anything is written
    encounter_id, now = new_id(), utcnow()
    combatants = tuple(
        {"id": new_id(), "encounter_id": encounter_id, "position": i, **checked_values(c, ruleset, at)}
        for i, c in enumerate(data.combatants)
        for at in [f"/combatants/{i}"]
    )
    encounter = EncounterRecord(
        id=encounter_id,
        campaign_id=campaign_id,
        name=data.name,
        rules=data.rules,
        round=0,
        version=1,
        next_position=len(combatants),
        created_at=now,
        updated_at=now,
        combatants=combatants,
    )
    async with write_transaction(session):
        await store.insert_encounter(session, encounter)
        reply = Reply.json(
            201, convert.encounter_read(encounter), location=f"/v1/encounters/{encounter_id}", etag=etag(1)
        )
        await record(session, claim, reply)
    return reply


async def list_page(
    *, session: AsyncSession, campaign_id: str, limit: int, offset: int
) -> tuple[list[EncounterSummary], int]:
    async with session.begin():
        rows, total = await store.list_encounters(session, campaign_id=campaign_id, limit=limit, offset=offset)
        items = [EncounterSummary.model_validate(row._mapping) for row in rows]
    return items, total


async def get(database: Database, *, campaign_id: str, encounter_id: str) -> EncounterRecord:
    """The encounter with its combatants, in one statement outside any transaction."""
    return await store.read(database, campaign_id=campaign_id, encounter_id=encounter_id)


async def current_version(database: Database, *, campaign_id: str, encounter_id: str) -> int | None:
    """The encounter's version, or None when the campaign has no such encounter."""
    return await store.owned_version(database, campaign_id=campaign_id, encounter_id=encounter_id)


@retry_stale_snapshot
async def update(
    *, session: AsyncSession, campaign_id: str, encounter_id: str, data: EncounterUpdate, if_match: str | None
) -> EncounterRecord:
    async with write_transaction(session):
        encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id, if_match=if_match)
        changes: dict[str, Any] = {}
        if data.name is not None:
            changes["name"] = data.name
        if data.rules is not None:
            ruleset = build_ruleset(data.rules)
            for i, row in enumerate(encounter.combatants):
                try:
                    weapon_profile(weapon_from_json(row["weapon"]), ruleset, f"/combatants/{i}/weapon")
                    armor = Issues()
                    check_armor(armor, row["armor"], ruleset, f"/combatants/{i}/armor")
                    armor.raise_if_any()
                except InvalidRound as error:
                    raise Unprocessable(
                        f"The new rules lack the weapon or armor of combatant {row['id']}: {error}"
                    ) from None
            changes["rules"] = data.rules
        changes["updated_at"] = utcnow()
        version = await store.bump_version(session, encounter_id, encounter.version, **changes)
        await announce(session, Change.of_encounter(encounter_id, version))  # delivered at commit
    return dataclasses.replace(encounter, version=version, **changes)


@retry_stale_snapshot
async def delete(*, session: AsyncSession, campaign_id: str, encounter_id: str, if_match: str | None) -> None:
    async with write_transaction(session):
        encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id, if_match=if_match)
        await store.bump_version(session, encounter_id, encounter.version)
        await store.delete_encounter(session, encounter_id)
        await announce(session, Change.of_encounter(encounter_id))  # no version: gone, its streams end

"""Encounters: create, list, read, change, delete. Results returned, HTTP left to the router.

The pattern every change follows, inside the command runner's transaction (app/http/command.py): `store.load`
the encounter (one statement, a frozen record, the expected version checked), decide, `store.bump_version`
(the compare-and-set), write through the store, announce, return the result.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.campaign import repository
from app.encounters import screen, store
from app.encounters.combatants import joining, link_characters
from app.encounters.convert import EncounterRecord
from app.encounters.errors import require_unfinished
from app.encounters.ids import new_id
from app.encounters.schemas.encounter import EncounterCreate, EncounterSummary, EncounterUpdate
from app.platform.changefeed import Change, announce
from app.platform.db import Database, utcnow
from app.platform.errors import Unprocessable
from app.platform.versions import ANY_VERSION, ExpectedVersion
from app.resolver import InvalidRound, bounds, build_ruleset
from app.resolver.codec import weapon_from_json
from app.resolver.errors import Issues
from app.resolver.ruleset import MERGED_BY_ENTRY
from app.resolver.validate import check_armor, weapon_profile


def overlay(house_rules: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    """The encounter's own overrides on the campaign's, as docs/rules.md's "House rules" overlay a ruleset: numbers
    and wound_classes replace; stances, armory and armor merge entry by entry (an entry's fields too)."""
    merged = {key: dict(value) if key in MERGED_BY_ENTRY else value for key, value in house_rules.items()}
    for key, value in own.items():
        if key in MERGED_BY_ENTRY and isinstance(value, dict) and isinstance(merged.get(key), dict):
            for name, entry in value.items():
                current = merged[key].get(name)
                both = isinstance(current, dict) and isinstance(entry, dict)
                merged[key][name] = {**current, **entry} if both and current is not None else entry
        else:
            merged[key] = value
    return merged


async def create(session: AsyncSession, *, campaign_id: str, data: EncounterCreate) -> EncounterRecord:
    """The encounter and its combatants (full, linked characters, creatures' copies), its rules the
    campaign's house rules overlaid with the body's, stored as they are now (docs/rules.md, "House rules")."""
    build_ruleset(data.rules)  # refuses bad overrides before anything is written
    encounter_id, now = new_id(), utcnow()
    rules = overlay(await repository.campaign_rules(session, campaign_id), data.rules)
    ruleset = build_ruleset(rules)
    encounter = EncounterRecord(
        id=encounter_id,
        campaign_id=campaign_id,
        name=data.name,
        rules=rules,
        round=0,
        version=1,
        next_position=0,
        created_at=now,
        updated_at=now,
        finished_at=None,
        finish_state=None,
        combatants=(),
    )
    rows: list[dict[str, Any]] = []
    for i, body in enumerate(data.combatants):
        so_far = dataclasses.replace(encounter, combatants=tuple(rows))
        for values in await joining(session, so_far, body, ruleset, pointer=f"/combatants/{i}"):
            rows.append({"id": new_id(), "encounter_id": encounter_id, "position": len(rows), **values})
    if len(rows) > bounds.MAX_COMBATANTS:
        raise Unprocessable(f"An encounter holds at most {bounds.MAX_COMBATANTS} combatants.")
    encounter = dataclasses.replace(encounter, next_position=len(rows), combatants=tuple(rows))
    await store.insert_encounter(session, encounter)
    await link_characters(session, encounter_id, rows)  # after the row they will name
    return encounter


async def list_page(
    *, session: AsyncSession, campaign_id: str, limit: int, offset: int
) -> tuple[list[EncounterSummary], int]:
    async with session.begin():
        rows, total = await store.list_encounters(session, campaign_id=campaign_id, limit=limit, offset=offset)
        items = [
            EncounterSummary.model_validate({**row._mapping, "finished": row.finished_at is not None}) for row in rows
        ]
    return items, total


async def get(database: Database, *, campaign_id: str, encounter_id: str, screened: bool = False) -> EncounterRecord:
    """The encounter with its combatants, in one statement outside any transaction; `screened` (a player's or
    viewer's read): as if its hidden combatants were not in it."""
    encounter = await store.read(database, campaign_id=campaign_id, encounter_id=encounter_id)
    return screen.visible(encounter) if screened else encounter


async def current_version(database: Database, *, campaign_id: str, encounter_id: str) -> int | None:
    """The encounter's version, or None when the campaign has no such encounter."""
    return await store.owned_version(database, campaign_id=campaign_id, encounter_id=encounter_id)


async def update(
    session: AsyncSession,
    *,
    campaign_id: str,
    encounter_id: str,
    data: EncounterUpdate,
    expected: ExpectedVersion = ANY_VERSION,
) -> EncounterRecord:
    encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id, expected=expected)
    changes: dict[str, Any] = {}
    if data.name is not None:
        changes["name"] = data.name
    if data.rules is not None:
        require_unfinished(encounter)  # a finished fight may still be renamed
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


async def delete(
    session: AsyncSession, *, campaign_id: str, encounter_id: str, expected: ExpectedVersion = ANY_VERSION
) -> None:
    encounter = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id, expected=expected)
    await store.bump_version(session, encounter_id, encounter.version)
    if encounter.finished_at is None:
        await repository.free_all(session, encounter_id)  # nothing written back: the fight did not happen
    await store.delete_encounter(session, encounter_id)
    await announce(session, Change.of_encounter(encounter_id))  # no version: gone, its streams end

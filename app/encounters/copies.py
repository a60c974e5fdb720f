"""Saved fights: a new encounter copied from an old one, as it began (before round 1) or as it is now.

The same rules; new encounter and combatant ids (effect ids are kept: they are unique within a combatant);
no rounds and nothing staged. Linked characters join the copy linked again, with their current roster
fields (409 character-busy when one is in another fight); the other combatants are copied with their
effects and long actions. A finished encounter may be copied; the copy is unfinished.
"""

from __future__ import annotations

from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from app.campaign import repository
from app.encounters import convert, store
from app.encounters.combatants import checked_values, link_characters
from app.encounters.convert import EncounterRecord
from app.encounters.ids import new_id
from app.encounters.schemas.encounter import AfterRound, CombatantFields
from app.platform.db import utcnow
from app.platform.errors import Unprocessable
from app.resolver import build_ruleset


async def _linked_again(session: AsyncSession, encounter: EncounterRecord, row: dict[str, Any]) -> dict[str, Any]:
    """A linked combatant's copy: its character's current fields (the roster moved on since the fight)."""
    character = await repository.character(session, campaign_id=encounter.campaign_id, character_id=row["character_id"])
    stats = repository.stat_block(character)
    fields = CombatantFields.model_validate({**stats, "side": row["side"], "hidden": row["hidden"]}, strict=False)
    return {**checked_values(fields, build_ruleset(encounter.rules)), "character_id": row["character_id"]}


async def _after_round(session: AsyncSession, source: EncounterRecord, k: int) -> list[dict[str, Any]]:
    """Every combatant as it stood after round k: round k's stored state after it (round 1's before, for 0)."""
    if k > source.round:
        raise Unprocessable(
            f"Encounter {source.id} has {source.round} round(s): a what-if starts after one of 0..{source.round}.",
            errors=[{"in": "body", "pointer": "/from/after_round", "detail": f"at most {source.round}"}],
        )
    if k == 0:
        began = await store.first_snapshot(session, source.id)
        return [dict(row) for row in source.combatants] if began is None else began["combatants"]
    return await store.state_after(session, source.id, k)


async def copy(
    session: AsyncSession,
    *,
    campaign_id: str,
    encounter_id: str,
    name: str | None,
    start: Literal["start", "now"] | AfterRound,
) -> EncounterRecord:
    source = await store.load(session, campaign_id=campaign_id, encounter_id=encounter_id)
    rows: list[dict[str, Any]] = [dict(row) for row in source.combatants]
    if isinstance(start, AfterRound):  # a what-if: the combatants as round k left them, no longer on the roster
        stood = await _after_round(session, source, start.after_round)
        rows = [{**convert.restored(row), "character_id": None} for row in stood]
    elif start == "start":
        began = await store.first_snapshot(session, encounter_id)
        if began is not None:
            rows = [convert.restored(saved) for saved in began["combatants"]]
    copy_id, now = new_id(), utcnow()
    made = []
    for position, row in enumerate(rows):
        if row["character_id"] is not None:
            values = await _linked_again(session, source, row)
        else:
            values = {name: row[name] for name in convert.ROW_FIELDS if name != "position"}
        made.append({**values, "id": new_id(), "encounter_id": copy_id, "position": position})
    # A long action aimed at a combatant names it by id: the copy's ids are new.
    new_ids = {old["id"]: new["id"] for old, new in zip(rows, made)}
    for row in made:
        if row.get("long_action") and row["long_action"].get("target") in new_ids:
            row["long_action"] = {**row["long_action"], "target": new_ids[row["long_action"]["target"]]}
    encounter = EncounterRecord(
        id=copy_id,
        campaign_id=campaign_id,
        name=name or source.name,
        rules=source.rules,
        round=0,
        version=1,
        next_position=len(made),
        created_at=now,
        updated_at=now,
        finished_at=None,
        finish_state=None,
        combatants=tuple(made),
    )
    await store.insert_encounter(session, encounter)
    await link_characters(session, copy_id, made)
    return encounter

"""The roster's side of a fight: a character linked into one unfinished encounter at a time, its state
written back when it leaves or the fight ends, and put back when a finish is undone.

Every statement is guarded (no read-then-write): linking is `UPDATE … WHERE encounter_id IS NULL`, so of
two fights racing for one character exactly one wins; a write-back names the encounter it comes from, so a
character that moved on is never overwritten. Each one moves the character's version (its ETag).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.access.tables import CAMPAIGNS
from app.campaign.errors import CharacterBusy, CharacterChanged
from app.campaign.tables import CHARACTERS, CREATURES
from app.platform.db import utcnow
from app.platform.errors import NotFound

C = CHARACTERS.c
# What a fight writes back to the roster (RULES.md: effects and long actions end with the fight).
WRITTEN_BACK = ("blood", "status", "wounds")
# The stat block a character or creature brings into a fight (the table's columns but bookkeeping).
NOT_STATS = {"id", "campaign_id", "notes", "version", "encounter_id", "created_at", "updated_at"}


def stat_block(row: Mapping[str, Any]) -> dict[str, Any]:
    """A character's or creature's columns as a combatant's fields, armor folded (points or a name)."""
    values = {name: value for name, value in row.items() if name not in NOT_STATS}
    armor_name = values.pop("armor_name", None)
    if armor_name is not None:
        values["armor"] = armor_name
    return values


async def character(session: AsyncSession, *, campaign_id: str, character_id: str) -> dict[str, Any]:
    found = (
        await session.execute(select(CHARACTERS).where(C.id == character_id, C.campaign_id == campaign_id))
    ).first()
    if found is None:
        raise NotFound(f"There is no character {character_id}.")
    return dict(found._mapping)


async def creature(session: AsyncSession, *, campaign_id: str, creature_id: str) -> dict[str, Any]:
    found = (
        await session.execute(
            select(CREATURES).where(CREATURES.c.id == creature_id, CREATURES.c.campaign_id == campaign_id)
        )
    ).first()
    if found is None:
        raise NotFound(f"There is no creature {creature_id}.")
    return dict(found._mapping)


async def campaign_rules(session: AsyncSession, campaign_id: str) -> dict[str, Any]:
    """The campaign's house rules: the overrides a new encounter starts from."""
    rules: dict[str, Any] | None = await session.scalar(select(CAMPAIGNS.c.rules).where(CAMPAIGNS.c.id == campaign_id))
    return rules or {}


async def _busy_with(session: AsyncSession, character_id: str) -> str | None:
    return await session.scalar(select(C.encounter_id).where(C.id == character_id))


async def link(session: AsyncSession, *, character_id: str, encounter_id: str) -> None:
    """Link the character into the encounter if it is in no unfinished fight; else 409 character-busy."""
    result = await session.execute(
        update(CHARACTERS)
        .where(C.id == character_id, C.encounter_id.is_(None))
        .values(encounter_id=encounter_id, version=C.version + 1, updated_at=utcnow())
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]  # an UPDATE's result is a CursorResult
        raise CharacterBusy.of(character_id, await _busy_with(session, character_id))


async def write_back(
    session: AsyncSession, *, character_id: str, encounter_id: str, state: Mapping[str, Any]
) -> int | None:
    """The combatant's blood, status and wounds to its character, which is free again; the character's
    new version, or None when it is no longer linked to this encounter (deleted meanwhile: skipped)."""
    result = await session.execute(
        update(CHARACTERS)
        .where(C.id == character_id, C.encounter_id == encounter_id)
        .values(
            **{name: state[name] for name in WRITTEN_BACK},
            encounter_id=None,
            version=C.version + 1,
            updated_at=utcnow(),
        )
        .returning(C.version)
    )
    version: int | None = result.scalar()
    return version


async def free_all(session: AsyncSession, encounter_id: str) -> None:
    """Every character linked into the encounter is free again, nothing written back (a deleted fight)."""
    await session.execute(
        update(CHARACTERS)
        .where(C.encounter_id == encounter_id)
        .values(encounter_id=None, version=C.version + 1, updated_at=utcnow())
    )


async def free(session: AsyncSession, *, character_id: str, encounter_id: str) -> None:
    await session.execute(
        update(CHARACTERS)
        .where(C.id == character_id, C.encounter_id == encounter_id)
        .values(encounter_id=None, version=C.version + 1, updated_at=utcnow())
    )


async def put_back(
    session: AsyncSession, *, character_id: str, encounter_id: str, before: Mapping[str, Any], version_after: int
) -> None:
    """Undo a finish's write-back: the character gets its state from before the finish and is linked again.
    Refused (409) when it is in another fight, or changed since the finish (its version moved)."""
    now = (await session.execute(select(C.encounter_id, C.version).where(C.id == character_id))).first()
    if now is None:
        return  # deleted since the finish: nothing to put back
    if now.encounter_id is not None:
        raise CharacterBusy.of(character_id, now.encounter_id)
    result = await session.execute(
        update(CHARACTERS)
        .where(C.id == character_id, C.encounter_id.is_(None), C.version == version_after)
        .values(
            **{name: before[name] for name in WRITTEN_BACK},
            encounter_id=encounter_id,
            version=C.version + 1,
            updated_at=utcnow(),
        )
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise CharacterChanged(
            f"Character {character_id} changed since the fight was finished; it cannot be put back.",
            character=character_id,
        )

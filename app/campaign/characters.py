"""The roster: the campaign's characters. Create, list, read, change, delete; a character in an unfinished
encounter cannot be deleted (409 character-busy, naming the encounter)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.campaign import stat_blocks
from app.campaign.errors import CharacterBusy
from app.campaign.schemas import CharacterCreate, CharacterRead, StatBlockUpdate
from app.campaign.stat_blocks import Kind, Resource
from app.campaign.tables import CHARACTERS
from app.http.responses import Reply
from app.idempotency.keys import Claim
from app.platform.db import Database


def read(row: Mapping[str, Any]) -> CharacterRead:
    return CharacterRead.model_validate({**row, "encounter": row["encounter_id"]})


def _free(character: Resource) -> None:
    if character["encounter_id"] is not None:
        raise CharacterBusy(
            f"Character {character['id']} is in the unfinished encounter {character['encounter_id']}: "
            "remove it from that fight, or finish the fight, first.",
            encounter=character["encounter_id"],
        )


CHARACTER = Kind(CHARACTERS, "/v1/characters", CharacterCreate, read, before_delete=_free)


async def create(
    *, session: AsyncSession, campaign_id: str, data: CharacterCreate, claim: Claim | None = None
) -> Reply:
    return await stat_blocks.create(session=session, kind=CHARACTER, campaign_id=campaign_id, data=data, claim=claim)


async def list_page(
    *, session: AsyncSession, campaign_id: str, limit: int, offset: int
) -> tuple[list[CharacterRead], int]:
    return await stat_blocks.list_page(
        session=session, kind=CHARACTER, campaign_id=campaign_id, limit=limit, offset=offset
    )


async def get(database: Database, *, campaign_id: str, character_id: str) -> Resource:
    return await stat_blocks.get(database, kind=CHARACTER, campaign_id=campaign_id, resource_id=character_id)


async def update(
    *, session: AsyncSession, campaign_id: str, character_id: str, data: StatBlockUpdate, if_match: str | None
) -> Resource:
    return await stat_blocks.update(
        session=session,
        kind=CHARACTER,
        campaign_id=campaign_id,
        resource_id=character_id,
        data=data,
        if_match=if_match,
    )


async def delete(*, session: AsyncSession, campaign_id: str, character_id: str, if_match: str | None) -> None:
    await stat_blocks.delete(
        session=session, kind=CHARACTER, campaign_id=campaign_id, resource_id=character_id, if_match=if_match
    )

"""The bestiary: stat blocks to copy into fights. Create, list, read, change, delete; a change
or a deletion touches no combatant made from a creature (a copy is its own)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.campaign import stat_blocks
from app.campaign.schemas import CreatureCreate, CreatureRead, StatBlockUpdate
from app.campaign.stat_blocks import Kind, Resource
from app.campaign.tables import CREATURES
from app.http.responses import Reply
from app.idempotency.keys import Claim
from app.platform.db import Database


def read(row: Mapping[str, Any]) -> CreatureRead:
    return CreatureRead.model_validate(row)


CREATURE = Kind(CREATURES, "/v1/creatures", CreatureCreate, read)


async def create(*, session: AsyncSession, campaign_id: str, data: CreatureCreate, claim: Claim | None = None) -> Reply:
    return await stat_blocks.create(session=session, kind=CREATURE, campaign_id=campaign_id, data=data, claim=claim)


async def list_page(
    *, session: AsyncSession, campaign_id: str, limit: int, offset: int
) -> tuple[list[CreatureRead], int]:
    return await stat_blocks.list_page(
        session=session, kind=CREATURE, campaign_id=campaign_id, limit=limit, offset=offset
    )


async def get(database: Database, *, campaign_id: str, creature_id: str) -> Resource:
    return await stat_blocks.get(database, kind=CREATURE, campaign_id=campaign_id, resource_id=creature_id)


async def update(
    *, session: AsyncSession, campaign_id: str, creature_id: str, data: StatBlockUpdate, if_match: str | None
) -> Resource:
    return await stat_blocks.update(
        session=session,
        kind=CREATURE,
        campaign_id=campaign_id,
        resource_id=creature_id,
        data=data,
        if_match=if_match,
    )


async def delete(*, session: AsyncSession, campaign_id: str, creature_id: str, if_match: str | None) -> None:
    await stat_blocks.delete(
        session=session, kind=CREATURE, campaign_id=campaign_id, resource_id=creature_id, if_match=if_match
    )

"""HTTP for the statistics and the odds timeline: look up, delegate, answer the typed result."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.access.auth import OwnerDep, ReaderDep
from app.deps import DatabaseDep
from app.stats import service
from app.stats.schemas import CampaignStatsRead, EncounterStatsRead

router = APIRouter(tags=["statistics"])


@router.get("/v1/encounters/{encounter_id}/stats", response_model=EncounterStatsRead)
async def encounter_stats(encounter_id: str, principal: ReaderDep, database: DatabaseDep) -> dict[str, Any]:
    """Per combatant and per side, counted from the stored rounds alone, with `series` (each combatant's
    blood and status after every round) for charts. A player or viewer reads it without the hidden combatants."""
    return await service.for_encounter(
        database, campaign_id=principal.campaign_id, encounter_id=encounter_id, screened=not principal.is_owner
    )


@router.get("/v1/campaign/stats", response_model=CampaignStatsRead)
async def campaign_stats(principal: OwnerDep, database: DatabaseDep) -> dict[str, Any]:
    """Each character over the finished fights it fought in linked; each creature over all its copies."""
    return await service.for_campaign(database, campaign_id=principal.campaign_id)

"""HTTP for the statistics and the odds timeline: look up, delegate, answer the typed result."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from app.access.auth import OwnerDep, ReaderDep
from app.deps import DatabaseDep
from app.http.responses import Reply
from app.odds.deps import OddsBudgetDep, OddsRunnerDep
from app.odds.schemas import MAX_ROUNDS
from app.stats import service, timeline
from app.stats.schemas import CampaignStatsRead, EncounterStatsRead, TimelineRead

router = APIRouter(tags=["statistics"])


@router.get("/v1/encounters/{encounter_id}/stats", response_model=EncounterStatsRead)
async def encounter_stats(encounter_id: str, principal: ReaderDep, database: DatabaseDep) -> Response:
    """Per combatant and per side, counted from the stored rounds alone, with `series` (each combatant's
    blood and status after every round) for charts. A player or viewer reads it without the hidden combatants."""
    counted = await service.for_encounter(
        database, campaign_id=principal.campaign_id, encounter_id=encounter_id, screened=not principal.is_owner
    )
    # Rendered as counted (a hundred rounds' series is thousands of objects: validating them again on the
    # way out cost more than counting); tests/stats check the answer against EncounterStatsRead.
    return Reply.json(200, counted).response()


@router.get("/v1/campaign/stats", response_model=CampaignStatsRead)
async def campaign_stats(principal: OwnerDep, database: DatabaseDep) -> dict[str, Any]:
    """Each character over the finished fights it fought in linked; each creature over all its copies."""
    return await service.for_campaign(database, campaign_id=principal.campaign_id)


@router.get(
    "/v1/encounters/{encounter_id}/odds/timeline",
    response_model=TimelineRead,
    responses={
        422: {
            "description": "Out of bounds, or a point would take more work than the budget (`odds-budget-exceeded`)."
        },
        503: {"description": "The odds workers are busy or restarting; retry after Retry-After seconds."},
    },
)
async def odds_timeline(
    encounter_id: str,
    principal: ReaderDep,
    database: DatabaseDep,
    runner: OddsRunnerDep,
    budget: OddsBudgetDep,
    fights: Annotated[int, Query(ge=timeline.FIGHTS[0], le=timeline.FIGHTS[1])] = 1000,
    max_rounds: Annotated[int, Query(ge=MAX_ROUNDS[0], le=MAX_ROUNDS[1])] = timeline.MAX_ROUNDS,
) -> dict[str, Any]:
    """For k = 0..latest round, the odds of the fight played forward from the state after round k (seeded
    from the encounter and k: the same on every instance), and the turning points: the rounds where a side's
    chance to win moved by 0.20 or more. Each point is computed once and kept until its round is undone."""
    return await timeline.read(
        database,
        runner,
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        fights=fights,
        max_rounds=max_rounds,
        budget=budget,
        screened=not principal.is_owner,
    )

"""HTTP for odds: a full state in the body (anonymous, with the resolver's limits), or an encounter's."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends

from app.access.auth import ReaderDep, limit_anonymous
from app.deps import DatabaseDep
from app.odds import service
from app.odds.deps import OddsBudgetDep, OddsRunnerDep
from app.odds.schemas import ENCOUNTER_ODDS_EXAMPLES, ODDS_EXAMPLES, OddsCreate, OddsRead, OddsRequest

router = APIRouter(tags=["odds"])

RESPONSES: dict[int | str, dict[str, Any]] = {
    422: {"description": "Out of bounds, an invalid state, or more work than the budget (`odds-budget-exceeded`)."},
    503: {
        "description": "This worker's odds queue is full (`odds-queue-full`), the odds workers are restarting "
        "(`odds-unavailable`), or a store it reads is unavailable; retry after Retry-After seconds."
    },
}


@router.post("/v1/odds", response_model=OddsRead, responses=RESPONSES, dependencies=[Depends(limit_anonymous)])
async def odds(
    body: Annotated[OddsRequest, Body(openapi_examples=ODDS_EXAMPLES)], runner: OddsRunnerDep, budget: OddsBudgetDep
) -> dict[str, Any]:
    """Play the fight forward `fights` times from a full state (as `/v1/resolve` takes it) and say who
    wins how often. Every active combatant attacks a random standing foe each round, balanced. Nothing
    is stored; the same body and seed give the same answer."""
    return await service.stateless_odds(runner, body=body, budget=budget)


@router.post("/v1/encounters/{encounter_id}/odds", response_model=OddsRead, responses=RESPONSES)
async def encounter_odds(
    encounter_id: str,
    params: Annotated[OddsCreate, Body(openapi_examples=ENCOUNTER_ODDS_EXAMPLES)],
    principal: ReaderDep,
    database: DatabaseDep,
    runner: OddsRunnerDep,
    budget: OddsBudgetDep,
) -> dict[str, Any]:
    """Play the encounter forward from its current state, its next round first. Nothing is stored and
    the encounter's version does not change."""
    return await service.encounter_odds(
        database,
        runner,
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        params=params,
        budget=budget,
        screened=not principal.is_owner,
    )

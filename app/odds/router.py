"""HTTP for odds: a full state in the body (anonymous, with the resolver's limits), or an encounter's."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request, Response

from app.access.auth import ReaderDep, limit_anonymous
from app.deps import DatabaseDep
from app.odds import service
from app.odds.deps import OddsBudgetDep, OddsRunnerDep
from app.odds.schemas import ENCOUNTER_ODDS_EXAMPLES, ODDS_EXAMPLES, OddsCreate, OddsRead, OddsRequest

router = APIRouter(tags=["odds"])
CLIENT_CLOSED_REQUEST = 499  # nginx's status for a client that went away first; nobody reads the answer


async def _until_disconnected(request: Request) -> None:
    """Returns when the client goes away (the body is read already: the next message is the disconnect)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def unless_client_leaves(request: Request, work: Awaitable[dict[str, Any]]) -> dict[str, Any] | Response:
    """The odds, or (the client went away first) their work cancelled, in the worker processes too: a
    chunk running there stops before its next fight (app/odds/runner.py)."""
    answer = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(_until_disconnected(request))
    try:
        await asyncio.wait((answer, gone), return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        if not answer.done():
            answer.cancel()
            await asyncio.wait((answer,))  # the runner raises its stop flag as the cancellation reaches it
    if answer.cancelled():
        return Response(status_code=CLIENT_CLOSED_REQUEST)
    return answer.result()

RESPONSES: dict[int | str, dict[str, Any]] = {
    422: {"description": "Out of bounds, an invalid state, or more work than the budget (`odds-budget-exceeded`)."},
    503: {
        "description": "This worker's odds queue is full (`odds-queue-full`), the odds workers are restarting "
        "(`odds-unavailable`), or a store it reads is unavailable; retry after Retry-After seconds."
    },
}


@router.post("/v1/odds", response_model=OddsRead, responses=RESPONSES, dependencies=[Depends(limit_anonymous)])
async def odds(
    request: Request,
    body: Annotated[OddsRequest, Body(openapi_examples=ODDS_EXAMPLES)],
    runner: OddsRunnerDep,
    budget: OddsBudgetDep,
) -> dict[str, Any] | Response:
    """Play the fight forward `fights` times from a full state (as `/v1/resolve` takes it) and say who
    wins how often. Every active combatant attacks a random standing foe each round, balanced. Nothing
    is stored; the same body and seed give the same answer."""
    return await unless_client_leaves(request, service.stateless_odds(runner, body=body, budget=budget))


@router.post("/v1/encounters/{encounter_id}/odds", response_model=OddsRead, responses=RESPONSES)
async def encounter_odds(
    request: Request,
    encounter_id: str,
    params: Annotated[OddsCreate, Body(openapi_examples=ENCOUNTER_ODDS_EXAMPLES)],
    principal: ReaderDep,
    database: DatabaseDep,
    runner: OddsRunnerDep,
    budget: OddsBudgetDep,
) -> dict[str, Any] | Response:
    """Play the encounter forward from its current state, its next round first. Nothing is stored and
    the encounter's version does not change."""
    work = service.encounter_odds(
        database,
        runner,
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        params=params,
        budget=budget,
        screened=not principal.is_owner,
    )
    return await unless_client_leaves(request, work)

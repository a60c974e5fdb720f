"""HTTP for the statistics and the odds timeline: look up, delegate, answer the typed result."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from app.access.auth import OwnerDep, ReaderDep
from app.deps import DatabaseDep
from app.http.etags import etag, not_modified, still_current
from app.http.params import NOT_MODIFIED, IfNoneMatch
from app.http.responses import Reply
from app.odds.deps import OddsBudgetDep, OddsRunnerDep
from app.odds.schemas import MAX_ROUNDS
from app.stats import service, timeline
from app.stats.schemas import CampaignStatsRead, EncounterStatsRead, TimelineRead

router = APIRouter(tags=["statistics"])


@router.get("/v1/encounters/{encounter_id}/stats", response_model=EncounterStatsRead, responses={304: NOT_MODIFIED})
async def encounter_stats(
    encounter_id: str, principal: ReaderDep, database: DatabaseDep, if_none_match: IfNoneMatch = None
) -> Response:
    """Per combatant and per side, counted from the stored rounds alone, with `series` (each combatant's
    blood and status after every round) for charts. A player or viewer reads it without the hidden combatants."""
    version, counted = await service.for_encounter(
        database, campaign_id=principal.campaign_id, encounter_id=encounter_id, screened=not principal.is_owner
    )
    if still_current(if_none_match, version):  # the stored rounds change only with the encounter's version
        return not_modified(version)
    # Rendered as counted (a hundred rounds' series is thousands of objects: validating them again on the
    # way out cost more than counting); tests/stats check the answer against EncounterStatsRead.
    return Reply.json(200, counted, etag=etag(version)).response()


# Not an encounter's version: a tag of everything the campaign's statistics are counted from.
CAMPAIGN_TAG = {
    "ETag": {
        "description": "The campaign statistics' strong ETag: send it in If-None-Match to read them only when "
        "an encounter, a character or a creature changed.",
        "schema": {"type": "string"},
    }
}


@router.get(
    "/v1/campaign/stats",
    response_model=CampaignStatsRead,
    responses={200: {"headers": CAMPAIGN_TAG}, 304: {**NOT_MODIFIED, "headers": CAMPAIGN_TAG}},
)
async def campaign_stats(principal: OwnerDep, database: DatabaseDep, if_none_match: IfNoneMatch = None) -> Response:
    """Each character over the finished fights it fought in linked; each creature over all its copies. The
    ETag names every encounter, character and creature at its version: a copy still current is a 304."""
    tag, counted = await service.for_campaign(database, campaign_id=principal.campaign_id)
    if still_current(if_none_match, tag):
        return not_modified(tag)
    return Reply.json(200, CampaignStatsRead.model_validate(await counted()), etag=tag).response()


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

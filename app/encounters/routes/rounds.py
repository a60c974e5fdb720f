"""HTTP for rounds: the persisted history and undo, the stateless resolver, and the ruleset."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request, Response, status

from app.access.auth import ReaderDep, limit_anonymous
from app.access.deps import EncounterChange, EncounterCommand, IdempotencyDep
from app.deps import DatabaseDep, database_of
from app.encounters import rounds
from app.encounters.schemas.round import ResolveRequest, RoundCreate, RoundRead
from app.http.command import keep_reply, run
from app.http.etags import etag, not_modified, still_current
from app.http.json_route import OrjsonRoute
from app.http.params import NOT_MODIFIED, IfNoneMatch, Limit, Offset
from app.http.responses import Reply
from app.platform.versions import Versioned
from app.resolver import DEFAULT_RULESET, bounds
from app.vocabulary.ruleset import RulesetRead
from app.vocabulary.types import Page

# The hottest routes first: Starlette tries them in order. Bodies parsed by orjson (app/http/json_route.py).
router = APIRouter(tags=["rounds"], route_class=OrjsonRoute)
RoundNumber = Annotated[int, Path(ge=1, le=bounds.ROUND[1])]


@router.post(
    "/v1/encounters/{encounter_id}/rounds",
    status_code=status.HTTP_201_CREATED,
    response_model=RoundRead,
)
async def resolve_next_round(encounter_id: str, round_in: RoundCreate, call: EncounterCommand) -> Response:
    """Resolve the encounter's next round from the declarations and persist it."""

    def created(resolved: Versioned[dict[str, Any]]) -> Reply:
        location = f"/v1/encounters/{encounter_id}/rounds/{resolved.value['round']}"
        return Reply.json(201, resolved.value, etag=etag(resolved.version), location=location)

    return await run(
        call,
        lambda session: rounds.resolve_next_round(
            session,
            database=call.database,
            campaign_id=call.campaign_id,
            encounter_id=encounter_id,
            round_in=round_in,
            expected=call.expected,
        ),
        created,
    )


@router.get(
    "/v1/encounters/{encounter_id}/rounds/{number}",
    response_model=RoundRead,
    responses={304: NOT_MODIFIED},
)
async def read_round(
    request: Request,  # the database is taken from it: one dependency fewer to solve on a hot read
    encounter_id: str,
    number: RoundNumber,
    principal: ReaderDep,
    if_none_match: IfNoneMatch = None,
) -> Response:
    """One stored round: the same document its POST returned. Its ETag is the encounter's."""
    document, version = await rounds.get_round(
        database_of(request),
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        number=number,
        screened=not principal.is_owner,
    )
    if still_current(if_none_match, version):
        return not_modified(version)
    return Reply.json(200, document, etag=etag(version)).response()


@router.post(
    "/v1/resolve",
    response_model=RoundRead,
    dependencies=[Depends(limit_anonymous)],
)
async def resolve(request: Request, body: ResolveRequest, claim: IdempotencyDep) -> Response:
    """Resolve one round from a full state in the body. Nothing is stored (but an Idempotency-Key's answer).

    Open to anyone (counted per address); with a key, counted against the key instead."""
    reply = Reply.json(200, rounds.resolve_stateless(body))  # CPU only, and short: no thread hop
    if claim is not None:  # only with a key: else no database at all
        await keep_reply(database_of(request), claim, reply)
    return reply.response()


@router.get(
    "/v1/encounters/{encounter_id}/rounds",
    response_model=Page[RoundRead],
    responses={304: NOT_MODIFIED},
)
async def list_rounds(
    encounter_id: str,
    database: DatabaseDep,
    principal: ReaderDep,
    limit: Limit = 20,
    offset: Offset = 0,
    if_none_match: IfNoneMatch = None,
) -> Response:
    """The round history, oldest first. Its ETag is the encounter's."""
    documents, total, version = await rounds.list_rounds(
        database,
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        limit=limit,
        offset=offset,
        screened=not principal.is_owner,
    )
    if still_current(if_none_match, version):
        return not_modified(version)
    page = {"items": documents, "total": total, "limit": limit, "offset": offset}
    return Reply.json(200, page, etag=etag(version)).response()


@router.delete("/v1/encounters/{encounter_id}/rounds/{number}", status_code=status.HTTP_204_NO_CONTENT)
async def undo_round(encounter_id: str, number: RoundNumber, call: EncounterChange) -> Response:
    """Undo the latest round (only the latest): the encounter returns to its exact state before it."""
    return await run(
        call,
        lambda session: rounds.undo_round(
            session, campaign_id=call.campaign_id, encounter_id=encounter_id, number=number, expected=call.expected
        ),
        lambda version: Reply.no_content(etag=etag(version)),
    )


@router.get("/v1/rules", tags=["rules"], response_model=RulesetRead)
async def read_rules() -> Response:
    """The default ruleset, armory included, as data: any part of it can be overridden per encounter."""
    return Reply.json(200, dict(DEFAULT_RULESET.document)).response()

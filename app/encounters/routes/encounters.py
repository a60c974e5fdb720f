"""HTTP for encounters and their tokens: check scope, delegate, turn the result into HTTP."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status

from app.access import service as access
from app.access.auth import EncounterOwnerDep, IdempotencyDep, OwnerDep, ReaderDep, forget_credentials
from app.access.schemas import CredentialCreated, CredentialRead, TokenCreate
from app.deps import CredentialCacheDep, SessionDep, database_of
from app.encounters import copies, encounters, finish, tokens
from app.encounters.convert import encounter_read
from app.encounters.schemas.encounter import (
    EncounterCopy,
    EncounterCreate,
    EncounterRead,
    EncounterSummary,
    EncounterUpdate,
)
from app.http.etags import etag, not_modified, still_current
from app.http.params import NOT_MODIFIED, IfMatch, IfNoneMatch, Limit, Offset
from app.http.responses import Reply
from app.vocabulary.types import Page

router = APIRouter(prefix="/v1/encounters", tags=["encounters"])


@router.post("", status_code=status.HTTP_201_CREATED, response_model=EncounterRead)
async def create_encounter(
    data: EncounterCreate, session: SessionDep, principal: OwnerDep, claim: IdempotencyDep
) -> Response:
    reply = await encounters.create(session=session, campaign_id=principal.campaign_id, data=data, claim=claim)
    return reply.response()


@router.get("", response_model=Page[EncounterSummary])
async def list_encounters(
    session: SessionDep, principal: OwnerDep, limit: Limit = 20, offset: Offset = 0
) -> Page[EncounterSummary]:
    """The campaign's encounters, newest first."""
    items, total = await encounters.list_page(
        session=session, campaign_id=principal.campaign_id, limit=limit, offset=offset
    )
    return Page[EncounterSummary](items=items, total=total, limit=limit, offset=offset)


@router.get("/{encounter_id}", response_model=EncounterRead, responses={304: NOT_MODIFIED})
async def read_encounter(
    request: Request,  # the database is taken from it: one dependency fewer to solve on a hot read
    encounter_id: str,
    principal: ReaderDep,
    if_none_match: IfNoneMatch = None,
) -> Response:
    """The encounter with its combatants. Polling? Send If-None-Match: a 304 while nothing changed."""
    encounter = await encounters.get(
        database_of(request),
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        screened=not principal.is_owner,
    )
    if still_current(if_none_match, encounter.version):
        return not_modified(encounter.version)
    return Reply.json(200, encounter_read(encounter), etag=etag(encounter.version)).response()


@router.patch("/{encounter_id}", response_model=EncounterRead)
async def update_encounter(
    encounter_id: str,
    data: EncounterUpdate,
    session: SessionDep,
    principal: EncounterOwnerDep,
    if_match: IfMatch = None,
) -> Response:
    encounter = await encounters.update(
        session=session, campaign_id=principal.campaign_id, encounter_id=encounter_id, data=data, if_match=if_match
    )
    return Reply.json(200, encounter_read(encounter), etag=etag(encounter.version)).response()


@router.delete("/{encounter_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_encounter(
    encounter_id: str,
    session: SessionDep,
    principal: EncounterOwnerDep,
    cache: CredentialCacheDep,
    if_match: IfMatch = None,
) -> Response:
    await encounters.delete(
        session=session, campaign_id=principal.campaign_id, encounter_id=encounter_id, if_match=if_match
    )
    forget_credentials(cache, encounter_id=encounter_id)  # its tokens went with it
    return Reply.no_content().response()


@router.post("/{encounter_id}/copy", status_code=status.HTTP_201_CREATED, response_model=EncounterRead)
async def copy_encounter(
    encounter_id: str, data: EncounterCopy, session: SessionDep, principal: EncounterOwnerDep, claim: IdempotencyDep
) -> Response:
    """A new encounter with the same rules and combatants, as they were before round 1 (`from: start`, the
    default) or as they are now; no rounds, nothing staged, new ids. Linked characters are linked again with
    their current roster fields (409 character-busy when one is in another unfinished fight)."""
    reply = await copies.copy(
        session=session,
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        name=data.name,
        start=data.start,
        claim=claim,
    )
    return reply.response()


@router.post("/{encounter_id}/finish", response_model=EncounterRead)
async def finish_encounter(
    encounter_id: str,
    session: SessionDep,
    principal: EncounterOwnerDep,
    claim: IdempotencyDep,
    if_match: IfMatch = None,
) -> Response:
    """End the fight: every linked combatant's blood, status and wounds go back to its character (its effects
    and long action end here), staged declarations are cleared, and only reads, renaming and deletion go on."""
    reply = await finish.finish(
        session=session, campaign_id=principal.campaign_id, encounter_id=encounter_id, if_match=if_match, claim=claim
    )
    return reply.response()


@router.post("/{encounter_id}/reopen", response_model=EncounterRead)
async def reopen_encounter(
    encounter_id: str,
    session: SessionDep,
    principal: EncounterOwnerDep,
    claim: IdempotencyDep,
    if_match: IfMatch = None,
) -> Response:
    """Undo the finish exactly: each linked character gets back its state from just before it and is linked
    again. 409 character-busy or character-changed (naming the character) when that is no longer possible."""
    reply = await finish.reopen(
        session=session, campaign_id=principal.campaign_id, encounter_id=encounter_id, if_match=if_match, claim=claim
    )
    return reply.response()


@router.post(
    "/{encounter_id}/tokens", status_code=status.HTTP_201_CREATED, response_model=CredentialCreated, tags=["campaigns"]
)
async def create_token(
    encounter_id: str, data: TokenCreate, session: SessionDep, principal: EncounterOwnerDep, claim: IdempotencyDep
) -> Response:
    """A read-only viewer token for this encounter, or a player token bound to one of its combatants."""
    reply = await tokens.create(session=session, principal=principal, encounter_id=encounter_id, data=data, claim=claim)
    return reply.response()


@router.get("/{encounter_id}/tokens", response_model=list[CredentialRead], tags=["campaigns"])
async def list_tokens(encounter_id: str, session: SessionDep, principal: EncounterOwnerDep) -> list[CredentialRead]:
    return await tokens.list_for(session=session, principal=principal, encounter_id=encounter_id)


@router.delete("/{encounter_id}/tokens/{token_id}", status_code=status.HTTP_204_NO_CONTENT, tags=["campaigns"])
async def revoke_token(
    encounter_id: str, token_id: str, session: SessionDep, principal: EncounterOwnerDep, cache: CredentialCacheDep
) -> Response:
    await access.revoke(session=session, principal=principal, credential_id=token_id, encounter_id=encounter_id)
    forget_credentials(cache, credential_ids=frozenset({token_id}))
    return Reply.no_content().response()

"""HTTP for encounters and their tokens: check scope, delegate, turn the result into HTTP."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status

from app.access import service as access
from app.access.auth import EncounterOwnerDep, OwnerDep, ReaderDep, forget_credentials
from app.access.deps import EncounterCall, EncounterChange, EncounterCommand, EncounterKeyed, OwnerCommand
from app.access.schemas import CredentialCreated, CredentialRead, TokenCreate
from app.deps import CredentialCacheDep, SessionDep, database_of
from app.encounters import copies, encounters, finish, tokens
from app.encounters.convert import EncounterRecord, encounter_read
from app.encounters.schemas.encounter import (
    EncounterCopy,
    EncounterCreate,
    EncounterRead,
    EncounterSummary,
    EncounterUpdate,
)
from app.http.command import run
from app.http.etags import etag, not_modified, still_current
from app.http.params import NOT_MODIFIED, IfNoneMatch, Limit, Offset
from app.http.responses import Reply
from app.vocabulary.types import Page

router = APIRouter(prefix="/v1/encounters", tags=["encounters"])


def _created(encounter: EncounterRecord) -> Reply:
    location = f"/v1/encounters/{encounter.id}"
    return Reply.json(201, encounter_read(encounter), location=location, etag=etag(encounter.version))


def _current(encounter: EncounterRecord) -> Reply:
    return Reply.json(200, encounter_read(encounter), etag=etag(encounter.version))


@router.post("", status_code=status.HTTP_201_CREATED, response_model=EncounterRead)
async def create_encounter(data: EncounterCreate, call: OwnerCommand) -> Response:
    return await run(
        call, lambda session: encounters.create(session, campaign_id=call.campaign_id, data=data), _created
    )


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
async def update_encounter(encounter_id: str, data: EncounterUpdate, call: EncounterChange) -> Response:
    return await run(
        call,
        lambda session: encounters.update(
            session, campaign_id=call.campaign_id, encounter_id=encounter_id, data=data, expected=call.expected
        ),
        _current,
    )


@router.delete("/{encounter_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_encounter(encounter_id: str, call: EncounterChange, cache: CredentialCacheDep) -> Response:
    response = await run(
        call,
        lambda session: encounters.delete(
            session, campaign_id=call.campaign_id, encounter_id=encounter_id, expected=call.expected
        ),
        lambda _: Reply.no_content(),
    )
    forget_credentials(cache, encounter_id=encounter_id)  # its tokens went with it
    return response


@router.post("/{encounter_id}/copy", status_code=status.HTTP_201_CREATED, response_model=EncounterRead)
async def copy_encounter(encounter_id: str, data: EncounterCopy, call: EncounterKeyed) -> Response:
    """A new encounter with the same rules and combatants, as they were before round 1 (`from: start`, the
    default) or as they are now; no rounds, nothing staged, new ids. Linked characters are linked again with
    their current roster fields (409 character-busy when one is in another unfinished fight)."""
    return await run(
        call,
        lambda session: copies.copy(
            session, campaign_id=call.campaign_id, encounter_id=encounter_id, name=data.name, start=data.start
        ),
        _created,
    )


@router.post("/{encounter_id}/finish", response_model=EncounterRead)
async def finish_encounter(encounter_id: str, call: EncounterCommand) -> Response:
    """End the fight: every linked combatant's blood, status and wounds go back to its character (its effects
    and long action end here), staged declarations are cleared, and only reads, renaming and deletion go on."""
    return await run(
        call,
        lambda session: finish.finish(
            session, campaign_id=call.campaign_id, encounter_id=encounter_id, expected=call.expected
        ),
        _current,
    )


@router.post("/{encounter_id}/reopen", response_model=EncounterRead)
async def reopen_encounter(encounter_id: str, call: EncounterCommand) -> Response:
    """Undo the finish exactly: each linked character gets back its state from just before it and is linked
    again. 409 character-busy or character-changed (naming the character) when that is no longer possible."""
    return await run(
        call,
        lambda session: finish.reopen(
            session, campaign_id=call.campaign_id, encounter_id=encounter_id, expected=call.expected
        ),
        _current,
    )


@router.post(
    "/{encounter_id}/tokens", status_code=status.HTTP_201_CREATED, response_model=CredentialCreated, tags=["campaigns"]
)
async def create_token(encounter_id: str, data: TokenCreate, call: EncounterKeyed) -> Response:
    """A read-only viewer token for this encounter, or a player token bound to one of its combatants."""
    return await run(
        call,
        lambda session: tokens.create(session, campaign_id=call.campaign_id, encounter_id=encounter_id, data=data),
        lambda token: Reply.json(201, token, location=f"/v1/encounters/{encounter_id}/tokens"),
    )


@router.get("/{encounter_id}/tokens", response_model=list[CredentialRead], tags=["campaigns"])
async def list_tokens(encounter_id: str, session: SessionDep, principal: EncounterOwnerDep) -> list[CredentialRead]:
    return await tokens.list_for(session=session, principal=principal, encounter_id=encounter_id)


@router.delete("/{encounter_id}/tokens/{token_id}", status_code=status.HTTP_204_NO_CONTENT, tags=["campaigns"])
async def revoke_token(encounter_id: str, token_id: str, call: EncounterCall, cache: CredentialCacheDep) -> Response:
    response = await run(
        call,
        lambda session: access.revoke(
            session, principal=call.principal, credential_id=token_id, encounter_id=encounter_id
        ),
        lambda _: Reply.no_content(),
    )
    forget_credentials(cache, credential_ids=frozenset({token_id}))
    return response

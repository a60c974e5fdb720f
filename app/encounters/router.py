"""HTTP for encounters and combatants: check scope, delegate, return."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status

from app.auth import CombatantEditorDep, EncounterOwnerDep, Forbidden, OwnerDep, ReaderDep
from app.concurrency import etag, not_modified, still_current
from app.deps import NOT_MODIFIED, IfMatch, IfNoneMatch, Limit, Offset, SessionDep
from app.encounters import service
from app.encounters.schemas import (
    CombatantCreate,
    CombatantRead,
    CombatantUpdate,
    EncounterCreate,
    EncounterRead,
    EncounterSummary,
    EncounterUpdate,
)
from app.encounters.views import combatant_read, encounter_read
from app.events.changes import Change, version_of
from app.events.deps import HubDep
from app.idempotency.deps import IdempotencyDep
from app.schemas import Page

router = APIRouter(prefix="/v1/encounters", tags=["encounters"])
PLAYER_FIELDS = {"name", "weapon", "weapon_ready"}  # what a player may change on their own combatant


@router.post("", status_code=status.HTTP_201_CREATED, response_model=EncounterRead)
def create_encounter(
    data: EncounterCreate, session: SessionDep, principal: OwnerDep, claim: IdempotencyDep
) -> Response:
    return service.create(session=session, campaign_id=principal.campaign_id, data=data, claim=claim).response()


@router.get("", response_model=Page[EncounterSummary])
def list_encounters(
    session: SessionDep, principal: OwnerDep, limit: Limit = 20, offset: Offset = 0
) -> Page[EncounterSummary]:
    """The campaign's encounters, newest first."""
    items, total = service.list(session=session, campaign_id=principal.campaign_id, limit=limit, offset=offset)
    return Page[EncounterSummary](
        items=[EncounterSummary.model_validate(e, from_attributes=True) for e in items],
        total=total,
        limit=limit,
        offset=offset,
    )


@router.get("/{encounter_id}", response_model=EncounterRead, responses={304: NOT_MODIFIED})
async def read_encounter(
    encounter_id: str, request: Request, principal: ReaderDep, response: Response, if_none_match: IfNoneMatch = None
) -> EncounterRead | Response:
    """The encounter with its combatants. Polling? Send If-None-Match: a 304 while nothing changed."""
    database = request.app.state.autocommit
    encounter = await service.read(database, campaign_id=principal.campaign_id, encounter_id=encounter_id)
    if still_current(if_none_match, encounter.version):
        return not_modified(encounter.version)
    response.headers["ETag"] = etag(encounter.version)
    return encounter


@router.patch("/{encounter_id}", response_model=EncounterRead)
def update_encounter(
    encounter_id: str,
    data: EncounterUpdate,
    session: SessionDep,
    principal: EncounterOwnerDep,
    response: Response,
    events: HubDep,
    if_match: IfMatch = None,
) -> EncounterRead:
    encounter = service.update(
        session=session, campaign_id=principal.campaign_id, encounter_id=encounter_id, data=data, if_match=if_match
    )
    events.publish_from_thread(Change.of_encounter(encounter_id, encounter.version))  # after the commit
    response.headers["ETag"] = etag(encounter.version)
    return encounter_read(encounter)


@router.delete("/{encounter_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_encounter(
    encounter_id: str, session: SessionDep, principal: EncounterOwnerDep, events: HubDep, if_match: IfMatch = None
) -> Response:
    service.delete(session=session, campaign_id=principal.campaign_id, encounter_id=encounter_id, if_match=if_match)
    events.publish_from_thread(Change.of_encounter(encounter_id))  # gone: its streams end
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/{encounter_id}/combatants", status_code=status.HTTP_201_CREATED, response_model=CombatantRead)
def add_combatant(
    encounter_id: str,
    data: CombatantCreate,
    session: SessionDep,
    principal: EncounterOwnerDep,
    claim: IdempotencyDep,
    events: HubDep,
    if_match: IfMatch = None,
) -> Response:
    reply = service.add_combatant(
        session=session,
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        data=data,
        if_match=if_match,
        claim=claim,
    )
    events.publish_from_thread(Change.of_encounter(encounter_id, version_of(reply)))  # after the commit
    return reply.response()


@router.get("/{encounter_id}/combatants/{combatant_id}", response_model=CombatantRead)
def read_combatant(
    encounter_id: str, combatant_id: str, session: SessionDep, principal: ReaderDep, response: Response
) -> CombatantRead:
    row, version = service.get_combatant(
        session=session, campaign_id=principal.campaign_id, encounter_id=encounter_id, combatant_id=combatant_id
    )
    response.headers["ETag"] = etag(version)
    return combatant_read(row)


@router.patch("/{encounter_id}/combatants/{combatant_id}", response_model=CombatantRead)
def update_combatant(
    encounter_id: str,
    combatant_id: str,
    data: CombatantUpdate,
    session: SessionDep,
    principal: CombatantEditorDep,
    response: Response,
    events: HubDep,
    if_match: IfMatch = None,
) -> CombatantRead:
    """Change a combatant between rounds. A player token may change its own name, weapon and weapon_ready."""
    if not principal.is_owner and not data.model_fields_set <= PLAYER_FIELDS:
        raise Forbidden(f"A player token may change only {', '.join(sorted(PLAYER_FIELDS))}.")
    row, version = service.update_combatant(
        session=session,
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        combatant_id=combatant_id,
        data=data,
        if_match=if_match,
    )
    events.publish_from_thread(Change.of_encounter(encounter_id, version))  # after the commit
    response.headers["ETag"] = etag(version)
    return combatant_read(row)


@router.delete("/{encounter_id}/combatants/{combatant_id}", status_code=status.HTTP_204_NO_CONTENT)
def remove_combatant(
    encounter_id: str,
    combatant_id: str,
    session: SessionDep,
    principal: EncounterOwnerDep,
    events: HubDep,
    if_match: IfMatch = None,
) -> Response:
    service.remove_combatant(
        session=session,
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        combatant_id=combatant_id,
        if_match=if_match,
    )
    events.publish_from_thread(Change.of_encounter(encounter_id))  # after the commit; each worker reads the version
    return Response(status_code=status.HTTP_204_NO_CONTENT)

"""HTTP for encounters, combatants and tokens: check scope, delegate, turn the result into HTTP."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from app.access import service as access
from app.access.auth import CombatantEditorDep, EncounterOwnerDep, Forbidden, OwnerDep, ReaderDep, forget_credentials
from app.access.idempotency import IdempotencyDep
from app.access.schemas import CredentialCreated, CredentialRead, TokenCreate
from app.deps import NOT_MODIFIED, CredentialCacheDep, DatabaseDep, IfMatch, IfNoneMatch, Limit, Offset, SessionDep
from app.encounters import effects, service, store, tokens
from app.encounters.schemas import (
    CombatantCreate,
    CombatantRead,
    CombatantUpdate,
    EffectCreate,
    EffectRead,
    EncounterCreate,
    EncounterRead,
    EncounterSummary,
    EncounterUpdate,
)
from app.encounters.views import combatant_read, encounter_read
from app.etags import etag, not_modified, still_current
from app.responses import Reply
from app.schemas import Page

router = APIRouter(prefix="/v1/encounters", tags=["encounters"])
PLAYER_FIELDS = {"name", "weapon", "weapon_ready"}  # what a player may change on their own combatant


@router.post("", status_code=status.HTTP_201_CREATED, response_model=EncounterRead)
async def create_encounter(
    data: EncounterCreate, session: SessionDep, principal: OwnerDep, claim: IdempotencyDep
) -> Response:
    reply = await service.create(session=session, campaign_id=principal.campaign_id, data=data, claim=claim)
    return reply.response()


@router.get("", response_model=Page[EncounterSummary])
async def list_encounters(
    session: SessionDep, principal: OwnerDep, limit: Limit = 20, offset: Offset = 0
) -> Page[EncounterSummary]:
    """The campaign's encounters, newest first."""
    items, total = await service.list_page(
        session=session, campaign_id=principal.campaign_id, limit=limit, offset=offset
    )
    return Page[EncounterSummary](items=items, total=total, limit=limit, offset=offset)


@router.get("/{encounter_id}", response_model=EncounterRead, responses={304: NOT_MODIFIED})
async def read_encounter(
    encounter_id: str,
    database: DatabaseDep,
    principal: ReaderDep,
    if_none_match: IfNoneMatch = None,
) -> Response:
    """The encounter with its combatants. Polling? Send If-None-Match: a 304 while nothing changed."""
    encounter = await store.read(database, campaign_id=principal.campaign_id, encounter_id=encounter_id)
    if still_current(if_none_match, encounter.version):
        return not_modified(encounter.version)
    # Sent as built: returning the model would have FastAPI validate it once more against response_model.
    return Reply.json(200, encounter_read(encounter), etag=etag(encounter.version)).response()


@router.patch("/{encounter_id}", response_model=EncounterRead)
async def update_encounter(
    encounter_id: str,
    data: EncounterUpdate,
    session: SessionDep,
    principal: EncounterOwnerDep,
    response: Response,
    if_match: IfMatch = None,
) -> EncounterRead:
    encounter = await service.update(
        session=session, campaign_id=principal.campaign_id, encounter_id=encounter_id, data=data, if_match=if_match
    )
    response.headers["ETag"] = etag(encounter.version)
    return encounter_read(encounter)


@router.delete("/{encounter_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_encounter(
    encounter_id: str,
    session: SessionDep,
    principal: EncounterOwnerDep,
    cache: CredentialCacheDep,
    if_match: IfMatch = None,
) -> Response:
    await service.delete_encounter(
        session=session, campaign_id=principal.campaign_id, encounter_id=encounter_id, if_match=if_match
    )
    forget_credentials(cache, encounter_id=encounter_id)  # its tokens went with it
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/{encounter_id}/combatants", status_code=status.HTTP_201_CREATED, response_model=CombatantRead)
async def add_combatant(
    encounter_id: str,
    data: CombatantCreate,
    session: SessionDep,
    principal: EncounterOwnerDep,
    claim: IdempotencyDep,
    if_match: IfMatch = None,
) -> Response:
    reply = await service.add_combatant(
        session=session,
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        data=data,
        if_match=if_match,
        claim=claim,
    )
    return reply.response()


@router.get("/{encounter_id}/combatants/{combatant_id}", response_model=CombatantRead)
async def read_combatant(
    encounter_id: str, combatant_id: str, database: DatabaseDep, principal: ReaderDep, response: Response
) -> CombatantRead:
    encounter = await store.read(database, campaign_id=principal.campaign_id, encounter_id=encounter_id)
    row = service.find_combatant(encounter, combatant_id)
    response.headers["ETag"] = etag(encounter.version)
    return combatant_read(row)


@router.patch("/{encounter_id}/combatants/{combatant_id}", response_model=CombatantRead)
async def update_combatant(
    encounter_id: str,
    combatant_id: str,
    data: CombatantUpdate,
    session: SessionDep,
    principal: CombatantEditorDep,
    response: Response,
    if_match: IfMatch = None,
) -> CombatantRead:
    """Change a combatant between rounds. A player token may change its own name, weapon and weapon_ready."""
    if not principal.is_owner and not data.model_fields_set <= PLAYER_FIELDS:
        raise Forbidden(f"A player token may change only {', '.join(sorted(PLAYER_FIELDS))}.")
    row, version = await service.update_combatant(
        session=session,
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        combatant_id=combatant_id,
        data=data,
        if_match=if_match,
    )
    response.headers["ETag"] = etag(version)
    return combatant_read(row)


@router.delete("/{encounter_id}/combatants/{combatant_id}", status_code=status.HTTP_204_NO_CONTENT)
async def remove_combatant(
    encounter_id: str, combatant_id: str, session: SessionDep, principal: EncounterOwnerDep, if_match: IfMatch = None
) -> Response:
    await service.remove_combatant(
        session=session,
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        combatant_id=combatant_id,
        if_match=if_match,
    )
    return Response(status_code=status.HTTP_204_NO_CONTENT)


EFFECT_EXAMPLE_DOC = (
    "Answer: the effect as stored, with the id to DELETE it by and its last round, e.g. "
    '`{"id": "3f9c0a1b2d4e", "name": "poisoned", "attack": 0, "defense": 0, "initiative": 0, '
    '"blood_per_turn": 1, "until_round": 10}`; Location names it, ETag is the encounter\'s new version.'
)


@router.post(
    "/{encounter_id}/combatants/{combatant_id}/effects",
    status_code=status.HTTP_201_CREATED,
    response_model=EffectRead,
    description="Put a lasting effect on a combatant (RULES.md section 12). `until_round` is the encounter's "
    "latest round + `rounds`, or + `turns` x the ruleset's turn_length (latest round 0, turns 1: until round "
    "10); neither: until removed. The campaign's key only; at most 20 effects per combatant this way.\n\n"
    + EFFECT_EXAMPLE_DOC,
)
async def add_effect(
    encounter_id: str,
    combatant_id: str,
    data: EffectCreate,
    session: SessionDep,
    principal: EncounterOwnerDep,
    claim: IdempotencyDep,
    if_match: IfMatch = None,
) -> Response:
    reply = await effects.add_effect(
        session=session,
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        combatant_id=combatant_id,
        data=data,
        if_match=if_match,
        claim=claim,
    )
    return reply.response()


@router.get("/{encounter_id}/combatants/{combatant_id}/effects/{effect_id}", response_model=EffectRead)
async def read_effect(
    encounter_id: str,
    combatant_id: str,
    effect_id: str,
    database: DatabaseDep,
    principal: ReaderDep,
    response: Response,
) -> EffectRead:
    encounter = await store.read(database, campaign_id=principal.campaign_id, encounter_id=encounter_id)
    effect = effects.find_effect(encounter, service.find_combatant(encounter, combatant_id), effect_id)
    response.headers["ETag"] = etag(encounter.version)
    return EffectRead.model_validate(effect)


@router.delete("/{encounter_id}/combatants/{combatant_id}/effects/{effect_id}", status_code=status.HTTP_204_NO_CONTENT)
async def remove_effect(
    encounter_id: str,
    combatant_id: str,
    effect_id: str,
    session: SessionDep,
    principal: EncounterOwnerDep,
    claim: IdempotencyDep,
    if_match: IfMatch = None,
) -> Response:
    """Take an effect off before it runs out. The campaign's key only; 404 when the combatant has no such effect."""
    reply = await effects.remove_effect(
        session=session,
        campaign_id=principal.campaign_id,
        encounter_id=encounter_id,
        combatant_id=combatant_id,
        effect_id=effect_id,
        if_match=if_match,
        claim=claim,
    )
    return reply.response()


@router.post(
    "/{encounter_id}/tokens", status_code=status.HTTP_201_CREATED, response_model=CredentialCreated, tags=["campaigns"]
)
async def create_token(
    encounter_id: str, data: TokenCreate, session: SessionDep, principal: EncounterOwnerDep, claim: IdempotencyDep
) -> Response:
    """A read-only viewer token for this encounter, or a player token bound to one of its combatants."""
    reply = await tokens.create_token(
        session=session, principal=principal, encounter_id=encounter_id, data=data, claim=claim
    )
    return reply.response()


@router.get("/{encounter_id}/tokens", response_model=list[CredentialRead], tags=["campaigns"])
async def list_tokens(encounter_id: str, session: SessionDep, principal: EncounterOwnerDep) -> list[CredentialRead]:
    return await tokens.list_tokens(session=session, principal=principal, encounter_id=encounter_id)


@router.delete("/{encounter_id}/tokens/{token_id}", status_code=status.HTTP_204_NO_CONTENT, tags=["campaigns"])
async def revoke_token(
    encounter_id: str, token_id: str, session: SessionDep, principal: EncounterOwnerDep, cache: CredentialCacheDep
) -> Response:
    await access.revoke(session=session, principal=principal, credential_id=token_id, encounter_id=encounter_id)
    forget_credentials(cache, credential_ids=frozenset({token_id}))
    return Response(status_code=status.HTTP_204_NO_CONTENT)

"""HTTP for campaigns, their keys, and the scoped tokens of an encounter."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Response, status

from app.auth import EncounterOwnerDep, OwnerDep, forget_credentials, limit_campaign_creation
from app.campaigns import service
from app.campaigns.schemas import (
    CampaignCreate,
    CampaignCreated,
    CampaignRead,
    CredentialCreated,
    CredentialRead,
    KeyCreate,
    TokenCreate,
)
from app.deps import CredentialCacheDep, SessionDep
from app.idempotency.deps import IdempotencyDep

router = APIRouter(tags=["campaigns"])


@router.post(
    "/v1/campaigns",
    status_code=status.HTTP_201_CREATED,
    response_model=CampaignCreated,
    dependencies=[Depends(limit_campaign_creation)],
)
def create_campaign(data: CampaignCreate, session: SessionDep, claim: IdempotencyDep) -> Response:
    """Create a campaign and its first key. The key is shown **once**: keep it."""
    return service.create(session=session, name=data.name, claim=claim).response()


@router.get("/v1/campaign", response_model=CampaignRead)
def read_campaign(session: SessionDep, principal: OwnerDep) -> CampaignRead:
    """The campaign whose key is calling."""
    return service.get(session=session, principal=principal)


@router.get("/v1/campaign/keys", response_model=list[CredentialRead])
def list_keys(session: SessionDep, principal: OwnerDep) -> list[CredentialRead]:
    """Every key and token of the campaign (never their secrets)."""
    return service.list_credentials(session=session, principal=principal)


@router.post("/v1/campaign/keys", status_code=status.HTTP_201_CREATED, response_model=CredentialCreated)
def create_key(data: KeyCreate, session: SessionDep, principal: OwnerDep, claim: IdempotencyDep) -> Response:
    """Another owner key (e.g. one per device); the secret is shown once."""
    return service.create_key(session=session, principal=principal, label=data.label, claim=claim).response()


@router.post("/v1/campaign/keys/rotate", status_code=status.HTTP_201_CREATED, response_model=CredentialCreated)
def rotate_key(
    data: KeyCreate, session: SessionDep, principal: OwnerDep, claim: IdempotencyDep, cache: CredentialCacheDep
) -> Response:
    """A new owner key, and the calling key revoked, in one step."""
    reply = service.create_key(session=session, principal=principal, label=data.label, claim=claim, retire_caller=True)
    forget_credentials(cache, credential_ids=frozenset({principal.credential_id}))
    return reply.response()


@router.delete("/v1/campaign/keys/{key_id}", status_code=status.HTTP_204_NO_CONTENT)
def revoke_key(key_id: str, session: SessionDep, principal: OwnerDep, cache: CredentialCacheDep) -> Response:
    """Revoke a key or token of the campaign (not its last owner key)."""
    service.revoke(session=session, principal=principal, credential_id=key_id)
    forget_credentials(cache, credential_ids=frozenset({key_id}))
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/v1/encounters/{encounter_id}/tokens", status_code=status.HTTP_201_CREATED, response_model=CredentialCreated
)
def create_token(
    encounter_id: str, data: TokenCreate, session: SessionDep, principal: EncounterOwnerDep, claim: IdempotencyDep
) -> Response:
    """A read-only viewer token for this encounter, or a player token bound to one of its combatants."""
    return service.create_token(
        session=session, principal=principal, encounter_id=encounter_id, data=data, claim=claim
    ).response()


@router.get("/v1/encounters/{encounter_id}/tokens", response_model=list[CredentialRead])
def list_tokens(encounter_id: str, session: SessionDep, principal: EncounterOwnerDep) -> list[CredentialRead]:
    return service.list_credentials(session=session, principal=principal, encounter_id=encounter_id)


@router.delete("/v1/encounters/{encounter_id}/tokens/{token_id}", status_code=status.HTTP_204_NO_CONTENT)
def revoke_token(
    encounter_id: str, token_id: str, session: SessionDep, principal: EncounterOwnerDep, cache: CredentialCacheDep
) -> Response:
    service.revoke(session=session, principal=principal, credential_id=token_id, encounter_id=encounter_id)
    forget_credentials(cache, credential_ids=frozenset({token_id}))
    return Response(status_code=status.HTTP_204_NO_CONTENT)

"""HTTP for campaigns and their keys (an encounter's tokens are in app/encounters/tokens.py)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response, status

from app.access import service
from app.access.auth import OwnerDep, forget_credentials, limit_campaign_creation
from app.access.deps import IdempotencyDep, OwnerCall, OwnerCommand
from app.access.schemas import (
    CampaignCreate,
    CampaignCreated,
    CampaignRead,
    CredentialCreated,
    CredentialRead,
    KeyCreate,
)
from app.deps import CredentialCacheDep, SessionDep, database_of
from app.http.command import run, run_anonymous
from app.http.etags import etag, not_modified, still_current
from app.http.params import NOT_MODIFIED, IfNoneMatch
from app.http.responses import Reply

ETAG = {"headers": {"ETag": {"$ref": "#/components/headers/ETag"}}}  # app/http/openapi.py declares the header

router = APIRouter(tags=["campaigns"])


@router.post(
    "/v1/campaigns",
    status_code=status.HTTP_201_CREATED,
    response_model=CampaignCreated,
    dependencies=[Depends(limit_campaign_creation)],
)
async def create_campaign(request: Request, data: CampaignCreate, claim: IdempotencyDep) -> Response:
    """Create a campaign and its first key. The key is shown **once**: keep it."""
    return await run_anonymous(
        database_of(request),
        claim,
        lambda session: service.create(session, name=data.name),
        lambda created: Reply.json(201, created, location="/v1/campaign"),
    )


@router.get(
    "/v1/campaign",
    response_model=CampaignRead,
    responses={200: ETAG, 304: {**NOT_MODIFIED, **ETAG}},
)
async def read_campaign(session: SessionDep, principal: OwnerDep, if_none_match: IfNoneMatch = None) -> Response:
    """The campaign whose key is calling, with its house rules; its version is the ETag."""
    campaign = await service.get(session=session, principal=principal)
    if still_current(if_none_match, campaign.version):
        return not_modified(campaign.version)
    return Reply.json(200, campaign, etag=etag(campaign.version)).response()


@router.get("/v1/campaign/keys", response_model=list[CredentialRead])
async def list_keys(session: SessionDep, principal: OwnerDep) -> list[CredentialRead]:
    """Every key and token of the campaign (never their secrets)."""
    return await service.list_credentials(session=session, principal=principal)


@router.post("/v1/campaign/keys", status_code=status.HTTP_201_CREATED, response_model=CredentialCreated)
async def create_key(data: KeyCreate, call: OwnerCommand) -> Response:
    """Another owner key (e.g. one per device); the secret is shown once."""
    return await run(
        call,
        lambda session: service.create_key(session, principal=call.principal, label=data.label),
        lambda key: Reply.json(201, key, location="/v1/campaign/keys"),
    )


@router.post("/v1/campaign/keys/rotate", status_code=status.HTTP_201_CREATED, response_model=CredentialCreated)
async def rotate_key(data: KeyCreate, call: OwnerCommand, cache: CredentialCacheDep) -> Response:
    """A new owner key, and the calling key revoked, in one step."""
    response = await run(
        call,
        lambda session: service.create_key(session, principal=call.principal, label=data.label, retire_caller=True),
        lambda key: Reply.json(201, key, location="/v1/campaign/keys"),
    )
    forget_credentials(cache, credential_ids=frozenset({call.principal.credential_id}))
    return response


@router.delete("/v1/campaign/keys/{key_id}", status_code=status.HTTP_204_NO_CONTENT)
async def revoke_key(key_id: str, call: OwnerCall, cache: CredentialCacheDep) -> Response:
    """Revoke a key or token of the campaign (not its last owner key)."""
    response = await run(
        call,
        lambda session: service.revoke(session, principal=call.principal, credential_id=key_id),
        lambda _: Reply.no_content(),
    )
    forget_credentials(cache, credential_ids=frozenset({key_id}))
    return response

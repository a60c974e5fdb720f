"""HTTP for webhook subscriptions (owner key only; tokens get 403) and their delivery log."""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Response, status

from app.access.auth import OwnerDep
from app.access.deps import OwnerCommand
from app.deps import SessionDep, SettingsDep, get_webhook_deliveries
from app.http.command import run
from app.http.etags import etag
from app.http.params import IfMatch, Limit, Offset
from app.http.responses import Reply
from app.vocabulary.types import Page
from app.webhooks import subscriptions
from app.webhooks.delivery import Deliveries
from app.webhooks.schemas import DeliveryRead, WebhookCreate, WebhookCreated, WebhookRead, WebhookUpdate

ETAG = {"headers": {"ETag": {"$ref": "#/components/headers/ETag"}}}
router = APIRouter(tags=["webhooks"])


DeliveriesDep = Annotated[Deliveries, Depends(get_webhook_deliveries)]


def expected_version(if_match: str | None) -> int | None:
    """If-Match as the version it names ("7" or 7); `*` or none: any; anything else matches no version."""
    if if_match is None or if_match.strip() == "*":
        return None
    found = re.fullmatch(r'\s*"?(\d{1,9})"?\s*', if_match)
    return int(found.group(1)) if found else -1


def _destination(settings: Any, deliveries: Deliveries) -> dict[str, Any]:
    return {"settings": settings, "allowed": deliveries.allowed, "resolver": deliveries.resolver}


@router.post("/v1/webhooks", status_code=status.HTTP_201_CREATED, response_model=WebhookCreated, responses={201: ETAG})
async def create_webhook(
    data: WebhookCreate, call: OwnerCommand, settings: SettingsDep, deliveries: DeliveriesDep
) -> Response:
    """Subscribe a URL to the campaign's events. The `secret` (standard format) is shown **once**."""
    return await run(
        call,
        lambda session: subscriptions.create(
            session=session, campaign_id=call.campaign_id, data=data, **_destination(settings, deliveries)
        ),
        _created,
    )


def _created(created: WebhookCreated) -> Reply:
    return Reply.json(201, created, location=f"/v1/webhooks/{created.id}", etag=etag(created.version))


@router.get("/v1/webhooks", response_model=list[WebhookRead])
async def list_webhooks(session: SessionDep, principal: OwnerDep) -> list[WebhookRead]:
    """The campaign's subscriptions (never their secrets)."""
    return await subscriptions.list_(session=session, campaign_id=principal.campaign_id)


@router.get("/v1/webhooks/{webhook_id}", response_model=WebhookRead, responses={200: ETAG})
async def read_webhook(webhook_id: str, session: SessionDep, principal: OwnerDep) -> Response:
    found = await subscriptions.get(session=session, campaign_id=principal.campaign_id, webhook_id=webhook_id)
    return Reply.json(200, found, etag=etag(found.version)).response()


@router.patch("/v1/webhooks/{webhook_id}", response_model=WebhookRead, responses={200: ETAG})
async def update_webhook(
    webhook_id: str, data: WebhookUpdate, session: SessionDep, principal: OwnerDep, settings: SettingsDep,
    deliveries: DeliveriesDep, if_match: IfMatch = None,
) -> Response:  # fmt: skip
    """Change a subscription; `{"enabled": true}` resumes a disabled one."""
    changed = await subscriptions.update_(
        session=session, campaign_id=principal.campaign_id, webhook_id=webhook_id, data=data,
        expected_version=expected_version(if_match), **_destination(settings, deliveries),
    )  # fmt: skip
    return Reply.json(200, changed, etag=etag(changed.version)).response()


@router.delete("/v1/webhooks/{webhook_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_webhook(
    webhook_id: str, session: SessionDep, principal: OwnerDep, if_match: IfMatch = None
) -> Response:
    """Remove a subscription and its delivery log."""
    await subscriptions.delete_(
        session=session, campaign_id=principal.campaign_id, webhook_id=webhook_id,
        expected_version=expected_version(if_match),
    )  # fmt: skip
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/v1/webhooks/{webhook_id}/deliveries", response_model=Page[DeliveryRead])
async def list_deliveries(
    webhook_id: str, session: SessionDep, principal: OwnerDep, limit: Limit = 20, offset: Offset = 0
) -> Page[DeliveryRead]:
    """The delivery log, newest first: each event with its webhook-id, status, attempts and last attempt."""
    items, total = await subscriptions.deliveries(
        session=session, campaign_id=principal.campaign_id, webhook_id=webhook_id, limit=limit, offset=offset
    )
    return Page[DeliveryRead](items=items, total=total, limit=limit, offset=offset)


@router.post(
    "/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver", status_code=202, response_model=DeliveryRead
)
async def redeliver(webhook_id: str, delivery_id: str, session: SessionDep, principal: OwnerDep) -> DeliveryRead:
    """Send an event again, with the same webhook-id."""
    return await subscriptions.redeliver(
        session=session, campaign_id=principal.campaign_id, webhook_id=webhook_id, delivery_id=delivery_id
    )


@router.post("/v1/webhooks/{webhook_id}/ping", status_code=202, response_model=DeliveryRead)
async def ping(webhook_id: str, session: SessionDep, principal: OwnerDep) -> DeliveryRead:
    """A `ping` event, delivered like any other."""
    return await subscriptions.ping(session=session, campaign_id=principal.campaign_id, webhook_id=webhook_id)

"""HTTP for webhook subscriptions (owner key only; tokens get 403) and their delivery log."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Response, status

from app.access.auth import OwnerDep
from app.access.deps import OwnerChange, OwnerCommand
from app.deps import SessionDep, SettingsDep, get_webhook_deliveries
from app.http.command import run
from app.http.etags import etag
from app.http.params import Limit, Offset
from app.http.responses import Reply
from app.vocabulary.types import Page
from app.webhooks import subscriptions
from app.webhooks.delivery import Deliveries
from app.webhooks.schemas import DeliveryRead, WebhookCreate, WebhookCreated, WebhookRead, WebhookUpdate

ETAG = {"headers": {"ETag": {"$ref": "#/components/headers/ETag"}}}
router = APIRouter(tags=["webhooks"])


DeliveriesDep = Annotated[Deliveries, Depends(get_webhook_deliveries)]


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
            session, campaign_id=call.campaign_id, data=data, **_destination(settings, deliveries)
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
    webhook_id: str, data: WebhookUpdate, call: OwnerChange, settings: SettingsDep, deliveries: DeliveriesDep
) -> Response:
    """Change a subscription; `{"enabled": true}` resumes a disabled one."""
    return await run(
        call,
        lambda session: subscriptions.update_(
            session,
            campaign_id=call.campaign_id,
            webhook_id=webhook_id,
            data=data,
            expected=call.expected,
            **_destination(settings, deliveries),
        ),  # fmt: skip
        lambda changed: Reply.json(200, changed, etag=etag(changed.version)),
    )


@router.delete("/v1/webhooks/{webhook_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_webhook(webhook_id: str, call: OwnerChange) -> Response:
    """Remove a subscription and its delivery log."""
    return await run(
        call,
        lambda session: subscriptions.delete_(
            session, campaign_id=call.campaign_id, webhook_id=webhook_id, expected=call.expected
        ),
        lambda _: Reply.no_content(),
    )


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
async def redeliver(webhook_id: str, delivery_id: str, call: OwnerCommand) -> Response:
    """Send an event again, with the same webhook-id."""
    return await run(
        call,
        lambda session: subscriptions.redeliver(
            session, campaign_id=call.campaign_id, webhook_id=webhook_id, delivery_id=delivery_id
        ),
        lambda delivery: Reply.json(202, delivery),
    )


@router.post("/v1/webhooks/{webhook_id}/ping", status_code=202, response_model=DeliveryRead)
async def ping(webhook_id: str, call: OwnerCommand) -> Response:
    """A `ping` event, delivered like any other."""
    return await run(
        call,
        lambda session: subscriptions.ping(session, campaign_id=call.campaign_id, webhook_id=webhook_id),
        lambda delivery: Reply.json(202, delivery),
    )

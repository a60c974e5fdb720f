"""A campaign's webhook subscriptions and their delivery log: plain verbs, one transaction each.

A destination is checked (form, Discord's URL, the SSRF rules) before anything is written: a refused one
is a 422 naming why, and nothing is stored. Redelivering, pinging and resuming wake the dispatcher at commit.
"""

from __future__ import annotations

import base64
import secrets
import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.encounters.tables import ENCOUNTERS
from app.platform.db import utcnow
from app.platform.dispatcher import wake_at_commit
from app.platform.errors import NotFound, PreconditionFailed, Unprocessable
from app.platform.transactions import take_write_lock
from app.webhooks import discord
from app.webhooks.destinations import DestinationRefused, Network, Resolver, check_shape, check_url
from app.webhooks.outbox import EVENT_TYPES, JOB, OUTBOX, database_key, new_event_id
from app.webhooks.schemas import DeliveryRead, WebhookCreate, WebhookCreated, WebhookRead, WebhookUpdate
from app.webhooks.tables import EVENTS, SUBSCRIPTIONS

S = SUBSCRIPTIONS.c
E = EVENTS.c


class NotDiscordWebhook(Unprocessable):
    type, title = "not-a-discord-webhook", "The URL is not a Discord webhook URL"


def _read(row: Any) -> WebhookRead:
    """A subscription's row (a Row, or the mapping just inserted) as it is read."""
    values = row if isinstance(row, dict) else row._mapping
    return WebhookRead(**{name: values[name] for name in WEBHOOK_COLUMNS}, encounter=values["encounter_id"])


WEBHOOK_COLUMNS = (
    "id", "url", "events", "scope", "format", "lang", "description", "enabled", "disabled_reason", "version",
    "created_at", "updated_at",
)  # fmt: skip


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


async def check_destination(
    url: str, *, format: str, settings: Settings, allowed: Sequence[Network], resolver: Resolver
) -> None:
    check_shape(url)
    if format == "discord" and not discord.is_discord_webhook(url, settings.discord_api_base):
        raise NotDiscordWebhook(
            f"A discord subscription's URL is {settings.discord_api_base.rstrip('/')}/webhooks/{{id}}/{{token}}."
        )
    await check_url(url, allowed, resolver)


async def _require_encounter(session: AsyncSession, campaign_id: str, encounter_id: str | None) -> None:
    if encounter_id is None:
        return
    mine = (ENCOUNTERS.c.id == encounter_id) & (ENCOUNTERS.c.campaign_id == campaign_id)
    if await session.scalar(select(ENCOUNTERS.c.id).where(mine)) is None:
        raise Unprocessable(f"The campaign has no encounter {encounter_id}.", pointer="/encounter")


async def create(
    *, session: AsyncSession, campaign_id: str, data: WebhookCreate, settings: Settings,
    allowed: Sequence[Network], resolver: Resolver,
) -> WebhookCreated:  # fmt: skip
    """Run by the command runner in its transaction: the destination is checked (DNS) before the first
    statement, so no connection or write lock is held while a resolver answers."""
    await check_destination(data.url, format=data.format, settings=settings, allowed=allowed, resolver=resolver)
    now = utcnow()
    secret = new_secret() if data.format == "standard" else None
    row = {
        "id": str(uuid.uuid4()), "campaign_id": campaign_id, "url": data.url,
        "events": list(dict.fromkeys(data.events or EVENT_TYPES)), "scope": data.scope, "format": data.format,
        "lang": data.lang, "encounter_id": data.encounter, "description": data.description, "secret": secret,
        "enabled": True, "disabled_reason": None, "given_up_streak": 0, "version": 1,
        "created_at": now, "updated_at": now,
    }  # fmt: skip
    await take_write_lock(session)
    await _require_encounter(session, campaign_id, data.encounter)
    OUTBOX.may_have_subscriptions(database_key(session))  # before the commit: never a change missed
    await session.execute(insert(SUBSCRIPTIONS), row)
    return WebhookCreated(**_read(row).model_dump(), secret=secret)


async def list_(*, session: AsyncSession, campaign_id: str) -> list[WebhookRead]:
    rows = await session.execute(select(SUBSCRIPTIONS).where(S.campaign_id == campaign_id).order_by(S.created_at, S.id))
    return [_read(row) for row in rows]


async def _get(session: AsyncSession, campaign_id: str, webhook_id: str) -> Any:
    row = (await session.execute(select(SUBSCRIPTIONS).where(S.id == webhook_id, S.campaign_id == campaign_id))).first()
    if row is None:
        raise NotFound(f"The campaign has no webhook {webhook_id}.")
    return row


async def get(*, session: AsyncSession, campaign_id: str, webhook_id: str) -> WebhookRead:
    return _read(await _get(session, campaign_id, webhook_id))


def _check_version(row: Any, expected: int | None) -> None:
    if expected is not None and expected != row.version:
        raise PreconditionFailed(
            f'If-Match does not match the current ETag "{row.version}"', current_etag=f'"{row.version}"'
        )


async def update_(
    *, session: AsyncSession, campaign_id: str, webhook_id: str, data: WebhookUpdate, expected_version: int | None,
    settings: Settings, allowed: Sequence[Network], resolver: Resolver,
) -> WebhookRead:  # fmt: skip
    changes = data.model_dump(exclude_unset=True)  # null only where it means something (WebhookUpdate)
    async with session.begin():
        await take_write_lock(session)
        row = await _get(session, campaign_id, webhook_id)
        _check_version(row, expected_version)
        if "url" in changes:
            await check_destination(
                changes["url"], format=row.format, settings=settings, allowed=allowed, resolver=resolver
            )
        if changes.get("enabled") is True:
            changes.update(disabled_reason=None, given_up_streak=0)
            OUTBOX.may_have_subscriptions(database_key(session))
            await wake_at_commit(session, JOB)  # its pending events go out again
        elif changes.get("enabled") is False:
            changes["disabled_reason"] = "Disabled by the campaign's owner."
        if "events" in changes:
            changes["events"] = list(dict.fromkeys(changes["events"]))
        values = {**changes, "version": row.version + 1, "updated_at": utcnow()}
        await session.execute(update(SUBSCRIPTIONS).where(S.id == webhook_id).values(**values))
        return _read(await _get(session, campaign_id, webhook_id))


async def delete_(*, session: AsyncSession, campaign_id: str, webhook_id: str, expected_version: int | None) -> None:
    async with session.begin():
        await take_write_lock(session)
        row = await _get(session, campaign_id, webhook_id)
        _check_version(row, expected_version)
        await session.execute(delete(EVENTS).where(E.subscription_id == webhook_id))
        await session.execute(delete(SUBSCRIPTIONS).where(S.id == webhook_id))


def _delivery(row: Any) -> DeliveryRead:
    return DeliveryRead(
        id=row.id, type=row.type, encounter=row.encounter_id or None, created_at=row.created_at, status=row.status,
        attempts=row.attempts, last_attempt=row.last_attempt,
        next_attempt_at=row.next_attempt_at if row.status == "pending" else None,
    )  # fmt: skip


async def deliveries(
    *, session: AsyncSession, campaign_id: str, webhook_id: str, limit: int, offset: int
) -> tuple[list[DeliveryRead], int]:
    """Newest first."""
    async with session.begin():
        await _get(session, campaign_id, webhook_id)
        mine = E.subscription_id == webhook_id
        total = await session.scalar(select(func.count()).select_from(EVENTS).where(mine)) or 0
        page = select(EVENTS).where(mine).order_by(E.seq.desc()).limit(limit).offset(offset)
        return [_delivery(row) for row in await session.execute(page)], total


async def redeliver(*, session: AsyncSession, campaign_id: str, webhook_id: str, delivery_id: str) -> DeliveryRead:
    """Send it again, with the same webhook-id (an attempt under way finishes first: its lease stays)."""
    async with session.begin():
        await take_write_lock(session)
        await _get(session, campaign_id, webhook_id)
        this = (E.id == delivery_id) & (E.subscription_id == webhook_id)
        again = {"status": "pending", "next_attempt_at": utcnow(), "finished_at": None}
        result = await session.execute(update(EVENTS).where(this).values(**again))
        if not result.rowcount:  # type: ignore[attr-defined]
            raise NotFound(f"The webhook {webhook_id} has no delivery {delivery_id}.")
        await wake_at_commit(session, JOB)
        return _delivery((await session.execute(select(EVENTS).where(this))).one())


async def ping(*, session: AsyncSession, campaign_id: str, webhook_id: str) -> DeliveryRead:
    async with session.begin():
        await take_write_lock(session)
        await _get(session, campaign_id, webhook_id)
        now = utcnow()
        row: dict[str, Any] = {
            "id": new_event_id(), "subscription_id": webhook_id, "encounter_id": "", "type": "ping", "round": None,
            "data": {}, "status": "pending", "attempts": 0, "next_attempt_at": now, "created_at": now,
        }  # fmt: skip
        await session.execute(insert(EVENTS), row)
        await wake_at_commit(session, JOB)
        return _delivery((await session.execute(select(EVENTS).where(E.id == row["id"]))).one())


__all__ = ["DestinationRefused", "create", "delete_", "deliveries", "get", "list_", "ping", "redeliver", "update_"]

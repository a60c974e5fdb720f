"""A campaign's webhook subscriptions and their delivery log: plain verbs, one transaction each.

Each verb runs in the command runner's transaction (app/http/command.py: one retry path, the
Idempotency-Key kept with the answer). A destination is checked (form, Discord's URL, the SSRF rules) before
anything is written: a refused one is a 422 naming why, and nothing is stored. A change or a deletion names
the version it read (If-Match) and lands only through the compare-and-set on it. Redelivering, pinging and
resuming wake the dispatcher at commit.
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
from app.platform.errors import Conflict, NotFound, Unprocessable
from app.platform.versions import ANY_VERSION, ExpectedVersion, delete_at_version, next_version
from app.webhooks import discord
from app.webhooks.destinations import Network, Resolver, check_shape, check_url
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


def check_form(url: str, *, format: str, settings: Settings) -> None:
    """The URL's shape, and Discord's form for a discord subscription: no I/O."""
    check_shape(url)
    if format == "discord" and not discord.is_discord_webhook(url, settings.discord_api_base):
        raise NotDiscordWebhook(
            f"A discord subscription's URL is {settings.discord_api_base.rstrip('/')}/webhooks/{{id}}/{{token}}."
        )


async def _require_encounter(session: AsyncSession, campaign_id: str, encounter_id: str | None) -> None:
    if encounter_id is None:
        return
    mine = (ENCOUNTERS.c.id == encounter_id) & (ENCOUNTERS.c.campaign_id == campaign_id)
    if await session.scalar(select(ENCOUNTERS.c.id).where(mine)) is None:
        raise Unprocessable(f"The campaign has no encounter {encounter_id}.", pointer="/encounter")


async def create(
    session: AsyncSession, *, campaign_id: str, data: WebhookCreate, settings: Settings,
    allowed: Sequence[Network], resolver: Resolver,
) -> WebhookCreated:  # fmt: skip
    """The destination is checked (DNS) before the first statement, so no connection or write lock is held
    while a resolver answers."""
    check_form(data.url, format=data.format, settings=settings)
    await check_url(data.url, allowed, resolver)
    now = utcnow()
    secret = new_secret() if data.format == "standard" else None
    row = {
        "id": str(uuid.uuid4()), "campaign_id": campaign_id, "url": data.url,
        "events": list(dict.fromkeys(data.events or EVENT_TYPES)), "scope": data.scope, "format": data.format,
        "lang": data.lang, "encounter_id": data.encounter, "description": data.description, "secret": secret,
        "enabled": True, "disabled_reason": None, "given_up_streak": 0, "version": 1,
        "created_at": now, "updated_at": now,
    }  # fmt: skip
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


def _changed_meanwhile() -> Conflict:
    return Conflict("The webhook changed while this request was being handled. Re-read it and resend.")


async def update_(
    session: AsyncSession, *, campaign_id: str, webhook_id: str, data: WebhookUpdate,
    expected: ExpectedVersion = ANY_VERSION, settings: Settings, allowed: Sequence[Network], resolver: Resolver,
) -> WebhookRead:  # fmt: skip
    changes = data.model_dump(exclude_unset=True)  # null only where it means something (WebhookUpdate)
    if "url" in changes:  # DNS before the first statement, as in create
        await check_url(changes["url"], allowed, resolver)
    row = await _get(session, campaign_id, webhook_id)
    expected.check(row.version)
    if "url" in changes:
        check_form(changes["url"], format=row.format, settings=settings)
    if changes.get("enabled") is True:
        changes.update(disabled_reason=None, given_up_streak=0)
        OUTBOX.may_have_subscriptions(database_key(session))
        await wake_at_commit(session, JOB)  # its pending events go out again
    elif changes.get("enabled") is False:
        changes["disabled_reason"] = "Disabled by the campaign's owner."
    if "events" in changes:
        changes["events"] = list(dict.fromkeys(changes["events"]))
    await next_version(session, SUBSCRIPTIONS, webhook_id, row.version, _changed_meanwhile, **changes)
    return _read(await _get(session, campaign_id, webhook_id))


async def delete_(
    session: AsyncSession, *, campaign_id: str, webhook_id: str, expected: ExpectedVersion = ANY_VERSION
) -> None:
    row = await _get(session, campaign_id, webhook_id)
    expected.check(row.version)
    await session.execute(delete(EVENTS).where(E.subscription_id == webhook_id))
    await delete_at_version(session, SUBSCRIPTIONS, webhook_id, row.version, _changed_meanwhile())


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


async def redeliver(session: AsyncSession, *, campaign_id: str, webhook_id: str, delivery_id: str) -> DeliveryRead:
    """Send it again, with the same webhook-id (an attempt under way finishes first: its lease stays)."""
    await _get(session, campaign_id, webhook_id)
    this = (E.id == delivery_id) & (E.subscription_id == webhook_id)
    again = {"status": "pending", "next_attempt_at": utcnow(), "finished_at": None}
    result = await session.execute(update(EVENTS).where(this).values(**again))
    if not result.rowcount:  # type: ignore[attr-defined]
        raise NotFound(f"The webhook {webhook_id} has no delivery {delivery_id}.")
    await wake_at_commit(session, JOB)
    return _delivery((await session.execute(select(EVENTS).where(this))).one())


async def ping(session: AsyncSession, *, campaign_id: str, webhook_id: str) -> DeliveryRead:
    await _get(session, campaign_id, webhook_id)
    now = utcnow()
    row: dict[str, Any] = {
        "id": new_event_id(), "subscription_id": webhook_id, "encounter_id": "", "type": "ping", "round": None,
        "data": {}, "status": "pending", "attempts": 0, "next_attempt_at": now, "created_at": now,
    }  # fmt: skip
    await session.execute(insert(EVENTS), row)
    await wake_at_commit(session, JOB)
    return _delivery((await session.execute(select(EVENTS).where(E.id == row["id"]))).one())

"""The dispatcher's webhooks job: claim the events due, attempt each (off every request's path), settle it.

Delivered means a 2xx within WEBHOOK_TIMEOUT_SECONDS. Anything else (another status, a redirect, a timeout,
a refused address) is retried after WEBHOOK_RETRY_DELAYS with jitter, for WEBHOOK_RETRY_HOURS, then given up;
a Discord 429 is retried when Discord says, and an empty rate-limit bucket holds the subscription's next
events until it refills. Attempts run as tasks of their own, so one slow receiver holds only its own
(subscription, encounter) queue; when one ends the job runs again and takes that queue's next event.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx
import orjson
from standardwebhooks import Webhook

from app.config import Settings
from app.platform.db import Database, utcnow
from app.platform.dispatcher import Dispatcher, NextWake
from app.webhooks import destinations, discord, queue
from app.webhooks.destinations import DestinationRefused, Resolver, guarded_client, networks
from app.webhooks.metrics import WebhookMetrics
from app.webhooks.outbox import JOB
from app.webhooks.render import NEEDS_PEOPLE, NOBODY, people_of, standard_data

log = logging.getLogger(__name__)
BATCH = 50  # heads claimed per run
MAX_IN_FLIGHT = 200  # attempts under way in one worker
PRUNE_EVERY = timedelta(minutes=10)


@dataclass(frozen=True)
class Outcome:
    ok: bool
    status_code: int | None = None
    error: str | None = None
    retry_after: float | None = None  # the receiver said when (Discord's 429)
    hold: float | None = None  # the subscription's next events wait this long (an empty rate-limit bucket)
    discord_message: str | None = None
    screened: bool = False  # nothing for this scope: the event is dropped


class Deliveries:
    """One worker's deliveries. `resolver` and `transport` are what tests replace."""

    def __init__(self, settings: Settings, dispatcher: Dispatcher, metrics: WebhookMetrics | None = None):
        self.settings = settings
        self.dispatcher = dispatcher
        self.metrics = metrics
        self.allowed = networks(settings.webhook_allowed_networks)
        self.resolver: Resolver = destinations.system_resolver
        self.transport: httpx.AsyncBaseTransport | None = None  # the inner transport (tests: one that refuses)
        self._client: httpx.AsyncClient | None = None
        self._in_flight: set[asyncio.Task[None]] = set()
        self._pruned_at: datetime | None = None

    def register(self) -> None:
        self.dispatcher.register_job(JOB, self.run, idle_seconds=60.0, stop=self.stop)

    async def stop(self) -> None:
        for task in self._in_flight:
            task.cancel()  # the lease runs out and another worker (or this one, restarted) tries again
        await asyncio.gather(*self._in_flight, return_exceptions=True)
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = guarded_client(
                self.allowed, self.resolver, self.settings.webhook_timeout_seconds, inner=self.transport
            )
        return self._client

    # -- the job

    async def run(self, database: Database) -> NextWake:
        now = utcnow()
        await self._prune(database, now)
        room = MAX_IN_FLIGHT - len(self._in_flight)
        if room > 0 and await self._worth_locking(database, queue.HEADS, {"now": now, "batch": 1}):
            lease = now + timedelta(seconds=self.settings.webhook_lease_seconds)
            async with self.dispatcher.write() as connection:
                claimed = await queue.claim(connection, now=now, lease=lease, batch=min(BATCH, room))
            for event in claimed:
                task = asyncio.create_task(self._attempt(database, event), name=f"webhook-{event.id}")
                self._in_flight.add(task)
                task.add_done_callback(self._in_flight.discard)
            if claimed:
                return 0.0  # more may be due: the next heads of other queues
        async with database.engine.connect() as connection:
            depth, oldest, due = await queue.queue(connection)
        if self.metrics is not None:
            self.metrics.queue(depth, (now - oldest).total_seconds() if oldest else 0.0)
        return due

    async def _worth_locking(self, database: Database, found: Any, parameters: dict[str, Any]) -> bool:
        """SQLite: whether a write transaction would find work, read without the write lock first. Holding
        the lock for nothing would make a request that read before it and writes meanwhile fail (409)."""
        if not self.settings.is_sqlite:
            return True
        return bool(await database.rows(found, parameters))

    async def _prune(self, database: Database, now: datetime) -> None:
        if self._pruned_at is not None and now - self._pruned_at < PRUNE_EVERY:
            return
        self._pruned_at = now
        before = now - timedelta(hours=self.settings.webhook_prune_after_hours)
        if not await self._worth_locking(database, queue.PRUNABLE, {"before": before}):
            return
        async with self.dispatcher.write() as connection:
            await queue.prune(connection, now=now, keep_hours=self.settings.webhook_prune_after_hours)

    # -- one attempt

    async def _attempt(self, database: Database, event: Any) -> None:
        at, started = utcnow(), time.monotonic()
        try:
            outcome = await self._send(database, event, at)
        except DestinationRefused as refused:
            outcome = Outcome(False, error=refused.detail)
        except httpx.TimeoutException:
            outcome = Outcome(False, error=f"no answer within {self.settings.webhook_timeout_seconds:g} s")
        except httpx.HTTPError as error:
            outcome = Outcome(False, error=f"{type(error).__name__}: {error}"[:300])
        except Exception as error:  # noqa: BLE001 (a bug in rendering must not lose the event: retried, logged)
            log.warning("webhook %s could not be attempted", event.id, exc_info=True)
            outcome = Outcome(False, error=f"internal error: {type(error).__name__}")
        ms = round((time.monotonic() - started) * 1000)
        try:
            await self._settle(event, outcome, at, ms)
        except Exception:  # noqa: BLE001 (the lease runs out and the event is attempted again)
            log.warning("could not settle webhook %s", event.id, exc_info=True)
        self.dispatcher.wake(JOB)  # its queue's next event may go now

    async def _send(self, database: Database, event: Any, at: datetime) -> Outcome:
        people = await people_of(database, event.encounter_id) if event.type in NEEDS_PEOPLE else NOBODY
        if event.format == "discord":
            return await self._send_discord(database, event, people)
        data = standard_data(event.type, event.data, event.scope, event.lang, people)
        if data is None:
            return Outcome(False, screened=True)
        body = orjson.dumps({"type": event.type, "timestamp": event.created_at.isoformat(), "data": data})
        signature = Webhook(event.secret).sign(event.id, at, body.decode())
        headers = {
            "content-type": "application/json",
            "webhook-id": event.id,
            "webhook-timestamp": str(int(at.timestamp())),
            "webhook-signature": signature,
            "user-agent": "dziedzictwo-combat-webhooks",
        }
        response = await self.client().post(event.url, content=body, headers=headers)
        return Outcome(200 <= response.status_code < 300, status_code=response.status_code)

    async def _send_discord(self, database: Database, event: Any, people: Any) -> Outcome:
        if event.type == "round.undone":
            async with database.engine.connect() as connection:
                message_id = await queue.round_message(connection, event)
            if message_id is not None:
                edit = discord.undone_edit(event.round, event.lang)
                response = await self.client().patch(f"{event.url}/messages/{message_id}", json=edit)
                return self._discord_outcome(response)
        body = discord.message(event.type, event.data, event.scope, event.lang, people)
        if body is None:
            return Outcome(False, screened=True)
        response = await self.client().post(event.url, params={"wait": "true"}, json=body)
        outcome = self._discord_outcome(response)
        if outcome.ok and event.type == "round.resolved":
            return Outcome(True, response.status_code, hold=outcome.hold, discord_message=str(response.json()["id"]))
        return outcome

    @staticmethod
    def _discord_outcome(response: httpx.Response) -> Outcome:
        limit = discord.rate_limit(response)
        if response.status_code == 429:
            return Outcome(False, 429, error="rate limited", retry_after=limit.wait, hold=limit.wait)
        return Outcome(200 <= response.status_code < 300, response.status_code, hold=limit.wait)

    def _retry_delay(self, attempts: int) -> float:
        delays = self.settings.webhook_retry_delays
        delay = delays[min(attempts - 1, len(delays) - 1)]
        return delay * random.uniform(0.8, 1.2)

    async def _settle(self, event: Any, outcome: Outcome, at: datetime, ms: int) -> None:
        now = utcnow()
        last = {"at": at.isoformat(), "ms": ms}
        last.update(
            {"status_code": outcome.status_code} if outcome.status_code is not None else {"error": outcome.error}
        )
        async with self.dispatcher.write() as connection:
            if outcome.screened:
                await queue.drop(connection, event)
                return
            if outcome.hold:
                await queue.hold(connection, event.subscription_id, now + timedelta(seconds=outcome.hold))
            if outcome.ok:
                if await queue.settle(
                    connection, event, status="delivered", finished_at=now, last_attempt=last,
                    discord_message=outcome.discord_message,
                ):  # fmt: skip
                    if event.given_up_streak:  # a statement only when there is a streak to end
                        await queue.delivered(connection, event.subscription_id)
                    self._count("delivered")
                return
            window_ends = event.created_at + timedelta(hours=self.settings.webhook_retry_hours)
            retry_at = now + timedelta(seconds=outcome.retry_after or self._retry_delay(event.attempts))
            if retry_at <= window_ends or outcome.retry_after is not None:
                if await queue.settle(connection, event, next_attempt_at=retry_at, last_attempt=last):
                    self._count("retried")
                return
            if await queue.settle(connection, event, status="given_up", finished_at=now, last_attempt=last):
                self._count("given_up")
                if await queue.given_up(connection, event.subscription_id, self.settings.webhook_disable_after):
                    log.warning(
                        "webhook subscription %s disabled: its last events were all given up", event.subscription_id
                    )

    def _count(self, outcome: str) -> None:
        if self.metrics is not None:
            self.metrics.delivery(outcome)

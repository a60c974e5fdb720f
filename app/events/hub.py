"""The event hub of one worker: hands committed changes to its subscribers.

Services announce a change inside its transaction (app/platform/changefeed.py). PostgreSQL: that is a NOTIFY of
the small notice, delivered at commit; one listening connection per worker receives every notice, its
own included, and a single dispatcher turns each into an event
(reading a round's document once, only when someone here follows that encounter) for all local
subscribers. A lost listening connection is re-established, and every local subscriber then gets a
`sync`: what was sent meanwhile is lost, so each client re-reads instead.
SQLite: the embedded database lives in one process; a commit hands its notices to the dispatcher.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from app.config import Settings
from app.encounters import screen, store
from app.events.messages import message
from app.events.subscriptions import Event, Subscribers, Subscription
from app.platform.changefeed import CHANNEL, NOTIFY, PAYLOADS, TIMING, Change, on_commit
from app.platform.db import Database
from app.platform.listening import Listener, listen_conninfo

log = logging.getLogger(__name__)
INBOX_SIZE = 10_000  # notices waiting for the dispatcher; past this, everyone gets a sync instead
RESYNC = object()  # in the inbox: tell every subscriber to re-read


class EventHub:
    def __init__(self, settings: Settings, database: Database):
        self.settings = settings
        self.database = database
        self.subscribers = Subscribers(queue_size=settings.events_queue_size, limit=settings.events_max_subscribers)
        self._conninfo = listen_conninfo(settings)
        self._inbox: asyncio.Queue[Any] = asyncio.Queue(INBOX_SIZE)
        self._tasks: list[asyncio.Task[None]] = []
        self._stop_hearing_commits: Callable[[], None] | None = None
        self._listener = (
            None
            if self._conninfo is None
            else Listener(
                self._conninfo,
                [CHANNEL],
                name="combat-events",
                check_every=settings.events_listener_check_seconds,
                on_notice=self._receive,
                # Listening again: whatever was published while nobody listened is lost, so everyone re-reads
                # (on the first connection there is nobody yet, and this costs nothing).
                on_listening=lambda: self._enqueue(RESYNC),
            )
        )
        # the LISTEN connection is up (always set on SQLite)
        self.listening = asyncio.Event() if self._listener is None else self._listener.listening

    @property
    def listener_pid(self) -> int | None:
        """The listening connection's server process, for operators (and the tests that kill it)."""
        return None if self._listener is None else self._listener.pid

    # -- lifecycle

    async def start(self, ready_timeout: float = 5.0) -> None:
        self._tasks.append(asyncio.create_task(self._dispatch_forever(), name="events-dispatch"))
        if self._listener is None:
            self._stop_hearing_commits = on_commit(self.database.engine, self._enqueue)
            self.listening.set()
            return
        self._tasks.append(asyncio.create_task(self._listener.run_forever(), name="events-listen"))
        try:  # a worker that starts before its database still starts; the listener keeps trying
            await asyncio.wait_for(self.listening.wait(), ready_timeout)
        except TimeoutError:
            log.warning("event listener not connected after %.0f s; still trying", ready_timeout)

    async def stop(self) -> None:
        if self._stop_hearing_commits is not None:
            self._stop_hearing_commits()
            self._stop_hearing_commits = None
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()

    # -- publishing (the public API)

    async def publish(self, change: Change) -> None:
        """Announce a change outside any transaction (services use changefeed.announce, inside theirs), to
        every subscriber of its encounter on every worker. It never raises: the change stands regardless."""
        if self._conninfo is None:
            self._enqueue(change)
            return
        try:
            await self.database.rows(NOTIFY, {PAYLOADS.key: [change.payload()]})
        except Exception:  # noqa: BLE001 (the database is down: other workers' listeners broke too, and resync)
            log.warning("could not publish %s; local subscribers only", change, exc_info=True)
            self._enqueue(change)

    # -- subscribing

    def subscribe(self, encounter_id: str, access: Any) -> Subscription:
        return self.subscribers.add(encounter_id, access)

    def unsubscribe(self, subscription: Subscription) -> None:
        self.subscribers.remove(subscription)

    async def stream(self, subscription: Subscription, version: int) -> AsyncIterator[bytes]:
        """The stream's messages: a sync at the current version, then every event until the client goes
        away (the response is cancelled) or falls behind (the subscription is closed)."""
        try:
            yield subscription.message_for(Event.sync(version)) or b""
            while True:
                event = await subscription.queue.get()
                if event is None:
                    return
                sent = subscription.message_for(event)
                if sent is not None:
                    yield sent
        finally:
            self.unsubscribe(subscription)

    # -- dispatching

    def _enqueue(self, item: Any) -> None:
        try:
            self._inbox.put_nowait(item)
        except asyncio.QueueFull:
            log.warning("event inbox full; every subscriber will re-read")
            self._drain_inbox()
            self._inbox.put_nowait(RESYNC)

    def _drain_inbox(self) -> None:
        while not self._inbox.empty():
            self._inbox.get_nowait()

    async def _dispatch_forever(self) -> None:
        """One at a time, in arrival order: events of one encounter reach its subscribers in order."""
        while True:
            item = await self._inbox.get()
            try:
                if item is RESYNC:
                    await self._resync_all()
                else:
                    await self._dispatch(item)
            except Exception:  # noqa: BLE001 (one bad notice or a failed read must not stop the stream)
                log.warning("could not dispatch %s; its subscribers will re-read", item, exc_info=True)
                if isinstance(item, Change):
                    await self._resync(item.encounter_id)

    async def _dispatch(self, change: Change) -> None:
        if not self.subscribers.of(change.encounter_id):
            return  # nobody here follows this encounter: no read, no work
        version = change.version
        if version is None:
            version = await store.version(self.database, change.encounter_id)
            if version is None:  # deleted: its streams end (the reconnect gets a 404)
                self.subscribers.close_all(change.encounter_id)
                return
        event = await self._event(change, version)
        self.subscribers.deliver(change.encounter_id, event)

    async def _hidden_from_tokens(self, change: Change) -> frozenset[str]:
        """Who tokens must not see: read only when a token follows the encounter here (owners see all)."""
        if all(getattr(s.access, "is_owner", True) for s in self.subscribers.of(change.encounter_id)):
            return frozenset()
        return await store.hidden_ids(self.database, change.encounter_id)

    async def _event(self, change: Change, version: int) -> Event:
        if change.kind in ("round", "declaration"):
            hidden = await self._hidden_from_tokens(change)
        if change.kind == "round":
            document = await store.streamed_round(self.database, change.encounter_id, change.round or 0)
            if document is None:  # undone before we read it: the client re-reads instead
                return Event.sync(version)
            screened = message(change.kind, version, screen.round_document(document, hidden)) if hidden else None
            return Event(change.kind, version, message(change.kind, version, document), token_message=screened)
        if change.kind == "declaration":
            declared = {"combatant": change.combatant, "declared": change.declared}
            about_hidden = change.combatant in hidden
            return Event(change.kind, version, message(change.kind, version, declared), hidden_from_tokens=about_hidden)
        if change.kind == "deadline":
            deadline = {"round": change.round, "due_at": change.due_at}
            return Event(change.kind, version, message(change.kind, version, deadline))
        if change.kind in TIMING or change.kind == "undo":
            return Event(change.kind, version, message(change.kind, version, {"round": change.round}))
        return Event(change.kind, version, message(change.kind, version, {"version": version}))

    async def _resync(self, encounter_id: str) -> None:
        if not self.subscribers.of(encounter_id):
            return
        try:
            version = await store.version(self.database, encounter_id)
        except Exception:  # noqa: BLE001 (no database: end the streams; clients reconnect and sync)
            log.warning("could not read %s for a sync; closing its streams", encounter_id, exc_info=True)
            version = None
        if version is None:
            self.subscribers.close_all(encounter_id)
        else:
            self.subscribers.deliver(encounter_id, Event.sync(version))

    async def _resync_all(self) -> None:
        for encounter_id in self.subscribers.encounters():
            await self._resync(encounter_id)

    def _receive(self, _channel: str, payload: str) -> None:
        try:
            change = Change.from_payload(payload)
        except (ValueError, TypeError):
            log.warning("ignored a malformed event notice: %.200s", payload)
            return
        self._enqueue(change)

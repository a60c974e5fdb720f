"""Who is listening on this worker: one bounded queue per open stream, grouped by encounter."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from app.events.messages import sync_message
from app.platform.changefeed import VERSIONED
from app.platform.errors import ServiceError


class TooManySubscribers(ServiceError):
    status, type, title = 503, "too-many-subscribers", "This worker has as many open streams as it serves"
    headers = {"Retry-After": "5"}


@dataclass(frozen=True)
class Event:
    """One message for every subscriber of an encounter, encoded once."""

    kind: str
    version: int
    message: bytes  # the whole SSE message: event, id and data lines
    # For player and viewer tokens (README.md, "Hidden combatants"): the message screened of the hidden
    # combatants (None: the same message), or not sent at all (an event about a hidden combatant alone).
    token_message: bytes | None = None
    hidden_from_tokens: bool = False

    @classmethod
    def sync(cls, version: int) -> Event:
        return cls("sync", version, sync_message(version))


CLOSE = None  # in a queue: the stream ends (the client reconnects and gets a sync)


class Subscription:
    """One open stream. The queue is bounded: a client that does not keep up is closed, not buffered."""

    def __init__(self, encounter_id: str, access: Any, queue_size: int):
        self.encounter_id = encounter_id
        self.access = access  # the principal the stream was opened with (its role, its combatant)
        self.queue: asyncio.Queue[Event | None] = asyncio.Queue(queue_size)
        self.closed = False
        self.told = 0  # the newest version this client has been told about
        self.synced = 0  # the version of the last sync it was sent: older changes are in what it re-read

    def offer(self, event: Event) -> bool:
        """Queue the event; False (and the stream closed) when the queue is full."""
        if self.closed:
            return False
        try:
            self.queue.put_nowait(event)
        except asyncio.QueueFull:
            self.close()
            return False
        return True

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        while not self.queue.empty():  # what it has not read yet is dropped: the sync on reconnect covers it
            self.queue.get_nowait()
        self.queue.put_nowait(CLOSE)

    def message_for(self, event: Event) -> bytes | None:
        """What to send for this event, given what the client already knows, or None to skip it.

        A change at or below the version of the last sync is already in what the client re-read. One
        older than a change it was told about arrived out of order (two publishers after two commits):
        a sync makes the client re-read rather than apply it on top of the newer one."""
        if event.kind == "sync":
            self.told = max(self.told, event.version)
            self.synced = self.told
            return event.message
        owner = getattr(self.access, "is_owner", True)
        if not owner and event.hidden_from_tokens:
            return None
        if event.kind in VERSIONED:
            if event.version <= self.synced:
                return None
            if event.version <= self.told:
                self.synced = self.told
                return sync_message(self.told)
            self.told = event.version
        if not owner and event.token_message is not None:
            return event.token_message
        return event.message


class Subscribers:
    """Every open stream of this worker, by encounter. Used only on the event loop's thread."""

    def __init__(self, *, queue_size: int, limit: int):
        self._queue_size = queue_size
        self._limit = limit
        self._by_encounter: dict[str, set[Subscription]] = {}
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def add(self, encounter_id: str, access: Any) -> Subscription:
        if self._count >= self._limit:
            raise TooManySubscribers(f"This worker serves at most {self._limit} streams; retry shortly.")
        subscription = Subscription(encounter_id, access, self._queue_size)
        self._by_encounter.setdefault(encounter_id, set()).add(subscription)
        self._count += 1
        return subscription

    def remove(self, subscription: Subscription) -> None:
        found = self._by_encounter.get(subscription.encounter_id)
        if found is None or subscription not in found:
            return
        found.discard(subscription)
        self._count -= 1
        if not found:
            del self._by_encounter[subscription.encounter_id]

    def encounters(self) -> list[str]:
        return list(self._by_encounter)

    def of(self, encounter_id: str) -> Iterable[Subscription]:
        return tuple(self._by_encounter.get(encounter_id, ()))

    def deliver(self, encounter_id: str, event: Event) -> None:
        """Hand the event to every subscriber of the encounter; one that is full is closed and dropped."""
        for subscription in self.of(encounter_id):
            if not subscription.offer(event):
                self.remove(subscription)

    def close_all(self, encounter_id: str) -> None:
        for subscription in self.of(encounter_id):
            subscription.close()
            self.remove(subscription)

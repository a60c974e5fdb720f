"""The hub of one worker without HTTP: bounded queues, what each subscriber is sent given what it knows,
one read of a round for all subscribers, and resyncs when notices may have been lost."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from app.config import Settings
from app.encounters import store
from app.events import hub as hub_module
from app.events.hub import EventHub
from app.events.subscriptions import Event, Subscribers, TooManySubscribers
from app.platform.changefeed import Change

DOCUMENT = {"round": 3, "turn": 1, "actions": []}


class FakeDatabase:
    """Answers the hub's reads and counts them."""

    def __init__(self, version: int | None = 9):
        self.engine = create_async_engine("sqlite+aiosqlite://")  # only for the hub to hear its commits
        self.version = version
        self.calls: list[Any] = []

    async def rows(self, statement, parameters):
        self.calls.append(statement)
        if statement is store.STREAMED_ROUND:
            return [SimpleNamespace(document=DOCUMENT)] if parameters["number"] == 3 else []
        if statement is store.VERSION:
            return [SimpleNamespace(version=self.version)] if self.version is not None else []
        raise AssertionError(f"unexpected statement {statement}")


def fields(message: bytes) -> dict[str, str]:
    """An SSE message's fields (sse-starlette writes id first)."""
    return dict(line.split(": ", 1) for line in message.decode().splitlines() if line)


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 10))


def embedded(**settings: Any) -> Settings:
    return Settings(database_url="sqlite:///unused.db", **settings)


async def drained(subscription) -> list[bytes | None]:
    await asyncio.sleep(0)
    found = []
    while not subscription.queue.empty():
        event = subscription.queue.get_nowait()
        found.append(None if event is None else subscription.message_for(event))
    return found


def test_a_change_survives_its_notice():
    for change in (
        Change.of_round("e", 3, 7),
        Change.of_undo("e", 3, 8),
        Change.of_encounter("e"),
        Change.of_declaration("e", "c", False),
    ):
        assert Change.from_payload(change.payload()) == change
        assert len(change.payload()) < 200  # NOTIFY payloads stay small
    with pytest.raises(ValueError):
        Change("e", "secret-plans")


def test_a_subscriber_that_falls_behind_is_closed_and_dropped():
    async def scenario():
        subscribers = Subscribers(queue_size=2, limit=10)
        slow, fast = subscribers.add("e", None), subscribers.add("e", None)
        for version in (2, 3):
            subscribers.deliver("e", Event.sync(version))
            fast.queue.get_nowait()
        assert not slow.closed and slow.queue.full()
        subscribers.deliver("e", Event.sync(4))
        assert slow.closed and len(subscribers) == 1 and list(subscribers.of("e")) == [fast]
        assert fast.queue.qsize() == 1
        assert slow.queue.get_nowait() is None and slow.queue.empty()  # what it had not read is dropped

    run(scenario())


def test_a_worker_serves_a_bounded_number_of_streams():
    subscribers = Subscribers(queue_size=2, limit=2)
    first = subscribers.add("e", None)
    subscribers.add("f", None)
    with pytest.raises(TooManySubscribers):
        subscribers.add("g", None)
    subscribers.remove(first)
    subscribers.remove(first)  # twice is harmless (the stream and its background task both clean up)
    assert len(subscribers) == 1 and subscribers.add("g", None)


def test_what_a_subscriber_is_sent_depends_on_what_it_knows():
    subscription = Subscribers(queue_size=8, limit=8).add("e", None)
    assert fields(subscription.message_for(Event.sync(5)))["event"] == "sync"
    assert subscription.message_for(Event("encounter", 5, b"old")) is None  # already in what it re-read
    assert subscription.message_for(Event("round", 6, b"round 6")) == b"round 6"
    assert subscription.message_for(Event("declaration", 6, b"declared")) == b"declared"  # same version: sent
    late = subscription.message_for(Event("encounter", 6, b"late"))  # behind one it was told: out of order
    assert fields(late) == {"event": "sync", "id": "6", "data": '{"version":6}'}


def test_one_read_of_a_round_for_every_subscriber_of_a_worker():
    async def scenario():
        database = FakeDatabase()
        hub = EventHub(embedded(), database)
        await hub.start()
        many = [hub.subscribe("e", None) for _ in range(50)]
        elsewhere = hub.subscribe("f", None)
        await hub.publish(Change.of_round("e", 3, 7))
        await hub.publish(Change.of_round("nobody-follows", 3, 7))  # no subscriber here: nothing read
        await asyncio.sleep(0.05)
        assert database.calls == [store.STREAMED_ROUND]
        messages = {(await drained(s))[0] for s in many}
        assert len(messages) == 1  # encoded once, shared
        (message,) = messages
        assert fields(message) == {"event": "round", "id": "7", "data": '{"actions":[],"round":3,"turn":1}'}
        assert elsewhere.queue.empty()
        await hub.stop()

    run(scenario())


def test_declarations_and_changes_without_a_version_on_the_embedded_database():
    async def scenario():
        database = FakeDatabase(version=9)
        hub = EventHub(embedded(), database)
        await hub.start()
        viewer = hub.subscribe("e", SimpleNamespace(role="viewer"))
        await hub.publish(Change.of_declaration("e", "c1", True))
        await hub.publish(Change.of_encounter("e"))
        await hub.publish(Change.of_round("e", 4, 10))  # undone before it was read: a sync instead
        await asyncio.sleep(0.05)
        declaration, encounter, instead = await drained(viewer)
        assert fields(declaration) == {"event": "declaration", "id": "9", "data": '{"combatant":"c1","declared":true}'}
        assert fields(encounter) == {"event": "encounter", "id": "9", "data": '{"version":9}'}
        assert fields(instead) == {"event": "sync", "id": "10", "data": '{"version":10}'}
        database.version = None  # the encounter was deleted: its streams end
        await hub.publish(Change.of_encounter("e"))
        await asyncio.sleep(0.05)
        assert viewer.closed and len(hub.subscribers) == 0
        await hub.stop()

    run(scenario())


def test_a_full_inbox_turns_into_a_sync_for_everyone(monkeypatch):
    monkeypatch.setattr(hub_module, "INBOX_SIZE", 3)

    async def scenario():
        database = FakeDatabase(version=12)
        hub = EventHub(embedded(), database)  # not started: notices pile up
        subscription = hub.subscribe("e", None)
        for version in range(2, 8):
            await hub.publish(Change.of_encounter("e", version))
        await hub.start()
        await asyncio.sleep(0.05)
        received = await drained(subscription)
        assert {"event": "sync", "id": "12", "data": '{"version":12}'} in [fields(m) for m in received if m]
        await hub.stop()

    run(scenario())

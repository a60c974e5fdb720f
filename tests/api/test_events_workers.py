"""The event stream across workers on PostgreSQL: LISTEN/NOTIFY reaches every worker, and a listening
connection that is killed comes back, with a sync for every subscriber."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text

from app.config import Settings
from app.events.hub import EventHub
from app.main import create_app
from app.platform.changefeed import Change
from app.platform.db import Database
from tests.api.events_support import Served
from tests.api.helpers import fighter
from tests.api.test_events_stream import stream
from tests.conftest import POSTGRES_URL, empty_tables, ensure_postgres_database, migrate
from tests.waiting import wait_for


@pytest.fixture
def pg_settings() -> Settings:
    ensure_postgres_database(POSTGRES_URL)
    migrate(POSTGRES_URL)
    empty_tables(POSTGRES_URL)
    return Settings(
        database_url=POSTGRES_URL,
        campaigns_per_address_per_hour=1000,
        events_keepalive_seconds=0.2,
        events_listener_check_seconds=0.5,
    )


@pytest.fixture
def workers(pg_settings) -> Iterator[tuple[Served, Served]]:
    with Served(create_app(pg_settings)) as first, Served(create_app(pg_settings)) as second:
        yield first, second


def new_encounter(served: Served) -> tuple[str, str, list[str]]:
    with served.client() as anonymous:
        owner = anonymous.post("/v1/campaigns", json={"name": "Workers"}).json()["key"]["secret"]
    with served.client(owner) as api:
        encounter = api.post("/v1/encounters", json={"name": "E", "combatants": [fighter("A"), fighter("B")]}).json()
    return owner, f"/v1/encounters/{encounter['id']}", [c["id"] for c in encounter["combatants"]]


def test_a_round_posted_through_either_worker_reaches_subscribers_on_both(workers):
    first, second = workers
    owner, url, _ = new_encounter(first)
    with (
        stream(first, f"{url}/events", owner) as on_first,
        stream(second, f"{url}/events", owner) as on_second,
        first.client(owner) as via_first,
        second.client(owner) as via_second,
    ):
        assert on_first.next().event == on_second.next().event == "sync"
        for number, api in ((1, via_first), (2, via_second)):
            posted = api.post(f"{url}/rounds", json={})
            assert posted.status_code == 201
            for events in (on_first, on_second):
                event = events.next()
                assert (event.event, event.id) == ("round", posted.headers["etag"].strip('"'))
                assert event.json() == posted.json() and event.json()["round"] == number
        renamed = via_second.patch(url, json={"name": "Renamed"}).json()
        for events in (on_first, on_second):
            assert events.next().json() == {"version": renamed["version"]}


def test_a_declaration_published_by_any_worker_carries_only_who_declared(workers, pg_settings):
    first, second = workers
    owner, url, (a, _) = new_encounter(first)
    encounter_id = url.rsplit("/", 1)[1]

    async def publish_from_a_third_worker() -> None:
        database = Database(pg_settings)
        try:
            await EventHub(pg_settings, database).publish(Change.of_declaration(encounter_id, a, True))
        finally:
            await database.dispose()

    with stream(first, f"{url}/events", owner) as on_first, stream(second, f"{url}/events", owner) as on_second:
        version = int(on_first.next().id)
        assert on_second.next().event == "sync"
        asyncio.run(publish_from_a_third_worker())
        for events in (on_first, on_second):
            event = events.next()
            assert (event.event, event.id, event.json()) == (
                "declaration",
                str(version),
                {"combatant": a, "declared": True},
            )


def test_a_killed_listening_connection_comes_back_and_every_subscriber_syncs(pg_settings):
    with Served(create_app(pg_settings)) as served:
        owner, url, _ = new_encounter(served)
        hub = served.hub
        with stream(served, f"{url}/events", owner) as one, stream(served, f"{url}/events", owner) as two:
            assert one.next().event == two.next().event == "sync"
            killed = wait_for(lambda: hub.listener_pid, "the listener")
            engine = create_engine(POSTGRES_URL)
            with engine.connect() as connection:
                assert connection.scalar(text("SELECT pg_terminate_backend(:pid)"), {"pid": killed})
            engine.dispose()
            # A change around the reconnection: its own event or the sync after it tells every subscriber.
            with served.client(owner) as api:
                changed = api.patch(url, json={"name": "Around the outage"}).json()["version"]
            for events in (one, two):
                told = int(events.until("sync").id)
                while told < changed:  # each read is bounded by its own deadline
                    told = int(events.next().id)
            wait_for(lambda: hub.listener_pid not in (None, killed), "a new listening connection")
            with served.client(owner) as api:
                posted = api.post(f"{url}/rounds", json={})
            for events in (one, two):
                assert events.until("round").json() == posted.json()

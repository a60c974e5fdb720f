"""The live event stream over real HTTP, on SQLite and PostgreSQL: sync first, each kind of change,
keep-alive comments, access per role, stream tickets, CORS, and cleanup of disconnected clients."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import create_engine, text

from app.main import create_app
from tests.api.events_support import EventReader, Served
from tests.api.helpers import PROBLEM, fighter
from tests.waiting import wait_for

ORIGIN = "http://table.example"


@pytest.fixture
def served(settings) -> Iterator[Served]:
    tuned = settings.model_copy(update={"events_keepalive_seconds": 0.2, "cors_origins": [ORIGIN]})
    with Served(create_app(tuned)) as server:
        yield server


@pytest.fixture
def world(served):
    """An encounter of two, a viewer and a player token, and another campaign's key."""
    with served.client() as anonymous:
        owner = anonymous.post("/v1/campaigns", json={"name": "Stream"}).json()["key"]["secret"]
        other = anonymous.post("/v1/campaigns", json={"name": "Other"}).json()["key"]["secret"]
    api = served.client(owner)
    encounter = api.post("/v1/encounters", json={"name": "E", "combatants": [fighter("A"), fighter("B")]}).json()
    url = f"/v1/encounters/{encounter['id']}"
    a, b = (c["id"] for c in encounter["combatants"])
    viewer = api.post(f"{url}/tokens", json={"role": "viewer"}).json()
    player = api.post(f"{url}/tokens", json={"role": "player", "combatant": a}).json()
    yield {
        "api": api,
        "url": url,
        "id": encounter["id"],
        "combatants": (a, b),
        "secrets": {"owner": owner, "other": other, "viewer": viewer["secret"], "player": player["secret"]},
        "viewer_token_id": viewer["id"],
    }
    api.close()


@contextmanager
def stream(served: Served, path: str, secret: str | None = None, **headers: str) -> Iterator[EventReader]:
    with served.client(secret) as client, client.stream("GET", path, headers=headers) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        yield EventReader(response)


def test_sync_first_then_every_kind_of_change_after_it_committed(served, world):
    api, url = world["api"], world["url"]
    version = api.get(url).json()["version"]
    with stream(served, f"{url}/events", world["secrets"]["owner"]) as events:
        first = events.next()
        assert (first.event, first.id, first.json()) == ("sync", str(version), {"version": version})

        posted = api.post(f"{url}/rounds", json={"seed": 7})
        assert posted.status_code == 201
        round_event = events.next()
        assert round_event.event == "round" and round_event.id == posted.headers["etag"].strip('"')
        assert round_event.json() == api.get(f"{url}/rounds/1").json() == posted.json()

        undone = api.delete(f"{url}/rounds/1")
        assert undone.status_code == 204
        undo = events.next()
        assert (undo.event, undo.id, undo.json()) == ("undo", undone.headers["etag"].strip('"'), {"round": 1})

        renamed = api.patch(url, json={"name": "Renamed"})
        changed = events.next()
        new_version = renamed.json()["version"]
        assert (changed.event, changed.id, changed.json()) == ("encounter", str(new_version), {"version": new_version})

        added = api.post(f"{url}/combatants", json=fighter("C"))
        assert events.next().id == added.headers["etag"].strip('"')
        removed = api.delete(f"{url}/combatants/{added.json()['id']}")
        assert removed.status_code == 204
        after_removal = events.next()
        current = api.get(url).json()["version"]
        assert (after_removal.event, after_removal.json()) == ("encounter", {"version": current})

        events.comment()  # the keep-alive (0.2 s here, 15 s by default)


def test_a_refused_change_sends_nothing(served, world):
    api, url = world["api"], world["url"]
    with stream(served, f"{url}/events", world["secrets"]["viewer"]) as events:
        assert events.next().event == "sync"
        assert api.post(f"{url}/rounds", json={"declarations": [{"combatant": "nobody"}]}).status_code == 422
        assert api.patch(url, json={"name": "x"}, headers={"If-Match": '"999"'}).status_code == 412
        posted = api.post(f"{url}/rounds", json={})
        following = events.next()
        assert following.event == "round" and following.json()["round"] == posted.json()["round"] == 1


def test_last_event_id_older_than_the_version_gets_a_sync(served, world):
    api, url = world["api"], world["url"]
    api.post(f"{url}/rounds", json={})
    version = api.get(url).json()["version"]
    with stream(served, f"{url}/events", world["secrets"]["player"], **{"Last-Event-ID": str(version - 1)}) as events:
        first = events.next()
        assert (first.event, first.json()) == ("sync", {"version": version})


@pytest.mark.parametrize(
    ("role", "status"),
    [("none", 401), ("wrong", 401), ("other", 404), ("viewer", 200), ("player", 200), ("owner", 200)],
)
def test_who_may_follow_an_encounter(served, world, role, status):
    secret = {"none": None, "wrong": "dzc_key_not-a-key", **world["secrets"]}[role]
    url = world["url"]
    with served.client(secret) as client:
        with client.stream("GET", f"{url}/events") as response:
            assert response.status_code == status
            if status == 200:
                assert EventReader(response).next().event == "sync"
            else:
                assert response.headers["content-type"].startswith(PROBLEM)
                response.read()
                assert response.json()["status"] == status
        ticket = client.post(f"{url}/stream-tickets")
        assert ticket.status_code == (201 if status == 200 else status), ticket.text
        missing = client.get("/v1/encounters/no-such-encounter/events")
        assert missing.status_code == (401 if role in ("none", "wrong") else 404)


def test_owner_of_no_such_encounter_gets_404(served, world):
    with served.client(world["secrets"]["owner"]) as client:
        assert client.get("/v1/encounters/nope/events").status_code == 404
        assert client.post("/v1/encounters/nope/stream-tickets").status_code == 404


def test_a_ticket_opens_one_stream_with_its_role_and_only_once(served, world, settings):
    url = world["url"]
    with served.client(world["secrets"]["viewer"]) as viewer:
        issued = viewer.post(f"{url}/stream-tickets")
    assert issued.status_code == 201
    ticket = issued.json()["ticket"]
    assert set(issued.json()) == {"ticket", "expires_at"}
    with stream(served, f"{url}/events?ticket={ticket}") as events:
        assert events.next().event == "sync"
        assert len(served.hub.subscribers) == 1
        assert next(iter(served.hub.subscribers.of(world["id"]))).access.role == "viewer"
    with served.client() as anonymous:
        again = anonymous.get(f"{url}/events", params={"ticket": ticket})
        assert again.status_code == 401 and again.headers["content-type"].startswith(PROBLEM)
        assert again.json()["type"] == "/problems/unauthorized"
        assert anonymous.get(f"{url}/events", params={"ticket": "dzc_tick_made-up"}).status_code == 401
    engine = create_engine(settings.database_url)
    with engine.connect() as connection:
        stored = connection.execute(text("SELECT secret_hash FROM stream_tickets")).all()
    engine.dispose()
    assert all(ticket not in row.secret_hash for row in stored)


def test_an_expired_ticket_or_one_for_another_encounter_is_refused(served, world, settings):
    api, url = world["api"], world["url"]
    other = api.post("/v1/encounters", json={"name": "Other"}).json()["id"]
    ticket = api.post(f"{url}/stream-tickets").json()["ticket"]
    with served.client() as anonymous:
        assert anonymous.get(f"/v1/encounters/{other}/events", params={"ticket": ticket}).status_code == 401
        engine = create_engine(settings.database_url)
        with engine.begin() as connection:
            connection.execute(text("UPDATE stream_tickets SET expires_at = :past"), {"past": "2000-01-01 00:00:00"})
        engine.dispose()
        expired = anonymous.get(f"{url}/events", params={"ticket": ticket})
        assert expired.status_code == 401 and expired.json()["type"] == "/problems/unauthorized"


def test_a_revoked_tokens_ticket_is_refused(served, world):
    url = world["url"]
    with served.client(world["secrets"]["viewer"]) as viewer:
        ticket = viewer.post(f"{url}/stream-tickets").json()["ticket"]
    assert world["api"].delete(f"{url}/tokens/{world['viewer_token_id']}").status_code == 204
    with served.client() as anonymous:
        assert anonymous.get(f"{url}/events", params={"ticket": ticket}).status_code == 401


def test_cors_lets_another_origin_follow_with_a_ticket(served, world):
    url = world["url"]
    ticket = world["api"].post(f"{url}/stream-tickets").json()["ticket"]
    with stream(served, f"{url}/events?ticket={ticket}", Origin=ORIGIN) as events:
        assert events.response.headers["access-control-allow-origin"] == ORIGIN
        assert events.next().event == "sync"
    with served.client() as anonymous:
        preflight = anonymous.options(
            f"{url}/stream-tickets",
            headers={
                "Origin": ORIGIN,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "Authorization",
            },
        )
        assert preflight.status_code == 200 and preflight.headers["access-control-allow-origin"] == ORIGIN


def test_a_client_that_goes_away_is_cleaned_up(served, world):
    url = world["url"]
    with stream(served, f"{url}/events", world["secrets"]["owner"]) as events:
        assert events.next().event == "sync"
        assert len(served.hub.subscribers) == 1
    wait_for(lambda: len(served.hub.subscribers) == 0, "the subscription to be dropped")


def test_deleting_the_encounter_ends_its_streams(served, world):
    url = world["url"]
    with stream(served, f"{url}/events", world["secrets"]["viewer"]) as events:
        assert events.next().event == "sync"
        assert world["api"].delete(url).status_code == 204
        events.end()
    wait_for(lambda: len(served.hub.subscribers) == 0, "the stream to end")

"""The declaration deadline: the setting and its bounds, the clock after each round, the `deadline`,
`declarations.due` and `declarations.complete` events, and auto_resolve: on completion, on the deadline,
exactly once across workers racing (PostgreSQL), a round posted by hand first winning, and a deadline
that outlives a restart of the server. Every wait polls with a generous deadline (a loaded machine is slow,
never wrong)."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta, timezone

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text, update

from app.encounters import deadline_job, deadlines, store
from app.encounters.tables import ENCOUNTERS
from app.main import create_app
from app.platform.db import Database, sync_url
from tests.api.events_support import EventReader
from tests.api.helpers import assert_problem, fighter
from tests.api.test_events_stream import served, stream  # noqa: F401  (fixtures)
from tests.waiting import PATIENCE, wait_for

NONE = {"stance": "defensive", "action": {"type": "none"}}


def due_now(settings, encounter_id: str, seconds_ago: int = 5) -> None:
    """Move an encounter's deadline into the past, from outside the service (as time passing would)."""
    engine = create_engine(sync_url(settings.database_url))
    past = datetime.now(timezone.utc) - timedelta(seconds=seconds_ago)
    with engine.begin() as connection:  # through the table's own column type, as the service writes it
        connection.execute(update(ENCOUNTERS).where(ENCOUNTERS.c.id == encounter_id).values(declarations_due_at=past))
    engine.dispose()


def wake(client) -> None:
    client.app.state.dispatcher.wake(deadlines.JOB)


def table(client, **settings):
    """Ala (a player's, with her wolf) against Bolek (the game master's)."""
    made = client.post("/v1/encounters", json={"name": "T", "combatants": [fighter("Ala"), fighter("Bolek")],
                                               **settings})
    assert made.status_code == 201, made.text
    encounter = made.json()
    url = f"/v1/encounters/{encounter['id']}"
    ala, bolek = (c["id"] for c in encounter["combatants"])
    wolf = client.post(f"{url}/combatants", json=fighter("Wolf", companion_of=ala)).json()["id"]
    token = client.post(f"{url}/tokens", json={"role": "player", "combatant": ala}).json()["secret"]
    return encounter, url, ala, wolf, bolek, {"Authorization": f"Bearer {token}"}


def test_the_setting_its_bounds_and_the_clock(client):
    before = datetime.now(timezone.utc)
    encounter = client.post("/v1/encounters", json={"name": "T", "declaration_seconds": 60}).json()
    assert encounter["declaration_seconds"] == 60 and encounter["auto_resolve"] is False
    due = datetime.fromisoformat(encounter["declarations_due_at"])
    assert before + timedelta(seconds=59) <= due
    url = f"/v1/encounters/{encounter['id']}"
    for bad in (9, 3601, -1, 1.5, "30", True):
        assert_problem(client.post("/v1/encounters", json={"name": "x", "declaration_seconds": bad}), 422)
        assert_problem(client.patch(url, json={"declaration_seconds": bad}), 422)
    assert_problem(client.patch(url, json={"auto_resolve": "yes"}), 422)
    assert client.get(url).json()["version"] == encounter["version"]  # refused: nothing changed
    changed = client.patch(url, json={"declaration_seconds": None, "auto_resolve": True}).json()
    assert changed["declarations_due_at"] is None and changed["auto_resolve"] is True
    assert client.get(url).json()["declaration_seconds"] is None
    plain = client.post("/v1/encounters", json={"name": "plain"}).json()
    assert plain["declarations_due_at"] is None and plain["declaration_seconds"] is None


def test_each_round_and_undo_start_a_new_deadline_and_the_finish_stops_it(client):
    encounter, url, ala, wolf, bolek, player = table(client, declaration_seconds=600)
    first = client.get(url).json()["declarations_due_at"]
    assert client.post(f"{url}/rounds", json={"seed": 1}).status_code == 201
    after_round = client.get(url).json()["declarations_due_at"]
    assert after_round > first
    assert client.delete(f"{url}/rounds/1").status_code == 204
    assert client.get(url).json()["declarations_due_at"] >= after_round
    assert client.post(f"{url}/finish").status_code == 200
    assert client.get(url).json()["declarations_due_at"] is None
    assert client.post(f"{url}/reopen").status_code == 200
    assert client.get(url).json()["declarations_due_at"] is not None


def test_auto_resolve_as_soon_as_every_player_controlled_combatant_has_staged(client):
    encounter, url, ala, wolf, bolek, player = table(client, auto_resolve=True)
    attack = {"stance": "offensive", "action": {"type": "attack", "targets": [bolek]}}
    assert client.put(f"{url}/declarations/{ala}", json=attack, headers=player).status_code == 201
    assert client.get(url).json()["round"] == 0  # the wolf has not declared
    assert client.put(f"{url}/declarations/{wolf}", json=attack, headers=player).status_code == 201
    wait_for(lambda: client.get(url).json()["round"] == 1, "the round that completion resolves")
    document = client.get(f"{url}/rounds/1").json()
    assert {a["actor"] for a in document["actions"] if a["type"] == "attack"} >= {ala, wolf}
    assert client.get(f"{url}/declarations").json()["declarations"] == []
    time.sleep(0.5)
    assert client.get(url).json()["round"] == 1  # once


def test_auto_resolve_when_the_deadline_passes_with_something_staged(client):
    encounter, url, ala, wolf, bolek, player = table(client, declaration_seconds=10, auto_resolve=True)
    assert client.put(f"{url}/declarations/{bolek}", json=NONE).status_code == 201  # not the players'
    wait_for(lambda: client.get(url).json()["round"] == 1, "the round the deadline resolves")
    read = client.get(url).json()
    assert datetime.fromisoformat(read["declarations_due_at"]) > datetime.now(timezone.utc)  # the next one


def test_a_deadline_with_nothing_staged_only_announces_and_the_clock_waits(client, settings):
    encounter, url, ala, wolf, bolek, player = table(client, declaration_seconds=600, auto_resolve=True)
    due_now(settings, encounter["id"])
    wake(client)
    wait_for(lambda: client.get(url).json()["declarations_due_at"] is None, "the clock to stop")
    assert client.get(url).json()["round"] == 0  # an empty table never plays on its own
    assert client.put(f"{url}/declarations/{bolek}", json=NONE).status_code == 201
    assert client.get(url).json()["declarations_due_at"] is not None  # the next declaration starts it again


def test_a_staged_declaration_that_makes_no_round_is_announced_and_the_clock_waits(client, settings):
    encounter, url, ala, wolf, bolek, player = table(client, declaration_seconds=600, auto_resolve=True)
    at_wolf = {"stance": "offensive", "action": {"type": "attack", "targets": [wolf]}}
    assert client.put(f"{url}/declarations/{bolek}", json=at_wolf).status_code == 201
    assert client.delete(f"{url}/combatants/{wolf}").status_code == 204  # its target is gone: a stale one
    due_now(settings, encounter["id"])
    wake(client)
    wait_for(lambda: client.get(url).json()["declarations_due_at"] is None, "the announcement")
    assert client.get(url).json()["round"] == 0


def test_without_auto_resolve_a_deadline_only_announces(client, settings):
    encounter, url, ala, wolf, bolek, player = table(client, declaration_seconds=600)
    assert client.put(f"{url}/declarations/{bolek}", json=NONE).status_code == 201
    due_now(settings, encounter["id"])
    wake(client)
    wait_for(lambda: client.get(url).json()["declarations_due_at"] is None, "the announcement")
    assert client.get(url).json()["round"] == 0
    assert len(client.get(f"{url}/declarations").json()["declarations"]) == 1


def test_a_round_posted_by_hand_first_wins(client, settings):
    encounter, url, ala, wolf, bolek, player = table(client, declaration_seconds=600, auto_resolve=True)
    assert client.put(f"{url}/declarations/{bolek}", json=NONE).status_code == 201
    stale = asyncio.run(_read(settings, encounter))  # what the job read just before the game master posted
    assert client.post(f"{url}/rounds", json={"seed": 4}).status_code == 201
    assert asyncio.run(_resolve_from(settings, stale)) is True  # it lost the compare-and-set, and says so
    rounds = client.get(f"{url}/rounds").json()
    assert [r["round"] for r in rounds["items"]] == [1] and rounds["items"][0]["seed"] == 4


async def _read(settings, encounter):
    database = Database(settings)
    try:
        return await store.read(database, campaign_id=encounter_campaign(settings, encounter["id"]),
                                encounter_id=encounter["id"])
    finally:
        await database.dispose()


async def _resolve_from(settings, record):
    database = Database(settings)
    try:
        return await deadline_job._resolve(database, record)
    finally:
        await database.dispose()


def encounter_campaign(settings, encounter_id: str) -> str:
    engine = create_engine(sync_url(settings.database_url))
    with engine.connect() as connection:
        found = connection.execute(text("SELECT campaign_id FROM encounters WHERE id = :id"), {"id": encounter_id})
        campaign_id = found.scalar_one()
    engine.dispose()
    return campaign_id


def test_two_workers_racing_resolve_exactly_one_round(client, settings):
    """Two workers' jobs (each its own engine and pool, as two processes have) settle the same deadlines at
    once: each encounter gets exactly one round."""
    fights = []
    for _ in range(4):
        encounter, url, ala, wolf, bolek, player = table(client, declaration_seconds=600, auto_resolve=True)
        assert client.put(f"{url}/declarations/{bolek}", json=NONE).status_code == 201
        fights.append((encounter, url))
    client.app.state.dispatcher.jobs[deadlines.JOB].woken.clear()
    for encounter, _ in fights:
        due_now(settings, encounter["id"])

    async def race() -> None:
        workers = [Database(settings), Database(settings)]
        try:
            await asyncio.gather(*(deadline_job.run(worker) for worker in workers))
        finally:
            for worker in workers:
                await worker.dispose()

    asyncio.run(race())
    for _, url in fights:
        wait_for(lambda url=url: client.get(url).json()["round"] >= 1, "every round")
        assert client.get(f"{url}/rounds").json()["total"] == 1


def test_the_deadline_survives_a_restart_of_the_server(settings):
    with TestClient(create_app(settings), raise_server_exceptions=False) as first:
        key = first.post("/v1/campaigns", json={"name": "R"}).json()["key"]["secret"]
        first.headers["Authorization"] = f"Bearer {key}"
        encounter, url, ala, wolf, bolek, player = table(first, declaration_seconds=600, auto_resolve=True)
        assert first.put(f"{url}/declarations/{bolek}", json=NONE).status_code == 201
    due_now(settings, encounter["id"])  # the deadline passes while no worker is up
    with TestClient(create_app(settings), raise_server_exceptions=False) as second:
        second.headers["Authorization"] = f"Bearer {key}"
        wait_for(lambda: second.get(url).json()["round"] == 1, "the round after the restart")


def test_the_stream_says_deadline_due_and_complete(served, settings):  # noqa: F811
    with served.client() as anonymous:
        key = anonymous.post("/v1/campaigns", json={"name": "S"}).json()["key"]["secret"]
    api = served.client(key)
    try:
        encounter, url, ala, wolf, bolek, player = table(api, declaration_seconds=600)
        token = player["Authorization"].removeprefix("Bearer ")
        with stream(served, f"{url}/events", token) as events:
            assert events.next().event == "sync"
            assert api.post(f"{url}/rounds", json={"seed": 2}).status_code == 201
            deadline = _next_of(events, "deadline")
            assert deadline.json()["round"] == 2 and deadline.json()["due_at"] is not None
            assert api.put(f"{url}/declarations/{ala}", json=NONE, headers=player).status_code == 201
            assert api.put(f"{url}/declarations/{wolf}", json=NONE, headers=player).status_code == 201
            assert _next_of(events, "declarations.complete").json() == {"round": 2}
            due_now(settings, encounter["id"])
            served.app.state.dispatcher.wake(deadlines.JOB)
            assert _next_of(events, "declarations.due").json() == {"round": 2}
    finally:
        api.close()


def _next_of(events: EventReader, kind: str):
    for _ in range(20):
        event = events.next(timeout=PATIENCE)
        if event.event == kind:
            return event
    raise AssertionError(f"no {kind} event")


@pytest.mark.parametrize("seconds", [None, 10])
def test_a_copy_keeps_the_setting(client, seconds):
    encounter = client.post("/v1/encounters", json={"name": "T", "declaration_seconds": seconds,
                                                    "auto_resolve": True}).json()
    copy = client.post(f"/v1/encounters/{encounter['id']}/copy", json={}).json()
    assert (copy["declaration_seconds"], copy["auto_resolve"]) == (seconds, True)
    assert (copy["declarations_due_at"] is None) == (seconds is None)

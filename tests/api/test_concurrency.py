"""Two requests that change an encounter from the same state: exactly one wins, the other gets 409."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from app import concurrency
from tests.api.helpers import assert_problem, attack, create_encounter, fighter


@pytest.fixture
def lockstep(monkeypatch):
    """Hold both requests after they have read the encounter, so they truly race for the write."""
    barrier = threading.Barrier(2, timeout=10)
    original = concurrency.claim_version
    waited = threading.local()

    def claim_after_both_read(*args, **kwargs):
        if not getattr(waited, "done", False):  # only the first attempt of each request waits
            waited.done = True
            barrier.wait()
        return original(*args, **kwargs)

    from app.encounters import service as encounters
    from app.rounds import service as rounds
    monkeypatch.setattr(rounds, "claim_version", claim_after_both_read)
    monkeypatch.setattr(encounters, "claim_version", claim_after_both_read)


def _race(client, *calls):
    with ThreadPoolExecutor(len(calls)) as pool:
        return [f.result() for f in [pool.submit(call) for call in calls]]


def test_two_simultaneous_rounds_one_wins(client, lockstep):
    encounter = create_encounter(client, fighter("Ala"), fighter("Bolek"))
    url = f"/v1/encounters/{encounter['id']}"
    ids = [c["id"] for c in encounter["combatants"]]
    body = {"declarations": [attack(ids[0], ids[1])]}
    responses = _race(client, lambda: client.post(f"{url}/rounds", json=body),
                      lambda: client.post(f"{url}/rounds", json=body))
    assert sorted(r.status_code for r in responses) == [201, 409], [r.text for r in responses]
    assert_problem(next(r for r in responses if r.status_code == 409), 409, "conflict")
    history = client.get(f"{url}/rounds").json()
    assert history["total"] == 1 and history["items"][0] == next(r for r in responses if r.status_code == 201).json()
    assert client.get(url).json()["round"] == 1


def test_two_simultaneous_edits_one_wins(client, lockstep):
    encounter = create_encounter(client, fighter("Ala"))
    url = f"/v1/encounters/{encounter['id']}/combatants/{encounter['combatants'][0]['id']}"
    responses = _race(client, lambda: client.patch(url, json={"blood": 3}),
                      lambda: client.patch(url, json={"blood": 7}))
    assert sorted(r.status_code for r in responses) == [200, 409]
    winner = next(r for r in responses if r.status_code == 200).json()["blood"]
    assert client.get(url).json()["blood"] == winner


def test_unique_round_number_is_the_backstop(client, monkeypatch):
    """Even if the version guard were skipped, the (encounter, number) constraint refuses a duplicate."""
    encounter = create_encounter(client, fighter("Ala"))
    url = f"/v1/encounters/{encounter['id']}"
    assert client.post(f"{url}/rounds", json={}).status_code == 201
    from app.rounds import service as rounds
    original = rounds.encounter_from_rows

    def stale_encounter(*args, **kwargs):
        found = original(*args, **kwargs)
        found.round = 0  # pretend we read the state before round 1
        return found

    monkeypatch.setattr(rounds, "encounter_from_rows", stale_encounter)
    monkeypatch.setattr(rounds, "claim_version", lambda *a, **k: 99)
    assert_problem(client.post(f"{url}/rounds", json={}), 409)
    monkeypatch.undo()
    assert client.get(f"{url}/rounds").json()["total"] == 1

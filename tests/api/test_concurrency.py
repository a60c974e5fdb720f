"""Two requests that change an encounter from the same state: exactly one wins, the other gets 409."""

import asyncio
import dataclasses
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar

import pytest

from app.encounters import store
from tests.api.helpers import assert_problem, attack, create_encounter, fighter

_waited: ContextVar[bool] = ContextVar("waited", default=False)  # each request runs in its own task context


@pytest.fixture
def lockstep(monkeypatch):
    """Hold both requests after they have read the encounter, so they truly race for the write.

    Both requests run on the test client's one event loop, so the barrier is asyncio's; a request that
    never arrives makes the other fail after the timeout instead of hanging the test."""
    barrier = asyncio.Barrier(2)

    def after_both_read(claim):
        async def claim_after_both_read(*args, **kwargs):
            if not _waited.get():  # only the first attempt of each request waits
                _waited.set(True)
                async with asyncio.timeout(10):
                    await barrier.wait()
            return await claim(*args, **kwargs)

        return claim_after_both_read

    # a round claims its version in its writes (store/round_writes.py), every other change in bump_version
    for claim in ("bump_version", "write_round"):
        monkeypatch.setattr(store, claim, after_both_read(getattr(store, claim)))


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
    original = store.read_for_round  # how a round reads the encounter, before its transaction

    async def version_guard_skipped(*args, **kwargs):
        # as read before round 1, at the current version: the version's compare-and-set lets it through
        encounter, staged = await original(*args, **kwargs)
        return dataclasses.replace(encounter, round=0), staged

    monkeypatch.setattr(store, "read_for_round", version_guard_skipped)
    assert_problem(client.post(f"{url}/rounds", json={}), 409)
    monkeypatch.undo()
    assert client.get(f"{url}/rounds").json()["total"] == 1


@pytest.mark.parametrize("sent", ["{v}", "{v}, \"999\"", "W/\"{v}\""])
def test_an_unquoted_if_match_is_the_quoted_tag_it_names(client, sent):
    """If-Match: 30 means "30": it matches the current version instead of a 412 saying it changed. A weak
    tag still does not match (If-Match compares strongly)."""
    created = client.post("/v1/encounters", json={"name": "Quoted"}).json()
    url = f"/v1/encounters/{created['id']}"
    version = client.get(url).json()["version"]
    changed = client.patch(url, json={"name": "Renamed"}, headers={"If-Match": sent.format(v=version)})
    if sent.startswith("W/"):
        assert changed.status_code == 412, changed.text
        return
    assert changed.status_code == 200, changed.text
    stale = client.patch(url, json={"name": "Again"}, headers={"If-Match": str(version)})
    assert stale.status_code == 412 and f'"{version + 1}"' in stale.json()["detail"], stale.text
    unchanged = client.get(url, headers={"If-None-Match": str(version + 1)})
    assert unchanged.status_code == 304

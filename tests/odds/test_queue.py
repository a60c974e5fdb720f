"""ODDS_MAX_PENDING over HTTP: a worker with its odds queue full refuses more at once (503 with
Retry-After, nothing played, nothing stored) and takes requests again once its work has ended."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.odds.runner import CHUNK_FIGHTS
from tests.api.helpers import assert_problem, create_encounter, fighter
from tests.conftest import new_campaign_key
from tests.odds.held import DEADLINE, HeldChunks
from tests.odds.test_odds_api import SKIRMISH, odds

CAP = CHUNK_FIGHTS  # one held chunk fills the queue


@pytest.fixture
def held(monkeypatch) -> HeldChunks:
    return HeldChunks().install(monkeypatch)


@pytest.fixture
def capped(settings, held) -> Iterator[TestClient]:
    tuned = settings.model_copy(update={"odds_processes": 0, "odds_max_pending": CAP})
    with TestClient(create_app(tuned), raise_server_exceptions=False) as client:
        client.headers["Authorization"] = f"Bearer {new_campaign_key(client)}"
        yield client


def test_a_full_worker_refuses_at_once_then_takes_requests_again(capped, held):
    encounter = create_encounter(capped, fighter("Ala"), fighter("Bolek"))
    url = f"/v1/encounters/{encounter['id']}"
    before = capped.get(url)
    with ThreadPoolExecutor(3) as background:
        filling = background.submit(odds, capped, fights=CAP, seed=1, combatants=SKIRMISH)
        assert held.started.wait(DEADLINE)
        refusals = [
            background.submit(odds, capped, fights=1, seed=2, combatants=SKIRMISH),
            background.submit(capped.post, f"{url}/odds", json={"fights": 1}),
        ]
        done, waiting = wait(refusals, timeout=DEADLINE)
        if waiting:  # queued behind the held chunk instead of refused: let it go so the test can end
            held.release.set()
            pytest.fail(f"{len(waiting)} request(s) over the cap waited in the queue instead of being refused")
        for response in (refusal.result() for refusal in refusals):
            problem = assert_problem(response, 503, "odds-queue-full")
            assert problem["pending"] == CAP and problem["max_pending"] == CAP
            assert int(response.headers["Retry-After"]) >= 1
        assert held.chunks == [(0, CAP)]  # the refused requests never reached the pool
        held.release.set()
        assert filling.result(DEADLINE).status_code == 200
    after = capped.get(url)
    assert after.json() == before.json() and after.headers["ETag"] == before.headers["ETag"]
    assert capped.post(f"{url}/odds", json={"fights": CAP, "seed": 3}).status_code == 200
    # an idle worker takes a request of any size, even one over the cap on its own
    larger = odds(capped, fights=CAP * 2 + 1, seed=4, combatants=SKIRMISH)
    assert larger.status_code == 200 and larger.json()["fights"] == CAP * 2 + 1


def test_the_problem_type_has_its_page_and_both_odds_operations_document_it(capped):
    page = capped.get("/problems/odds-queue-full").json()
    assert page["status"] == 503 and "ODDS_MAX_PENDING" in page["meaning"]
    paths = capped.get("/openapi.json").json()["paths"]
    for path in ("/v1/odds", "/v1/encounters/{encounter_id}/odds"):
        unavailable = paths[path]["post"]["responses"]["503"]
        assert "odds-queue-full" in unavailable["description"]
        assert "Retry-After" in unavailable["headers"]

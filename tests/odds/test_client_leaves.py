"""Odds stop when their client goes away: the request's work is cancelled in the worker process itself (a
running chunk stops before its next fight), and the worker takes the next request at once."""

from __future__ import annotations

import asyncio
import json
import pickle
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from app.main import create_app
from app.odds.tally import OddsJob
from tests.odds.held import DEADLINE
from tests.odds.test_odds_api import SKIRMISH, body_fighter

# Ten who never fall (armor 50 deflects every blow): every fight lasts its 200 rounds, so a chunk of a
# hundred fights keeps a process busy for a long while unless it is stopped.
UNENDING = {
    "round": 1,
    "combatants": [body_fighter(f"f{i}", "ab"[i % 2], armor=50, vitality=1000) for i in range(10)],
    "fights": 10_000,
    "max_rounds": 200,
    "seed": 3,
}


async def _until(predicate: Callable[[], bool], what: str) -> None:
    deadline = asyncio.get_running_loop().time() + DEADLINE * 4
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, what
        await asyncio.sleep(0.02)


def _scope(body: bytes) -> dict[str, Any]:
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
        "path": "/v1/odds", "raw_path": b"/v1/odds", "query_string": b"", "root_path": "",
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode())],
        "client": ("127.0.0.1", 50000), "server": ("testserver", 80),
    }


def test_a_client_that_goes_away_stops_its_odds_in_the_worker_process(settings):
    settings = settings.model_copy(update={"odds_processes": 1, "odds_budget": 10**9, "odds_max_pending": 10**6})
    app = create_app(settings)
    body = json.dumps(UNENDING).encode()
    with TestClient(app, raise_server_exceptions=False) as client:
        runner = app.state.odds_runner

        async def leave_mid_fight() -> list[dict[str, Any]]:
            gone, sent, answer = asyncio.Event(), [], []

            async def receive() -> dict[str, Any]:
                if not sent:
                    sent.append(True)
                    return {"type": "http.request", "body": body, "more_body": False}
                await gone.wait()
                return {"type": "http.disconnect"}

            async def send(message: dict[str, Any]) -> None:
                answer.append(message)

            request = asyncio.create_task(app(_scope(body), receive, send))
            await _until(lambda: runner.chunks_in_play() >= 1, "no chunk reached the odds process")
            gone.set()  # the client closes its connection
            async with asyncio.timeout(DEADLINE * 4):
                await request
            await _until(lambda: runner.pending == 0, f"the odds process is still busy: {runner.pending} pending")
            return answer

        answer = client.portal.call(leave_mid_fight)
        assert answer[0]["status"] == 499
        # Stopped in the process: the chunks it had taken came back with fights unplayed (run to their end,
        # they would have come back full).
        assert 0 < runner.fights_not_played
        # ...and the worker is free: the next request is taken (not odds-queue-full) and answered.
        small = {"round": 1, "combatants": SKIRMISH, "fights": 50, "seed": 1}
        response = client.post("/v1/odds", json=small, headers={"Authorization": ""})
        assert response.status_code == 200, response.text
        assert response.json()["fights"] == 50


def test_a_job_crosses_to_the_odds_process_with_every_field_its_stop_slot_too():
    """What the pool pickles is the job whole: a job that lost its stop slot on the way could not be stopped."""
    job = OddsJob(combatants=(), sides=(), rules={"delay_die": 8}, first_round=3, seed=11, max_rounds=40,
                  groups={"a": "g"}, stop_slot=7)  # fmt: skip
    assert pickle.loads(pickle.dumps(job)) == job

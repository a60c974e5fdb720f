"""The Redis-backed limits counted per worker and settled in batches (app/platform/batched_limits.py):
with two workers sharing Redis a key is admitted at least its limit and at most limit - 1 + 2 x batch
times in a window, and nobody is refused before the limit is reached. Every test freezes the limiters'
window clock, so no window can end mid-test however slow the machine; the settling itself runs on real
time and may happen at any moment, which the bound must survive."""

from __future__ import annotations

import asyncio
import logging
import random
import time

from fastapi.testclient import TestClient

from app.main import create_app
from app.platform.batched_limits import batch_size
from app.platform.ratelimit import RateLimiter, TooManyRequests
from tests.api.test_limits import RESOLVE_BODY, closed_port
from tests.conftest import REDIS_URL, empty_redis, new_campaign_key

LIMIT = 200  # a batch of 4: a bound of 207 with two workers
WORKERS = 2


def frozen_minute(offset: float = 15.0) -> float:
    return (time.time() // 60) * 60 + offset


def freeze(client: TestClient, at: float) -> None:
    batched = client.app.state.limiter.batched
    assert batched is not None, "these tests need RATE_LIMIT_STORAGE in Redis"
    batched.clock = lambda: at


def test_two_workers_admit_the_limit_and_at_most_the_documented_overshoot(settings):
    settings.rate_limit_per_key_per_minute = LIMIT
    bound = LIMIT - 1 + WORKERS * batch_size(LIMIT)
    picks = random.Random(35)
    with TestClient(create_app(settings)) as first, TestClient(create_app(settings)) as second:
        at = frozen_minute()
        freeze(first, at)
        freeze(second, at)
        key = new_campaign_key(first)
        for client in (first, second):
            client.headers["Authorization"] = f"Bearer {key}"
        admitted, refused_by = 0, set()
        for _ in range(bound + 200):  # enough for both to learn of the limit, whenever they settle
            client = picks.choice((first, second))
            for _ in range(picks.randint(1, 7)):  # uneven bursts on one side, then maybe the other
                status = client.get("/v1/campaign").status_code
                if status == 200:
                    admitted += 1
                    assert client not in refused_by, "admitted again after refusing: the window is over?"
                else:
                    assert status == 429, status
                    assert admitted >= LIMIT, f"refused after only {admitted} of {LIMIT}"
                    refused_by.add(client)
            if len(refused_by) == WORKERS:
                break
        assert refused_by == {first, second}, "each worker refuses once the shared count is past the limit"
        assert LIMIT <= admitted <= bound, f"{admitted} admitted, limit {LIMIT}, documented bound {bound}"
        retry_after = first.get("/v1/campaign").headers["Retry-After"]
        assert retry_after == "45", "the seconds until the window (the frozen minute's) ends"


def test_concurrent_hits_on_two_limiters_stay_within_the_bound():
    empty_redis()
    bound = LIMIT - 1 + WORKERS * batch_size(LIMIT)

    async def run() -> tuple[int, int]:
        workers = [RateLimiter(REDIS_URL) for _ in range(WORKERS)]
        at = frozen_minute()
        for limiter in workers:
            assert limiter.batched is not None
            limiter.batched.clock = lambda: at

        async def one(limiter: RateLimiter) -> bool:
            try:
                await limiter.hit(bucket="key:concurrent", limit=LIMIT, window_seconds=60)
            except TooManyRequests:
                return False
            return True

        admitted = refused = 0
        try:
            for wave in range(40):  # waves of 16 hits in flight at once, half on each worker
                results = await asyncio.gather(*(one(workers[i % WORKERS]) for i in range(16)))
                admitted += sum(results)
                refused += len(results) - sum(results)
                if wave % 5 == 4:
                    await asyncio.sleep(0.01)  # let the background settling run now and then
        finally:
            for limiter in workers:
                await limiter.close()
        return admitted, refused

    admitted, refused = asyncio.run(run())
    assert LIMIT <= admitted <= bound, f"{admitted} admitted, limit {LIMIT}, documented bound {bound}"
    assert admitted + refused == 40 * 16


def test_the_exact_bucket_never_passes_its_limit_across_workers():
    empty_redis()

    async def run() -> list[bool]:
        workers = [RateLimiter(REDIS_URL) for _ in range(WORKERS)]
        outcomes = []
        try:
            for i in range(130):
                try:
                    await workers[i % WORKERS].hit(bucket="ip:exact", limit=100, window_seconds=3600, exact=True)
                    outcomes.append(True)
                except TooManyRequests:
                    outcomes.append(False)
        finally:
            for limiter in workers:
                await limiter.close()
        return outcomes

    outcomes = asyncio.run(run())
    assert outcomes == [True] * 100 + [False] * 30


def test_redis_down_lets_batched_requests_through_with_one_warning(settings, caplog):
    settings.rate_limit_storage = f"redis://127.0.0.1:{closed_port()}/1"
    settings.rate_limit_per_key_per_minute = LIMIT
    with TestClient(create_app(settings), raise_server_exceptions=False) as client, caplog.at_level(logging.WARNING):
        freeze(client, frozen_minute())
        key = new_campaign_key(client)  # the exact bucket (campaign creation) fails open too
        client.headers["Authorization"] = f"Bearer {key}"
        statuses = {client.get("/v1/campaign").status_code for _ in range(3 * batch_size(LIMIT))}
        assert statuses == {200}, "settling failed, the hits are let through"
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and "did not answer" in r.getMessage()]
    assert len(warnings) == 1, "one warning per outage, not one per request or per settle"


def test_a_client_with_an_event_loop_per_request_is_counted_too(settings):
    """A TestClient outside `with` runs each request in a new event loop: the counters follow the loop.
    Anonymous /v1/resolve (the per-address limit) touches no database, whose pool keeps to one loop."""
    settings.rate_limit_anonymous_per_minute = LIMIT
    client = TestClient(create_app(settings), raise_server_exceptions=False)
    freeze(client, frozen_minute())
    statuses = [client.post("/v1/resolve", json=RESOLVE_BODY).status_code
                for _ in range(LIMIT + WORKERS * batch_size(LIMIT) + 10)]
    assert set(statuses) == {200, 429}
    admitted = statuses.index(429)
    assert LIMIT <= admitted <= LIMIT - 1 + batch_size(LIMIT), admitted
    assert statuses[admitted:] == [429] * (len(statuses) - admitted), "refused from then on"

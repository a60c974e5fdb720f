"""Fixed-window rate limits through the `limits` library.

Storage (Settings.rate_limit_storage):
- `memory://` (the default): counters in this worker's memory. Each worker counts on its own, so
  with N workers a caller can make up to N times the limit; nothing touches the network.
- `redis://host:port/db`: counters in Redis, shared by every worker and every replica. The per-key and
  anonymous limits are counted locally and settled with Redis in batches (app/platform/batched_limits.py:
  no round trip per request; a bucket may overshoot by at most workers x its batch, documented there and
  in docs/operations.md). Limits too small to batch, and the buckets asked for `exact=True` (campaign
  creation), take one Redis command per hit.

If Redis stops answering, requests go through (fail open) and a warning is logged once per outage:
a limit is a guard against abuse, not a reason to refuse paying callers while Redis restarts.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from functools import lru_cache

from limits import RateLimitItem, RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import FixedWindowRateLimiter
from redis.asyncio import Redis

from app.platform.batched_limits import BatchedCounts, Refused, batch_size
from app.platform.errors import ServiceError

log = logging.getLogger(__name__)
REDIS_TIMEOUT_SECONDS = 0.25  # a Redis that does not answer within this is treated as down
# A settle that times out drops its hits (fail open), which loosens the bound: settles are rare (every 100 ms
# or `batch` hits), so they may wait longer for a busy Redis than a per-request command could.
SETTLE_TIMEOUT_SECONDS = 1.0


class TooManyRequests(ServiceError):
    status, type, title = 429, "too-many-requests", "Too many requests"

    def __init__(self, detail: str, retry_after: int):
        super().__init__(detail)
        self.headers = {"Retry-After": str(retry_after)}


def make_storage(uri: str) -> Storage:
    if uri.startswith(("redis://", "rediss://", "redis+unix://")):
        return RedisStorage(
            f"async+{uri}",
            implementation="redispy",
            wrap_exceptions=True,
            socket_timeout=REDIS_TIMEOUT_SECONDS,
            socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
        )
    if uri == "memory://":
        return MemoryStorage()
    raise ValueError(f"RATE_LIMIT_STORAGE is memory:// or redis://host:port/db, not {uri!r}")


@lru_cache(maxsize=32)
def _item(limit: int, window_seconds: int) -> RateLimitItem:
    return RateLimitItemPerSecond(limit, window_seconds)


def make_batched_counts(
    uri: str, on_failure: Callable[[Exception], None], on_success: Callable[[], None]
) -> BatchedCounts:
    def connect() -> Redis:
        return Redis.from_url(
            uri.replace("redis+unix://", "unix://", 1),
            socket_timeout=SETTLE_TIMEOUT_SECONDS,
            socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
        )

    return BatchedCounts(connect, on_failure=on_failure, on_success=on_success)


class RateLimiter:
    def __init__(self, storage_uri: str):
        self.storage_uri = storage_uri
        storage = make_storage(storage_uri)
        self._strategy = FixedWindowRateLimiter(storage)
        self._failing = False  # Redis failed last time: the warning has been logged for this outage
        self.batched = (
            make_batched_counts(storage_uri, self._failed, self._answered)
            if isinstance(storage, RedisStorage)
            else None
        )

    async def close(self) -> None:
        if self.batched is not None:
            await self.batched.close()

    async def hit(self, *, bucket: str, limit: int, window_seconds: int, exact: bool = False) -> None:
        """Count one request of the bucket; past the limit, 429 with the seconds until the window ends.
        `exact`: never past the limit, even across workers (one Redis command per hit when in Redis)."""
        if self.batched is not None and not exact:
            batch = batch_size(limit)
            if batch >= 2:
                try:
                    await self.batched.hit(bucket, limit, window_seconds, batch)
                except Refused as refused:
                    raise TooManyRequests(
                        f"At most {limit} requests per {window_seconds} s; retry in {refused.retry_after} s.",
                        refused.retry_after,
                    ) from None
                return
        item = _item(limit, window_seconds)
        try:
            allowed = await self._strategy.hit(item, bucket)
            if not allowed:
                stats = await self._strategy.get_window_stats(item, bucket)
        except Exception as error:  # noqa: BLE001 (any storage failure: fail open)
            self._failed(error)
            return
        self._answered()
        if not allowed:
            retry_after = max(1, math.ceil(stats.reset_time - time.time()))
            raise TooManyRequests(
                f"At most {limit} requests per {window_seconds} s; retry in {retry_after} s.", retry_after
            )

    def _failed(self, error: Exception) -> None:
        if not self._failing:
            self._failing = True
            log.warning("rate-limit storage %s did not answer; letting requests through: %s", self._where(), error)

    def _answered(self) -> None:
        if self._failing:
            self._failing = False
            log.warning("rate-limit storage %s answers again; limits apply", self._where())

    def _where(self) -> str:
        return self.storage_uri.split("@")[-1]  # never log a password

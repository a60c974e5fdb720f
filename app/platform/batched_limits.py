"""Rate-limit counters shared through Redis without a Redis round trip per request.

Each worker counts a bucket's hits locally and settles them with Redis in batches: one pipelined
`INCRBY` per bucket, every SETTLE_SECONDS for every bucket with unsettled hits (a background task),
and at once, inside the request, when a bucket's unsettled hits reach its batch size. `INCRBY` returns
the total every worker has settled, which becomes this worker's view of the bucket.

Windows are fixed and aligned to the epoch (`bucket:window-number` in Redis), so every worker agrees on
them without asking. A hit is refused when (the last settled total seen + this worker's unsettled hits)
has reached the limit. Both terms count only real hits, so nobody is refused before the limit is truly
reached. The overshoot is bounded: once Redis holds at least the limit, each worker admits fewer than
`batch` further hits (its next settle sees the total and it refuses from then on), and the settle that
crossed the limit carried at most `batch`. So per bucket and window, with W workers (all replicas):

    admitted <= limit - 1 + W * batch,   batch = min(MAX_BATCH, limit // BATCH_DIVISOR)

e.g. 1,200 a minute gives a batch of 24: at most 1,247 with two workers. A limit under
2 * BATCH_DIVISOR has a batch under 2 and is counted exactly by the caller (the `limits` library).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from redis.asyncio import Redis

log = logging.getLogger(__name__)
SETTLE_SECONDS = 0.1  # how stale a worker's view of a quiet bucket may get
MAX_BATCH = 100  # at most this many unsettled hits per bucket and worker
CLOSE_SECONDS = 1.0  # at shutdown, the longest wait for the settling task and the Redis connections
BATCH_DIVISOR = 50  # a bucket's batch is at most a fiftieth of its limit (2% overshoot per worker)


def batch_size(limit: int) -> int:
    """Unsettled hits a worker may hold for a bucket of this limit (under 2: count exactly instead)."""
    return min(MAX_BATCH, limit // BATCH_DIVISOR)


class _Count:
    """One bucket's current window on this worker."""

    __slots__ = ("window", "settled", "unsettled", "in_flight", "settling")

    def __init__(self, window: int):
        self.window = window
        self.settled = 0  # every worker's settled hits, as Redis last told this worker
        self.unsettled = 0  # this worker's hits not yet sent
        self.in_flight = 0  # this worker's hits being sent right now
        self.settling: asyncio.Future[None] | None = None


class Refused(Exception):
    def __init__(self, retry_after: int):
        super().__init__(retry_after)
        self.retry_after = retry_after


class BatchedCounts:
    """The per-worker counters of the Redis-backed limits. `on_failure` / `on_success` tell the owner
    whether Redis answered (it logs once per outage); a failed settle drops its hits (fail open)."""

    def __init__(
        self,
        connect: Callable[[], Redis],
        *,
        on_failure: Callable[[Exception], None],
        on_success: Callable[[], None],
        clock: Callable[[], float] = time.time,
    ):
        self._connect = connect  # a client per event loop: its connections belong to the loop that made them
        self._redis: Redis | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._on_failure = on_failure
        self._on_success = on_success
        self.clock = clock  # the window's clock (a test freezes it so that no window ends mid-test)
        self._counts: dict[str, _Count] = {}
        self._settler: asyncio.Task[None] | None = None

    async def hit(self, bucket: str, limit: int, window_seconds: int, batch: int) -> None:
        """Count one hit; `Refused` (with the seconds until the window ends) once the limit is reached."""
        if self._loop is not asyncio.get_running_loop():
            self._start()
        now = self.clock()
        window = int(now // window_seconds)
        key = f"{bucket}:{window_seconds}:{window}"
        count = self._counts.get(key)
        if count is None:
            count = self._counts[key] = _Count(window)
        while True:
            if count.settled + count.in_flight + count.unsettled >= limit:
                raise Refused(max(1, int((window + 1) * window_seconds - now + 0.999)))
            if count.unsettled + count.in_flight < batch:
                break
            await self._settle_one(key, count, window_seconds)  # the batch is full: settle before admitting
        count.unsettled += 1

    def _start(self) -> None:
        """On the first hit in this event loop (a server has one; a test client may run one per request)."""
        if self._settler is not None:
            with contextlib.suppress(RuntimeError):  # the old loop's: closed, or replaced by this one
                self._settler.cancel()
        for count in self._counts.values():  # a settle of the old loop will never answer
            count.in_flight, count.settling = 0, None
        self._loop = asyncio.get_running_loop()
        self._redis = self._connect()
        self._settler = self._loop.create_task(self._settle_forever())

    async def close(self) -> None:
        settler, redis = self._settler, self._redis
        self._settler = self._redis = self._loop = None
        if settler is not None and settler.get_loop() is asyncio.get_running_loop():
            settler.cancel()
            await asyncio.wait({settler}, timeout=CLOSE_SECONDS)  # shutting down waits for no stuck socket
            if redis is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(redis.aclose(), CLOSE_SECONDS)

    async def _settle_one(self, key: str, count: _Count, window_seconds: int) -> None:
        if count.settling is not None:  # another request is settling this bucket: wait for its answer
            await asyncio.shield(count.settling)
            return
        await self._settle({key: count}, {key: window_seconds})

    async def _settle_forever(self) -> None:
        while True:
            await asyncio.sleep(SETTLE_SECONDS)
            now_windows: dict[str, int] = {}
            due: dict[str, _Count] = {}
            for key, count in list(self._counts.items()):
                window_seconds = int(key.rsplit(":", 2)[1])
                if count.window < int(self.clock() // window_seconds):
                    if count.settling is None:
                        del self._counts[key]  # an ended window: nothing left to count there
                    continue
                if count.unsettled and count.settling is None:
                    due[key], now_windows[key] = count, window_seconds
            if due:
                await self._settle(due, now_windows)

    async def _settle(self, counts: dict[str, _Count], window_seconds: dict[str, int]) -> None:
        """Send the buckets' unsettled hits in one pipeline; each learns every worker's total."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        amounts = {}
        for key, count in counts.items():
            amounts[key] = count.unsettled
            count.in_flight, count.unsettled, count.settling = count.unsettled, 0, done
        replies = None
        try:
            if self._redis is None:
                raise ConnectionError("the limiter is closed")
            pipeline = self._redis.pipeline(transaction=False)
            for key, amount in amounts.items():
                pipeline.incrby(f"batched-limit:{key}", amount)
                pipeline.expire(f"batched-limit:{key}", window_seconds[key] + 60)
            replies = await pipeline.execute()
        except Exception as error:  # noqa: BLE001 (any storage failure: these hits are let through uncounted)
            self._on_failure(error)
        else:
            self._on_success()
        finally:  # cancelled too: nobody may wait for this settle forever
            for index, count in enumerate(counts.values()):
                if replies is not None:
                    count.settled = max(count.settled, int(replies[2 * index]))
                count.in_flight, count.settling = 0, None
            done.set_result(None)

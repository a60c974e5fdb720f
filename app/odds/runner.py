"""Odds off the event loop: fights run in a small pool of worker processes.

Processes, not threads: the simulation is pure Python, so a thread would hold the GIL and the
event loop (every other endpoint of this worker) would wait on it. The pool's size bounds how many
cores odds may take at once; requests beyond it queue. A request's fights are split into chunks so
that concurrent requests interleave and one large request may use every process of the pool.

The queue is bounded in fights (ODDS_MAX_PENDING): a request that would take this worker past it is
refused at once with a 503, before any chunk is handed to the pool. The bound is this process's own:
it protects this worker's event loop and the connections it holds; every worker and replica has its
own. Fights are counted out when their chunk ends in the pool, not when the request stops waiting for
it. A request that stops waiting (its client went away: app/odds/router.py) raises its stop flag, one
slot of an array in shared memory every worker was handed when it started: its chunks still waiting are
withdrawn, and a chunk already running stops before its next fight, so the process is free at once.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from typing import Any, TypeVar

from app.platform.errors import ServiceError

from .tally import OddsJob, Tally, play_chunk, watch_stops

CHUNK_FIGHTS = 100
T = TypeVar("T")
# A rough pace, only to suggest a Retry-After: fights of four against four one process plays per
# second (bench/README.md, "Odds": about 1 s of CPU per 1,000 interpreted, 0.6 s compiled).
FIGHTS_PER_SECOND = 1000
MAX_RETRY_AFTER = 60
STOP_SLOTS = 1024  # requests in play at once per worker that can be stopped; beyond, they run to the end


class OddsUnavailable(ServiceError):
    status, type, title = 503, "odds-unavailable", "The odds workers are restarting; retry shortly"
    headers = {"Retry-After": "1"}


class OddsQueueFull(ServiceError):
    status, type, title = 503, "odds-queue-full", "This worker has as many odds waiting as it takes"

    def __init__(self, detail: str, *, retry_after: int, **extra: Any):
        super().__init__(detail, **extra)
        self.headers = {"Retry-After": str(retry_after)}


def default_processes() -> int:
    """Leave one core to the event loop where there is more than one."""
    return max(1, (os.cpu_count() or 1) - 1)


class OddsRunner:
    """processes None: default_processes(); 0: one thread of this process instead (it holds the GIL
    while it plays, so every other request here waits: for comparison, or where processes are not
    allowed). max_pending: the fights that may be in the pool at once, playing or waiting; a request
    is always taken when nothing is pending, whatever its size."""

    def __init__(self, processes: int | None, *, max_pending: int):
        self.processes = default_processes() if processes is None else processes
        self.max_pending = max_pending
        self._pool: Executor | None = None
        # Taken on the event loop, given back by the pool's threads as chunks end.
        self._pending = 0
        self._pending_lock = threading.Lock()
        # One flag per request in play; 0: play on, 1: stop. Written here, read by the workers.
        self._stops = multiprocessing.get_context("spawn").Array("b", STOP_SLOTS, lock=False)
        self._free_slots = list(range(STOP_SLOTS))
        self._in_pool: set[Future[Tally]] = set()
        self.fights_not_played = 0  # fights of stopped requests that chunks, already handed over, skipped

    def chunks_in_play(self) -> int:
        """Chunks a worker has taken (running, or queued in the process's own call queue)."""
        return sum(1 for future in list(self._in_pool) if future.running())

    @property
    def pending(self) -> int:
        """Fights handed to the pool (or about to be) and not yet ended."""
        return self._pending

    def _reserve(self, fights: int) -> None:
        with self._pending_lock:
            pending = self._pending
            if pending and pending + fights > self.max_pending:
                raise OddsQueueFull(
                    f"This worker has {pending:,} fights in play or waiting and takes at most {self.max_pending:,}; "
                    f"{fights:,} more would pass that. Nothing was played: retry after Retry-After seconds, "
                    "or ask for fewer fights.",
                    pending=pending,
                    max_pending=self.max_pending,
                    retry_after=self.retry_after(pending),
                )
            self._pending = pending + fights

    def _release(self, fights: int) -> None:
        with self._pending_lock:
            self._pending -= fights

    def retry_after(self, pending: int) -> int:
        """Seconds the pending fights may take to drain, at the rough pace, from 1 to MAX_RETRY_AFTER."""
        seconds = math.ceil(pending / (FIGHTS_PER_SECOND * max(1, self.processes)))
        return min(MAX_RETRY_AFTER, max(1, seconds))

    def _executor(self) -> Executor:
        if self._pool is None:
            if self.processes == 0:
                self._pool = ThreadPoolExecutor(
                    1, thread_name_prefix="odds", initializer=watch_stops, initargs=(self._stops,)
                )
            else:
                # spawn: a forked copy of a process with an event loop, threads and open connections
                # is unsafe; the workers only need the resolver and the simulation.
                context = multiprocessing.get_context("spawn")
                self._pool = ProcessPoolExecutor(
                    self.processes, mp_context=context, initializer=watch_stops, initargs=(self._stops,)
                )
        return self._pool

    def _submit(self, pool: Executor, job: OddsJob, first: int, count: int) -> Future[Tally]:
        # play_chunk looked up here, at call time: tests hold a thread runner's chunks by patching it
        future = pool.submit(play_chunk, job, first, count)
        self._in_pool.add(future)
        # Added before asyncio's own callback: the fights are given back before the request can answer.
        future.add_done_callback(lambda done: self._chunk_ended(done, count))
        return future

    def _chunk_ended(self, future: Future[Tally], count: int) -> None:
        self._in_pool.discard(future)
        if not future.cancelled() and future.exception() is None:
            skipped = count - future.result().fights
            if skipped:
                with self._pending_lock:
                    self.fights_not_played += skipped
        self._release(count)

    def _take_slot(self) -> int:
        with self._pending_lock:
            return self._free_slots.pop() if self._free_slots else -1

    def _free_slot_when_done(self, slot: int, futures: list[Future[Tally]]) -> None:
        """The slot is reused only once every chunk that could read it has ended."""
        if slot < 0:
            return
        left = len(futures)

        def one_ended(_: Future[Tally] | None = None) -> None:
            nonlocal left
            with self._pending_lock:
                left -= 1
                if left <= 0:
                    self._stops[slot] = 0
                    self._free_slots.append(slot)

        if not futures:
            one_ended()
        for future in futures:
            future.add_done_callback(one_ended)

    async def play(self, job: OddsJob, fights: int) -> Tally:
        """Refused with OddsQueueFull, before anything reaches the pool, when this worker is full."""
        pool = self._executor()
        self._reserve(fights)
        unsubmitted = fights  # reserved but not handed to the pool: given back here, not by a chunk
        slot = self._take_slot()
        job = replace(job, stop_slot=slot)
        submitted: list[Future[Tally]] = []
        try:
            chunks = [(first, min(CHUNK_FIGHTS, fights - first)) for first in range(0, fights, CHUNK_FIGHTS)]
            futures = []
            for first, count in chunks:
                submitted.append(self._submit(pool, job, first, count))
                futures.append(asyncio.wrap_future(submitted[-1]))
                unsubmitted -= count
            tallies = await asyncio.gather(*futures)
        except asyncio.CancelledError:
            if slot >= 0:
                self._stops[slot] = 1  # the chunks a worker already took stop before their next fight
            raise
        except BrokenProcessPool as error:
            # a worker died (killed, out of memory): the next request gets a fresh pool
            self._pool = None
            pool.shutdown(wait=False, cancel_futures=True)
            raise OddsUnavailable("An odds worker stopped; nothing was lost, send the request again.") from error
        finally:
            self._release(unsubmitted)
            self._free_slot_when_done(slot, submitted)
        total = Tally()
        for tally in tallies:
            total.merge(tally)
        return total

    async def call(self, function: Callable[..., T], *args: Any, fights: int) -> T:
        """`function(*args)` as one task of the pool, counted as `fights` in its queue (a timeline's point:
        its fights played side by side in one process). Refused as `play` refuses."""
        pool = self._executor()
        self._reserve(fights)
        try:
            future = pool.submit(function, *args)
        except BaseException:
            self._release(fights)
            raise
        future.add_done_callback(lambda _: self._release(fights))
        try:
            return await asyncio.wrap_future(future)
        except BrokenProcessPool as error:
            self._pool = None
            pool.shutdown(wait=False, cancel_futures=True)
            raise OddsUnavailable("An odds worker stopped; nothing was lost, send the request again.") from error

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

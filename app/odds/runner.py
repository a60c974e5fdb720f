"""Odds off the event loop: fights run in a small pool of worker processes.

Processes, not threads: the simulation is pure Python, so a thread would hold the GIL and the
event loop (every other endpoint of this worker) would wait on it. The pool's size bounds how many
cores odds may take at once; requests beyond it queue. A request's fights are split into chunks so
that concurrent requests interleave and one large request may use every process of the pool.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from app.problems import ServiceError

from .tally import OddsJob, Tally, play_chunk

CHUNK_FIGHTS = 100


class OddsUnavailable(ServiceError):
    status, type, title = 503, "odds-unavailable", "The odds workers are restarting; retry shortly"
    headers = {"Retry-After": "1"}


def default_processes() -> int:
    """Leave one core to the event loop where there is more than one."""
    return max(1, (os.cpu_count() or 1) - 1)


class OddsRunner:
    """processes None: default_processes(); 0: one thread of this process instead (it holds the GIL
    while it plays, so every other request here waits: for comparison, or where processes are not
    allowed)."""

    def __init__(self, processes: int | None = None):
        self.processes = default_processes() if processes is None else processes
        self._pool: Executor | None = None

    def _executor(self) -> Executor:
        if self._pool is None:
            if self.processes == 0:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="odds")
            else:
                # spawn: a forked copy of a process with an event loop, threads and open connections
                # is unsafe; the workers only need the resolver and the simulation.
                context = multiprocessing.get_context("spawn")
                self._pool = ProcessPoolExecutor(self.processes, mp_context=context)
        return self._pool

    async def play(self, job: OddsJob, fights: int) -> Tally:
        loop = asyncio.get_running_loop()
        pool = self._executor()
        chunks = [(first, min(CHUNK_FIGHTS, fights - first)) for first in range(0, fights, CHUNK_FIGHTS)]
        try:
            tallies = await asyncio.gather(
                *(loop.run_in_executor(pool, play_chunk, job, first, count) for first, count in chunks)
            )
        except BrokenProcessPool as error:
            # a worker died (killed, out of memory): the next request gets a fresh pool
            self._pool = None
            pool.shutdown(wait=False, cancel_futures=True)
            raise OddsUnavailable("An odds worker stopped; nothing was lost, send the request again.") from error
        total = Tally()
        for tally in tallies:
            total.merge(tally)
        return total

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

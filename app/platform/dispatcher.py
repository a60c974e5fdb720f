"""Background work of one worker: jobs that claim due work from the database and say when to wake next.

One `Dispatcher` per worker (started and stopped in the app's lifespan) runs every registered job, one task
each. A job is an async function of the dispatcher's own `Database` (its own engine and a small pool, so
background work never takes a request's connection) that claims what is due, does it, and returns when it
wants to run again: seconds, an aware datetime, or None (only when woken, or after `idle_seconds` as a
safety net). All state lives in the database; the dispatcher keeps none, so several workers and replicas
can run the same jobs: each job claims its rows itself (PostgreSQL: `FOR UPDATE SKIP LOCKED`).

Waking: `wake_at_commit(session, job)` inside the transaction that made work. PostgreSQL: a NOTIFY on the
job's channel, delivered at commit to every worker's listening connection (and never for a rollback).
SQLite (one process): the session keeps the wake until its commit, then the process's dispatchers run the
job. A wake while the job runs makes it run once more after; many wakes meanwhile make one run.

SQLite has one writer at a time: a job's write transaction (`Dispatcher.write`) takes the write lock when it
begins (BEGIN IMMEDIATE, waiting up to the busy timeout), so it never fails midway on a stale snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import event, func, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.orm import Session

from app.config import Settings
from app.platform.db import IMMEDIATE, Database, utcnow
from app.platform.listening import Listener, listen_conninfo

log = logging.getLogger(__name__)
JOBS_CHANNEL = "combat_jobs"  # the default wake channel; the payload names the job
PENDING_WAKES = "dispatcher_wakes"  # SQLite: the session's wakes until its transaction ends
FAILURE_DELAYS = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0)  # a job that raised runs again after these, then 30 s

NextWake = float | datetime | None
JobRun = Callable[[Database], Awaitable[NextWake]]


@dataclass
class Job:
    name: str
    run: JobRun
    wake_channel: str
    idle_seconds: float
    stop: Callable[[], Awaitable[None]] | None = None
    woken: asyncio.Event = field(default_factory=asyncio.Event)
    runs: int = 0  # completed runs, for tests and operators


def _seconds_until(next_wake: NextWake, idle_seconds: float) -> float:
    if next_wake is None:
        return idle_seconds
    if isinstance(next_wake, datetime):
        return max(0.0, (next_wake - utcnow()).total_seconds())
    return max(0.0, float(next_wake))


def _wake_statement(channel: str, job: str) -> Any:
    return select(func.pg_notify(channel, job))


_CHANNELS: dict[str, str] = {}  # job name -> its wake channel, for wake_at_commit (process-wide)
_RUNNING: weakref.WeakSet[Dispatcher] = weakref.WeakSet()  # SQLite: whom a commit's wakes go to


async def wake_at_commit(session: AsyncSession, job: str) -> None:
    """Inside a transaction: run `job` on every worker once it commits (never if it rolls back)."""
    if session.get_bind().dialect.name == "postgresql":
        await session.execute(_wake_statement(_CHANNELS.get(job, JOBS_CHANNEL), job))
    else:
        session.sync_session.info.setdefault(PENDING_WAKES, set()).add(job)


def _committed(session: Session) -> None:
    for job in session.info.pop(PENDING_WAKES, ()):
        for dispatcher in list(_RUNNING):
            dispatcher.wake(job)


def _rolled_back(session: Session, *_: Any) -> None:
    session.info.pop(PENDING_WAKES, None)


event.listen(Session, "after_commit", _committed)
event.listen(Session, "after_soft_rollback", _rolled_back)


class Dispatcher:
    """This worker's background jobs. Register them before `start`."""

    def __init__(self, settings: Settings, *, pool_size: int = 3):
        self.settings = settings
        self.pool_size = pool_size
        self.database: Database | None = None  # made at start: a dispatcher with no jobs costs nothing
        self.jobs: dict[str, Job] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._conninfo = listen_conninfo(settings)
        self._listener: Listener | None = None  # made at start, for the channels of the jobs registered
        self.listening = asyncio.Event()  # set once woken by the database (at once on SQLite)

    def register_job(
        self,
        name: str,
        run: JobRun,
        *,
        wake_channel: str = JOBS_CHANNEL,
        idle_seconds: float = 30.0,
        stop: Callable[[], Awaitable[None]] | None = None,
    ) -> Job:
        """A job to run on this worker: at start, when woken (`wake`, `wake_at_commit`, a NOTIFY on
        `wake_channel`), when the time it returned comes, and at least every `idle_seconds`. `stop`, if
        given, is awaited when the dispatcher stops (after the job's task ended): to end what it started."""
        if name in self.jobs:
            raise ValueError(f"job {name!r} is already registered")
        if self._tasks:
            raise RuntimeError("register jobs before the dispatcher starts")
        job = self.jobs[name] = Job(name, run, wake_channel, idle_seconds, stop)
        _CHANNELS[name] = wake_channel
        return job

    def wake(self, name: str) -> None:
        """Run the job soon on this worker (a no-op for a job it does not run)."""
        job = self.jobs.get(name)
        if job is not None:
            job.woken.set()

    def wake_all(self) -> None:
        for job in self.jobs.values():
            job.woken.set()

    # -- lifecycle

    async def start(self) -> None:
        if not self.jobs:
            return
        pool = {"db_pool_size": self.pool_size, "db_max_overflow": 0}
        self.database = Database(self.settings.model_copy(update=pool))
        for job in self.jobs.values():
            job.woken.set()  # everything due is looked at once on start (a restart resumes the work)
            self._tasks.append(asyncio.create_task(self._run_forever(job), name=f"job-{job.name}"))
        if self._conninfo is None:
            _RUNNING.add(self)
            self.listening.set()
        else:
            self._listener = Listener(
                self._conninfo,
                sorted({job.wake_channel for job in self.jobs.values()}),
                name="combat-jobs",
                check_every=self.settings.events_listener_check_seconds,
                on_notice=self._heard,
                on_listening=self.wake_all,  # what was announced while nobody listened is looked at now
            )
            self.listening = self._listener.listening
            self._tasks.append(asyncio.create_task(self._listener.run_forever(), name="jobs-listen"))

    async def stop(self) -> None:
        _RUNNING.discard(self)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        for job in self.jobs.values():
            if job.stop is not None:
                await job.stop()
        if self.database is not None:
            await self.database.dispose()
            self.database = None

    # -- transactions for jobs

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """A job's write transaction on its own pool (SQLite: holding the write lock from its start)."""
        assert self.database is not None, "the dispatcher is not started"
        async with self.database.engine.connect() as connection:
            if self.settings.is_sqlite:
                await connection.execution_options(**{IMMEDIATE: True})
            async with connection.begin():
                yield connection

    # -- running

    async def _run_forever(self, job: Job) -> None:
        failures, delay = 0, 0.0
        while True:
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(job.woken.wait(), delay)
            job.woken.clear()  # a wake while it runs makes it run once more
            assert self.database is not None
            try:
                delay = _seconds_until(await job.run(self.database), job.idle_seconds)
                failures = 0
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 (a failing job must not stop the others, nor itself for good)
                log.warning("job %s failed; trying again", job.name, exc_info=True)
                delay = FAILURE_DELAYS[min(failures, len(FAILURE_DELAYS) - 1)]
                failures += 1
            job.runs += 1
            if job.woken.is_set():
                delay = 0.0

    def _heard(self, channel: str, payload: str) -> None:
        for job in self.jobs.values():
            if job.wake_channel == channel and (channel != JOBS_CHANNEL or payload in ("", job.name)):
                job.woken.set()

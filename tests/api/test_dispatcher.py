"""The worker's background dispatcher: jobs run at start, when a committed transaction wakes them (never a
rolled-back one), when the time they asked for comes, again after a failure; on PostgreSQL one commit wakes
the job on every worker, and SKIP LOCKED shares the work out."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import event, text

from app.config import Settings
from app.platform.db import Database
from app.platform.dispatcher import Dispatcher, wake_at_commit

NEXT_WORK = text("SELECT id FROM dispatcher_work WHERE NOT done ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED")
DEADLINE = 30.0  # generous: a loaded machine is slow, never wrong


def run(coroutine: Awaitable[Any]) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, 120))


async def until(condition: Callable[[], Any], what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


class Counting:
    """A job that counts its runs and returns what it is told to."""

    def __init__(self, *answers: Any, fail_first: bool = False):
        self.runs = 0
        self.answers = list(answers)
        self.fail_first = fail_first

    async def __call__(self, database: Database) -> Any:
        self.runs += 1
        if self.fail_first and self.runs == 1:
            raise RuntimeError("the first run fails")
        return self.answers.pop(0) if self.answers else None


def settled(dispatcher: Dispatcher) -> bool:
    """Every job ran and none is woken (the jobs here do not await: a run is one step of the loop)."""
    return all(job.runs >= 1 and not job.woken.is_set() for job in dispatcher.jobs.values())


async def started(settings: Settings, **jobs: Counting) -> Dispatcher:
    dispatcher = Dispatcher(settings)
    for name, job in jobs.items():
        dispatcher.register_job(name, job, idle_seconds=3600)
    await dispatcher.start()
    await asyncio.wait_for(dispatcher.listening.wait(), DEADLINE)
    return dispatcher


async def commit_wake(database: Database, job: str, *, commit: bool = True) -> None:
    async with database.sessions() as session:
        transaction = await session.begin()
        await wake_at_commit(session, job)
        await (transaction.commit() if commit else transaction.rollback())


def test_a_job_runs_at_start_and_when_a_commit_wakes_it_never_for_a_rollback(settings):
    async def scenario() -> None:
        first, second = Counting(), Counting()
        dispatcher = await started(settings, first=first, second=second)
        database = Database(settings)
        try:
            await until(lambda: settled(dispatcher), "the runs at start")
            before = first.runs, second.runs
            await commit_wake(database, "first", commit=False)
            await commit_wake(database, "second")
            await until(lambda: second.runs == before[1] + 1, "the committed wake")
            await asyncio.sleep(0)  # a wake of `first` (wrongly sent) arrived before `second`'s
            assert first.runs == before[0] and not dispatcher.jobs["first"].woken.is_set()
            await commit_wake(database, "first")
            await until(lambda: first.runs == before[0] + 1, "the wake of the first job")
        finally:
            await dispatcher.stop()
            await database.dispose()

    run(scenario())


def test_a_job_runs_again_when_it_asked_to_and_after_a_failure(settings):
    async def scenario() -> None:
        timed, failing = Counting(0.05, 0.05), Counting(fail_first=True)
        dispatcher = await started(settings, timed=timed, failing=failing)
        try:
            await until(lambda: timed.runs == 3, "the runs the job asked for")
            await until(lambda: failing.runs == 2, "the run after the failure")
        finally:
            await dispatcher.stop()

    run(scenario())


def test_jobs_are_registered_once_and_before_the_start(settings):
    async def scenario() -> None:
        dispatcher = Dispatcher(settings)
        dispatcher.register_job("once", Counting())
        with pytest.raises(ValueError, match="already registered"):
            dispatcher.register_job("once", Counting())
        await dispatcher.start()
        try:
            with pytest.raises(RuntimeError, match="before the dispatcher starts"):
                dispatcher.register_job("late", Counting())
        finally:
            await dispatcher.stop()

    run(scenario())


def test_a_dispatcher_without_jobs_opens_nothing(settings):
    async def scenario() -> None:
        dispatcher = Dispatcher(settings)
        await dispatcher.start()
        assert dispatcher.database is None
        await dispatcher.stop()

    run(scenario())


def test_every_worker_is_woken_and_skip_locked_shares_the_work(settings):
    """Two dispatchers (two workers) claim rows of one work table: each row is done exactly once."""
    if settings.is_sqlite:
        pytest.skip("PostgreSQL: several workers; SQLite is one process")
    done: list[tuple[str, int]] = []

    def claimer(worker: str, dispatcher_of: Callable[[], Dispatcher]) -> Callable[[Database], Awaitable[None]]:
        async def claim(database: Database) -> None:
            while True:
                async with dispatcher_of().write() as connection:
                    row = (await connection.execute(NEXT_WORK)).first()
                    if row is None:
                        return
                    done_now = text("UPDATE dispatcher_work SET done = true WHERE id = :id")
                    await connection.execute(done_now, {"id": row.id})
                    done.append((worker, row.id))
                await asyncio.sleep(0)

        return claim

    async def scenario() -> None:
        database = Database(settings)
        async with database.engine.begin() as connection:
            await connection.execute(text("DROP TABLE IF EXISTS dispatcher_work"))
            await connection.execute(text("CREATE TABLE dispatcher_work (id int PRIMARY KEY, done bool NOT NULL)"))
        workers = [Dispatcher(settings), Dispatcher(settings)]
        for name, dispatcher in zip(("a", "b"), workers, strict=True):
            dispatcher.register_job("work", claimer(name, lambda d=dispatcher: d), idle_seconds=3600)
            await dispatcher.start()
            await asyncio.wait_for(dispatcher.listening.wait(), DEADLINE)
        try:
            await until(lambda: all(settled(d) for d in workers), "the runs at start")
            runs = [dispatcher.jobs["work"].runs for dispatcher in workers]
            async with database.sessions() as session, session.begin():
                work = text("INSERT INTO dispatcher_work SELECT n, false FROM generate_series(1, 200) n")
                await session.execute(work)
                await wake_at_commit(session, "work")
            await until(lambda: len(done) == 200, "all the work")
            await until(lambda: all(d.jobs["work"].runs > r for d, r in zip(workers, runs, strict=True)), "both woken")
            assert sorted(number for _, number in done) == list(range(1, 201))  # each exactly once
        finally:
            for dispatcher in workers:
                await dispatcher.stop()
            async with database.engine.begin() as connection:
                await connection.execute(text("DROP TABLE dispatcher_work"))
            await database.dispose()

    run(scenario())


def test_a_write_on_sqlite_takes_the_lock_when_it_begins(settings):
    if not settings.is_sqlite:
        pytest.skip("SQLite's one writer")
    sent: list[str] = []

    async def scenario() -> None:
        dispatcher = Dispatcher(settings)
        dispatcher.register_job("idle", Counting(), idle_seconds=3600)
        await dispatcher.start()
        try:
            assert dispatcher.database is not None
            event.listen(
                dispatcher.database.engine.sync_engine,
                "before_cursor_execute",
                lambda _c, _cur, statement, *_: sent.append(statement),
            )
            async with dispatcher.write() as connection:
                await connection.execute(text("SELECT 1"))
        finally:
            await dispatcher.stop()

    run(scenario())
    assert sent[:2] == ["BEGIN IMMEDIATE", "SELECT 1"]

"""The runner: the same answer from a process pool, a thread, and the pure code in this process; and
its bound on the fights in play or waiting."""

from __future__ import annotations

import asyncio

import pytest

from app.odds.runner import CHUNK_FIGHTS, OddsQueueFull, OddsRunner
from app.odds.tally import OddsJob, play_chunk
from app.resolver import Combatant
from tests.odds.held import DEADLINE, HeldChunks


def test_processes_and_a_thread_give_what_the_pure_code_gives():
    fighters = tuple(Combatant(cid, 15, 16, 2, "two_handed_sword") for cid in ("a", "b", "c"))
    job = OddsJob(fighters, ("x", "y", "y"), {"delay_die": 8}, 1, 77, 40)
    fights = CHUNK_FIGHTS * 2 + 17  # several chunks, the last one short
    expected = play_chunk(job, 0, fights)
    for processes in (1, 0):
        runner = OddsRunner(processes, max_pending=fights)
        try:
            assert asyncio.run(runner.play(job, fights)) == expected
        finally:
            runner.close()


def test_fights_count_until_their_chunk_ends_even_when_the_request_stops_waiting(monkeypatch):
    held = HeldChunks().install(monkeypatch)
    job = OddsJob(tuple(Combatant(cid, 15, 16, 2, "long_sword") for cid in ("a", "b")), ("a", "b"), {}, 1, 5, 20)
    runner = OddsRunner(0, max_pending=CHUNK_FIGHTS)

    async def until(predicate) -> None:
        deadline = asyncio.get_running_loop().time() + DEADLINE
        while not predicate():
            assert asyncio.get_running_loop().time() < deadline, f"still {runner.pending} pending"
            await asyncio.sleep(0.01)

    async def scenario() -> None:
        # two chunks on one thread: the first runs (held), the second waits in the pool
        request = asyncio.create_task(runner.play(job, CHUNK_FIGHTS * 2))
        assert await asyncio.to_thread(held.started.wait, DEADLINE)
        assert runner.pending == CHUNK_FIGHTS * 2
        with pytest.raises(OddsQueueFull):
            await runner.play(job, 1)
        request.cancel()
        with pytest.raises(asyncio.CancelledError):
            await request
        # the waiting chunk is withdrawn; the running one keeps its process, so it still counts
        await until(lambda: runner.pending == CHUNK_FIGHTS)
        with pytest.raises(OddsQueueFull) as refused:
            await runner.play(job, 1)
        assert refused.value.headers["Retry-After"] == "1"
        held.release.set()
        await until(lambda: runner.pending == 0)
        assert (await runner.play(job, 1)).fights == 1
        assert runner.pending == 0

    try:
        asyncio.run(scenario())
    finally:
        held.release.set()
        runner.close()

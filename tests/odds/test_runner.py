"""The runner: the same answer from a process pool, a thread, and the pure code in this process."""

from __future__ import annotations

import asyncio

from app.odds.runner import CHUNK_FIGHTS, OddsRunner
from app.odds.tally import OddsJob, play_chunk
from app.resolver import Combatant


def test_processes_and_a_thread_give_what_the_pure_code_gives():
    fighters = tuple(Combatant(cid, 15, 16, 2, "two_handed_sword") for cid in ("a", "b", "c"))
    job = OddsJob(fighters, ("x", "y", "y"), {"delay_die": 8}, 1, 77, 40)
    fights = CHUNK_FIGHTS * 2 + 17  # several chunks, the last one short
    expected = play_chunk(job, 0, fights)
    for processes in (1, 0):
        runner = OddsRunner(processes)
        try:
            assert asyncio.run(runner.play(job, fights)) == expected
        finally:
            runner.close()

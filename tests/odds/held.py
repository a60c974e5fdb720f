"""A stand-in for play_chunk that holds every chunk until the test lets it go: fills a runner's queue
deterministically (ODDS_PROCESSES=0, so the chunks run on a thread of the test's own process)."""

from __future__ import annotations

import threading

from app.odds import runner
from app.odds.tally import OddsJob, Tally, play_chunk

DEADLINE = 30.0  # seconds: only a bound on a test that went wrong, never how long anything should take


class HeldChunks:
    def __init__(self) -> None:
        self.started = threading.Event()  # set when the first chunk reaches the pool's thread
        self.release = threading.Event()
        self.chunks: list[tuple[int, int]] = []  # (first, count) of every chunk that started

    def __call__(self, job: OddsJob, first: int, count: int) -> Tally:
        self.chunks.append((first, count))
        self.started.set()
        if not self.release.wait(DEADLINE):
            raise TimeoutError("the test never released the held chunk")
        return play_chunk(job, first, count)

    def install(self, monkeypatch) -> HeldChunks:
        monkeypatch.setattr(runner, "play_chunk", self)
        return self

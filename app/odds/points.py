"""One odds point played in a worker process: the fights of a request on the vectorised engine, in fixed
batches (so the answer is the same whatever the pool's size), or on the Arena when a long action is carried.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.resolver.model import Combatant

from .draws import NumpyDraws
from .seeds import batch_seed
from .simulate import FightSetup
from .tally import OddsJob, Tally, play_fights
from .vectorised import VectorArena, playable, tally_of

BATCH_FIGHTS = 1000  # fights played side by side; part of what fixes a seed's answer: never change it silently
ENGINE = "vectorised-1"  # named in what a stored point was played by: a new engine, new points


@dataclass(frozen=True, slots=True)
class PointJob:
    combatants: tuple[Combatant, ...]
    sides: tuple[str, ...]
    rules: dict[str, Any]
    first_round: int
    seed: int
    max_rounds: int
    fights: int
    groups: dict[str, str] = field(default_factory=dict)

    def setup(self) -> FightSetup:
        return OddsJob(self.combatants, self.sides, self.rules, self.first_round, self.seed, self.max_rounds,
                       self.groups).setup()  # fmt: skip


def play_point(job: PointJob) -> Tally:
    """What a worker process runs for a point: all its fights."""
    setup = job.setup()
    if not playable(setup):
        return play_fights(setup, job.seed, 0, job.fights, job.max_rounds)
    arena = VectorArena(setup)
    tally = Tally()
    for first in range(0, job.fights, BATCH_FIGHTS):
        fights = np.arange(first, min(job.fights, first + BATCH_FIGHTS), dtype=np.int64)
        draws = NumpyDraws(arena.n, setup.ruleset.delay_die, batch_seed(job.seed, first))
        tally.merge(tally_of(setup, arena.play(fights, draws, job.max_rounds)))
    return tally

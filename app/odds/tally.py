"""Counting fights and reading the counts: win shares with Wilson intervals, statuses, rounds.

Counts, not shares, travel between worker processes: a request's fights may be split across
workers in any way and the merged counts, hence the answer, are the same.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from math import sqrt
from typing import Any

from app.resolver.model import Combatant
from app.resolver.ruleset import build_ruleset

from .seeds import fight_seed
from .simulate import FightOutcome, FightSetup, play_fight

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile
SHARE_DIGITS = 4


@dataclass(slots=True)
class Tally:
    fights: int = 0
    wins: Counter[str] = field(default_factory=Counter)
    draws: int = 0
    dead: Counter[int] = field(default_factory=Counter)  # by combatant index
    unconscious: Counter[int] = field(default_factory=Counter)
    rounds: Counter[int] = field(default_factory=Counter)  # fights by the rounds they lasted

    def merge(self, other: Tally) -> Tally:
        self.fights += other.fights
        self.wins.update(other.wins)
        self.draws += other.draws
        self.dead.update(other.dead)
        self.unconscious.update(other.unconscious)
        self.rounds.update(other.rounds)
        return self

    def add(self, outcome: FightOutcome, times: int = 1) -> None:
        self.fights += times
        if outcome.winner is None:
            self.draws += times
        else:
            self.wins[outcome.winner] += times
        for index, status in enumerate(outcome.statuses):
            if status == "dead":
                self.dead[index] += times
            elif status == "unconscious":
                self.unconscious[index] += times
        self.rounds[outcome.rounds] += times


def play_fights(
    setup: FightSetup, seed: int, first: int, count: int, max_rounds: int, stopped: Callable[[], bool] | None = None
) -> Tally:
    """Fights first..first+count-1 of a request with this seed; fewer if `stopped()` turns true between two."""
    tally = Tally()
    for k in range(first, first + count):
        if stopped is not None and stopped():
            break
        tally.add(play_fight(setup, fight_seed(seed, k), max_rounds))
    return tally


# The runner's stop flags (app/odds/runner.py), as this worker (process or thread) was given them when it
# started: a request whose client went away has its flag raised, and its chunks stop at the next fight.
_worker = threading.local()


def watch_stops(flags: Sequence[int]) -> None:
    """The pool's initializer: this worker's view of the runner's stop flags (shared memory)."""
    _worker.stops = flags


@dataclass(frozen=True, slots=True)
class OddsJob:
    """A request's fights as a worker process receives them: plain data (a Ruleset does not pickle,
    so the worker builds it from the overrides)."""

    combatants: tuple[Combatant, ...]
    sides: tuple[str, ...]
    rules: dict[str, Any]
    first_round: int
    seed: int
    max_rounds: int
    groups: dict[str, str] = field(default_factory=dict)  # docs/rules.md, Holding and groups: who shares a delay die
    stop_slot: int = -1  # the request's stop flag in the runner's shared flags; -1: none

    def setup(self) -> FightSetup:
        return FightSetup(self.combatants, self.sides, build_ruleset(self.rules), self.first_round, self.groups)

    def __reduce__(self) -> tuple[type[OddsJob], tuple[Any, ...]]:
        # Pickled to the odds processes by its constructor's arguments: compiled by mypyc (the image, `make
        # run`), the default unpickling sets the frozen fields one by one and the dataclass refuses.
        # Every field, from the dataclass's own list: one left out (the stop slot once was) is silently lost.
        return OddsJob, tuple(getattr(self, each.name) for each in fields(self))


def play_chunk(job: OddsJob, first: int, count: int) -> Tally:
    """What a worker process runs: fights first..first+count-1 of the job, fewer if its request is stopped."""
    stops: Sequence[int] | None = getattr(_worker, "stops", None)
    slot = job.stop_slot
    stopped = None if stops is None or slot < 0 else (lambda: stops[slot] != 0)
    return play_fights(job.setup(), job.seed, first, count, job.max_rounds, stopped)


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (sound near 0 and 1, unlike p ± z·se)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    centre = p + z2 / (2 * trials)
    spread = z * sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    denominator = 1 + z2 / trials
    # at p = 0 or 1 an end is exactly 0 or 1; floating point would leave it a hair inside
    low = 0.0 if successes == 0 else max(0.0, (centre - spread) / denominator)
    high = 1.0 if successes == trials else min(1.0, (centre + spread) / denominator)
    return low, high


def rounds_quantile(rounds: Counter[int], q: float) -> int:
    """The nearest-rank quantile: the fewest rounds within which at least q of the fights ended."""
    total = sum(rounds.values())
    needed = q * total
    seen = 0
    for number in sorted(rounds):
        seen += rounds[number]
        if seen >= needed:
            return number
    return 0


def _share(count: int, total: int) -> float:
    return count / total if total else 0.0


def summarize(setup: FightSetup, tally: Tally, seed: int) -> dict[str, Any]:
    """The answer of POST .../odds (README.md, "Odds"), as a JSON-ready document."""
    sides = list(dict.fromkeys(setup.sides))  # every side, in the order it first appears
    answer_sides = []
    for side in sides:
        low, high = wilson(tally.wins[side], tally.fights)
        answer_sides.append(
            {
                "side": side,
                "wins": _share(tally.wins[side], tally.fights),
                # rounded outwards, so the rounded share stays inside its rounded interval
                "low": _floor(low),
                "high": _ceil(high),
            }
        )
    return {
        "fights": tally.fights,
        "seed": seed,
        "sides": answer_sides,
        "draws": _share(tally.draws, tally.fights),
        "combatants": [
            {
                "id": c.id,
                "side": side,
                "dead": _share(tally.dead[index], tally.fights),
                "unconscious": _share(tally.unconscious[index], tally.fights),
            }
            for index, (c, side) in enumerate(zip(setup.combatants, setup.sides))
        ],
        "rounds": {"median": rounds_quantile(tally.rounds, 0.5), "p90": rounds_quantile(tally.rounds, 0.9)},
    }


_SCALE: int = 10**SHARE_DIGITS


def _floor(value: float) -> float:
    return int(value * _SCALE) / _SCALE


def _ceil(value: float) -> float:
    return -int(-value * _SCALE) / _SCALE

"""The odds timeline (CONTRACT.md): for k = 0..latest, the fight played forward from the state after
round k, and its turning points.

Where the work runs: a missing point is one task of this worker's odds pool (app/odds/runner.py, processes
that never hold the event loop), its fights played side by side by the vectorised engine
(app/odds/points.py). At most as many points as the pool has processes are handed to it at once by one
worker: a long timeline queues behind itself, not in front of every other odds request.

How concurrent requests share it: within a worker, a point being played is one shared task, keyed by the
encounter, k and the digest of what it is played from; a second request for it awaits the same task (and a
request that goes away leaves it running for the others). Across workers and replicas, a point is kept in
the database once played (tables.py) and read from there; two workers that miss the same point at the same
moment both play it, with the same seed, and the second INSERT is a no-op: the same point, never two.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from hashlib import blake2b
from typing import Any

import orjson

from app.encounters import convert, screen
from app.encounters import store as encounters
from app.odds.points import ENGINE, PointJob, play_point
from app.odds.runner import OddsRunner
from app.odds.schemas import OddsCreate
from app.odds.seeds import timeline_seed
from app.odds.service import check_budget, sides_of
from app.odds.simulate import active_sides, outcome_of
from app.odds.tally import Tally, summarize
from app.platform.db import Database

from . import point_store
from .turning import turning_points

FIGHTS = (100, 10_000)
MAX_ROUNDS = 50


@dataclass(frozen=True, slots=True)
class Start:
    """Where point k starts: the combatants' rows after round k, the rules, the stored round it hangs off."""

    round: int
    rows: tuple[Mapping[str, Any], ...]
    rules: dict[str, Any]
    round_id: int | None  # None: before any round (the current state, not kept)


def starts_of(rounds: Sequence[Any], current: Sequence[Mapping[str, Any]], rules: dict[str, Any]) -> list[Start]:
    if not rounds:
        return [Start(0, tuple(convert.snapshot(row) for row in current), rules, None)]
    first = rounds[0].state_before
    found = [Start(0, tuple(convert.restored(row) for row in first["combatants"]), first.get("rules", rules),
                   rounds[0].id)]  # fmt: skip
    for row in rounds:
        resolved_under = row.state_before.get("rules", rules)
        found.append(Start(row.number, tuple(convert.restored(c) for c in row.state_after), resolved_under, row.id))
    return found


@dataclass(frozen=True, slots=True)
class Point:
    start: Start
    job: PointJob
    inputs: str  # the digest of everything the point is played from


def point_of(start: Start, *, encounter_id: str, hidden: frozenset[str], fights: int, max_rounds: int) -> Point:
    rows = [row for row in start.rows if row["id"] not in hidden]
    sides = sides_of([row["id"] for row in rows], [row["side"] for row in rows], "encounter")
    job = PointJob(
        combatants=tuple(convert.combatant_from_row(row) for row in rows),
        sides=tuple(sides),
        rules=dict(start.rules),
        first_round=start.round + 1,
        seed=timeline_seed(encounter_id, start.round),
        max_rounds=max_rounds,
        fights=fights,
        groups=convert.groups_of(rows),
    )
    played_from = {"rows": rows, "sides": sides, "rules": start.rules, "k": start.round, "fights": fights,
                   "max_rounds": max_rounds, "engine": ENGINE}  # fmt: skip
    digest = blake2b(orjson.dumps(played_from, option=orjson.OPT_SORT_KEYS), digest_size=16).hexdigest()
    return Point(start, job, digest)


class Flights:
    """One worker's points in play: shared tasks, and the bound on how many its pool plays at once."""

    def __init__(self, runner: OddsRunner) -> None:
        self.tasks: dict[tuple[str, int, str], asyncio.Task[dict[str, Any]]] = {}
        self.slots = asyncio.Semaphore(max(1, runner.processes))
        self.shared = 0  # requests that found their point already in play and awaited it


_flights: weakref.WeakKeyDictionary[OddsRunner, Flights] = weakref.WeakKeyDictionary()


def flights_of(runner: OddsRunner) -> Flights:
    flights = _flights.get(runner)
    if flights is None:
        flights = _flights[runner] = Flights(runner)
    return flights


async def _play(database: Database, runner: OddsRunner, flights: Flights, point: Point, encounter_id: str,
                screened: bool) -> dict[str, Any]:  # fmt: skip
    job = point.job
    setup = job.setup()  # validated here, as POST …/odds validates: a refusal is a 422, not a worker's error
    if len(active_sides(setup, setup.combatants)) <= 1:
        tally = Tally()  # decided: every fight ends at once, the same way
        tally.add(outcome_of(setup, setup.combatants, 0), job.fights)
    else:
        async with flights.slots:
            tally = await runner.call(play_point, job, fights=job.fights)
    answer = summarize(setup, tally, job.seed)
    document = {"round": point.start.round, "fights": answer["fights"], "seed": answer["seed"],
                "sides": answer["sides"], "draws": answer["draws"]}  # fmt: skip
    if point.start.round_id is not None:
        await point_store.keep(
            database,
            {"encounter_id": encounter_id, "round": point.start.round, "inputs": point.inputs,
             "round_id": point.start.round_id, "fights": job.fights, "max_rounds": job.max_rounds,
             "screened": screened, "document": document},
        )  # fmt: skip
    return document


async def _shared(database: Database, runner: OddsRunner, point: Point, encounter_id: str, screened: bool) -> Any:
    flights = flights_of(runner)
    key = (encounter_id, point.start.round, point.inputs)
    task = flights.tasks.get(key)
    if task is None:
        task = asyncio.create_task(_play(database, runner, flights, point, encounter_id, screened))
        flights.tasks[key] = task
        task.add_done_callback(lambda _: flights.tasks.pop(key, None))
    else:
        flights.shared += 1
    return await asyncio.shield(task)


async def read(
    database: Database,
    runner: OddsRunner,
    *,
    campaign_id: str,
    encounter_id: str,
    fights: int,
    max_rounds: int,
    budget: int,
    screened: bool,
) -> dict[str, Any]:
    encounter = await encounters.read(database, campaign_id=campaign_id, encounter_id=encounter_id)
    hidden = screen.hidden_ids(encounter.combatants) if screened else frozenset()
    rounds = await point_store.starts(database, encounter_id, encounter.round)
    starts = starts_of(rounds, encounter.combatants, encounter.rules)
    params = OddsCreate(fights=fights, max_rounds=max_rounds)
    for start in starts:  # the work bound, per point, before any is played
        check_budget(params, sum(row["id"] not in hidden for row in start.rows), budget)
    points = [point_of(s, encounter_id=encounter_id, hidden=hidden, fights=fights, max_rounds=max_rounds)
              for s in starts]  # fmt: skip
    kept = await point_store.kept(database, encounter_id, fights, max_rounds)
    missing = [p for p in points if (p.start.round, p.inputs) not in kept]
    played = await asyncio.gather(*(_shared(database, runner, p, encounter_id, screened) for p in missing))
    found = {p.start.round: document for p, document in zip(missing, played)}
    answers = [found.get(p.start.round) or kept[(p.start.round, p.inputs)] for p in points]
    documents = {row.number: screen.round_document(row.document, hidden) for row in rounds}
    return {
        "encounter": encounter_id,
        "fights": fights,
        "max_rounds": max_rounds,
        "points": answers,
        "turning_points": [t.read() for t in turning_points(answers, documents)],
    }

"""Odds: check the request, play its fights in the runner's processes, answer with the shares.

Nothing is stored and nothing is written: an encounter is read in one statement, as GET reads it
(store.read, outside any transaction).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.encounters import screen, store
from app.encounters.convert import combatant_from_row, combatant_from_schema, groups_of
from app.platform.db import Database
from app.platform.errors import Unprocessable
from app.resolver import RoundInput, bounds, build_ruleset, new_seed
from app.resolver.model import Combatant
from app.resolver.validate import validate_round

from .runner import OddsRunner
from .schemas import OddsCreate, OddsRequest
from .simulate import active_sides, outcome_of
from .tally import OddsJob, Tally, summarize


class OddsBudgetExceeded(Unprocessable):
    type, title = "odds-budget-exceeded", "The odds asked for exceed the work budget"


def check_budget(params: OddsCreate, combatants: int, budget: int) -> None:
    """Refuse, from its size alone, a request that would take too long: before any fight is played."""
    work = params.fights * params.max_rounds * combatants
    if work > budget:
        raise OddsBudgetExceeded(
            f"fights × max_rounds × combatants = {params.fights} × {params.max_rounds} × {combatants} = {work:,}, "
            f"above the budget of {budget:,}: ask for fewer fights or fewer rounds.",
            budget=budget,
            work=work,
            errors=[
                {"in": "body", "pointer": "/fights", "detail": f"with max_rounds, over the budget of {budget:,}"},
                {"in": "body", "pointer": "/max_rounds", "detail": f"with fights, over the budget of {budget:,}"},
            ],
        )


async def play(
    runner: OddsRunner,
    *,
    combatants: Sequence[Combatant],
    sides: Sequence[str],
    rules: dict[str, Any],
    first_round: int,
    params: OddsCreate,
    budget: int,
    groups: dict[str, str] | None = None,
) -> dict[str, Any]:
    groups = groups or {}
    check_budget(params, len(combatants), budget)
    last_round = first_round + params.max_rounds - 1
    if last_round > bounds.ROUND[1]:
        raise Unprocessable(
            f"The fights would reach round {last_round:,}; rounds stop at {bounds.ROUND[1]:,}.",
            errors=[{"in": "body", "pointer": "/max_rounds", "detail": f"at most {bounds.ROUND[1] - first_round + 1}"}],
        )
    # Refused here, as /v1/resolve would refuse it, rather than inside a worker process.
    ruleset = build_ruleset(rules)
    validate_round(RoundInput(first_round, tuple(combatants), (), groups), ruleset, {})
    seed = new_seed() if params.seed is None else params.seed
    job = OddsJob(tuple(combatants), tuple(sides), dict(rules), first_round, seed, params.max_rounds, groups)
    setup = job.setup()
    if len(active_sides(setup, setup.combatants)) <= 1:
        # decided before it starts: every fight ends at once, the same way
        tally = Tally()
        tally.add(outcome_of(setup, setup.combatants, 0), params.fights)
    else:
        tally = await runner.play(job, params.fights)
    return summarize(setup, tally, seed)


def sides_of(ids: Sequence[str], named: Sequence[str | None], where: str) -> list[str]:
    """Each combatant's side: its own, or (none given) one of its own named by its id. A side-less
    combatant whose id is also a named side would silently join that side: refused instead, naming
    it (`where` is "body" for /v1/odds, where the pointer is into the request, or "encounter")."""
    taken = {side for side in named if side is not None}
    clashes = [i for i, (cid, side) in enumerate(zip(ids, named)) if side is None and cid in taken]
    if clashes:
        errors = [
            {
                "in": where,
                "pointer": f"/combatants/{i}/side",
                "detail": f"{ids[i]!r} has no side, and {ids[i]!r} "
                "is another combatant's side: give it a side (its own, or that one)",
            }
            for i in clashes
        ]
        raise Unprocessable(
            "A combatant without a side fights on its own, under its id; here that id names a side as well.",
            errors=errors,
        )
    return [side if side is not None else cid for cid, side in zip(ids, named)]


async def stateless_odds(runner: OddsRunner, *, body: OddsRequest, budget: int) -> dict[str, Any]:
    combatants = [combatant_from_schema(c.id, c) for c in body.combatants]
    sides = sides_of([c.id for c in body.combatants], [c.side for c in body.combatants], "body")
    return await play(
        runner,
        combatants=combatants,
        sides=sides,
        rules=body.rules,
        first_round=body.round,
        params=body,
        budget=budget,
        groups=groups_of(body.combatants),
    )


async def encounter_odds(
    database: Database,
    runner: OddsRunner,
    *,
    campaign_id: str,
    encounter_id: str,
    params: OddsCreate,
    budget: int,
    screened: bool = False,
) -> dict[str, Any]:
    """The encounter's odds; for a player or viewer (`screened`), played without its hidden combatants."""
    encounter = await store.read(database, campaign_id=campaign_id, encounter_id=encounter_id)
    if screened:
        encounter = screen.visible(encounter)
    combatants = [combatant_from_row(row) for row in encounter.combatants]
    rows = encounter.combatants
    sides = sides_of([row["id"] for row in rows], [row["side"] for row in rows], "encounter")
    return await play(
        runner,
        combatants=combatants,
        sides=sides,
        rules=encounter.rules,
        first_round=encounter.round + 1,
        params=params,
        budget=budget,
        groups=groups_of(encounter.combatants),
    )

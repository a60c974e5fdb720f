"""Any single fight of an odds request, round by round, as POST /v1/resolve bodies: the same
declarations, dice and seed, so the service's own resolver can be asked to confirm every round."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from app.resolver.codec import combatant_to_json, declaration_to_json, lasting_to_json, result_to_json
from app.resolver.model import Combatant

from .seeds import fight_seed
from .simulate import FightSetup, play_rounds


def combatant_body(c: Combatant) -> dict[str, Any]:
    """A combatant as a /v1/resolve body takes it: the codec's fields, its effects and long action only
    when it has them."""
    document = combatant_to_json(c)
    if c.effects or c.long_action is not None:
        document.update(lasting_to_json(c))
    return document


def fight_rounds(
    setup: FightSetup, rules: Mapping[str, Any], seed: int, fight: int, max_rounds: int
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Fight `fight` of a request with this seed: for each round, the /v1/resolve body that plays it
    and the round document the simulation got."""
    for played in play_rounds(setup, fight_seed(seed, fight), max_rounds):
        document = result_to_json(played.result)
        body = {
            "round": played.state.round,
            "rules": dict(rules),
            "combatants": [combatant_body(c) for c in played.state.combatants],
            "declarations": [declaration_to_json(d) for d in played.state.declarations],
            "dice": document["dice"],
            "seed": played.seed,
        }
        yield body, document

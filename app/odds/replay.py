"""Any single fight of an odds request, round by round, as POST /v1/resolve bodies: the same
declarations, dice and seed, so the service's own resolver can be asked to confirm every round."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from app.resolver.codec import combatant_to_json, lasting_to_json, result_to_json
from app.resolver.model import Attack, Combatant, Declaration

from .seeds import fight_seed
from .simulate import FightSetup, play_rounds


def declaration_to_json(declaration: Declaration) -> dict[str, Any]:
    action = declaration.action
    if not isinstance(action, Attack):  # the odds policy declares attacks and nothing else
        raise TypeError(f"the odds policy never declares {type(action).__name__}")
    return {
        "combatant": declaration.combatant,
        "stance": declaration.stance,
        "action": {"type": "attack", "targets": list(action.targets)},
    }


def state_to_json(c: Combatant) -> dict[str, Any]:
    """A combatant as a /v1/resolve body takes it; effects and a long action only when it has them
    (the resolve endpoint's schema takes them once the service carries them)."""
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
            "combatants": [state_to_json(c) for c in played.state.combatants],
            "declarations": [declaration_to_json(d) for d in played.state.declarations],
            "dice": document["dice"],
            "seed": played.seed,
        }
        yield body, document

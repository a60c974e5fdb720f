"""Plain builders for resolver tests (no fixtures): JSON-shaped requests through the codec, as the API sends them."""

from __future__ import annotations

from typing import Any

from app.resolver import FixedDice, MixedDice, ResolverError, build_ruleset, resolve_round
from app.resolver.codec import result_to_json
from tests.resolver.decoding import dice_from_json, round_input_from_json


def fighter(id: str, **fields: Any) -> dict[str, Any]:
    """A combatant: initiative 10, attack 10, defense 0, a long sword (delay 5, 1d8), unless told otherwise."""
    return {"id": id, "initiative": 10, "attack": 10, "defense": 0, "weapon": "long_sword", **fields}


def attack(actor: str, *targets: str, **fields: Any) -> dict[str, Any]:
    return {"combatant": actor, "action": {"type": "attack", "targets": list(targets)}, **fields}


def first_aid(actor: str, target: str, **fields: Any) -> dict[str, Any]:
    return {"combatant": actor, "action": {"type": "first_aid", "target": target}, **fields}


def custom(actor: str, delay: int, name: str = "spell", **fields: Any) -> dict[str, Any]:
    return {"combatant": actor, "action": {"type": "custom", "name": name, "delay": delay}, **fields}


def none(actor: str, **fields: Any) -> dict[str, Any]:
    return {"combatant": actor, "action": {"type": "none"}, **fields}


def resolve(combatants: list[dict], declarations: list[dict], dice: dict, *, round: int = 1,
            rules: dict | None = None) -> dict[str, Any]:
    """Resolve with fixed dice only, so a missing die fails loudly; return the CONTRACT.md result document."""
    state = round_input_from_json({"round": round, "combatants": combatants, "declarations": declarations})
    return result_to_json(resolve_round(state, build_ruleset(rules), FixedDice(dice_from_json(dice))))


def refused_fields(request: dict[str, Any]) -> list[str] | None:
    """The JSON pointers a refused request names, or None when it is accepted."""
    try:
        state = round_input_from_json(request)
        dice = MixedDice(dice_from_json(request.get("dice", {})), seed=1)
        resolve_round(state, build_ruleset(request.get("rules")), dice)
    except ResolverError as error:
        return [issue.field for issue in error.issues]
    return None


def brief(result: dict[str, Any], *fields: str) -> list[tuple]:
    """Each action as (actor, seq, result, *fields): enough to read an outcome at a glance."""
    return [(a["actor"], a["seq"], a["result"], *(a[f] for f in fields)) for a in result["actions"]]


def state_of(result: dict[str, Any], id: str) -> dict[str, Any]:
    return next(c for c in result["combatants"] if c["id"] == id)


def long(actor: str, delay: int, name: str = "ward", **action: Any) -> dict[str, Any]:
    """A custom action with section 13's extras (`rounds`, `target`, `effect`) in its action object."""
    return {"combatant": actor, "action": {"type": "custom", "name": name, "delay": delay, **action}}


def carrying(delay: int = 4, rounds_left: int = 2, name: str = "ward", **fields: Any) -> dict[str, Any]:
    """A combatant's `long_action`."""
    return {"name": name, "delay": delay, "rounds_left": rounds_left, **fields}


def effect(name: str = "blessed", **fields: Any) -> dict[str, Any]:
    return {"name": name, **fields}

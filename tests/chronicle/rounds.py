"""Stored rounds for chronicle tests: resolved by the real resolver with fixed dice, stored as the service
stores them (document, declarations, the snapshots before)."""

from __future__ import annotations

from typing import Any

from app.chronicle import Person, StoredRound
from tests.resolver.helpers import resolve


def fighter(id: str, name: str, **fields: Any) -> dict[str, Any]:
    """A combatant: initiative 10, attack 10, defense 0, a long sword (delay 5, 1d8), vitality 10."""
    return {"id": id, "name": name, "initiative": 10, "attack": 10, "defense": 0, "weapon": "long_sword", **fields}


def stored(
    combatants: list[dict[str, Any]],
    declarations: list[dict[str, Any]],
    dice: dict[str, Any],
    *,
    round: int = 1,
    rules: dict[str, Any] | None = None,
) -> StoredRound:
    state = [{k: v for k, v in c.items() if k not in ("name", "name_forms")} for c in combatants]
    document = resolve(state, declarations, dice, round=round, rules=rules)
    before = [{"status": "active", "effects": [], **c} for c in combatants]
    return StoredRound(document=document, declarations=tuple(declarations), before=tuple(before), rules=rules or {})


def cast(combatants: list[dict[str, Any]]) -> dict[str, Person]:
    return {c["id"]: Person(c["name"], c.get("name_forms")) for c in combatants}


def after(round_: StoredRound, combatants: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The combatants as they stand after the round (for the next one), names kept."""
    first = {c["id"]: c for c in combatants}
    states = ({k: v for k, v in state.items() if k != "penalty"} for state in round_.document["combatants"])
    return [{**first[state["id"]], **state} for state in states]

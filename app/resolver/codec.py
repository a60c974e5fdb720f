"""JSON documents (CONTRACT.md shapes) to resolver types and back: the resolver's only wire format."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import InvalidRound, Issue, Issues
from .model import (
    Action,
    Attack,
    BloodLoss,
    Combatant,
    CombatantState,
    Custom,
    Declaration,
    FirstAid,
    InlineWeapon,
    NoAction,
    RoundInput,
    RoundResult,
    Wound,
)

COMBATANT_FIELDS = {
    "id",
    "initiative",
    "attack",
    "defense",
    "weapon",
    "attacks_per_round",
    "weapon_ready",
    "damage_bonus",
    "armor",
    "toughness",
    "vitality",
    "blood",
    "status",
    "wounds",
}
REQUIRED_COMBATANT_FIELDS = ("id", "initiative", "attack", "defense", "weapon")


def _object(issues: Issues, field: str, value: Any, allowed: set[str]) -> bool:
    if not isinstance(value, Mapping):
        issues.add(field, "must be an object")
        return False
    for key in value:
        if key not in allowed:
            issues.add(f"{field}/{key}", "unknown field")
    return True


def weapon_from_json(value: Any) -> str | InlineWeapon:
    if isinstance(value, Mapping):
        return InlineWeapon(value.get("name"), value.get("delay"), value.get("damage"))
    return value


def wound_from_json(value: Mapping[str, Any]) -> Wound:
    return Wound(value.get("class"), value.get("penalty"), value.get("bleed"))


def combatant_from_json(value: Any, field: str, issues: Issues) -> Combatant | None:
    if not _object(issues, field, value, COMBATANT_FIELDS):
        return None
    missing = [name for name in REQUIRED_COMBATANT_FIELDS if name not in value]
    for name in missing:
        issues.add(f"{field}/{name}", "required")
    wounds = value.get("wounds", [])
    if not isinstance(wounds, list) or not all(isinstance(w, Mapping) for w in wounds):
        issues.add(f"{field}/wounds", "must be a list of {class, penalty?, bleed?}")
        return None
    if missing:
        return None
    fields = {k: v for k, v in value.items() if k in COMBATANT_FIELDS and k not in ("weapon", "wounds")}
    return Combatant(
        **fields, weapon=weapon_from_json(value["weapon"]), wounds=tuple(wound_from_json(w) for w in wounds)
    )


def action_from_json(value: Any, field: str, issues: Issues) -> Action | None:
    if not isinstance(value, Mapping):
        issues.add(field, "must be an object with a type")
        return None
    kind = value.get("type")
    if kind == "attack":
        if "targets" in value:
            targets = value["targets"]
        else:
            targets = [value["target"]] if "target" in value else []
        if not isinstance(targets, list):
            issues.add(f"{field}/targets", "must be a list of combatant ids")
            return None
        return Attack(tuple(targets))
    if kind == "first_aid":
        if "target" not in value:
            issues.add(f"{field}/target", "required")
            return None
        return FirstAid(value["target"])
    if kind == "custom":
        missing = [name for name in ("name", "delay") if name not in value]
        for name in missing:
            issues.add(f"{field}/{name}", "required: a custom action names itself and declares its delay")
        return None if missing else Custom(value["name"], value["delay"])
    if kind == "none":
        return NoAction()
    issues.add(f"{field}/type", f"unknown action type {kind!r}; use attack, first_aid, custom or none")
    return None


def declaration_from_json(value: Any, field: str, issues: Issues) -> Declaration | None:
    if not _object(issues, field, value, {"combatant", "stance", "action", "technical_actions"}):
        return None
    action = action_from_json(value.get("action", {"type": "none"}), f"{field}/action", issues)
    if action is None:
        return None
    return Declaration(value.get("combatant"), action, value.get("stance"), value.get("technical_actions", 0))


def dice_from_json(value: Any) -> dict[str, int | tuple[int, ...]]:
    if not isinstance(value, Mapping):
        raise InvalidRound([Issue("/dice", "must be an object of dice keys")])
    return {key: tuple(v) if isinstance(v, list) else v for key, v in value.items()}


def round_input_from_json(document: Mapping[str, Any], default_round: int = 1) -> RoundInput:
    """The state part of a /v1/resolve body: round, combatants, declarations."""
    issues = Issues()
    combatants_json = document.get("combatants", [])
    declarations_json = document.get("declarations", [])
    for name, value in (("combatants", combatants_json), ("declarations", declarations_json)):
        if not isinstance(value, list):
            issues.add(f"/{name}", "must be a list")
    issues.raise_if_any()
    combatants = [combatant_from_json(c, f"/combatants/{i}", issues) for i, c in enumerate(combatants_json)]
    declarations = [declaration_from_json(d, f"/declarations/{i}", issues) for i, d in enumerate(declarations_json)]
    issues.raise_if_any()
    return RoundInput(document.get("round", default_round), tuple(combatants), tuple(declarations))


def wound_to_json(wound: Wound) -> dict[str, Any]:
    return {"class": wound.cls, "penalty": wound.penalty, "bleed": wound.bleed}


def weapon_to_json(weapon: str | InlineWeapon) -> str | dict[str, Any]:
    if isinstance(weapon, InlineWeapon):
        return {"name": weapon.name, "delay": weapon.delay, "damage": weapon.damage}
    return weapon


def combatant_to_json(c: Combatant) -> dict[str, Any]:
    """Every field of a combatant, for storing it or sending it back into a stateless round."""
    return {
        "id": c.id,
        "initiative": c.initiative,
        "attack": c.attack,
        "defense": c.defense,
        "weapon": weapon_to_json(c.weapon),
        "attacks_per_round": c.attacks_per_round,
        "weapon_ready": c.weapon_ready,
        "damage_bonus": c.damage_bonus,
        "armor": c.armor,
        "toughness": c.toughness,
        "vitality": c.vitality,
        "blood": c.blood,
        "status": c.status,
        "wounds": [wound_to_json(w) for w in c.wounds],
    }


def state_to_json(state: CombatantState) -> dict[str, Any]:
    return {
        "id": state.id,
        "status": state.status,
        "blood": state.blood,
        "weapon_ready": state.weapon_ready,
        "penalty": state.penalty,
        "wounds": [wound_to_json(w) for w in state.wounds],
    }


def bleeding_to_json(loss: BloodLoss) -> dict[str, Any]:
    return {"combatant": loss.combatant, "lost": loss.lost, "blood": loss.blood, "status": loss.status}


def outcome_to_json(o) -> dict[str, Any]:
    return {
        "tick": o.tick,
        "actor": o.actor,
        "seq": o.seq,
        "type": o.type,
        "target": o.target,
        "score": o.score,
        "technical_actions": o.technical_actions,
        "roll": o.roll,
        "target_number": o.target_number,
        "hit": o.hit,
        "margin": o.margin,
        "damage_rolls": list(o.damage_rolls) if o.damage_rolls is not None else None,
        "blow": o.blow,
        "effective": o.effective,
        "wound": o.wound,
        "result": o.result,
    }


def result_to_json(result: RoundResult) -> dict[str, Any]:
    """The round document of CONTRACT.md: what the API returns and stores."""
    return {
        "round": result.round,
        "turn": result.turn,
        "ends_turn": result.ends_turn,
        "seed": result.seed,
        "dice": {key: list(v) if isinstance(v, tuple) else v for key, v in result.dice.items()},
        "actions": [outcome_to_json(o) for o in result.actions],
        "bleeding": [bleeding_to_json(b) for b in result.bleeding],
        "combatants": [state_to_json(s) for s in result.combatants],
    }

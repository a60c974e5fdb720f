"""JSON documents (the API's shapes) to resolver types and back: the resolver's only wire format."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .model import (
    Action,
    ActionOutcome,
    Attack,
    BloodLoss,
    Combatant,
    CombatantState,
    Custom,
    Declaration,
    Effect,
    EffectGiven,
    FirstAid,
    InlineWeapon,
    LongAction,
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
}  # a combatant's fields (docs/rules.md: A combatant) the service stores as columns (app/encounters/convert.py)
LASTING_FIELDS = ("effects", "long_action")  # effects, long actions: in every combatant state, not in those columns
STATE_FIELDS = COMBATANT_FIELDS | set(LASTING_FIELDS)  # a combatant's state: what resolver.Combatant holds
# A combatant's `group` (docs/rules.md: Holding and groups), carried in RoundInput.groups (see RoundInput).
GROUP_FIELD = "group"
DECLARATION_FIELDS = {"combatant", "stance", "action", "technical_actions", "hold"}


def _given(value: Mapping[str, Any], key: str) -> Any:
    """A field as sent, None when absent: the resolver's validation judges it, not the codec."""
    return value.get(key)


def weapon_from_json(value: Any) -> str | InlineWeapon:
    if isinstance(value, Mapping):
        return InlineWeapon(_given(value, "name"), _given(value, "delay"), _given(value, "damage"))
    key: str = value  # an armory key, checked against the armory by the resolver
    return key


def wound_from_json(value: Mapping[str, Any]) -> Wound:
    return Wound(_given(value, "class"), _given(value, "penalty"), _given(value, "bleed"))


def wound_to_json(wound: Wound) -> dict[str, Any]:
    return {"class": wound.cls, "penalty": wound.penalty, "bleed": wound.bleed}


def weapon_to_json(weapon: str | InlineWeapon) -> str | dict[str, Any]:
    if isinstance(weapon, InlineWeapon):
        return {"name": weapon.name, "delay": weapon.delay, "damage": weapon.damage}
    return weapon


def effect_to_json(effect: Effect) -> dict[str, Any]:
    return {
        "id": effect.id,
        "name": effect.name,
        "attack": effect.attack,
        "defense": effect.defense,
        "initiative": effect.initiative,
        "blood_per_turn": effect.blood_per_turn,
        "until_round": effect.until_round,
    }


def effect_given_to_json(given: EffectGiven) -> dict[str, Any]:
    return {
        "name": given.name,
        "attack": given.attack,
        "defense": given.defense,
        "initiative": given.initiative,
        "blood_per_turn": given.blood_per_turn,
        "rounds": given.rounds,
    }


def long_action_to_json(long_action: LongAction | None) -> dict[str, Any] | None:
    if long_action is None:
        return None
    return {
        "name": long_action.name,
        "delay": long_action.delay,
        "target": long_action.target,
        "effect": None if long_action.effect is None else effect_given_to_json(long_action.effect),
        "rounds_left": long_action.rounds_left,
    }


def lasting_to_json(c: Combatant | CombatantState) -> dict[str, Any]:
    """A combatant's `effects` and `long_action` (LASTING_FIELDS), as a combatant state carries them."""
    return {"effects": [effect_to_json(e) for e in c.effects], "long_action": long_action_to_json(c.long_action)}


def combatant_to_json(c: Combatant) -> dict[str, Any]:
    """The COMBATANT_FIELDS of a combatant (its stored columns). The whole state, as a /v1/resolve body takes
    it, is `{**combatant_to_json(c), **lasting_to_json(c)}`."""
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


def action_to_json(action: Action) -> dict[str, Any]:
    if isinstance(action, Attack):
        return (
            {"type": "attack", "target": action.targets[0]}
            if action.shorthand
            else {"type": "attack", "targets": list(action.targets)}
        )
    if isinstance(action, FirstAid):
        return {"type": "first_aid", "target": action.target}
    if isinstance(action, Custom):
        document: dict[str, Any] = {"type": "custom", "name": action.name, "delay": action.delay}
        if action.rounds != 1:
            document["rounds"] = action.rounds
        if action.target is not None:
            document["target"] = action.target
        if action.effect is not None:
            document["effect"] = effect_given_to_json(action.effect)
        return document
    return {"type": action.type}


def declaration_to_json(d: Declaration) -> dict[str, Any]:
    """A declaration as a round request carries it (declaration_from_json reads it back); `action` and
    `hold` only when there is one."""
    document: dict[str, Any] = {"combatant": d.combatant, "stance": d.stance, "technical_actions": d.technical_actions}
    if d.action is not None:
        document["action"] = action_to_json(d.action)
    if d.hold is not None:
        document["hold"] = d.hold
    return document


def round_input_to_json(state: RoundInput) -> dict[str, Any]:
    """The state part of a /v1/resolve body (round_input_from_json reads it back): each combatant's whole
    state, with its `group` when it has one."""
    combatants = []
    for c in state.combatants:
        document = {**combatant_to_json(c), **lasting_to_json(c)}
        if c.id in state.groups:
            document[GROUP_FIELD] = state.groups[c.id]
        combatants.append(document)
    return {
        "round": state.round,
        "combatants": combatants,
        "declarations": [declaration_to_json(d) for d in state.declarations],
    }


def state_to_json(state: CombatantState) -> dict[str, Any]:
    return {
        "id": state.id,
        "status": state.status,
        "blood": state.blood,
        "weapon_ready": state.weapon_ready,
        "penalty": state.penalty,
        "wounds": [wound_to_json(w) for w in state.wounds],
        **lasting_to_json(state),
    }


def bleeding_to_json(loss: BloodLoss) -> dict[str, Any]:
    return {"combatant": loss.combatant, "lost": loss.lost, "blood": loss.blood, "status": loss.status}


def outcome_to_json(o: ActionOutcome) -> dict[str, Any]:
    return {
        "tick": o.tick,
        "actor": o.actor,
        "seq": o.seq,
        "type": o.type,
        "name": o.name,
        "target": o.target,
        "score": o.score,
        "technical_actions": o.technical_actions,
        "held": o.held,
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
    """The round document: what the API returns and stores."""
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

"""JSON documents (CONTRACT.md shapes) to resolver types and back: the resolver's only wire format."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import InvalidRound, Issue, Issues
from .model import (
    Action,
    ActionOutcome,
    Attack,
    BloodLoss,
    Combatant,
    CombatantState,
    Continue,
    Custom,
    Declaration,
    Effect,
    EffectGiven,
    FirstAid,
    InlineWeapon,
    LongAction,
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
}  # the fields of RULES.md section 2 the service stores as columns today (read by app.rounds.mapping)
LASTING_FIELDS = ("effects", "long_action")  # sections 12-13: in every combatant state, not yet in those columns
STATE_FIELDS = COMBATANT_FIELDS | set(LASTING_FIELDS)  # a combatant's state: what resolver.Combatant holds
# Section 14's `group`: a combatant field of the contract, carried in RoundInput.groups (see RoundInput).
GROUP_FIELD = "group"
REQUEST_FIELDS = STATE_FIELDS | {GROUP_FIELD}  # what a combatant in a /v1/resolve body may carry
DECLARATION_FIELDS = {"combatant", "stance", "action", "technical_actions", "hold"}
REQUIRED_COMBATANT_FIELDS = ("id", "initiative", "attack", "defense", "weapon")
EFFECT_FIELDS = {"id", "name", "attack", "defense", "initiative", "blood_per_turn", "until_round"}
EFFECT_GIVEN_FIELDS = {"name", "attack", "defense", "initiative", "blood_per_turn", "rounds"}
LONG_ACTION_FIELDS = {"name", "delay", "target", "effect", "rounds_left"}
ACTION_FIELDS = {
    "attack": {"type", "targets", "target"},
    "first_aid": {"type", "target"},
    "custom": {"type", "name", "delay", "rounds", "target", "effect"},
    "continue": {"type"},
    "none": {"type"},
}


def _object(issues: Issues, field: str, value: Any, allowed: set[str]) -> bool:
    """Whether `value` is an object; each key it has beyond `allowed` is an issue (see _known_object)."""
    if not isinstance(value, Mapping):
        issues.add(field, "must be an object")
        return False
    for key in value:
        if key not in allowed:
            issues.add(f"{field}/{key}", "unknown field")
    return True


def _known_object(issues: Issues, field: str, value: Any, allowed: set[str]) -> bool:
    """Whether `value` is an object with no key beyond `allowed` (each one found is an issue)."""
    before = len(issues.found)
    return _object(issues, field, value, allowed) and len(issues.found) == before


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


def _required(issues: Issues, field: str, value: Mapping[str, Any], names: tuple[str, ...]) -> bool:
    missing = [name for name in names if name not in value]
    for name in missing:
        issues.add(f"{field}/{name}", "required")
    return not missing


def effect_from_json(value: Any, field: str, issues: Issues) -> Effect | None:
    """One of a combatant's `effects` (RULES.md section 12); its bounds are the resolver's to check."""
    if not _known_object(issues, field, value, EFFECT_FIELDS) or not _required(issues, field, value, ("name",)):
        return None
    return Effect(**value)


def effect_given_from_json(value: Any, field: str, issues: Issues) -> EffectGiven | None:
    """The `effect` of a custom action or a long action (section 13)."""
    if not _known_object(issues, field, value, EFFECT_GIVEN_FIELDS) or not _required(issues, field, value, ("name",)):
        return None
    return EffectGiven(**value)


def long_action_from_json(value: Any, field: str, issues: Issues) -> LongAction | None:
    """A combatant's `long_action`; JSON null is None (and so is anything refused, with its issue added)."""
    if value is None:
        return None
    if not _known_object(issues, field, value, LONG_ACTION_FIELDS):
        return None
    if not _required(issues, field, value, ("name", "delay", "rounds_left")):
        return None
    effect = value.get("effect")
    given = None if effect is None else effect_given_from_json(effect, f"{field}/effect", issues)
    return LongAction(value["name"], value["delay"], value["rounds_left"], value.get("target"), given)


def effects_from_json(value: Any, field: str, issues: Issues) -> tuple[Effect, ...]:
    if not isinstance(value, list):
        issues.add(
            field, "must be a list of effects {id, name, attack, defense, initiative, blood_per_turn, until_round}"
        )
        return ()
    effects = [effect_from_json(e, f"{field}/{i}", issues) for i, e in enumerate(value)]
    return tuple(e for e in effects if e is not None)


def combatant_from_json(value: Any, field: str, issues: Issues) -> Combatant | None:
    """A combatant's state; its `group` is read by round_input_from_json."""
    if not _object(issues, field, value, REQUEST_FIELDS):
        return None
    complete = _required(issues, field, value, REQUIRED_COMBATANT_FIELDS)
    wounds = value.get("wounds", [])
    if not isinstance(wounds, list) or not all(isinstance(w, Mapping) for w in wounds):
        issues.add(f"{field}/wounds", "must be a list of {class, penalty?, bleed?}")
        return None
    before = len(issues.found)
    effects = effects_from_json(value["effects"], f"{field}/effects", issues) if "effects" in value else ()
    long_action = long_action_from_json(value.get("long_action"), f"{field}/long_action", issues)
    if not complete or len(issues.found) > before:
        return None
    fields = {k: v for k, v in value.items() if k not in ("weapon", "wounds", "effects", "long_action", GROUP_FIELD)}
    return Combatant(
        **fields,
        weapon=weapon_from_json(value["weapon"]),
        wounds=tuple(wound_from_json(w) for w in wounds),
        effects=effects,
        long_action=long_action,
    )


def action_from_json(value: Any, field: str, issues: Issues) -> Action | None:
    """An `action` object; None (with its issue added) when it is refused."""
    if not isinstance(value, Mapping):
        issues.add(field, "must be an object with a type")
        return None
    kind = value.get("type")
    allowed = ACTION_FIELDS.get(kind) if isinstance(kind, str) else None
    if allowed is None:
        issues.add(f"{field}/type", f"unknown action type {kind!r}; use attack, first_aid, custom, continue or none")
        return None
    unknown = [key for key in value if key not in allowed]
    for key in unknown:
        issues.add(f"{field}/{key}", f"not a field of a {kind} action")
    if unknown:
        return None
    if kind == "attack":
        if "targets" in value and "target" in value:
            issues.add(f"{field}/target", "give either target or targets, not both")
            return None
        if "targets" in value:
            targets = value["targets"]
        elif "target" in value:
            return Attack((value["target"],), shorthand=True)
        else:
            issues.add(f"{field}/targets", "required: the combatant(s) attacked")
            return None
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
        effect = value.get("effect")
        given = None if effect is None else effect_given_from_json(effect, f"{field}/effect", issues)
        if missing or (effect is not None and given is None):
            return None
        return Custom(
            value["name"], value["delay"], rounds=value.get("rounds", 1), target=value.get("target"), effect=given
        )
    if kind == "continue":
        return Continue()
    return NoAction()


def declaration_from_json(value: Any, field: str, issues: Issues) -> Declaration | None:
    """A declaration; without `action` it continues a carried long action, and is none otherwise."""
    if not _object(issues, field, value, DECLARATION_FIELDS):
        return None
    action = None
    if "action" in value:
        action = action_from_json(value["action"], f"{field}/action", issues)
        if action is None:
            return None
    return Declaration(
        value.get("combatant"), action, value.get("stance"), value.get("technical_actions", 0), value.get("hold")
    )


def groups_from_json(combatants: list[Any]) -> dict[str, Any]:
    """Each combatant's `group` (section 14), as sent, keyed by its id; null or absent: no group. The
    resolver's validation judges the names (and a combatant whose id is not a string is refused anyway)."""
    return {
        c["id"]: c[GROUP_FIELD]
        for c in combatants
        if isinstance(c, Mapping) and c.get(GROUP_FIELD) is not None and isinstance(c.get("id"), str)
    }


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
    issues.raise_if_any()  # so none of them is None below
    return RoundInput(
        document.get("round", default_round),
        tuple(c for c in combatants if c is not None),
        tuple(d for d in declarations if d is not None),
        groups_from_json(combatants_json),
    )


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

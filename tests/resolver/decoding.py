"""The resolver's decoders that only tests and benchmarks use: a /v1/resolve body (round, combatants,
declarations, dice) read straight into resolver types, without the service's schemas. The service reads
requests through its Pydantic schemas and app/encounters/convert.py; app/resolver/codec.py keeps what the
service uses (the encoders, and the weapon and wound readers)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.resolver.codec import DECLARATION_FIELDS, GROUP_FIELD, STATE_FIELDS, weapon_from_json, wound_from_json
from app.resolver.errors import InvalidRound, Issue, Issues
from app.resolver.model import (
    Action,
    Attack,
    Combatant,
    Continue,
    Custom,
    Declaration,
    Effect,
    EffectGiven,
    FirstAid,
    LongAction,
    NoAction,
    RoundInput,
)

REQUEST_FIELDS = STATE_FIELDS | {GROUP_FIELD}  # what a combatant in a /v1/resolve body may carry

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


def _required(issues: Issues, field: str, value: Mapping[str, Any], names: tuple[str, ...]) -> bool:
    missing = [name for name in names if name not in value]
    for name in missing:
        issues.add(f"{field}/{name}", "required")
    return not missing


def effect_from_json(value: Any, field: str, issues: Issues) -> Effect | None:
    """One of a combatant's `effects` (docs/rules.md: Effects); its bounds are the resolver's to check."""
    if not _known_object(issues, field, value, EFFECT_FIELDS) or not _required(issues, field, value, ("name",)):
        return None
    return Effect(**value)


def effect_given_from_json(value: Any, field: str, issues: Issues) -> EffectGiven | None:
    """The `effect` of a custom action or a long action (docs/rules.md: Long actions)."""
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
    """Each combatant's `group` (docs/rules.md: Holding and groups), as sent, keyed by its id; null or absent: no
    group. The
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

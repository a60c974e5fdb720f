"""The refusals (docs/rules.md: What the service refuses) for what lasts across rounds: effects, long actions, the
extras of a custom action. Pointers are built only for a bad value: these run on every round."""

from __future__ import annotations

from collections.abc import Mapping

from . import bounds
from .checks import int_within, optional_int_within, text_within
from .errors import Issues
from .model import Combatant, Custom, Effect, EffectGiven, LongAction

MODIFIERS = ("attack", "defense", "initiative", "blood_per_turn")
_LOW, _HIGH = bounds.EFFECT_MODIFIER
_UNTIL_LOW, _UNTIL_HIGH = bounds.UNTIL_ROUND
_NAME_MAX, _ID_MAX = bounds.NAME_LENGTH[1], bounds.ID_LENGTH[1]


def _modifiers_ok(value: Effect | EffectGiven) -> bool:
    for number in (value.attack, value.defense, value.initiative, value.blood_per_turn):
        if type(number) is not int or not _LOW <= number <= _HIGH:
            return False
    return True


def _check_modifiers(issues: Issues, field: str, value: Effect | EffectGiven) -> None:
    if not _modifiers_ok(value):
        for name in MODIFIERS:
            int_within(issues, f"{field}/{name}", getattr(value, name), bounds.EFFECT_MODIFIER)


def _name_ok(name: object) -> bool:
    return type(name) is str and bounds.NAME_LENGTH[0] <= len(name) <= bounds.NAME_LENGTH[1]


def _effect_is_plain(e: Effect) -> bool:
    """Every field of an effect within bounds, checked inline: two effects on each of ten combatants put this
    on the path of every round."""
    name, id, until = e.name, e.id, e.until_round
    attack, defense, initiative, blood = e.attack, e.defense, e.initiative, e.blood_per_turn
    return (
        type(name) is str
        and 1 <= len(name) <= _NAME_MAX
        and (id is None or (type(id) is str and 1 <= len(id) <= _ID_MAX))
        and (until is None or (type(until) is int and _UNTIL_LOW <= until <= _UNTIL_HIGH))
        and type(attack) is int
        and _LOW <= attack <= _HIGH
        and type(defense) is int
        and _LOW <= defense <= _HIGH
        and type(initiative) is int
        and _LOW <= initiative <= _HIGH
        and type(blood) is int
        and _LOW <= blood <= _HIGH
    )


def check_effects(issues: Issues, effects: tuple[Effect, ...], field: str) -> None:
    if len(effects) > bounds.MAX_EFFECTS:
        issues.add(field, f"at most {bounds.MAX_EFFECTS} effects per combatant")
    for index, effect in enumerate(effects):
        if _effect_is_plain(effect):
            continue
        here = f"{field}/{index}"
        text_within(issues, f"{here}/name", effect.name, bounds.NAME_LENGTH)
        id = effect.id
        if id is not None and not (type(id) is str and bounds.ID_LENGTH[0] <= len(id) <= bounds.ID_LENGTH[1]):
            low, high = bounds.ID_LENGTH
            issues.add(f"{here}/id", f"must be null or a string of {low}..{high} characters")
        _check_modifiers(issues, here, effect)
        optional_int_within(issues, f"{here}/until_round", effect.until_round, bounds.UNTIL_ROUND)


def check_effect_given(issues: Issues, given: EffectGiven, field: str) -> None:
    if not _name_ok(given.name):
        text_within(issues, f"{field}/name", given.name, bounds.NAME_LENGTH)
    _check_modifiers(issues, field, given)
    optional_int_within(issues, f"{field}/rounds", given.rounds, bounds.EFFECT_ROUNDS)


def _check_target(
    issues: Issues, field: str, target: object, by_id: Mapping[str, Combatant], dead_allowed: bool
) -> None:
    """A target named by a custom action or a long action (the actor itself allowed); None is the actor."""
    if target is None:
        return
    found = by_id.get(target) if isinstance(target, str) else None
    if found is None:
        issues.add(field, f"{target!r} is not a combatant of this encounter")
    elif found.status == "dead" and not dead_allowed:
        issues.add(field, f"{target!r} is already dead")


def check_long_action(issues: Issues, c: Combatant, field: str, by_id: Mapping[str, Combatant]) -> None:
    """A long action carried into the round. Its target may have died since: it then completes as target_down."""
    long_action = c.long_action
    if not isinstance(long_action, LongAction):
        issues.add(field, "must be {name, delay, target, effect, rounds_left} or null")
        return
    if c.status != "active":
        issues.add(field, f"{c.id!r} is {c.status}: only an active combatant carries a long action")
    if not _name_ok(long_action.name):
        text_within(issues, f"{field}/name", long_action.name, bounds.NAME_LENGTH)
    int_within(issues, f"{field}/delay", long_action.delay, bounds.DELAY)
    int_within(issues, f"{field}/rounds_left", long_action.rounds_left, bounds.ROUNDS_LEFT)
    _check_target(issues, f"{field}/target", long_action.target, by_id, dead_allowed=True)
    if long_action.effect is not None:
        check_effect_given(issues, long_action.effect, f"{field}/effect")


def custom_is_plain(action: Custom) -> bool:
    """A one-round custom action with nothing beyond a name and a delay."""
    return action.rounds == 1 and action.target is None and action.effect is None


def check_custom_extras(issues: Issues, action: Custom, field: str, by_id: Mapping[str, Combatant]) -> None:
    """Section 13's `rounds`, `target` and `effect` of a custom action."""
    int_within(issues, f"{field}/rounds", action.rounds, bounds.CUSTOM_ROUNDS)
    _check_target(issues, f"{field}/target", action.target, by_id, dead_allowed=False)
    if action.effect is not None:
        check_effect_given(issues, action.effect, f"{field}/effect")

"""resolve_round: a whole round, docs/rules.md "The round, step by step", from state + declarations + dice to what
happened."""

from __future__ import annotations

from collections.abc import Mapping

from .attack import TickEffects, resolve_action
from .dice import DiceSource, DieValue
from .holding import place_holds
from .initiative import order_into_ticks, schedule_round
from .model import ActionOutcome, CombatantState, RoundInput, RoundResult
from .ruleset import Ruleset, WeaponProfile
from .validate import validate_round
from .wounds import LiveCombatant, settle_turn


def resolve_round(
    state: RoundInput, ruleset: Ruleset, dice: DiceSource, *, checked_weapons: Mapping[str, WeaponProfile] | None = None
) -> RoundResult:
    """Resolve one round. Pure: the same input and dice give the same result, and nothing is changed.

    checked_weapons: only for a caller that vouches for the state, e.g. a simulation that plays the
    resolver's own results forward with declarations legal by construction: the weapon profiles a
    validate_round of these combatants returned (rounds never change a weapon), and validation is
    skipped (a fifth of a round of eight). Anyone else leaves it out: the state is validated."""
    weapons = validate_round(state, ruleset, dice.given()) if checked_weapons is None else checked_weapons
    used: dict[str, DieValue] = {}  # every die used, under its key, in the order used

    def roll(key: str, sides: int) -> int:
        value = used[key] = dice.roll(key, sides)
        return value

    def roll_many(key: str, count: int, sides: int) -> tuple[int, ...]:
        values = used[key] = tuple(dice.roll_many(key, count, sides))
        return values

    number = state.round
    live = {c.id: LiveCombatant.start(c, ruleset, number) for c in state.combatants}
    for declaration in state.declarations:
        if declaration.stance is not None:
            live[declaration.combatant].stance = declaration.stance
    scheduled, holds = schedule_round(state.declarations, live, weapons, ruleset, roll, state.groups)
    ticks = place_holds(scheduled, holds) if holds else order_into_ticks(scheduled)

    outcomes: list[ActionOutcome] = []
    effects = TickEffects(ruleset.long_action_broken_at)
    for tick_number, tick in enumerate(ticks, start=1):
        for action in tick:
            outcomes.append(
                resolve_action(action, tick_number, number, live, weapons, ruleset, roll, roll_many, effects)
            )
        effects.apply()

    ends_turn = number % ruleset.turn_length == 0
    bleeding = settle_turn(list(live.values())) if ends_turn else ()
    for c in live.values():
        if c.effects:
            c.drop_expired_effects(number)  # after the turn end's settling: they counted in it
    return RoundResult(
        round=number,
        turn=(number - 1) // ruleset.turn_length + 1,
        ends_turn=ends_turn,
        seed=dice.seed,
        dice=used,
        actions=tuple(outcomes),
        bleeding=bleeding,
        combatants=tuple(
            [
                CombatantState(
                    c.combatant.id, c.status, c.blood, c.weapon_ready, c.wounds, c.penalty, c.effects, c.long_action
                )
                for c in live.values()
            ]
        ),
    )

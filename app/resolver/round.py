"""resolve_round: a whole round, RULES.md section 3, from state + declarations + dice to what happened."""

from __future__ import annotations

from dataclasses import replace

from .attack import Effect, resolve_action
from .dice import DiceSource, DieValue
from .initiative import schedule_round
from .model import ActionOutcome, CombatantState, RoundInput, RoundResult
from .ruleset import Ruleset
from .validate import validate_round
from .wounds import LiveCombatant, settle_turn

BALANCED = "balanced"


class _RecordingDice:
    """Wraps a source and keeps every die used, under its key, in the order used."""

    def __init__(self, source: DiceSource):
        self.source = source
        self.used: dict[str, DieValue] = {}

    def roll(self, key: str, sides: int) -> int:
        value = self.used[key] = self.source.roll(key, sides)
        return value

    def roll_many(self, key: str, count: int, sides: int) -> tuple[int, ...]:
        values = self.used[key] = tuple(self.source.roll_many(key, count, sides))
        return values


def _apply(effects: list[Effect], live: dict[str, LiveCombatant]) -> None:
    for effect in effects:
        target = live[effect.target]
        if effect.draws_weapon:
            target.weapon_ready = True
        if effect.wound is not None:
            target.take_wound(effect.wound)
        if effect.stop_bleeding_of:
            target.stop_bleeding(effect.stop_bleeding_of)


def resolve_round(state: RoundInput, ruleset: Ruleset, dice: DiceSource) -> RoundResult:
    """Resolve one round. Pure: the same input and dice give the same result, and nothing is changed."""
    weapons = validate_round(state, ruleset, dice.given())
    recording = _RecordingDice(dice)
    live = {c.id: LiveCombatant.start(c, ruleset) for c in state.combatants}
    stances = {c.id: BALANCED for c in state.combatants}
    stances.update({d.combatant: d.stance for d in state.declarations if d.stance is not None})

    ticks = schedule_round(
        state.declarations,
        {c.id: c for c in state.combatants},
        {cid: c.penalty for cid, c in live.items()},
        weapons,
        ruleset,
        lambda actor, k: recording.roll(f"{actor}.initiative.{k}", ruleset.delay_die),
    )
    outcomes: list[ActionOutcome] = []
    for number, tick in enumerate(ticks, start=1):
        effects: list[Effect] = []  # applied together when the tick ends
        for action in tick:
            outcome, action_effects = resolve_action(action, number, live, weapons, stances, ruleset,
                                                     recording.roll, recording.roll_many)
            outcomes.append(outcome)
            effects.extend(action_effects)
        _apply(effects, live)

    ends_turn = state.round % ruleset.turn_length == 0
    bleeding = settle_turn(list(live.values())) if ends_turn else ()
    return RoundResult(
        round=state.round,
        turn=(state.round - 1) // ruleset.turn_length + 1,
        ends_turn=ends_turn,
        seed=dice.seed,
        dice=recording.used,
        actions=tuple(outcomes),
        bleeding=bleeding,
        combatants=tuple(_final_state(c) for c in live.values()),
    )


def _final_state(c: LiveCombatant) -> CombatantState:
    after = replace(c.combatant, status=c.status, blood=c.blood, weapon_ready=c.weapon_ready, wounds=tuple(c.wounds))
    return CombatantState(after, c.penalty)

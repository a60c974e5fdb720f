"""docs/rules.md, "Attack, defense, blow, wound", "First aid, custom actions and doing nothing" and "Long actions":
one action, read against the state at the start of its tick.

Nothing here changes state: each action returns its outcome and records what it does in the
tick's `TickEffects`, applied only when the tick ends. That is what makes simultaneous
actions simultaneous.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from .initiative import RollDie, Scheduled
from .model import (
    ActionOutcome,
    Attack,
    Continue,
    Custom,
    Effect,
    EffectGiven,
    FirstAid,
    LongAction,
    Result,
)
from .ruleset import Ruleset, WeaponProfile, WoundClass
from .wounds import LiveCombatant

RollDice = Callable[[str, int, int], tuple[int, ...]]  # (key, count, sides) -> values
D20 = 20


class TickEffects:
    """What the actions of one tick do, applied together when it ends (then it is empty again)."""

    __slots__ = ("drawn", "wounds", "first_aid", "given", "started", "progressed", "completed", "broken_at")

    def __init__(self, broken_at: int | None) -> None:
        self.broken_at = broken_at  # the ruleset's long_action_broken_at
        self.drawn: list[LiveCombatant] = []  # whose weapon is now in hand
        self.first_aid: list[tuple[LiveCombatant, int]] = []  # patient, wounds present when the tick began
        self.given: list[tuple[LiveCombatant, Effect]] = []  # in the tick's listing order
        self.wounds: list[tuple[LiveCombatant, WoundClass, int]] = []  # target, class, effective blow
        self.started: list[tuple[LiveCombatant, LongAction]] = []
        self.progressed: list[LiveCombatant] = []  # a long action one round nearer its end
        self.completed: list[LiveCombatant] = []

    def apply(self) -> None:
        """Section 13's tick end, in order: first aid, effects given, wounds, long actions, then breaking."""
        if self.drawn:
            for actor in self.drawn:
                actor.weapon_ready = True
            self.drawn.clear()
        if self.first_aid:
            for patient, wounds_before in self.first_aid:
                patient.stop_bleeding(wounds_before)
            self.first_aid.clear()
        if self.given:
            for target, effect in self.given:
                target.add_effect(effect)
            self.given.clear()
        wounds = self.wounds
        for target, row, _ in wounds:
            target.take_wound(row)
        if self.started or self.progressed or self.completed:
            for actor, long_action in self.started:
                actor.long_action = long_action
            for actor in self.progressed:
                assert actor.long_action is not None
                actor.long_action = replace(actor.long_action, rounds_left=actor.long_action.rounds_left - 1)
            for actor in self.completed:
                actor.long_action = None
            self.started.clear()
            self.progressed.clear()
            self.completed.clear()
        if wounds:
            # Only a wound can take a combatant out of action within a tick, so the wounded are the ones to check.
            broken_at = self.broken_at
            for target, _, effective in wounds:
                if target.long_action is not None and (
                    (broken_at is not None and effective >= broken_at) or target.status != "active"
                ):
                    target.long_action = None
            wounds.clear()


def _outcome(
    action: Scheduled,
    tick: int,
    result: Result,
    roll: int | None = None,
    target_number: int | None = None,
    hit: bool | None = None,
    margin: int | None = None,
    damage_rolls: tuple[int, ...] | None = None,
    blow: int | None = None,
    effective: int | None = None,
    wound: str | None = None,
) -> ActionOutcome:
    return ActionOutcome(
        tick,
        action.actor,
        action.seq,
        action.action.type,
        action.target,
        action.score,
        action.technical_actions,
        result,
        roll,
        target_number,
        hit,
        margin,
        damage_rolls,
        blow,
        effective,
        wound,
        action.name,
        action.held,
    )


def target_number(actor: LiveCombatant, target: LiveCombatant, ruleset: Ruleset) -> int:
    attack = actor.combatant.attack + ruleset.stances[actor.stance].attack - actor.penalty + actor.effect_attack
    if target.status == "unconscious":
        return attack  # an unconscious target defends with 0 flat: no stance, no penalty, no effect
    defense = target.combatant.defense + ruleset.stances[target.stance].defense - target.penalty + target.effect_defense
    return attack - defense


def resolve_attack(
    action: Scheduled,
    tick: int,
    actor: LiveCombatant,
    target: LiveCombatant,
    weapon: WeaponProfile,
    ruleset: Ruleset,
    roll: RollDie,
    roll_many: RollDice,
    effects: TickEffects,
) -> ActionOutcome:
    if not actor.weapon_ready:
        effects.drawn.append(actor)  # its attack came up while it was active: the weapon is in hand
    if target.status == "dead":
        return _outcome(action, tick, "target_down")
    tn = target_number(actor, target, ruleset)
    d20 = roll(f"{action.actor}.attack.{action.seq}", D20)
    # natural_miss first: when an override makes the two equal, that roll misses
    if d20 == ruleset.natural_miss or (d20 != ruleset.natural_hit and d20 > tn):
        return _outcome(action, tick, "miss", d20, tn, False)
    margin = max(0, tn - d20)
    damage = weapon.damage
    rolls = roll_many(f"{action.actor}.damage.{action.seq}", damage.count, damage.sides)
    blow = sum(rolls) + damage.modifier + actor.combatant.damage_bonus + margin // ruleset.margin_divisor
    effective = blow - target.armor - target.combatant.toughness
    wound = ruleset.wound_for(effective)
    if wound is None:
        return _outcome(action, tick, "deflected", d20, tn, True, margin, rolls, blow, effective)
    effects.wounds.append((target, wound, effective))
    return _outcome(action, tick, "wound", d20, tn, True, margin, rolls, blow, effective, wound.name)


def given_effect(given: EffectGiven, round: int, actor: str) -> Effect:
    """The effect a completed action leaves: named "<round>:<actor id>", lasting `rounds` after this round."""
    until = None if given.rounds is None else round + given.rounds
    return Effect(
        given.name, f"{round}:{actor}", given.attack, given.defense, given.initiative, given.blood_per_turn, until
    )


def complete(
    action: Scheduled,
    tick: int,
    round: int,
    live: Mapping[str, LiveCombatant],
    given: EffectGiven | None,
    effects: TickEffects,
) -> ActionOutcome:
    """A custom action that completes at this tick: `done` and its effect, or `target_down`."""
    target = live[action.target if action.target is not None else action.actor]
    if target.status == "dead":
        return _outcome(action, tick, "target_down")
    if given is not None:
        effects.given.append((target, given_effect(given, round, action.actor)))
    return _outcome(action, tick, "done")


def resolve_action(
    action: Scheduled,
    tick: int,
    round: int,
    live: Mapping[str, LiveCombatant],
    weapons: Mapping[str, WeaponProfile],
    ruleset: Ruleset,
    roll: RollDie,
    roll_many: RollDice,
    effects: TickEffects,
) -> ActionOutcome:
    actor = live[action.actor]
    if actor.status != "active":
        return _outcome(action, tick, "actor_down")
    kind = action.action
    if type(kind) is Attack:
        assert action.target is not None
        return resolve_attack(
            action, tick, actor, live[action.target], weapons[action.actor], ruleset, roll, roll_many, effects
        )
    if type(kind) is FirstAid:
        patient = live[kind.target]
        if patient.status == "dead":
            return _outcome(action, tick, "target_down")
        effects.first_aid.append((patient, len(patient.wounds)))
        return _outcome(action, tick, "done")
    if type(kind) is Custom:
        if kind.rounds > 1:  # a long action begins at the tick's end; its target is not checked yet
            effects.started.append(
                (actor, LongAction(kind.name, kind.delay, kind.rounds - 1, kind.target, kind.effect))
            )
            return _outcome(action, tick, "in_progress")
        return complete(action, tick, round, live, kind.effect, effects)
    if type(kind) is Continue:
        long_action = actor.long_action
        if long_action is None:  # lost earlier this round (it carried one when the round began)
            return _outcome(action, tick, "interrupted")
        if long_action.rounds_left > 1:
            effects.progressed.append(actor)
            return _outcome(action, tick, "in_progress")
        effects.completed.append(actor)
        return complete(action, tick, round, live, long_action.effect, effects)
    return _outcome(action, tick, "done")

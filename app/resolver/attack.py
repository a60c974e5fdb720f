"""RULES.md sections 6 and 8: one action, read against the state at the start of its tick.

Nothing here changes state: each action returns its outcome and records what it does in the
tick's `TickEffects`, applied only when the tick ends. That is what makes simultaneous
actions simultaneous.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .initiative import RollDie, Scheduled
from .model import ActionOutcome, Attack, FirstAid, action_outcome
from .ruleset import Ruleset, WeaponProfile, WoundClass
from .wounds import LiveCombatant

RollDice = Callable[[str, int, int], tuple[int, ...]]  # (key, count, sides) -> values
D20 = 20


class TickEffects:
    """What the actions of one tick do, applied together when it ends (then it is empty again)."""

    __slots__ = ("drawn", "wounds", "first_aid")

    def __init__(self) -> None:
        self.drawn: list[LiveCombatant] = []  # whose weapon is now in hand
        self.wounds: list[tuple[LiveCombatant, WoundClass]] = []  # in the tick's listing order
        self.first_aid: list[tuple[LiveCombatant, int]] = []  # patient, wounds present when the tick began

    def apply(self) -> None:
        if self.drawn:
            for actor in self.drawn:
                actor.weapon_ready = True
            self.drawn.clear()
        if self.wounds:
            for target, row in self.wounds:
                target.take_wound(row)
            self.wounds.clear()
        if self.first_aid:
            for patient, wounds_before in self.first_aid:
                if patient.status != "dead":  # killed by a blow of this same tick: a dead one never changes again
                    patient.stop_bleeding(wounds_before)
            self.first_aid.clear()


def _outcome(
    action: Scheduled,
    tick: int,
    result: str,
    roll=None,
    target_number=None,
    hit=None,
    margin=None,
    damage_rolls=None,
    blow=None,
    effective=None,
    wound=None,
) -> ActionOutcome:
    return action_outcome(
        tick,
        action.actor,
        action.seq,
        action.declaration.action.type,
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
    )


def target_number(actor: LiveCombatant, target: LiveCombatant, ruleset: Ruleset) -> int:
    attack = actor.combatant.attack + ruleset.stances[actor.stance].attack - actor.penalty
    if target.status == "unconscious":
        return attack  # an unconscious target defends with 0 flat: no stance, no penalty
    defense = target.combatant.defense + ruleset.stances[target.stance].defense - target.penalty
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
    if not (d20 == ruleset.natural_hit or (d20 != ruleset.natural_miss and d20 <= tn)):
        return _outcome(action, tick, "miss", d20, tn, False)
    margin = max(0, tn - d20)
    damage = weapon.damage
    rolls = roll_many(f"{action.actor}.damage.{action.seq}", damage.count, damage.sides)
    blow = sum(rolls) + damage.modifier + actor.combatant.damage_bonus + margin // ruleset.margin_divisor
    effective = blow - target.combatant.armor - target.combatant.toughness
    wound = ruleset.wound_for(effective)
    if wound is None:
        return _outcome(action, tick, "deflected", d20, tn, True, margin, rolls, blow, effective)
    effects.wounds.append((target, wound))
    return _outcome(action, tick, "wound", d20, tn, True, margin, rolls, blow, effective, wound.name)


def resolve_action(
    action: Scheduled,
    tick: int,
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
    kind = action.declaration.action
    if isinstance(kind, Attack):
        return resolve_attack(
            action, tick, actor, live[action.target], weapons[action.actor], ruleset, roll, roll_many, effects
        )
    if isinstance(kind, FirstAid):
        patient = live[kind.target]
        if patient.status == "dead":
            return _outcome(action, tick, "target_down")
        effects.first_aid.append((patient, len(patient.wounds)))
        return _outcome(action, tick, "done")
    return _outcome(action, tick, "done")

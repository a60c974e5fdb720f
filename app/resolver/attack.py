"""RULES.md sections 6 and 8: one action, read against the state at the start of its tick.

Nothing here changes state: each action returns its outcome and the effect to apply when
its tick ends, which is what makes simultaneous actions simultaneous.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .initiative import Scheduled
from .model import ActionOutcome, Attack, FirstAid
from .ruleset import Ruleset, WeaponProfile, WoundClass
from .wounds import LiveCombatant

RollDie = Callable[[str, int], int]  # (key, sides) -> value
RollDice = Callable[[str, int, int], tuple[int, ...]]  # (key, count, sides) -> values
D20 = 20


@dataclass(frozen=True, slots=True)
class Effect:
    """What an action does to the state when its tick ends."""

    target: str
    wound: WoundClass | None = None
    stop_bleeding_of: int = 0  # first aid: how many wounds (those present at tick start) stop bleeding
    draws_weapon: str | None = None  # the actor whose weapon is now in hand


def _outcome(action: Scheduled, tick: int, result: str, **fields) -> ActionOutcome:
    return ActionOutcome(tick=tick, actor=action.actor, seq=action.seq, type=action.declaration.action.type,
                         target=action.target, score=action.score, technical_actions=action.technical_actions,
                         result=result, **fields)


def target_number(actor: LiveCombatant, target: LiveCombatant, actor_stance: str, target_stance: str,
                  ruleset: Ruleset) -> int:
    attack = actor.combatant.attack + ruleset.stances[actor_stance].attack - actor.penalty
    if target.status == "unconscious":
        return attack  # an unconscious target defends with 0 flat: no stance, no penalty
    defense = target.combatant.defense + ruleset.stances[target_stance].defense - target.penalty
    return attack - defense


def resolve_attack(action: Scheduled, tick: int, actor: LiveCombatant, target: LiveCombatant,
                   weapon: WeaponProfile, stances: Mapping[str, str], ruleset: Ruleset,
                   roll: RollDie, roll_many: RollDice) -> tuple[ActionOutcome, list[Effect]]:
    drawn = [Effect(actor.combatant.id, draws_weapon=actor.combatant.id)] if not actor.weapon_ready else []
    if target.status == "dead":
        return _outcome(action, tick, "target_down"), drawn
    tn = target_number(actor, target, stances[actor.combatant.id], stances[target.combatant.id], ruleset)
    d20 = roll(f"{action.actor}.attack.{action.seq}", D20)
    hit = d20 == ruleset.natural_hit or (d20 != ruleset.natural_miss and d20 <= tn)
    if not hit:
        return _outcome(action, tick, "miss", roll=d20, target_number=tn, hit=False), drawn
    margin = max(0, tn - d20)
    damage = weapon.damage
    rolls = roll_many(f"{action.actor}.damage.{action.seq}", damage.count, damage.sides)
    blow = sum(rolls) + damage.modifier + actor.combatant.damage_bonus + margin // ruleset.margin_divisor
    effective = blow - target.combatant.armor - target.combatant.toughness
    wound = ruleset.wound_for(effective)
    fields = dict(roll=d20, target_number=tn, hit=True, margin=margin, damage_rolls=rolls, blow=blow,
                  effective=effective)
    if wound is None:
        return _outcome(action, tick, "deflected", **fields), drawn
    outcome = _outcome(action, tick, "wound", wound=wound.name, **fields)
    return outcome, [*drawn, Effect(target.combatant.id, wound=wound)]


def resolve_action(action: Scheduled, tick: int, live: Mapping[str, LiveCombatant],
                   weapons: Mapping[str, WeaponProfile], stances: Mapping[str, str], ruleset: Ruleset,
                   roll: RollDie, roll_many: RollDice) -> tuple[ActionOutcome, list[Effect]]:
    actor = live[action.actor]
    if actor.status != "active":
        return _outcome(action, tick, "actor_down"), []
    kind = action.declaration.action
    if isinstance(kind, Attack):
        return resolve_attack(action, tick, actor, live[action.target], weapons[action.actor], stances,
                              ruleset, roll, roll_many)
    if isinstance(kind, FirstAid):
        patient = live[kind.target]
        if patient.status == "dead":
            return _outcome(action, tick, "target_down"), []
        return _outcome(action, tick, "done"), [Effect(patient.combatant.id, stop_bleeding_of=len(patient.wounds))]
    return _outcome(action, tick, "done"), []

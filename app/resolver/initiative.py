"""RULES.md sections 5 and 13: scores for every action of the round, and the order and ticks they make."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .model import Action, Attack, Continue, Custom, Declaration, FirstAid, LongAction
from .ruleset import Ruleset, WeaponProfile
from .wounds import LiveCombatant

CONTINUE = Continue()


class Scheduled:
    """One action placed in the round: its score, and what breaks ties. Private to a round, so a
    plain slotted class: a frozen dataclass costs several times more to build, on the hot path."""

    __slots__ = ("score", "initiative", "actor", "seq", "action", "technical_actions", "target", "name")

    def __init__(
        self,
        score: int,
        initiative: int,
        actor: str,
        seq: int,
        action: Action,
        technical_actions: int,
        target: str | None,
        name: str | None = None,
    ):
        self.score = score
        self.initiative = initiative  # as entered, before any penalty or effect: the first tie-breaker
        self.actor = actor
        self.seq = seq
        self.action = action
        self.technical_actions = technical_actions  # paid in this score (0 on attacks after the first)
        self.target = target
        self.name = name  # custom and continue entries


RollDie = Callable[[str, int], int]  # (key, sides) -> value


def continues(long_action: LongAction | None, declaration: Declaration | None) -> bool:
    """Section 13: a carried long action goes on when the declaration is absent, has no action, or says continue."""
    if long_action is None:
        return False
    return declaration is None or declaration.action is None or type(declaration.action) is Continue


def schedule_declaration(
    declaration: Declaration, live: LiveCombatant, weapon: WeaponProfile, ruleset: Ruleset, roll: RollDie
) -> list[Scheduled]:
    """The scores of one combatant's actions, attack k >= 2 following attack k-1."""
    actor = live.combatant
    action = declaration.action
    if isinstance(action, Attack):
        delay, count = weapon.delay, actor.attacks_per_round
    elif isinstance(action, FirstAid):
        delay, count = ruleset.first_aid_delay, 1
    elif isinstance(action, Custom):
        delay, count = action.delay, 1
    else:
        return []
    technical = declaration.technical_actions
    if isinstance(action, Attack) and not actor.weapon_ready:
        technical += 1  # drawing the weapon is a technical action by itself
    delay_die = ruleset.delay_die
    score = (
        actor.initiative
        - live.penalty
        + live.effect_initiative
        - ruleset.technical_action_penalty * technical
        - delay
        - roll(f"{actor.id}.initiative.1", delay_die)
    )
    if isinstance(action, Attack):
        targets = action.targets
        last = len(targets) - 1
        scheduled = [Scheduled(score, actor.initiative, actor.id, 1, action, technical, targets[0])]
        for k in range(2, count + 1):
            score -= delay + roll(f"{actor.id}.initiative.{k}", delay_die)
            # attacks past the list's end go to its last id
            scheduled.append(Scheduled(score, actor.initiative, actor.id, k, action, 0, targets[min(k - 1, last)]))
        return scheduled
    if isinstance(action, Custom):
        return [Scheduled(score, actor.initiative, actor.id, 1, action, technical, action.target, action.name)]
    return [Scheduled(score, actor.initiative, actor.id, 1, action, technical, action.target)]


def schedule_continue(live: LiveCombatant, ruleset: Ruleset, roll: RollDie) -> Scheduled:
    """Section 13: one delay-die roll, the long action's delay, no technical actions."""
    actor = live.combatant
    long_action = live.long_action
    assert long_action is not None  # only combatants that continue are scheduled here
    score = (
        actor.initiative
        - live.penalty
        + live.effect_initiative
        - long_action.delay
        - roll(f"{actor.id}.initiative.1", ruleset.delay_die)
    )
    return Scheduled(score, actor.initiative, actor.id, 1, CONTINUE, 0, long_action.target, long_action.name)


def _resolution_order(action: Scheduled) -> tuple[int, int, str, int]:
    return (-action.score, -action.initiative, action.actor, action.seq)  # str order: code point by code point


def order_into_ticks(actions: list[Scheduled]) -> list[list[Scheduled]]:
    """Higher score first; then higher initiative; still equal: one simultaneous tick,
    listed by combatant id, then seq."""
    actions = sorted(actions, key=_resolution_order)
    ticks: list[list[Scheduled]] = []
    previous: tuple[int, int] | None = None
    for action in actions:
        moment = (action.score, action.initiative)
        if moment != previous:
            ticks.append([])
            previous = moment
        ticks[-1].append(action)
    return ticks


def schedule_round(
    declarations: tuple[Declaration, ...],
    live: Mapping[str, LiveCombatant],
    weapons: Mapping[str, WeaponProfile],
    ruleset: Ruleset,
    roll: RollDie,
) -> list[list[Scheduled]]:
    """Every action of the round in ticks. A long action not continued is dropped here, as the round begins."""
    scheduled: list[Scheduled] = []
    declared: dict[str, Declaration] = {}
    for declaration in declarations:
        actor = declaration.combatant
        declared[actor] = declaration
        combatant = live[actor]
        if combatant.long_action is not None:
            if continues(combatant.long_action, declaration):
                scheduled.append(schedule_continue(combatant, ruleset, roll))
                continue
            combatant.long_action = None  # abandoned: the declaration plays as usual
        scheduled.extend(schedule_declaration(declaration, combatant, weapons[actor], ruleset, roll))
    for id, combatant in live.items():
        if combatant.long_action is not None and id not in declared:
            scheduled.append(schedule_continue(combatant, ruleset, roll))
    return order_into_ticks(scheduled)

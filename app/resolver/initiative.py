"""docs/rules.md, "Initiative", "Long actions" and "Holding and groups": scores for every action of the round, and
the order and ticks they make."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .model import Action, Attack, Continue, Custom, Declaration, FirstAid, LongAction
from .ruleset import Ruleset, WeaponProfile
from .wounds import LiveCombatant

CONTINUE = Continue()


class Scheduled:
    """One action placed in the round: its score, and what breaks ties. Private to a round, so a
    plain slotted class: a frozen dataclass costs several times more to build, on the hot path."""

    __slots__ = ("score", "initiative", "actor", "seq", "action", "technical_actions", "target", "name", "held")

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
        self.held = False  # a first action a hold moved (holding.place_holds sets it)


RollDie = Callable[[str, int], int]  # (key, sides) -> value
FirstDie = Callable[[str], int]  # actor id -> the delay die of its first action (its own, or its group's)


def continues(long_action: LongAction | None, declaration: Declaration | None) -> bool:
    """Section 13: a carried long action goes on when the declaration is absent, has no action, or says continue."""
    if long_action is None:
        return False
    return declaration is None or declaration.action is None or type(declaration.action) is Continue


def schedule_declaration(
    declaration: Declaration,
    live: LiveCombatant,
    weapon: WeaponProfile,
    ruleset: Ruleset,
    roll: RollDie,
    first_die: FirstDie,
) -> list[Scheduled]:
    """The scores of one combatant's actions."""
    action = declaration.action
    if type(action) is Attack:
        return schedule_attacks(action, declaration.technical_actions, live, weapon, ruleset, roll, first_die)
    target: str | None
    if type(action) is FirstAid:
        delay, target, name = ruleset.first_aid_delay, action.target, None
    elif type(action) is Custom:
        delay, target, name = action.delay, action.target, action.name
    else:
        return []
    technical = declaration.technical_actions
    score = first_score(live, ruleset, technical, delay, first_die)
    return [Scheduled(score, live.combatant.initiative, live.combatant.id, 1, action, technical, target, name)]


def schedule_attacks(
    attack: Attack,
    technical: int,
    live: LiveCombatant,
    weapon: WeaponProfile,
    ruleset: Ruleset,
    roll: RollDie,
    first_die: FirstDie,
) -> list[Scheduled]:
    """Every attack of the round, attack k >= 2 following attack k-1; attacks past the list's end go to its last id."""
    actor = live.combatant
    if not actor.weapon_ready:
        technical += 1  # drawing the weapon is a technical action by itself
    delay = weapon.delay
    score = first_score(live, ruleset, technical, delay, first_die)
    targets = attack.targets
    scheduled = [Scheduled(score, actor.initiative, actor.id, 1, attack, technical, targets[0])]
    if actor.attacks_per_round > 1:
        last = len(targets) - 1
        for k in range(2, actor.attacks_per_round + 1):
            score -= delay + roll(f"{actor.id}.initiative.{k}", ruleset.delay_die)
            scheduled.append(Scheduled(score, actor.initiative, actor.id, k, attack, 0, targets[min(k - 1, last)]))
    return scheduled


def first_score(live: LiveCombatant, ruleset: Ruleset, technical: int, delay: int, first_die: FirstDie) -> int:
    """The score of a combatant's first action: docs/rules.md's "Initiative" sum, with one delay-die roll."""
    actor = live.combatant
    return (
        actor.initiative
        - live.penalty
        + live.effect_initiative
        - ruleset.technical_action_penalty * technical
        - delay
        - first_die(actor.id)
    )


def first_dice(groups: Mapping[str, str], sides: int, roll: RollDie) -> FirstDie:
    """Section 14: a group's members share one delay die for their first actions, `group:<name>.initiative.1`,
    rolled once (the first time a member needs it); everyone else rolls `<id>.initiative.1`."""
    if not groups:
        return lambda actor: roll(f"{actor}.initiative.1", sides)
    shared: dict[str, int] = {}

    def first_die(actor: str) -> int:
        group = groups.get(actor)
        if group is None:
            return roll(f"{actor}.initiative.1", sides)
        value = shared.get(group)
        if value is None:
            value = shared[group] = roll(group_die_key(group), sides)
        return value

    return first_die


def group_die_key(group: str) -> str:
    return f"group:{group}.initiative.1"


def schedule_continue(live: LiveCombatant, ruleset: Ruleset, first_die: FirstDie) -> Scheduled:
    """Section 13: one delay-die roll, the long action's delay, no technical actions."""
    actor = live.combatant
    long_action = live.long_action
    assert long_action is not None  # only combatants that continue are scheduled here
    score = first_score(live, ruleset, 0, long_action.delay, first_die)
    return Scheduled(score, actor.initiative, actor.id, 1, CONTINUE, 0, long_action.target, long_action.name)


def resolution_order(action: Scheduled) -> tuple[int, int, str, int]:
    return (-action.score, -action.initiative, action.actor, action.seq)  # str order: code point by code point


def order_into_ticks(actions: list[Scheduled]) -> list[list[Scheduled]]:
    """Higher score first; then higher initiative; still equal: one simultaneous tick,
    listed by combatant id, then seq."""
    actions = sorted(actions, key=resolution_order)
    ticks: list[list[Scheduled]] = []
    tick: list[Scheduled] = []
    for action in actions:
        if not tick or action.score != tick[0].score or action.initiative != tick[0].initiative:
            tick = []
            ticks.append(tick)
        tick.append(action)
    return ticks


def schedule_round(
    declarations: tuple[Declaration, ...],
    live: Mapping[str, LiveCombatant],
    weapons: Mapping[str, WeaponProfile],
    ruleset: Ruleset,
    roll: RollDie,
    groups: Mapping[str, str],
) -> tuple[list[Scheduled], dict[str, str]]:
    """Every action of the round with its score as rolled, and the holds of the actions scheduled (holder ->
    the combatant it waits for). A long action not continued is dropped here, as the round begins."""
    scheduled: list[Scheduled] = []
    declared: dict[str, Declaration] = {}
    holds: dict[str, str] = {}
    first_die = first_dice(groups, ruleset.delay_die, roll)
    for declaration in declarations:
        actor = declaration.combatant
        declared[actor] = declaration
        combatant = live[actor]
        if combatant.long_action is not None:
            if continues(combatant.long_action, declaration):
                scheduled.append(schedule_continue(combatant, ruleset, first_die))
                continue
            combatant.long_action = None  # abandoned: the declaration plays as usual
        if declaration.hold is not None:
            holds[actor] = declaration.hold
        scheduled.extend(schedule_declaration(declaration, combatant, weapons[actor], ruleset, roll, first_die))
    for id, combatant in live.items():
        if combatant.long_action is not None and id not in declared:
            scheduled.append(schedule_continue(combatant, ruleset, first_die))
    return scheduled, holds

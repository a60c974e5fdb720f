"""RULES.md section 5: scores for every action of the round, and the order and ticks they make."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .model import Attack, Custom, Declaration, FirstAid
from .ruleset import Ruleset, WeaponProfile
from .wounds import LiveCombatant


class Scheduled:
    """One action placed in the round: its score, and what breaks ties. Private to a round, so a
    plain slotted class: a frozen dataclass costs several times more to build, on the hot path."""

    __slots__ = ("score", "initiative", "actor", "seq", "declaration", "technical_actions", "target")

    def __init__(
        self, score: int, initiative: int, actor: str, seq: int, declaration: Declaration, technical_actions: int
    ):
        self.score = score
        self.initiative = initiative  # as entered, before any penalty: the first tie-breaker
        self.actor = actor
        self.seq = seq
        self.declaration = declaration
        self.technical_actions = technical_actions  # paid in this score (0 on attacks after the first)
        action = declaration.action
        if isinstance(action, Attack):
            targets = action.targets
            self.target: str | None = targets[min(seq, len(targets)) - 1]  # past the list's end: its last id
        else:
            self.target = getattr(action, "target", None)


RollDie = Callable[[str, int], int]  # (key, sides) -> value


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
        - ruleset.technical_action_penalty * technical
        - delay
        - roll(f"{actor.id}.initiative.1", delay_die)
    )
    scheduled = [Scheduled(score, actor.initiative, actor.id, 1, declaration, technical)]
    for k in range(2, count + 1):
        score -= delay + roll(f"{actor.id}.initiative.{k}", delay_die)
        scheduled.append(Scheduled(score, actor.initiative, actor.id, k, declaration, 0))
    return scheduled


def _resolution_order(action: Scheduled) -> tuple[int, int, str, int]:
    return (-action.score, -action.initiative, action.actor, action.seq)


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
    scheduled: list[Scheduled] = []
    for declaration in declarations:
        actor = declaration.combatant
        scheduled.extend(schedule_declaration(declaration, live[actor], weapons[actor], ruleset, roll))
    return order_into_ticks(scheduled)

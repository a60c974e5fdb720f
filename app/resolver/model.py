"""What goes into the resolver and what comes out: dataclasses, nothing else.

All are frozen except the two records a round builds by the thousand (ActionOutcome, CombatantState):
in CPython a frozen dataclass pays an object.__setattr__ per field to build, which made them a tenth
of an odds simulation's time. Nothing changes them after the resolver returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

Status = Literal["active", "unconscious", "dead"]
Result = Literal["wound", "deflected", "miss", "actor_down", "target_down", "done", "in_progress", "interrupted"]


@dataclass(frozen=True, slots=True)
class InlineWeapon:
    """A weapon not in the armory: `{name, delay, damage}` with dice notation."""

    name: str
    delay: int
    damage: str


@dataclass(frozen=True, slots=True)
class Wound:
    """A wound carried. `penalty` and `bleed` of None take the class's row of the wound table."""

    cls: str
    penalty: int | None = None
    bleed: int | None = None


@dataclass(frozen=True, slots=True)
class Effect:
    """A lasting condition a combatant carries (docs/rules.md: Effects), active up to `until_round`
    (None: until removed)."""

    name: str
    id: str | None = None  # carried through unchanged; an effect an action gives is named "<round>:<actor id>"
    attack: int = 0
    defense: int = 0
    initiative: int = 0
    blood_per_turn: int = 0
    until_round: int | None = None


@dataclass(frozen=True, slots=True)
class EffectGiven:
    """The effect a custom action gives its target when it completes (docs/rules.md: Long actions): `rounds` after that
    round, or until removed when None."""

    name: str
    attack: int = 0
    defense: int = 0
    initiative: int = 0
    blood_per_turn: int = 0
    rounds: int | None = None


@dataclass(frozen=True, slots=True)
class LongAction:
    """A custom action a combatant is in the middle of (docs/rules.md: Long actions). `target` None: the actor
    itself."""

    name: str
    delay: int
    rounds_left: int
    target: str | None = None
    effect: EffectGiven | None = None


@dataclass(frozen=True, slots=True)
class Combatant:
    id: str
    initiative: int
    attack: int
    defense: int
    weapon: str | InlineWeapon
    attacks_per_round: int = 1
    weapon_ready: bool = True
    damage_bonus: int = 0
    armor: int | str = 0  # a number, or a key of the ruleset's armor table
    toughness: int = 0
    vitality: int = 10
    blood: int | None = None  # None: full, equal to vitality
    status: Status = "active"
    wounds: tuple[Wound, ...] = ()
    effects: tuple[Effect, ...] = ()
    long_action: LongAction | None = None


@dataclass(frozen=True, slots=True)
class Attack:
    targets: tuple[str, ...]
    type: Literal["attack"] = "attack"
    shorthand: bool = False  # the request named one `target`, not `targets`: refusals point at `target`


@dataclass(frozen=True, slots=True)
class FirstAid:
    target: str
    type: Literal["first_aid"] = "first_aid"


@dataclass(frozen=True, slots=True)
class Custom:
    """A spell, maneuver or anything else; with `rounds` > 1 a long action (docs/rules.md: Long actions)."""

    name: str
    delay: int
    type: Literal["custom"] = "custom"
    rounds: int = 1
    target: str | None = None  # None: the actor itself (and the entry's target stays null)
    effect: EffectGiven | None = None


@dataclass(frozen=True, slots=True)
class Continue:
    """Go on with the long action the combatant carries."""

    type: Literal["continue"] = "continue"


@dataclass(frozen=True, slots=True)
class NoAction:
    type: Literal["none"] = "none"


Action = Attack | FirstAid | Custom | Continue | NoAction


@dataclass(frozen=True, slots=True)
class Declaration:
    combatant: str
    action: Action | None = None  # None (no action given): continue a carried long action, else none
    stance: str | None = None  # None: balanced
    technical_actions: int = 0
    # Holding and groups (docs/rules.md): the first action waits until this combatant's first action has resolved
    hold: str | None = None


@dataclass(frozen=True, slots=True)
class RoundInput:
    """`groups` maps a combatant's id to its group (docs/rules.md: Holding and groups; a combatant's `group`); one
    without a group is absent. It is kept here, beside the combatants, not on Combatant: the service derives
    its stored columns and schemas from Combatant's fields, and `group` has no column there yet."""

    round: int
    combatants: tuple[Combatant, ...]
    declarations: tuple[Declaration, ...]
    groups: Mapping[str, str] = field(default_factory=dict)


@dataclass(slots=True)  # built per action on the hot path: see the module's docstring
class ActionOutcome:
    tick: int
    actor: str
    seq: int
    type: str
    target: str | None
    score: int
    technical_actions: int
    result: Result
    roll: int | None = None
    target_number: int | None = None
    hit: bool | None = None
    margin: int | None = None
    damage_rolls: tuple[int, ...] | None = None
    blow: int | None = None
    effective: int | None = None
    wound: str | None = None
    name: str | None = None  # custom and continue entries: the action's name
    held: bool = False  # Holding and groups (docs/rules.md): a first action a hold moved


@dataclass(frozen=True, slots=True)
class BloodLoss:
    combatant: str
    lost: int
    blood: int
    status: Status


@dataclass(slots=True)  # built per combatant and round on the hot path: see the module's docstring
class CombatantState:
    """What a round changes on a combatant, as it stands after the round (every other field is as given)."""

    id: str
    status: Status
    blood: int
    weapon_ready: bool
    wounds: tuple[Wound, ...]  # penalty and bleed filled in
    penalty: int  # the sum of the wounds' penalties
    effects: tuple[Effect, ...]
    long_action: LongAction | None


@dataclass(frozen=True, slots=True)
class RoundResult:
    round: int
    turn: int
    ends_turn: bool
    seed: int | None
    dice: dict[str, int | tuple[int, ...]]
    actions: tuple[ActionOutcome, ...]
    bleeding: tuple[BloodLoss, ...]
    combatants: tuple[CombatantState, ...]

"""docs/rules.md, "What the service refuses": everything refused before a round is resolved, each issue naming its
field."""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter
from typing import Any

from . import bounds
from .checks import int_within as _int_within
from .checks import text_within as _text_within
from .errors import InvalidNotation, InvalidRound, Issues, UnknownKey
from .initiative import continues, group_die_key
from .model import Attack, Combatant, Continue, Custom, Declaration, FirstAid, InlineWeapon, NoAction, RoundInput
from .notation import parse_damage
from .ruleset import STATUSES, Ruleset, WeaponProfile
from .validate_lasting import check_custom_extras, check_effects, check_long_action, custom_is_plain

D20 = 20
COMBATANT_NUMBERS = (
    ("initiative", bounds.INITIATIVE),
    ("attack", bounds.ATTACK),
    ("defense", bounds.DEFENSE),
    ("attacks_per_round", bounds.ATTACKS_PER_ROUND),
    ("damage_bonus", bounds.DAMAGE_BONUS),
    ("armor", bounds.ARMOR),
    ("toughness", bounds.TOUGHNESS),
    ("vitality", bounds.VITALITY),
)


def weapon_profile(weapon: str | InlineWeapon, ruleset: Ruleset, field: str) -> WeaponProfile:
    """The weapon's delay and damage: an armory key, or an inline profile. An unknown key raises UnknownKey."""
    if isinstance(weapon, InlineWeapon):
        return WeaponProfile(weapon.name, weapon.delay, parse_damage(weapon.damage, f"{field}/damage"))
    profile = ruleset.armory.get(weapon) if isinstance(weapon, str) else None
    if profile is None:
        issues = Issues()
        if isinstance(weapon, str):
            issues.add_unknown_key(field, "armory", weapon, list(ruleset.armory))
        else:
            issues.add(field, "must be a key of the armory or an inline {name, delay, damage}")
        issues.raise_if_any()
    assert profile is not None  # raise_if_any raised otherwise
    return profile


def check_armor(issues: Issues, armor: Any, ruleset: Ruleset, field: str) -> None:
    """Section 2: a number within bounds, or a key of the ruleset's armor table."""
    if isinstance(armor, str):
        if armor not in ruleset.armor:
            issues.add_unknown_key(field, "armor table", armor, list(ruleset.armor))
    else:
        _int_within(issues, field, armor, bounds.ARMOR)


def _check_combatant(issues: Issues, c: Combatant, field: str, ruleset: Ruleset) -> WeaponProfile | None:
    _text_within(issues, f"{field}/id", c.id, bounds.ID_LENGTH)
    for name, limits in COMBATANT_NUMBERS:
        value = getattr(c, name)
        if type(value) is not int or not limits[0] <= value <= limits[1]:  # hot: only a bad value builds its field
            if name == "armor":
                check_armor(issues, value, ruleset, f"{field}/armor")
            else:
                _int_within(issues, f"{field}/{name}", value, limits)
    if c.blood is not None:
        _int_within(issues, f"{field}/blood", c.blood, bounds.BLOOD)
    if not isinstance(c.weapon_ready, bool):
        issues.add(f"{field}/weapon_ready", "must be a boolean")
    if c.status not in STATUSES:
        issues.add(f"{field}/status", f"must be one of {', '.join(STATUSES)}")
    if len(c.wounds) > bounds.MAX_WOUNDS:
        issues.add(f"{field}/wounds", f"at most {bounds.MAX_WOUNDS} wounds")
    for index, wound in enumerate(c.wounds):
        here = f"{field}/wounds/{index}"
        if not isinstance(wound.cls, str) or not 1 <= len(wound.cls) <= bounds.ID_LENGTH[1]:
            issues.add(f"{here}/class", "must be a wound class name")
        elif (wound.penalty is None or wound.bleed is None) and ruleset.wound_class(wound.cls) is None:
            # a wound that names its own penalty and bleed may carry any class (a burn, a curse)
            issues.add(f"{here}/class", f"{wound.cls!r} is not a wound class of the ruleset")
        if wound.penalty is not None:
            _int_within(issues, f"{here}/penalty", wound.penalty, bounds.WOUND_PENALTY)
        if wound.bleed is not None:
            _int_within(issues, f"{here}/bleed", wound.bleed, bounds.WOUND_BLEED)
    weapon = c.weapon
    if isinstance(weapon, InlineWeapon):
        _text_within(issues, f"{field}/weapon/name", weapon.name, bounds.NAME_LENGTH)
        if not _int_within(issues, f"{field}/weapon/delay", weapon.delay, bounds.DELAY):
            return None
    try:
        return weapon_profile(weapon, ruleset, f"{field}/weapon")
    except (InvalidNotation, InvalidRound) as error:
        issues.found.extend(error.issues)
        if isinstance(error, UnknownKey):
            issues.unknown_keys += len(error.issues)
        return None


# The common case first, checked cheaply: these predicates only ever say "plainly valid" or "look
# closer". Anything they do not accept goes through the detailed checks above and below, which
# alone decide what is refused and say why. (Building every field's JSON pointer up front cost a
# quarter of a round.)
_NUMBERS = attrgetter(*(name for name, _ in COMBATANT_NUMBERS))
_NUMBER_LIMITS = tuple(limits for _, limits in COMBATANT_NUMBERS)


def _plain_weapon(c: Combatant, ruleset: Ruleset) -> WeaponProfile | None:
    """The weapon of a combatant with nothing to remark on, or None."""
    if type(c.id) is not str or not bounds.ID_LENGTH[0] <= len(c.id) <= bounds.ID_LENGTH[1]:
        return None
    for value, (low, high) in zip(_NUMBERS(c), _NUMBER_LIMITS):
        if type(value) is not int or not low <= value <= high:
            return None
    blood = c.blood
    if blood is not None and (type(blood) is not int or not bounds.BLOOD[0] <= blood <= bounds.BLOOD[1]):
        return None
    if type(c.weapon_ready) is not bool or c.status not in STATUSES or len(c.wounds) > bounds.MAX_WOUNDS:
        return None
    for wound in c.wounds:
        penalty, bleed = wound.penalty, wound.bleed
        if penalty is None or bleed is None:
            if type(wound.cls) is not str or ruleset.wound_class(wound.cls) is None:
                return None
        if penalty is not None and (type(penalty) is not int or not 0 <= penalty <= bounds.WOUND_PENALTY[1]):
            return None
        if bleed is not None and (type(bleed) is not int or not 0 <= bleed <= bounds.WOUND_BLEED[1]):
            return None
        if type(wound.cls) is not str or not 1 <= len(wound.cls) <= bounds.ID_LENGTH[1]:
            return None
    return ruleset.armory.get(c.weapon) if type(c.weapon) is str else None


def _plain_target(target: Any, actor: str, by_id: Mapping[str, Combatant], self_allowed: bool) -> bool:
    found = by_id.get(target) if type(target) is str else None
    return found is not None and found.status != "dead" and (self_allowed or target != actor)


def _plainly_valid(d: Declaration, by_id: Mapping[str, Combatant], ruleset: Ruleset) -> bool:
    actor = by_id.get(d.combatant)
    if actor is None or actor.status != "active" or d.hold is not None:  # a hold: looked at closely
        return False
    if d.stance is not None and (type(d.stance) is not str or d.stance not in ruleset.stances):
        return False
    technical = d.technical_actions
    if type(technical) is not int or not bounds.TECHNICAL_ACTIONS[0] <= technical <= bounds.TECHNICAL_ACTIONS[1]:
        return False
    action = d.action
    if type(action) is Attack:
        targets = action.targets
        if not 1 <= len(targets) <= actor.attacks_per_round:
            return False
        for target in targets:
            if not _plain_target(target, d.combatant, by_id, False):
                return False
        return True
    if type(action) is FirstAid:
        return _plain_target(action.target, d.combatant, by_id, True)
    if type(action) is Custom:
        return (
            type(action.name) is str
            and bounds.NAME_LENGTH[0] <= len(action.name) <= bounds.NAME_LENGTH[1]
            and type(action.delay) is int
            and bounds.DELAY[0] <= action.delay <= bounds.DELAY[1]
            and custom_is_plain(action)
        )
    if type(action) is Continue:
        return technical == 0 and actor.long_action is not None
    return (action is None or type(action) is NoAction) and technical == 0


def _check_target(
    issues: Issues, field: str, target: Any, actor: str, by_id: Mapping[str, Combatant], self_allowed: bool
) -> None:
    found = by_id.get(target) if isinstance(target, str) else None
    if found is None:
        issues.add(field, f"{target!r} is not a combatant of this encounter")
    elif target == actor and not self_allowed:
        issues.add(field, "a combatant cannot attack itself")
    elif found.status == "dead":
        issues.add(field, f"{target!r} is already dead")


def _check_declaration(
    issues: Issues, d: Declaration, field: str, by_id: Mapping[str, Combatant], ruleset: Ruleset
) -> None:
    actor = by_id.get(d.combatant) if isinstance(d.combatant, str) else None
    if actor is None:
        issues.add(f"{field}/combatant", f"{d.combatant!r} is not a combatant of this encounter")
        return
    if actor.status != "active":
        issues.add(f"{field}/combatant", f"{d.combatant!r} is {actor.status} and cannot declare anything")
    if d.stance is not None and (not isinstance(d.stance, str) or d.stance not in ruleset.stances):
        issues.add(f"{field}/stance", f"unknown stance {d.stance!r}; known: {', '.join(ruleset.stances)}")
    action = d.action
    if _int_within(issues, f"{field}/technical_actions", d.technical_actions, bounds.TECHNICAL_ACTIONS):
        if d.technical_actions and (action is None or isinstance(action, (NoAction, Continue))):
            issues.add(
                f"{field}/technical_actions", "technical actions go with an action, not with 'none' or 'continue'"
            )
    if isinstance(action, Attack):
        count = len(action.targets)
        if not 1 <= count <= actor.attacks_per_round:
            issues.add(f"{field}/action/targets", f"must name 1..{actor.attacks_per_round} targets (attacks_per_round)")
        for index, target in enumerate(action.targets):
            # a `target` shorthand is named as the client wrote it
            here = f"{field}/action/target" if action.shorthand else f"{field}/action/targets/{index}"
            _check_target(issues, here, target, d.combatant, by_id, self_allowed=False)
    elif isinstance(action, FirstAid):
        _check_target(issues, f"{field}/action/target", action.target, d.combatant, by_id, self_allowed=True)
    elif isinstance(action, Custom):
        _text_within(issues, f"{field}/action/name", action.name, bounds.NAME_LENGTH)
        _int_within(issues, f"{field}/action/delay", action.delay, bounds.DELAY)
        check_custom_extras(issues, action, f"{field}/action", by_id)
    elif isinstance(action, Continue):
        if actor.long_action is None:
            issues.add(f"{field}/action/type", f"{d.combatant!r} carries no long action to continue")
    elif not (action is None or isinstance(action, NoAction)):
        issues.add(f"{field}/action/type", "unknown action type; use attack, first_aid, custom, continue or none")
    if d.hold is not None:
        _check_hold(issues, d, f"{field}/hold", by_id)


def _check_hold(issues: Issues, d: Declaration, field: str, by_id: Mapping[str, Combatant]) -> None:
    """Section 14: a hold waits for another active combatant, and only an attack, first aid or custom action
    waits (a carried long action is never held)."""
    x = by_id.get(d.hold) if isinstance(d.hold, str) else None
    if x is None:
        issues.add(field, f"{d.hold!r} is not a combatant of this encounter")
    elif d.hold == d.combatant:
        issues.add(field, "a combatant cannot hold until after itself")
    elif x.status != "active":
        issues.add(field, f"{d.hold!r} is {x.status}: a hold waits only for an active combatant")
    if not isinstance(d.action, (Attack, FirstAid, Custom)):
        kind = "no action" if d.action is None else f"a {getattr(d.action, 'type', 'unknown')!r} action"
        issues.add(field, f"only an attack, first_aid or custom action may hold, not {kind}")


def _check_hold_cycles(issues: Issues, declarations: tuple[Declaration, ...]) -> None:
    """Holds that form a cycle (A on B and B on A, or longer): each declaration in one is named."""
    holds = {d.combatant: d.hold for d in declarations if isinstance(d.hold, str) and d.hold != d.combatant}
    index = {d.combatant: i for i, d in enumerate(declarations)}
    cleared: set[str] = set()
    for start in holds:
        path: list[str] = []
        on_path: set[str] = set()
        current: str | None = start
        while current is not None and current in holds and current not in cleared and current not in on_path:
            path.append(current)
            on_path.add(current)
            current = holds[current]
        if current is not None and current in on_path:
            cycle = path[path.index(current) :]
            chain = " -> ".join([*cycle, current])
            for holder in cycle:
                issues.add(f"/declarations/{index[holder]}/hold", f"holds form a cycle: {chain}")
        cleared.update(path)


def _check_groups(issues: Issues, state: RoundInput, by_id: Mapping[str, Combatant]) -> None:
    """Section 14: a group is named by 1..64 characters; no combatant id is a group's dice-key prefix."""
    position = {c.id: i for i, c in enumerate(state.combatants) if isinstance(c.id, str)}
    names = set()
    for cid, group in state.groups.items():
        if cid not in position:
            issues.add(f"/groups/{cid}", f"{cid!r} is not a combatant of this encounter")
            continue
        if _text_within(issues, f"/combatants/{position[cid]}/group", group, bounds.ID_LENGTH):
            names.add(group)
    for cid, i in position.items():
        if cid.startswith("group:") and cid[len("group:") :] in names:
            issues.add(f"/combatants/{i}/id", f"{cid!r} is the dice-key name of a group in this encounter")


def _possible_dice(
    declarations: tuple[Declaration, ...],
    weapons: Mapping[str, WeaponProfile],
    by_id: Mapping[str, Combatant],
    ruleset: Ruleset,
    groups: Mapping[str, str],
) -> dict[str, tuple[int, int]]:
    """Every die the declarations and the long actions carried could roll: key -> (number of dice, sides).
    A group member's first delay die is its group's (docs/rules.md: Holding and groups)."""
    possible: dict[str, tuple[int, int]] = {}
    declared = {d.combatant: d for d in declarations}
    for c in by_id.values():
        if continues(c.long_action, declared.get(c.id)):
            possible[f"{c.id}.initiative.1"] = (1, ruleset.delay_die)
    for d in declarations:
        if continues(by_id[d.combatant].long_action, d):
            continue
        if isinstance(d.action, Attack):
            damage = weapons[d.combatant].damage
            for k in range(1, by_id[d.combatant].attacks_per_round + 1):
                possible[f"{d.combatant}.initiative.{k}"] = (1, ruleset.delay_die)
                possible[f"{d.combatant}.attack.{k}"] = (1, D20)
                possible[f"{d.combatant}.damage.{k}"] = (damage.count, damage.sides)
        elif isinstance(d.action, (FirstAid, Custom)):
            possible[f"{d.combatant}.initiative.1"] = (1, ruleset.delay_die)
    for cid, group in groups.items():
        if possible.pop(f"{cid}.initiative.1", None) is not None:
            possible[group_die_key(group)] = (1, ruleset.delay_die)
    return possible


def _check_dice(issues: Issues, given: Mapping[str, Any], possible: Mapping[str, tuple[int, int]]) -> None:
    for key, value in given.items():
        field = f"/dice/{key}"
        if key not in possible:
            issues.add(field, "names no roll the declarations or the long actions carried could make")
            continue
        count, sides = possible[key]
        is_damage = key.rsplit(".", 2)[-2] == "damage"
        values = list(value) if is_damage and isinstance(value, (list, tuple)) else [value]
        if len(values) != count:
            issues.add(field, f"needs {count} value(s), one per damage die; got {len(values)}")
            continue
        for value in values:
            _int_within(issues, field, value, (1, sides))


def validate_round(state: RoundInput, ruleset: Ruleset, given_dice: Mapping[str, Any]) -> dict[str, WeaponProfile]:
    """Refuse anything docs/rules.md's "What the service refuses" forbids; return each combatant's weapon profile for
    the round."""
    issues = Issues()
    _int_within(issues, "/round", state.round, bounds.ROUND)
    if len(state.combatants) > bounds.MAX_COMBATANTS:
        issues.add("/combatants", f"at most {bounds.MAX_COMBATANTS} combatants")
    if len(state.declarations) > bounds.MAX_DECLARATIONS:
        issues.add("/declarations", f"at most {bounds.MAX_DECLARATIONS} declarations")
    issues.raise_if_any()

    by_id: dict[str, Combatant] = {}
    weapons: dict[str, WeaponProfile] = {}
    for index, combatant in enumerate(state.combatants):
        if not isinstance(combatant.id, str):
            issues.add(f"/combatants/{index}/id", "must be a string")
            continue
        if combatant.id in by_id:
            issues.add(f"/combatants/{index}/id", f"{combatant.id!r} appears twice")
        by_id[combatant.id] = combatant
        weapon = _plain_weapon(combatant, ruleset) or _check_combatant(
            issues, combatant, f"/combatants/{index}", ruleset
        )
        if weapon is not None:
            weapons[combatant.id] = weapon
        if combatant.effects:
            check_effects(issues, combatant.effects, f"/combatants/{index}/effects")
    for index, combatant in enumerate(state.combatants):
        if combatant.long_action is not None:  # after every id is known: its target must be one of them
            check_long_action(issues, combatant, f"/combatants/{index}/long_action", by_id)
    if state.groups:
        _check_groups(issues, state, by_id)
    issues.raise_if_any()

    declared: set[str] = set()
    closer_look = False  # whether any declaration went through the detailed checks (every one with a hold does)
    for index, declaration in enumerate(state.declarations):
        if not isinstance(declaration.combatant, str):
            issues.add(f"/declarations/{index}/combatant", "must be a combatant id")
            continue
        if declaration.combatant in declared:
            issues.add(
                f"/declarations/{index}/combatant", f"{declaration.combatant!r} already has a declaration this round"
            )
        declared.add(declaration.combatant)
        if not _plainly_valid(declaration, by_id, ruleset):
            _check_declaration(issues, declaration, f"/declarations/{index}", by_id, ruleset)
            closer_look = True
    if closer_look:
        _check_hold_cycles(issues, state.declarations)
    issues.raise_if_any()

    if given_dice:
        _check_dice(issues, given_dice, _possible_dice(state.declarations, weapons, by_id, ruleset, state.groups))
        issues.raise_if_any()
    return weapons

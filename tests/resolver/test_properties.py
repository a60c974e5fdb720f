"""Invariants of resolve_round over random valid encounters (hypothesis).

Each example is a whole encounter: 2..12 combatants with stats inside CONTRACT.md's bounds
(mostly everyday values, now and then extreme ones), armory or inline weapons, carried wounds,
mostly active, declarations that section 9 accepts (attack, first aid, custom, none, continue, or none
given), effects (some already over, some ending this round), long actions carried by the active ones,
custom actions lasting several rounds and giving effects, a random seed and a round 1..40 (so some end
a turn and bleed).
"""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.resolver import (
    Attack,
    Combatant,
    Continue,
    Custom,
    DamageDice,
    Declaration,
    Effect,
    EffectGiven,
    FirstAid,
    InlineWeapon,
    LongAction,
    MixedDice,
    NoAction,
    RoundInput,
    SeededDice,
    Wound,
    build_ruleset,
    parse_damage,
    resolve_round,
)
from app.resolver.ruleset import DEFAULT_RULES, STATUSES

RULES = build_ruleset()
PROPERTY = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
WOUND_NAMES = [row.name for row in RULES.wound_classes]
RANK = {name: rank for rank, name in enumerate(WOUND_NAMES)}
SEVERITY = {status: rank for rank, status in enumerate(STATUSES)}


def everyday_or_any(everyday: tuple[int, int], low: int, high: int) -> st.SearchStrategy[int]:
    return st.integers(*everyday) | st.integers(low, high)


notations = st.builds(
    lambda n, m, k: f"{n}d{m}{k:+d}" if k else f"{n}d{m}",
    st.integers(1, 20), st.integers(2, 100), everyday_or_any((-2, 3), -100, 100),
)
weapons = st.sampled_from(sorted(DEFAULT_RULES["armory"])) | st.builds(
    InlineWeapon, st.just("improvised"), st.integers(0, 50), notations)
wounds = st.builds(Wound, st.sampled_from(WOUND_NAMES), st.none() | st.integers(0, 8), st.none() | st.integers(0, 4))
statuses = st.sampled_from(["active"] * 6 + ["unconscious", "dead"])
ids = st.lists(st.text("abcxyz", min_size=1, max_size=3), min_size=2, max_size=12, unique=True)


effect_modifiers = st.integers(-3, 3) | st.integers(-100, 100)
effects = st.builds(
    Effect, st.sampled_from(["blessed", "slowed", "poisoned"]), st.none() | st.text("pqr", min_size=1, max_size=3),
    effect_modifiers, effect_modifiers, effect_modifiers, effect_modifiers, st.none() | st.integers(0, 45))
effects_given = st.none() | st.builds(
    EffectGiven, st.just("warded"), effect_modifiers, effect_modifiers, effect_modifiers, effect_modifiers,
    st.none() | st.integers(1, 1000))


@st.composite
def combatants(draw, id: str) -> Combatant:
    vitality = draw(everyday_or_any((1, 20), 1, 1000))
    return Combatant(
        id=id,
        initiative=draw(st.sampled_from([10, 12, 15]) | st.integers(-100, 100)),  # shared values make shared ticks
        attack=draw(everyday_or_any((5, 20), -100, 100)),
        defense=draw(everyday_or_any((0, 10), -100, 100)),
        weapon=draw(weapons),
        attacks_per_round=draw(st.integers(1, 4)),
        weapon_ready=draw(st.sampled_from([True, True, True, False])),
        damage_bonus=draw(everyday_or_any((-2, 10), -50, 50)),
        armor=draw(everyday_or_any((0, 6), 0, 100)),
        toughness=draw(everyday_or_any((0, 3), 0, 100)),
        vitality=vitality,
        blood=draw(st.none() | st.integers(-vitality, vitality)),
        status=draw(statuses),
        wounds=tuple(draw(st.just([]) | st.lists(wounds, max_size=3))),
        effects=tuple(draw(st.just([]) | st.lists(effects, max_size=4))),
    )


@st.composite
def long_actions(draw, everyone: list[str]) -> LongAction:
    return LongAction("ward", draw(st.integers(0, 50)), draw(st.integers(1, 3) | st.integers(1, 99)),
                      draw(st.none() | st.sampled_from(everyone)), draw(effects_given))


@st.composite
def declarations(draw, actor: Combatant, everyone: tuple[Combatant, ...]) -> Declaration:
    living = [c.id for c in everyone if c.status != "dead"]
    foes = [cid for cid in living if cid != actor.id]
    kind = draw(st.sampled_from(["attack", "attack", "attack", "first_aid", "custom", "long", "none", "continue"]))
    if kind == "attack" and foes:
        action = Attack(tuple(draw(st.lists(st.sampled_from(foes), min_size=1, max_size=actor.attacks_per_round))))
    elif kind == "first_aid":
        action = FirstAid(draw(st.sampled_from(living)))  # the actor is active, so living is never empty
    elif kind == "custom":
        action = Custom("spell", draw(st.integers(0, 50)))
    elif kind == "long":
        action = Custom("ward", draw(st.integers(0, 50)), rounds=draw(st.integers(1, 3)),
                        target=draw(st.none() | st.sampled_from(living)), effect=draw(effects_given))
    elif kind == "continue" and actor.long_action is not None:
        action = draw(st.sampled_from([Continue(), None]))  # None: a declaration without an action
    else:
        action = NoAction()
    technical = 0 if action is None or type(action) in (NoAction, Continue) else draw(st.just(0) | st.integers(0, 10))
    return Declaration(actor.id, action, draw(st.none() | st.sampled_from(sorted(RULES.stances))), technical)


@st.composite
def encounters(draw) -> RoundInput:
    names = draw(ids)
    first, *others = names
    leader = draw(combatants(first))
    # some are the leader's squad, with its stats: equal scores, hence shared ticks, become common
    everyone = (leader, *(replace(leader, id=cid) if draw(st.booleans()) else draw(combatants(cid)) for cid in others))
    everyone = tuple(  # some of the active ones are in the middle of a long action
        replace(c, long_action=draw(long_actions(names))) if c.status == "active" and not draw(st.integers(0, 3))
        else c for c in everyone)
    declared = [
        draw(declarations(c, everyone)) for c in everyone if c.status == "active" and draw(st.integers(0, 5))
    ]
    return RoundInput(draw(st.integers(1, 40)), everyone, tuple(draw(st.permutations(declared))))


seeds = st.integers(0, 2**53 - 1)


def continuing(state: RoundInput) -> list[Combatant]:
    """Those that go on with the long action they carry: no declaration, no action, or continue."""
    declared = {d.combatant: d for d in state.declarations}
    return [c for c in state.combatants if c.long_action is not None and (
        c.id not in declared or declared[c.id].action is None or isinstance(declared[c.id].action, Continue))]


def weapon_of(c: Combatant) -> tuple[int, DamageDice]:
    """(delay, damage) of a combatant's weapon, from the armory or inline."""
    if isinstance(c.weapon, InlineWeapon):
        return c.weapon.delay, parse_damage(c.weapon.damage)
    return RULES.armory[c.weapon].delay, RULES.armory[c.weapon].damage


def possible_dice(state: RoundInput) -> dict[str, tuple[int, int]]:
    """Every die the declarations and the long actions carried could roll: key -> (number of dice, sides)."""
    by_id = {c.id: c for c in state.combatants}
    possible = {f"{c.id}.initiative.1": (1, RULES.delay_die) for c in continuing(state)}
    for d in state.declarations:
        if d.combatant in possible:
            continue
        if isinstance(d.action, Attack):
            _, damage = weapon_of(by_id[d.combatant])
            for k in range(1, by_id[d.combatant].attacks_per_round + 1):
                possible[f"{d.combatant}.initiative.{k}"] = (1, RULES.delay_die)
                possible[f"{d.combatant}.attack.{k}"] = (1, 20)
                possible[f"{d.combatant}.damage.{k}"] = (damage.count, damage.sides)
        elif isinstance(d.action, (FirstAid, Custom)):
            possible[f"{d.combatant}.initiative.1"] = (1, RULES.delay_die)
    return possible


@st.composite
def encounters_with_some_fixed_dice(draw) -> tuple[RoundInput, dict, int]:
    state = draw(encounters())
    possible = possible_dice(state)
    chosen = draw(st.lists(st.sampled_from(sorted(possible)), unique=True)) if possible else []
    fixed = {}
    for key in chosen:
        count, sides = possible[key]
        values = tuple(draw(st.lists(st.integers(1, sides), min_size=count, max_size=count)))
        fixed[key] = values if key.split(".")[1] == "damage" else values[0]
    return state, fixed, draw(seeds)


def went_down(state: RoundInput, result) -> tuple[dict[str, int], dict[str, int]]:
    """For each combatant, the tick after which it is down (not active) and dead: 0 = before the round."""
    never = len(result.actions) + 1
    down = {c.id: 0 if c.status != "active" else never for c in state.combatants}
    dead = {c.id: 0 if c.status == "dead" else never for c in state.combatants}
    for a in result.actions:
        forces = RULES.wound_class(a.wound).forces if a.wound else None
        if forces is not None:
            down[a.target] = min(down[a.target], a.tick)
        if forces == "dead":
            dead[a.target] = min(dead[a.target], a.tick)
    return down, dead


# The invariants below share one generated encounter per example: drawing an encounter costs
# some 20 ms here, a hundred times more than resolving it, so every example is checked against
# all of them. Each is a named function, so a failure's traceback says which one broke.

def same_result_again(state: RoundInput, seed: int, result) -> None:
    """Same input and seed, same result, whichever seeded source rolls it."""
    assert resolve_round(state, RULES, SeededDice(seed)) == result
    assert resolve_round(state, RULES, MixedDice({}, seed)) == result
    assert result.seed == seed


def resolution_order(state: RoundInput, result) -> None:
    """Scores never rise; ties go to the higher initiative as entered; a full tie shares a tick."""
    initiative = {c.id: c.initiative for c in state.combatants}
    assert [a.tick for a in result.actions[:1]] in ([], [1])
    for a, b in pairwise(result.actions):
        assert a.score >= b.score
        if a.score == b.score:
            assert initiative[a.actor] >= initiative[b.actor]
        same_moment = (a.score, initiative[a.actor]) == (b.score, initiative[b.actor])
        assert b.tick == a.tick + (not same_moment)  # one tick per moment, numbered 1, 2, 3...
        if same_moment:
            assert (a.actor, a.seq) < (b.actor, b.seq)  # within a tick: by combatant id, then seq


def attacks_in_sequence(state: RoundInput, result) -> None:
    """Attack k+1 of a combatant never precedes attack k; all attacks_per_round are made; none: no entry."""
    by_id = {c.id: c for c in state.combatants}
    goes_on = {c.id for c in continuing(state)}
    for d in state.declarations:
        mine = [a for a in result.actions if a.actor == d.combatant]
        kind = "continue" if d.combatant in goes_on else getattr(d.action, "type", "none")
        expected = {"attack": by_id[d.combatant].attacks_per_round, "none": 0}.get(kind, 1)
        assert [a.seq for a in mine] == list(range(1, expected + 1))
        assert all(a.type == kind for a in mine)
        assert all(a.tick < b.tick and a.score > b.score for a, b in pairwise(mine))
        assert [a.technical_actions for a in mine[1:]] == [0] * len(mine[1:])  # paid once, in the first
    assert {a.actor for a in result.actions} <= {d.combatant for d in state.declarations} | goes_on
    assert all(a.technical_actions == 0 for a in result.actions if a.type == "continue")


def status_never_goes_back(state: RoundInput, result) -> None:
    """active -> unconscious -> dead, never the other way; the dead do not change."""
    assert [s.id for s in result.combatants] == [c.id for c in state.combatants]
    for before, after in zip(state.combatants, result.combatants):
        assert SEVERITY[after.status] >= SEVERITY[before.status]
        if before.status == "dead":
            assert after.blood == (before.vitality if before.blood is None else before.blood)
            assert len(after.wounds) == len(before.wounds)


def nobody_acts_once_down(state: RoundInput, result) -> None:
    """actor_down exactly for actions after the tick where the actor dropped; target_down likewise."""
    down, dead = went_down(state, result)
    for a in result.actions:
        assert (a.result == "actor_down") == (down[a.actor] < a.tick)
        if a.result != "actor_down" and a.type not in ("custom", "continue"):
            assert (a.result == "target_down") == (dead[a.target] < a.tick)


def blows_add_up(state: RoundInput, result) -> None:
    """Every blow is the sum of its parts; its wound is the table's; the class never falls as blows grow."""
    by_id = {c.id: c for c in state.combatants}
    hits = [a for a in result.actions if a.hit]
    for a in hits:
        actor, target = by_id[a.actor], by_id[a.target]
        _, damage = weapon_of(actor)
        assert a.blow == sum(a.damage_rolls) + damage.modifier + actor.damage_bonus + a.margin // RULES.margin_divisor
        assert a.effective == a.blow - target.armor - target.toughness
        assert a.wound == getattr(RULES.wound_for(a.effective), "name", None)
        assert a.result == ("wound" if a.wound else "deflected")
    by_blow = sorted(hits, key=lambda a: a.effective)
    assert all(RANK.get(a.wound, -1) <= RANK.get(b.wound, -1) for a, b in pairwise(by_blow))


def expired_effects_never_count(state: RoundInput, seed: int, result) -> None:
    """The same round without the effects already over when it begins gives the same result."""
    trimmed = tuple(
        c if c.status == "dead" else replace(c, effects=tuple(
            e for e in c.effects if e.until_round is None or e.until_round >= state.round))
        for c in state.combatants)
    assert resolve_round(replace(state, combatants=trimmed), RULES, SeededDice(seed)) == result


def effects_only_from_completed_actions(state: RoundInput, result) -> None:
    """An effect named "<round>:<actor>" appears once per custom or continue entry that is done, and never
    for one in progress, interrupted, lost with its actor or its target; a broken long action is gone."""
    made = f"{state.round}:"
    given = [e.id for s in result.combatants for e in s.effects if e.id and e.id.startswith(made)]
    done = [a for a in result.actions if a.type in ("custom", "continue") and a.result == "done"]
    gives = {a.actor for a in done if _effect_of(state, a) is not None}
    assert sorted(given) == sorted(f"{made}{actor}" for actor in gives)
    after = {s.id: s for s in result.combatants}
    for a in result.actions:
        if a.result in ("interrupted", "actor_down", "done", "target_down") and a.type == "continue":
            assert after[a.actor].long_action is None


def _effect_of(state: RoundInput, entry) -> EffectGiven | None:
    by_id = {c.id: c for c in state.combatants}
    if entry.type == "continue":
        return by_id[entry.actor].long_action.effect
    declaration = next(d for d in state.declarations if d.combatant == entry.actor)
    return declaration.action.effect


def lasting_state_within_bounds(state: RoundInput, result) -> None:
    """After the round: no effect of the living outlives its last round; a long action is carried only by the
    active, with 1..99 rounds left; the dead keep their effects exactly."""
    for before, after in zip(state.combatants, result.combatants):
        if before.status == "dead":
            assert after.effects == before.effects and after.long_action is None
            continue
        if after.status != "dead":
            assert all(e.until_round is None or e.until_round > state.round for e in after.effects)
        if after.long_action is not None:
            assert after.status == "active" and 1 <= after.long_action.rounds_left <= 99


@settings(PROPERTY, max_examples=150)
@given(encounters(), seeds)
def test_every_round_keeps_the_invariants(state, seed):
    result = resolve_round(state, RULES, SeededDice(seed))
    same_result_again(state, seed, result)
    resolution_order(state, result)
    attacks_in_sequence(state, result)
    status_never_goes_back(state, result)
    nobody_acts_once_down(state, result)
    blows_add_up(state, result)
    expired_effects_never_count(state, seed, result)
    effects_only_from_completed_actions(state, result)
    lasting_state_within_bounds(state, result)


@st.composite
def wound_tables(draw) -> list[dict]:
    mins = sorted(draw(st.lists(st.integers(-50, 50), min_size=1, max_size=8, unique=True)))
    return [{"class": f"w{i}", "min": low, "penalty": 0, "bleed": 0, "forces": None} for i, low in enumerate(mins)]


@PROPERTY
@given(st.none() | wound_tables())
def test_the_wound_class_never_decreases_as_the_blow_grows(table):
    rules = build_ruleset(None if table is None else {"wound_classes": table})
    rank = {row.name: index for index, row in enumerate(rules.wound_classes)}
    classes = [rules.wound_for(blow) for blow in range(-60, 60)]
    ranks = [-1 if row is None else rank[row.name] for row in classes]
    assert ranks == sorted(ranks)
    assert (classes[0], classes[-1]) == (None, rules.wound_classes[-1])


@PROPERTY
@given(encounters_with_some_fixed_dice())
def test_fixed_dice_are_used_exactly_as_given_and_only_used_dice_are_reported(case):
    state, fixed, seed = case
    result = resolve_round(state, RULES, MixedDice(fixed, seed))
    used = {}
    for a in result.actions:
        used[f"{a.actor}.initiative.{a.seq}"] = None  # every scheduled action rolled its delay die
        if a.roll is not None:
            used[f"{a.actor}.attack.{a.seq}"] = a.roll
        if a.damage_rolls is not None:
            used[f"{a.actor}.damage.{a.seq}"] = a.damage_rolls
    assert set(result.dice) == set(used)
    assert all(value is None or result.dice[key] == value for key, value in used.items())
    assert {key: value for key, value in result.dice.items() if key in fixed} == {
        key: value for key, value in fixed.items() if key in result.dice}
    possible = possible_dice(state)
    for key, value in result.dice.items():
        count, sides = possible[key]
        values = value if isinstance(value, tuple) else (value,)
        assert len(values) == count and all(1 <= v <= sides for v in values)
    by_id = {c.id: c for c in state.combatants}
    for a in result.actions:  # each later attack's score follows its own delay die
        if a.type == "attack" and a.seq > 1:
            earlier = next(x for x in result.actions if (x.actor, x.seq) == (a.actor, a.seq - 1))
            delay, _ = weapon_of(by_id[a.actor])
            assert a.score == earlier.score - delay - result.dice[f"{a.actor}.initiative.{a.seq}"]

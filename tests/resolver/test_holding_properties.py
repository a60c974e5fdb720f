"""Invariants of RULES.md section 14 over random valid encounters (hypothesis): the encounters of
test_properties.py, with holds (never a cycle: a combatant holds only on one after it in a random
ranking) on some of the attacks, first aids and custom actions, and groups among the combatants.

As there, drawing an encounter costs far more than resolving it, so every example is checked against
every invariant, each a named function.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from app.resolver import Attack, Custom, FirstAid, MixedDice, RoundInput, SeededDice, resolve_round
from app.resolver.initiative import continues
from tests.resolver.test_properties import PROPERTY, RULES, encounters, seeds

GROUP_NAMES = ["pack", "Pack", "wolves"]


@st.composite
def encounters_with_holds_and_groups(draw) -> RoundInput:
    state = draw(encounters())
    active = [c.id for c in state.combatants if c.status == "active"]
    ranking = draw(st.permutations(active)) if active else []
    rank = {cid: i for i, cid in enumerate(ranking)}
    declarations = []
    for d in state.declarations:
        later = [cid for cid in ranking if rank[cid] > rank[d.combatant]]
        may_hold = isinstance(d.action, (Attack, FirstAid, Custom)) and later
        if may_hold and draw(st.integers(0, 2)):
            d = replace(d, hold=draw(st.sampled_from(later)))
        declarations.append(d)
    groups = {
        c.id: group for c in state.combatants if (group := draw(st.none() | st.sampled_from(GROUP_NAMES))) is not None
    }
    return replace(state, declarations=tuple(declarations), groups=groups)


def without_holds(state: RoundInput) -> RoundInput:
    return replace(state, declarations=tuple(replace(d, hold=None) for d in state.declarations))


def ticks_of(result) -> dict[tuple[str, int], int]:
    return {(a.actor, a.seq): a.tick for a in result.actions}


def a_hold_never_makes_an_action_earlier(state: RoundInput, seed: int, held) -> None:
    free = resolve_round(without_holds(state), RULES, SeededDice(seed))
    delay_dice = [(k, v) for k, v in held.dice.items() if ".initiative." in k]
    assert sorted(delay_dice) == sorted((k, v) for k, v in free.dice.items() if ".initiative." in k)  # none extra
    assert sorted((a.actor, a.seq) for a in held.actions) == sorted((a.actor, a.seq) for a in free.actions)
    score = {(a.actor, a.seq): a.score for a in free.actions}
    for a in held.actions:
        assert a.score <= score[(a.actor, a.seq)]
    # whatever acted before an action without holds, and holds on nobody, still acts before it
    holders = {d.combatant for d in state.declarations if d.hold is not None}
    held_tick, free_tick = ticks_of(held), ticks_of(free)
    for a in held.actions:
        for b in free.actions:
            if b.actor not in holders and free_tick[(b.actor, b.seq)] < free_tick[(a.actor, a.seq)]:
                assert held_tick[(b.actor, b.seq)] < held_tick[(a.actor, a.seq)]


def a_held_first_action_comes_after_its_xs_first_action(state: RoundInput, result) -> None:
    tick = ticks_of(result)
    entry = {(a.actor, a.seq): a for a in result.actions}
    holds = {d.combatant: d.hold for d in state.declarations if d.hold is not None}
    for a in result.actions:
        assert not a.held or (a.seq == 1 and a.actor in holds)
        if a.held:  # its score is X's as reported; alone with other moved ones in its tick
            assert a.score == entry[(holds[a.actor], 1)].score
            assert all(b.held for b in result.actions if b.tick == a.tick)
    for holder, x in holds.items():
        if (holder, 1) in tick and (x, 1) in tick:
            assert tick[(holder, 1)] > tick[(x, 1)]
    assert [a.tick for a in result.actions] == sorted(a.tick for a in result.actions)
    assert {a.tick for a in result.actions} == set(range(1, len({a.tick for a in result.actions}) + 1))


def a_groups_members_all_use_one_die(state: RoundInput, seed: int, result) -> None:
    """The round is the one its members would play with each their own first die fixed at the group's value."""
    declared = {d.combatant: d for d in state.declarations}
    first_roll = {
        c.id for c in state.combatants
        if continues(c.long_action, declared.get(c.id))
        or (c.id in declared and isinstance(declared[c.id].action, (Attack, FirstAid, Custom)))
    }
    fixed = {}
    for cid, group in state.groups.items():
        key = f"group:{group}.initiative.1"
        assert f"{cid}.initiative.1" not in result.dice
        if cid in first_roll:
            fixed[f"{cid}.initiative.1"] = result.dice[key]
    rolling = {state.groups[cid] for cid in first_roll if cid in state.groups}
    assert {k for k in result.dice if k.startswith("group:")} == {f"group:{g}.initiative.1" for g in rolling}
    alone = resolve_round(replace(state, groups={}), RULES, MixedDice(fixed, result.seed))
    assert alone.actions == result.actions and alone.combatants == result.combatants


def same_input_and_dice_same_result(state: RoundInput, seed: int, result) -> None:
    assert resolve_round(state, RULES, SeededDice(seed)) == result
    assert resolve_round(state, RULES, MixedDice(dict(result.dice), seed + 1)) == replace(result, seed=seed + 1)


@PROPERTY
@given(encounters_with_holds_and_groups(), seeds)
def test_every_round_with_holds_and_groups_keeps_the_invariants(state, seed):
    result = resolve_round(state, RULES, SeededDice(seed))
    same_input_and_dice_same_result(state, seed, result)
    a_hold_never_makes_an_action_earlier(state, seed, result)
    a_held_first_action_comes_after_its_xs_first_action(state, result)
    a_groups_members_all_use_one_die(state, seed, result)

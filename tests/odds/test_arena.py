"""The Arena plays the odds policy's rounds on bare numbers; resolve_round is the rules. They must
agree exactly, round after round, or a fight the odds counted would not replay through /v1/resolve.

Random encounters (the resolver property tests' combatants: carried wounds, effects, weapons not in
hand, several attacks, armor by name, unconscious and dead ones, groups sharing a delay die) under
random rulesets, several fights each: after every round each combatant's status, blood, weapon in
hand, wound penalty and bleeding must be what resolve_round left."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from app.odds.arena import Arena, Fighter, action_key
from app.odds.seeds import fight_seed
from app.odds.simulate import FightSetup, play_fight, play_fight_by_rounds, play_rounds
from app.resolver import Combatant, build_ruleset
from app.resolver.errors import ResolverError
from app.resolver.ruleset import DEFAULT_RULES, STATUSES
from app.resolver.wounds import SEVERITY
from tests.resolver.test_properties import PROPERTY, combatants, ids, long_actions

SIDES = ["red", "blue", "green"]
GROUPS = ["pack", "wolves"]  # RULES.md section 14: members share one delay die for their first actions


@st.composite
def wound_tables(draw) -> list[dict]:
    mins = sorted(draw(st.lists(st.integers(-3, 20), min_size=1, max_size=6, unique=True)))
    return [
        {
            "class": f"w{i}",
            "min": low,
            "penalty": draw(st.integers(0, 6)),
            "bleed": draw(st.integers(0, 4)),
            "forces": draw(st.sampled_from([None, None, "unconscious", "dead"])),
        }
        for i, low in enumerate(mins)
    ]


@st.composite
def rulesets(draw) -> dict:
    overrides: dict = {}
    if draw(st.booleans()):
        overrides["delay_die"] = draw(st.sampled_from([2, 4, 6, 10, 20]))
        overrides["technical_action_penalty"] = draw(st.integers(0, 10))
        overrides["turn_length"] = draw(st.integers(1, 10))
        overrides["margin_divisor"] = draw(st.integers(1, 5))
        overrides["natural_hit"] = draw(st.integers(1, 20))
        overrides["natural_miss"] = draw(st.integers(1, 20))  # equal to natural_hit now and then: a miss
        overrides["stances"] = {"balanced": {"attack": draw(st.integers(-3, 3)), "defense": draw(st.integers(-3, 3))}}
    if draw(st.booleans()):
        overrides["wound_classes"] = draw(wound_tables())
    return overrides


@st.composite
def fights(draw, with_long_actions: bool = False) -> tuple[FightSetup, dict]:
    names = draw(ids.filter(lambda n: len(n) <= 8))
    everyone = [draw(combatants(cid)) for cid in names]
    if with_long_actions:
        everyone = [
            replace(c, long_action=draw(long_actions(names))) if c.status == "active" and draw(st.booleans()) else c
            for c in everyone
        ]
    if draw(st.booleans()):
        everyone = [replace(c, armor=draw(st.sampled_from(sorted(DEFAULT_RULES["armor"])))) for c in everyone]
    sides = tuple(draw(st.sampled_from(SIDES)) for _ in names)
    groups = {c.id: group for c in everyone if (group := draw(st.none() | st.sampled_from(GROUPS))) is not None}
    rules = draw(rulesets())
    try:
        setup = FightSetup(tuple(everyone), sides, build_ruleset(rules), draw(st.integers(1, 30)), groups)
    except ResolverError:
        assume(False)  # a state the service would refuse with a 422 never reaches a fight
        raise
    return setup, rules


def numbers(c: Combatant) -> tuple:
    """What the Arena keeps of a combatant the resolver reported."""
    return (
        SEVERITY[c.status],
        c.vitality if c.blood is None else c.blood,
        c.weapon_ready,
        sum(w.penalty or 0 for w in c.wounds),
        sum(w.bleed or 0 for w in c.wounds),
    )


def kept(f: Fighter) -> tuple:
    return (f.status, f.blood, f.ready, f.penalty, f.bleed)


@PROPERTY
@given(fights(), st.integers(0, 2**53 - 1))
def test_every_round_leaves_each_combatant_as_resolve_round_leaves_it(fight, seed):
    setup, _ = fight
    arena = setup.arena
    for k in range(3):
        fighters = [f.copy() for f in arena.start]
        rounds = 0
        for played in play_rounds(setup, fight_seed(seed, k), 40):
            assert arena.winner(fighters) == -1  # the fight goes on in both
            arena.play_round(fighters, played.state.round, played.seed)
            assert [kept(f) for f in fighters] == [numbers(c) for c in played.after], f"round {played.state.round}"
            rounds += 1
        if rounds < 40:
            assert arena.winner(fighters) != -1  # and it is over in both


@PROPERTY
@given(fights(with_long_actions=True), st.integers(0, 2**53 - 1), st.integers(1, 40))
def test_a_whole_fight_ends_as_it_ends_through_resolve_round(fight, seed, max_rounds):
    """Long actions included: play_fight plays their rounds through resolve_round, then the Arena."""
    setup, _ = fight
    for k in range(3):
        assert play_fight(setup, fight_seed(seed, k), max_rounds) == play_fight_by_rounds(
            setup, fight_seed(seed, k), max_rounds
        )


def test_the_fights_that_hand_over_mid_fight_are_played_too():
    """The long-action property must exercise the hand-over, not only fights without long actions."""
    from app.resolver.model import LongAction

    priest = Combatant("priest", 12, 12, 4, "mace", long_action=LongAction("prayer", 2, 3))
    setup = FightSetup(
        (priest, Combatant("ork", 10, 14, 3, "battle_axe"), Combatant("elf", 14, 13, 5, "long_sword")),
        ("temple", "horde", "temple"),
        build_ruleset(),
        1,
    )
    outcomes = [play_fight(setup, fight_seed(4, k), 30) for k in range(20)]
    assert outcomes == [play_fight_by_rounds(setup, fight_seed(4, k), 30) for k in range(20)]
    # past the long action's three rounds the Arena played the rest
    assert sum(outcome.rounds > 3 for outcome in outcomes) >= 10


@pytest.mark.parametrize(
    ("higher", "lower"),
    [
        ((10, 0, 5, 1), (9, 100, 0, 1)),  # score first
        ((-3, 20, 5, 1), (-3, 19, 0, 1)),  # then initiative as entered
        ((-300, -100, 0, 4), (-300, -100, 1, 1)),  # then the id's rank, then seq
        ((-300, -100, 3, 1), (-300, -100, 3, 2)),
        ((-5000, 100, 99, 4), (-5001, -100, 0, 1)),  # a score far below any everyday one still orders
    ],
)
def test_action_keys_sort_in_section_5s_order(higher, lower):
    assert action_key(*higher) < action_key(*lower)


def test_a_groups_members_play_one_delay_die_in_the_arena_as_in_resolve_round():
    """Three wolves of one pack, equal in all but id: with one shared die their first attacks share every
    round's first tick; the Arena's fights end as resolve_round's do."""
    wolves = tuple(Combatant(f"w{i}", 10, 12, 2, "dagger", vitality=30) for i in range(3))
    bear = Combatant("bear", 14, 14, 4, "battle_axe", attacks_per_round=2, vitality=60)
    setup = FightSetup((*wolves, bear), ("pack", "pack", "pack", "bear"), build_ruleset(), 1,
                       {w.id: "pack" for w in wolves})
    for played in play_rounds(setup, fight_seed(9, 0), 5):
        firsts = {a.tick for a in played.result.actions if a.actor.startswith("w") and a.seq == 1}
        assert len(firsts) <= 1 and "group:pack.initiative.1" in played.result.dice
    outcomes = [play_fight(setup, fight_seed(9, k), 30) for k in range(10)]
    assert outcomes == [play_fight_by_rounds(setup, fight_seed(9, k), 30) for k in range(10)]


def test_the_outcome_names_each_combatants_status():
    setup = FightSetup(
        (Combatant("a", 10, 30, 0, "halberd"), Combatant("b", 10, -50, 0, "dagger", vitality=1)),
        ("x", "y"),
        build_ruleset(),
        1,
    )
    outcome = play_fight(setup, fight_seed(1, 0), 50)
    assert outcome.winner == "x" and outcome.statuses[0] == "active" and outcome.statuses[1] in STATUSES[1:]
    assert isinstance(setup.arena, Arena)

"""The simulation and its tally, pure: no HTTP, no database, no processes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.odds.seeds import fight_seed, round_seed
from app.odds.simulate import FightSetup, declarations_for, play_fight, play_rounds
from app.odds.tally import OddsJob, Tally, play_chunk, play_fights, rounds_quantile, summarize, wilson
from app.resolver import DEFAULT_RULESET, Combatant
from app.resolver.model import Effect, EffectGiven, LongAction
from tests.resolver.test_purity import imported_modules

ODDS_DIR = Path(__file__).resolve().parents[2] / "app" / "odds"
PURE_MODULES = ("simulate", "tally", "replay", "arena", "seeds")


def duelist(cid: str, **fields) -> Combatant:
    return Combatant(cid, **{"initiative": 15, "attack": 16, "defense": 2, "weapon": "two_handed_sword", **fields})


def setup_of(*pairs: tuple[Combatant, str], first_round: int = 1) -> FightSetup:
    return FightSetup(tuple(c for c, _ in pairs), tuple(s for _, s in pairs), DEFAULT_RULESET, first_round)


EVEN_DUEL = setup_of((duelist("a"), "a"), (duelist("b"), "b"))


def is_pure_import(module: str) -> bool:
    if module.startswith("app.resolver") or module in {f"app.odds.{name}" for name in PURE_MODULES}:
        return True
    top = module.split(".")[0]
    return top in sys.stdlib_module_names and top != "random"


@pytest.mark.parametrize("name", PURE_MODULES)
def test_the_simulation_imports_only_the_standard_library_and_the_resolver(name):
    for module in imported_modules((ODDS_DIR / f"{name}.py").read_text(), f"app.odds.{name}"):
        assert is_pure_import(module), f"app/odds/{name}.py imports {module}"


def test_the_purity_check_catches_a_violation():
    source = "from app.db import AutocommitDatabase\nfrom .service import play\nimport random\n"
    assert [is_pure_import(m) for m in imported_modules(source, "app.odds.simulate")] == [False, False, False]


def test_an_even_duel_is_within_a_few_points_of_even():
    tally = play_fights(EVEN_DUEL, seed=11, first=0, count=4000, max_rounds=50)
    decided = tally.wins["a"] + tally.wins["b"]
    assert decided > 3600
    assert abs(tally.wins["a"] / decided - 0.5) < 0.03
    low, high = wilson(tally.wins["a"], tally.fights)
    assert low < (tally.fights - tally.draws) / 2 / tally.fights < high


def test_a_lopsided_fight_is_clearly_one_sided():
    knight = duelist("knight", attack=20, defense=8, armor=6)
    peasants = [(duelist(f"p{i}", attack=8, defense=0, weapon="dagger"), "peasants") for i in range(2)]
    tally = play_fights(setup_of((knight, "knight"), *peasants), seed=3, first=0, count=400, max_rounds=50)
    assert tally.wins["knight"] / tally.fights > 0.9
    assert wilson(tally.wins["peasants"], tally.fights)[1] < 0.1


def test_fights_split_any_way_give_the_same_tally():
    job = OddsJob(EVEN_DUEL.combatants, EVEN_DUEL.sides, {}, 1, 5, 30)
    whole = play_chunk(job, 0, 60)
    parts = Tally().merge(play_chunk(job, 0, 7)).merge(play_chunk(job, 7, 40)).merge(play_chunk(job, 47, 13))
    assert parts == whole
    assert summarize(EVEN_DUEL, parts, 5) == summarize(EVEN_DUEL, whole, 5)


def test_each_fight_has_its_own_seed_and_each_round_its_own():
    seeds = {fight_seed(7, k) for k in range(1000)}
    assert len(seeds) == 1000 and fight_seed(7, 0) != fight_seed(8, 0)
    assert len({round_seed(fight_seed(7, 0), r) for r in range(1, 201)}) == 200
    assert all(0 <= s < 2**53 for s in seeds)
    outcomes = {play_fight(EVEN_DUEL, fight_seed(7, k), 50) for k in range(40)}
    assert len(outcomes) > 1  # not the same fight forty times


def test_policy_every_active_combatant_attacks_one_standing_foe_balanced():
    a, b = duelist("a"), duelist("b")
    down = duelist("c", status="unconscious", blood=0)
    dead = duelist("d", status="dead", blood=-10)
    setup = setup_of((a, "x"), (b, "x"), (down, "y"), (dead, "y"), (duelist("e"), "y"))
    declarations = declarations_for(setup, setup.combatants, 1)
    assert [d.combatant for d in declarations] == ["a", "b", "e"]
    assert all(d.stance == "balanced" and len(d.action.targets) == 1 for d in declarations)
    assert declarations[2].action.targets[0] in ("a", "b")
    picked = {declarations_for(setup, setup.combatants, s)[0].action.targets[0] for s in range(60)}
    assert picked == {"c", "e"}  # unconscious ones may be picked, the dead never


def test_wilson_interval_matches_known_values():
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    low, high = wilson(0, 10)
    assert low == 0 and high == pytest.approx(0.2775, abs=1e-4)
    assert wilson(10, 10)[1] == 1.0


def test_rounds_quantiles_are_nearest_rank():
    from collections import Counter

    rounds = Counter({1: 5, 2: 4, 10: 1})
    assert rounds_quantile(rounds, 0.5) == 1
    assert rounds_quantile(rounds, 0.9) == 2
    assert rounds_quantile(Counter({3: 1, 4: 1}), 0.9) == 4


def test_a_carried_long_action_continues_and_completes_with_its_effect():
    blessing = LongAction("blessing", delay=2, rounds_left=1, effect=EffectGiven("blessed", attack=3, rounds=5))
    setup = setup_of((duelist("priest", long_action=blessing), "temple"), (duelist("brute"), "raiders"))
    played = list(play_rounds(setup, fight_seed(0, 0), 10))  # fight 0 of seed 0: the priest stays up
    first = played[0]
    assert [d.combatant for d in first.state.declarations] == ["brute"]  # the priest declares nothing
    entry = next(a for a in first.result.actions if a.actor == "priest")
    assert (entry.type, entry.name, entry.result) == ("continue", "blessing", "done")
    priest = first.after[0]
    assert priest.long_action is None and priest.status == "active"
    assert [(e.name, e.attack, e.until_round) for e in priest.effects] == [("blessed", 3, 6)]
    assert played[1].state.combatants[0].effects == priest.effects  # round 2 starts blessed
    assert [d.combatant for d in played[1].state.declarations] == ["priest", "brute"]  # now it attacks


def test_effects_carried_change_the_odds():
    blessed = duelist("a", effects=(Effect("blessed", attack=6, defense=6),))
    even = play_fights(EVEN_DUEL, seed=4, first=0, count=400, max_rounds=50)
    favoured = play_fights(setup_of((blessed, "a"), (duelist("b"), "b")), seed=4, first=0, count=400, max_rounds=50)
    assert favoured.wins["a"] / favoured.fights > even.wins["a"] / even.fights + 0.2


def test_a_poison_that_outlasts_the_fight_decides_it_at_the_turn_end():
    untouchable = {"defense": 100, "attack": -100}  # only natural ones hit
    poisoned = duelist("a", effects=(Effect("poison", blood_per_turn=25),), **untouchable)
    setup = setup_of((poisoned, "a"), (duelist("b", **untouchable), "b"))
    outcome = play_fight(setup, fight_seed(2, 0), 50)
    assert outcome.statuses[0] == "dead" and outcome.winner == "b" and outcome.rounds <= 10


def test_replay_bodies_carry_effects_and_long_actions_when_there_are_any():
    from app.odds.replay import fight_rounds

    blessing = LongAction("blessing", delay=2, rounds_left=1, effect=EffectGiven("blessed", attack=3, rounds=5))
    setup = setup_of((duelist("priest", long_action=blessing), "temple"), (duelist("brute"), "raiders"))
    bodies = [body for body, _ in fight_rounds(setup, {}, seed=0, fight=0, max_rounds=3)]
    priest, brute = bodies[0]["combatants"]
    assert priest["long_action"]["name"] == "blessing" and priest["effects"] == []
    assert "effects" not in brute and "long_action" not in brute
    assert bodies[1]["combatants"][0]["effects"][0]["name"] == "blessed"


def test_the_next_round_starts_from_what_the_resolver_reported():
    from dataclasses import fields

    from app.odds.simulate import play_rounds

    changed = ("status", "blood", "weapon_ready", "wounds", "effects", "long_action")  # RULES.md: what a round changes
    kept = ("id", "initiative", "attack", "defense", "weapon", "attacks_per_round", "damage_bonus", "armor",
            "toughness", "vitality")
    # simulate._with_state spells every field out: a new one must be added there too
    assert {f.name for f in fields(Combatant)} == set(changed + kept)
    setup = setup_of((duelist("a", armor="leather"), "a"), (duelist("b", effects=(Effect("cursed", attack=-1),)), "b"))
    for played in play_rounds(setup, fight_seed(9, 0), 30):
        for before, state, after in zip(played.state.combatants, played.result.combatants, played.after):
            for name in (f.name for f in fields(Combatant)):
                assert getattr(after, name) == getattr(state if name in changed else before, name), name

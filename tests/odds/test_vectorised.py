"""The vectorised engine plays the odds policy's fights side by side; resolve_round is the rules.

With the Arena's own dice (KeyedDraws: SeededDice with the resolver's keys, the rounds' target picks)
every fight of a batch must end exactly as the same fight played round by round through resolve_round:
winner, rounds, every combatant's status, on random encounters and rulesets (the Arena's property test's).
With its own dice (NumpyDraws, one seeded PCG64 stream) it must be deterministic and give the same
distribution as resolve_round: the share each side wins, compared over thousands of fights."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from app.odds.draws import KeyedDraws, NumpyDraws
from app.odds.seeds import fight_seed
from app.odds.simulate import FightSetup, play_fight_by_rounds
from app.odds.tally import Tally, play_fights, wilson
from app.odds.vectorised import VectorArena, playable, tally_of
from app.resolver import Combatant, build_ruleset
from app.resolver.ruleset import STATUSES
from tests.odds.test_arena import fights
from tests.resolver.test_properties import PROPERTY

FIGHTS = 6


@PROPERTY
@given(fights(), st.integers(0, 2**53 - 1), st.integers(1, 40))
def test_every_fight_ends_as_it_ends_through_resolve_round(fight, seed, max_rounds):
    setup, _ = fight
    assume(playable(setup))
    outcomes = VectorArena(setup).play(np.arange(FIGHTS), KeyedDraws(setup.arena, seed), max_rounds)
    names = setup.arena.side_names
    for k in range(FIGHTS):
        expected = play_fight_by_rounds(setup, fight_seed(seed, k), max_rounds)
        winner = int(outcomes.winner[k])
        assert (None if winner < 0 else names[winner]) == expected.winner, f"fight {k}"
        assert int(outcomes.rounds[k]) == expected.rounds, f"fight {k}"
        assert tuple(STATUSES[s] for s in outcomes.status[k]) == expected.statuses, f"fight {k}"


def skirmish(**rules) -> FightSetup:
    party = [Combatant("ala", 20, 14, 4, "long_sword", vitality=12, armor=2),
             Combatant("bolek", 18, 13, 5, "spear", vitality=12, wounds=(), blood=9)]  # fmt: skip
    bandits = [Combatant("cyryl", 22, 12, 3, "dagger", attacks_per_round=2, vitality=10),
               Combatant("dobromir", 16, 15, 4, "battle_axe", vitality=14, weapon_ready=False)]  # fmt: skip
    return FightSetup(tuple(party + bandits), ("party",) * 2 + ("bandits",) * 2, build_ruleset(rules), 1)


def numpy_tally(setup: FightSetup, fights: int, seed: int, max_rounds: int = 50) -> Tally:
    arena = VectorArena(setup)
    return tally_of(
        setup, arena.play(np.arange(fights), NumpyDraws(arena.n, setup.ruleset.delay_die, seed), max_rounds)
    )


def test_the_same_seed_gives_the_same_fights_and_another_seed_others():
    setup = skirmish()
    first, again, other = numpy_tally(setup, 500, 7), numpy_tally(setup, 500, 7), numpy_tally(setup, 500, 8)
    assert first == again
    assert first != other
    assert first.fights == 500 and sum(first.wins.values()) + first.draws == 500


@pytest.mark.parametrize("rules", [{}, {"turn_length": 2, "delay_die": 6}])
def test_its_own_dice_give_resolve_rounds_distribution(rules):
    """4,000 fights each way (resolve_round's, through the Arena it is proven equal to, and numpy's): every
    side's wins, every combatant's deaths and the median round agree within what chance allows (the two
    99.9% Wilson intervals overlap). Seeded: the verdict is the same on every run."""
    setup = skirmish(**rules)
    fights = 4000
    reference = play_fights(setup, 11, 0, fights, 50)
    ours = numpy_tally(setup, fights, 11)
    z = 3.29

    def overlap(a: int, b: int) -> bool:
        low_a, high_a = wilson(a, fights, z)
        low_b, high_b = wilson(b, fights, z)
        return low_a <= high_b and low_b <= high_a

    for side in ("party", "bandits"):
        assert overlap(reference.wins[side], ours.wins[side]), side
    assert overlap(reference.draws, ours.draws)
    for index in range(4):
        assert overlap(reference.dead[index], ours.dead[index]), index
        assert overlap(reference.unconscious[index], ours.unconscious[index]), index
    mean = lambda t: sum(r * n for r, n in t.rounds.items()) / fights  # noqa: E731
    assert abs(mean(reference) - mean(ours)) < 0.5


def test_a_decided_fight_plays_no_round_and_an_undecided_one_stops_at_max_rounds():
    setup = FightSetup(
        (Combatant("ala", 20, 14, 4, "long_sword"), Combatant("cyryl", 20, 14, 4, "long_sword", status="dead")),
        ("party", "bandits"), build_ruleset(), 1,
    )  # fmt: skip
    tally = numpy_tally(setup, 10, 1)
    assert tally.wins["party"] == 10 and tally.rounds == {0: 10}
    stalemate = skirmish(wound_classes=[{"class": "graze", "min": 999, "penalty": 0, "bleed": 0, "forces": None}])
    tally = numpy_tally(stalemate, 20, 1, max_rounds=3)
    assert tally.draws == 20 and tally.rounds == {3: 20}

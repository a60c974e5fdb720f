"""Where the vectorised engine's dice come from (vectorised.py): one round's dice for a batch of fights.

NumpyDraws, what a timeline point plays with: one PCG64 stream per batch, seeded. KeyedDraws, what the
tests play with: exactly the dice the Arena rolls (SeededDice with the resolver's keys, the round's target
picks), fight by fight, so a vectorised fight can be compared with the same fight through resolve_round.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt

from app.resolver.dice import SeededDice

from .arena import Arena
from .seeds import fight_seed, round_seed, target_picks

if TYPE_CHECKING:
    from .vectorised import Numbers

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]
D20 = 20


@dataclass(frozen=True, slots=True)
class RoundDraws:
    """One round's dice for a batch of fights: F fights, N combatants, A attacks at most, C damage dice."""

    picks: Floats  # (F, N) in [0, 1): the target among the standing foes, floor(pick × foes)
    delay: Ints  # (F, N, A) delay dice, 1..delay_die (a group's members share their first)
    d20: Ints  # (F, N, A)
    damage: Ints  # (F, N, A) the sum of each attack's damage dice


class Draws(Protocol):
    def round(self, number: int, fights: Ints) -> RoundDraws:
        """Round `number`'s dice for the fights numbered `fights` (their numbers in the request)."""
        ...


class NumpyDraws:
    """Every die from one PCG64 stream: deterministic for a seed (and the batch's shape, which is the
    caller's fixed choice), uniform on each die's faces as SeededDice is."""

    def __init__(self, numbers: Numbers, delay_die: int, seed: int) -> None:
        self.numbers = numbers
        self.delay_die = delay_die
        self.random = np.random.Generator(np.random.PCG64(seed))

    def round(self, number: int, fights: Ints) -> RoundDraws:
        n, shape = self.numbers, (len(fights), self.numbers.count, self.numbers.attacks_max)
        random = self.random
        # A die of k faces is floor(u × k) + 1 for a uniform double u: uniform within 2^-53 per face
        # (as SeededDice's multiply-shift is within 2^-64), and one draw of doubles costs less than bounded ints.
        picks = random.random(shape[:2])
        delay = (random.random(shape) * self.delay_die).astype(np.int64) + 1
        delay[:, :, 0] = delay[:, n.first_die_of, 0]
        d20 = (random.random(shape) * D20).astype(np.int64) + 1
        rolls = (random.random((*shape, n.dice_max)) * n.damage_sides[None, :, None, None]).astype(np.int64) + 1
        return RoundDraws(picks, delay, d20, (rolls * n.damage_used).sum(axis=3))


class KeyedDraws:
    """The Arena's own dice for fight k of a request with this seed (SeededDice, the resolver's keys, the
    round's target picks): slow, for the tests that hold this module to the Arena fight by fight."""

    def __init__(self, arena: Arena, seed: int) -> None:
        self.arena = arena
        self.seed = seed

    def round(self, number: int, fights: Ints) -> RoundDraws:
        arena, profiles = self.arena, self.arena.profiles
        count, attacks = len(profiles), max(p.attacks for p in profiles)
        picks = np.zeros((len(fights), count))
        delay = np.ones((len(fights), count, attacks), dtype=np.int64)
        d20 = np.ones_like(delay)
        damage = np.zeros_like(delay)
        for row, fight in enumerate(fights):
            seed = round_seed(fight_seed(self.seed, int(fight)), number)
            dice = SeededDice(seed)
            picks[row] = [word / 2**64 for word in target_picks(seed, count)[:count]]
            for p in profiles:
                for k in range(p.attacks):
                    delay[row, p.index, k] = dice.roll_encoded(p.initiative_keys[k], arena.delay_die)
                    d20[row, p.index, k] = dice.roll_encoded(p.attack_keys[k], D20)
                    damage[row, p.index, k] = sum(dice.roll_encoded(key, p.damage_sides) for key in p.damage_keys[k])
        return RoundDraws(picks, delay, d20, damage)

"""Dice sources: seeded dice addressed by key, fixed dice used as given, and the two mixed."""

from collections import Counter
from hashlib import blake2b

import pytest

from app.resolver import FixedDice, MissingDie, MixedDice, SeededDice

# Pinned values of the seeded algorithm. A stored round is replayed from its seed, so if any of
# these changes, every round ever stored would replay differently: that is a breaking change.
PINNED = [
    (0, "a.initiative.1", 10, 7),
    (12345, "ala.attack.1", 20, 11),
    (12345, "ala.damage.1", 8, 8),
    (2**53 - 1, "bolek.initiative.2", 6, 2),
    (42, "c.attack.3", 100, 89),
]

# Chi-square critical values at p = 0.001 by degrees of freedom (sides - 1). The seed is fixed,
# so each test is deterministic; the bound only says the fixed sample is a plausible uniform one.
CHI_SQUARE_999 = {5: 20.52, 9: 27.88, 19: 43.82}


@pytest.mark.parametrize(("seed", "key", "sides", "value"), PINNED)
def test_seeded_values_are_pinned(seed, key, sides, value):
    assert SeededDice(seed).roll(key, sides) == value


def test_seeded_many_dice_are_pinned():
    assert SeededDice(12345).roll_many("x.damage.1", 3, 6) == (6, 1, 4)
    assert SeededDice(7).roll_many("ala.damage.1", 4, 6) == (3, 1, 6, 6)


@pytest.mark.parametrize(("seed", "key", "sides", "value"), PINNED)
def test_seeded_values_follow_the_documented_derivation(seed, key, sides, value):
    """Keyed BLAKE2b-64 of key + index byte, seed as the key, mapped by multiply-shift: what a client replays."""
    digest = blake2b(key.encode() + bytes([0]), digest_size=8, key=seed.to_bytes(16, "big", signed=True)).digest()
    assert (int.from_bytes(digest, "big") * sides >> 64) + 1 == value


def test_the_same_seed_gives_the_same_rolls():
    keys = [f"c{i}.attack.1" for i in range(50)]
    first, second = SeededDice(99), SeededDice(99)
    assert [first.roll(key, 20) for key in keys] == [second.roll(key, 20) for key in keys]
    assert [first.roll(key, 20) for key in keys] != [SeededDice(100).roll(key, 20) for key in keys]


def test_seeded_dice_are_addressed_by_key_not_by_order():
    keys = ["a.initiative.1", "a.attack.1", "b.initiative.1", "b.attack.1"]
    forward, backward = SeededDice(5), SeededDice(5)
    in_order = {key: forward.roll(key, 20) for key in keys}
    reversed_order = {key: backward.roll(key, 20) for key in reversed(keys)}
    backward.roll("zz.attack.9", 20)  # an extra roll in between shifts nothing
    assert in_order == reversed_order == {key: backward.roll(key, 20) for key in keys}


def test_one_die_is_the_first_of_many_and_each_of_many_differs_by_index():
    dice = SeededDice(3)
    many = dice.roll_many("a.damage.1", 20, 100)
    assert many[0] == dice.roll("a.damage.1", 100)
    assert len(set(many)) > 10  # not one value repeated twenty times


@pytest.mark.parametrize("sides", [2, 3, 6, 7, 10, 20, 100])
def test_seeded_rolls_stay_within_1_to_sides(sides):
    dice = SeededDice(11)
    values = {dice.roll(f"c{i}.initiative.1", sides) for i in range(40 * sides)}
    assert values == set(range(1, sides + 1))


@pytest.mark.parametrize(("sides", "keys"), [(6, 6000), (10, 5000), (20, 20000)])
def test_seeded_rolls_are_roughly_uniform_over_keys(sides, keys):
    dice = SeededDice(20240601)
    counts = Counter(dice.roll(f"c{i}.attack.1", sides) for i in range(keys))
    expected = keys / sides
    chi_square = sum((counts[face] - expected) ** 2 / expected for face in range(1, sides + 1))
    assert chi_square < CHI_SQUARE_999[sides - 1]


@pytest.mark.parametrize(
    ("dice", "key", "sides", "value"),
    [
        ({"a.attack.1": 7}, "a.attack.1", 20, 7),
        ({"a.initiative.1": 10}, "a.initiative.1", 10, 10),
    ],
)
def test_fixed_dice_are_used_as_given(dice, key, sides, value):
    assert FixedDice(dice).roll(key, sides) == value


@pytest.mark.parametrize(
    ("dice", "key", "count", "values"),
    [
        ({"a.damage.1": [3, 4]}, "a.damage.1", 2, (3, 4)),
        ({"a.damage.1": (3, 4)}, "a.damage.1", 2, (3, 4)),
        ({"a.damage.1": 5}, "a.damage.1", 1, (5,)),  # a bare number for one die
    ],
)
def test_fixed_damage_dice_are_used_as_given(dice, key, count, values):
    assert FixedDice(dice).roll_many(key, count, 6) == values


@pytest.mark.parametrize("roll", [lambda d: d.roll("a.attack.1", 20), lambda d: d.roll_many("a.damage.1", 1, 8)])
def test_fixed_dice_refuse_a_die_nobody_supplied(roll):
    with pytest.raises(MissingDie) as missing:
        roll(FixedDice({"b.attack.1": 3}))
    assert [issue.field for issue in missing.value.issues] in (["/dice/a.attack.1"], ["/dice/a.damage.1"])
    assert FixedDice({}).seed is None


def test_mixed_dice_use_fixed_where_given_and_seeded_elsewhere():
    mixed = MixedDice({"a.attack.1": 20, "a.damage.1": [1, 2]}, seed=12345)
    seeded = SeededDice(12345)
    assert mixed.seed == 12345
    assert mixed.roll("a.attack.1", 20) == 20
    assert mixed.roll_many("a.damage.1", 2, 6) == (1, 2)
    assert mixed.roll("ala.attack.1", 20) == seeded.roll("ala.attack.1", 20) == 11
    assert mixed.roll_many("b.damage.1", 3, 6) == seeded.roll_many("b.damage.1", 3, 6)
    assert dict(mixed.given()) == {"a.attack.1": 20, "a.damage.1": (1, 2)}

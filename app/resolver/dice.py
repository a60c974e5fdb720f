"""Dice sources. The resolver never touches a global random: a source is injected.

Every die has a key (docs/rules.md: Replaying a round): `<combatant>.initiative.<k>`, `<combatant>.attack.<k>`,
`<combatant>.damage.<k>`. A seeded die is keyed BLAKE2b: die i of a key is
`1 + (BLAKE2b-64(key bytes + byte i, key=seed as 16 signed big-endian bytes) * sides >> 64)`,
so it is the same on every machine and Python version, and fixing one die never shifts another.
(The multiply-shift maps 64 bits onto the faces with a bias below sides / 2**64: none a table
could ever notice.)
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from hashlib import blake2b
from typing import Protocol, cast

from .errors import Issue, MissingDie

SEED_BOUNDS = (0, 2**53 - 1)  # JSON-safe for JavaScript clients, which read numbers as doubles

DieValue = int | tuple[int, ...]


class DiceSource(Protocol):
    seed: int | None

    def given(self) -> Mapping[str, object]:
        """Dice supplied by the caller, as sent: validate_round refuses any that is not a DieValue."""
        ...

    def roll(self, key: str, sides: int) -> int: ...

    def roll_many(self, key: str, count: int, sides: int) -> tuple[int, ...]: ...


def new_seed() -> int:
    """An unpredictable seed for a round whose caller sent none."""
    return secrets.randbelow(SEED_BOUNDS[1] + 1)


class SeededDice:
    """Uniform dice from a seed, addressed by key: stable across machines and versions."""

    def __init__(self, seed: int):
        self.seed = seed
        # Keying BLAKE2b hashes the key as a block of its own: do it once, then copy the state per die.
        self._keyed = blake2b(digest_size=8, key=seed.to_bytes(16, "big", signed=True))

    def given(self) -> Mapping[str, object]:
        return {}

    def roll(self, key: str, sides: int) -> int:
        return self.roll_encoded(key.encode() + b"\x00", sides)

    def roll_many(self, key: str, count: int, sides: int) -> tuple[int, ...]:
        prefix = key.encode()
        values = []
        for index in range(count):  # a plain loop: most damage is a single die, where a generator costs more
            values.append(self.roll_encoded(prefix + bytes((index,)), sides))
        return tuple(values)

    def roll_encoded(self, die: bytes, sides: int) -> int:
        """Die `die` (its key encoded, then its index as one byte): for a caller that encodes its keys once."""
        state = self._keyed.copy()
        state.update(die)
        return (int.from_bytes(state.digest(), "big") * sides >> 64) + 1


class FixedDice:
    """Dice a client rolled itself (a table with physical dice, a VTT). Nothing else.

    Values are kept as sent (typed `object`, not DieValue): validate_round must see a float or a
    boolean to refuse it, and the compiled resolver (scripts/compile-resolver) would raise a bare
    TypeError on one the moment it was stored under a narrower type."""

    seed = None

    def __init__(self, dice: Mapping[str, object]):
        self._dice = {key: tuple(value) if isinstance(value, (list, tuple)) else value for key, value in dice.items()}

    def given(self) -> Mapping[str, object]:
        return self._dice

    def _fixed(self, key: str) -> DieValue:
        try:
            return cast(DieValue, self._dice[key])  # validated before any die is rolled
        except KeyError:
            raise MissingDie([Issue(f"/dice/{key}", "this die is needed but was not supplied")]) from None

    def roll(self, key: str, sides: int) -> int:
        value = self._fixed(key)
        return value[0] if isinstance(value, tuple) else value

    def roll_many(self, key: str, count: int, sides: int) -> tuple[int, ...]:
        value = self._fixed(key)
        return value if isinstance(value, tuple) else (value,)


class MixedDice:
    """Fixed where given, seeded everywhere else: what the API uses."""

    def __init__(self, dice: Mapping[str, object], seed: int):
        self.seed = seed
        self._fixed = FixedDice(dice)
        self._given = self._fixed.given()
        self._seeded = SeededDice(seed)

    def given(self) -> Mapping[str, object]:
        return self._fixed.given()

    def roll(self, key: str, sides: int) -> int:
        source = self._fixed if key in self._given else self._seeded
        return source.roll(key, sides)

    def roll_many(self, key: str, count: int, sides: int) -> tuple[int, ...]:
        source = self._fixed if key in self._given else self._seeded
        return source.roll_many(key, count, sides)
